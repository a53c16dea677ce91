-- Dunning: charges (títulos) and the payments recorded against them.

-- +goose Up
CREATE TABLE dunning_charges (
    id                 TEXT PRIMARY KEY,
    organization_id    TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    debtor_id          TEXT NOT NULL REFERENCES dunning_debtors (id),
    -- The creditor's own id; NULL when none was given.
    external_id        TEXT,
    amount_cents       BIGINT NOT NULL,
    -- What is still owed of amount_cents (payments lower it).
    open_amount_cents  BIGINT NOT NULL,
    due_date           TEXT NOT NULL,
    description        TEXT NOT NULL,
    -- Late fine (once) and monthly interest, ten-thousandths of a percent.
    fine               INTEGER NOT NULL,
    interest           INTEGER NOT NULL,
    -- bank_billet, pix, invoice, external; origin_ref is its id there.
    origin             TEXT NOT NULL,
    origin_ref         TEXT,
    -- The boleto's digitable line (verified) and a payment link, when known.
    barcode            TEXT,
    payment_link       TEXT,
    tags               TEXT NOT NULL,
    custom_data        TEXT NOT NULL,
    status             TEXT NOT NULL CHECK (status IN ('pending', 'overdue', 'paid', 'canceled', 'written_off', 'in_agreement')),
    archived_at        {{timestamp}},
    overdue_at         {{timestamp}},
    paid_at            {{timestamp}},
    canceled_at        {{timestamp}},
    last_notified_at   {{timestamp}},
    created_at         {{timestamp}} NOT NULL,
    updated_at         {{timestamp}} NOT NULL
);
CREATE UNIQUE INDEX dunning_charges_external_id_key ON dunning_charges (organization_id, external_id) WHERE external_id IS NOT NULL;
CREATE INDEX dunning_charges_list ON dunning_charges (organization_id, status, due_date, id);
CREATE INDEX dunning_charges_debtor ON dunning_charges (organization_id, debtor_id, status);
-- The daily sweep: pending charges by due date, across organizations.
CREATE INDEX dunning_charges_sweep ON dunning_charges (status, due_date);

CREATE TABLE dunning_payments (
    id              TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL,
    charge_id       TEXT NOT NULL REFERENCES dunning_charges (id) ON DELETE CASCADE,
    amount_cents    BIGINT NOT NULL,
    paid_at         {{timestamp}} NOT NULL,
    -- pix, bank_billet, card, cash, transfer, other.
    method          TEXT NOT NULL,
    reference       TEXT,
    created_by      TEXT NOT NULL,
    created_at      {{timestamp}} NOT NULL
);
CREATE INDEX dunning_payments_charge ON dunning_payments (charge_id, paid_at);

-- +goose Down
DROP TABLE dunning_payments;
DROP TABLE dunning_charges;

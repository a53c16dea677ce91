-- Dunning, part 2: credit-bureau reports and notary protests (commands
-- sent to an outside party), agreements and their installments, and the
-- settings they read. Money is integer cents; percentages ten-thousandths
-- of a percent (2 % = 20000), as in dunning_charges.

-- +goose Up
-- Days a written prior notice (notification kind prior_notice) must
-- precede a credit-bureau report (CDC art. 43 §2).
ALTER TABLE dunning_settings ADD COLUMN prior_notice_days INTEGER NOT NULL DEFAULT 10;
-- The largest discount an agreement may give, of the debt's updated amount.
ALTER TABLE dunning_settings ADD COLUMN agreement_max_discount INTEGER NOT NULL DEFAULT 300000;
-- Days an agreement's installment may be late before the agreement breaks.
ALTER TABLE dunning_settings ADD COLUMN agreement_grace_days INTEGER NOT NULL DEFAULT 5;

-- One row per command: kind credit_report (provider serasa, boa_vista,
-- spc, quod) or protest (provider notary).
CREATE TABLE dunning_commands (
    id                  TEXT PRIMARY KEY,
    organization_id     TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    kind                TEXT NOT NULL CHECK (kind IN ('credit_report', 'protest')),
    charge_id           TEXT NOT NULL REFERENCES dunning_charges (id),
    debtor_id           TEXT NOT NULL REFERENCES dunning_debtors (id),
    provider            TEXT NOT NULL,
    status              TEXT NOT NULL CHECK (status IN ('requested', 'confirmed', 'failed', 'error',
                            'removal_requested', 'removed', 'cancel_requested', 'canceled')),
    -- What was reported: the charge's open amount when requested.
    amount_cents        BIGINT NOT NULL,
    -- The provider's id of the record (protocolo), once it answered.
    protocol            TEXT,
    error               TEXT,
    -- Why the way back was asked: paid, canceled, in_agreement, requested.
    exit_reason         TEXT,
    -- The removal must be done by this instant (five business days).
    exit_due_at         {{timestamp}},
    -- When the watch found the removal late (dunning.credit_report.removal_overdue).
    exit_overdue_at     {{timestamp}},
    -- A protest cancelled after payment: the settlement letter (anuência).
    consent_document_id TEXT,
    requested_at        {{timestamp}} NOT NULL,
    confirmed_at        {{timestamp}},
    failed_at           {{timestamp}},
    exit_requested_at   {{timestamp}},
    exited_at           {{timestamp}},
    created_by          TEXT NOT NULL,
    created_at          {{timestamp}} NOT NULL,
    updated_at          {{timestamp}} NOT NULL
);
-- At most one active command of a kind per charge: a second report of the
-- same charge finds this one.
CREATE UNIQUE INDEX dunning_commands_active ON dunning_commands (charge_id, kind)
    WHERE status IN ('requested', 'confirmed', 'removal_requested', 'cancel_requested');
CREATE INDEX dunning_commands_list ON dunning_commands (organization_id, kind, created_at, id);
-- The removal watch: commands on their way out, by deadline.
CREATE INDEX dunning_commands_exit ON dunning_commands (status, exit_due_at);

CREATE TABLE dunning_agreements (
    id                     TEXT PRIMARY KEY,
    organization_id        TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    debtor_id              TEXT NOT NULL REFERENCES dunning_debtors (id),
    status                 TEXT NOT NULL CHECK (status IN ('proposed', 'accepted', 'active', 'settled', 'broken', 'canceled')),
    -- The charges' updated amounts on the day proposed, the discount, what
    -- the debtor pays (total - discount = down payment + installments).
    original_cents         BIGINT NOT NULL,
    discount_cents         BIGINT NOT NULL,
    total_cents            BIGINT NOT NULL,
    down_payment_cents     BIGINT NOT NULL,
    installments           INTEGER NOT NULL,
    due_day                INTEGER NOT NULL,
    note                   TEXT NOT NULL,
    term_document_id       TEXT,
    created_by             TEXT NOT NULL,
    accepted_at            {{timestamp}},
    ended_at               {{timestamp}},
    end_reason             TEXT,
    created_at             {{timestamp}} NOT NULL,
    updated_at             {{timestamp}} NOT NULL
);
CREATE INDEX dunning_agreements_list ON dunning_agreements (organization_id, status, created_at, id);

-- The charges an agreement renegotiates, with what each owed then.
CREATE TABLE dunning_agreement_charges (
    agreement_id      TEXT NOT NULL REFERENCES dunning_agreements (id) ON DELETE CASCADE,
    charge_id         TEXT NOT NULL REFERENCES dunning_charges (id),
    open_cents        BIGINT NOT NULL,
    updated_cents     BIGINT NOT NULL,
    PRIMARY KEY (agreement_id, charge_id)
);
CREATE INDEX dunning_agreement_charges_charge ON dunning_agreement_charges (charge_id);

-- Number 0 is the down payment. Accepting makes each a charge (origin
-- agreement), paid through the charges' payments.
CREATE TABLE dunning_agreement_installments (
    agreement_id  TEXT NOT NULL REFERENCES dunning_agreements (id) ON DELETE CASCADE,
    number        INTEGER NOT NULL,
    amount_cents  BIGINT NOT NULL,
    due_date      TEXT NOT NULL,
    charge_id     TEXT REFERENCES dunning_charges (id),
    PRIMARY KEY (agreement_id, number)
);
CREATE INDEX dunning_agreement_installments_charge ON dunning_agreement_installments (charge_id);

-- +goose Down
DROP TABLE dunning_agreement_installments;
DROP TABLE dunning_agreement_charges;
DROP TABLE dunning_agreements;
DROP TABLE dunning_commands;
ALTER TABLE dunning_settings DROP COLUMN agreement_grace_days;
ALTER TABLE dunning_settings DROP COLUMN agreement_max_discount;
ALTER TABLE dunning_settings DROP COLUMN prior_notice_days;

-- Dunning: Pix received through the creditor's PSP webhook (the BCB API
-- Pix, docs/dunning.md "Dunning: Pix received through the PSP's webhook";
-- docs/decisions.md "Dunning: Pix webhook"). Every Pix the PSP reports is
-- kept, once per endToEndId: recorded as a payment of the charge its txid
-- names, or waiting for a person to assign it (unmatched, or the excess
-- above what the charge owed) — never lost.

-- +goose Up
-- The organization's webhook: the id in its URL names the organization
-- before the body is read; the secret (only its SHA-256 is kept)
-- authenticates a PSP without mutual TLS. A rotated secret keeps working
-- until previous_valid_until, so the PSP can be pointed at the new URL.
CREATE TABLE dunning_pix_webhooks (
    organization_id       TEXT PRIMARY KEY,
    id                    TEXT NOT NULL UNIQUE,
    secret_sha256         TEXT NOT NULL,
    previous_sha256       TEXT,
    previous_valid_until  {{timestamp}},
    created_at            {{timestamp}} NOT NULL,
    rotated_at            {{timestamp}} NOT NULL,
    rotated_by            TEXT NOT NULL
);
-- One row per Pix received (per organization and endToEndId: the PSP
-- retries, the UNIQUE constraint keeps one, whatever the replica).
CREATE TABLE dunning_pix_received (
    id               TEXT PRIMARY KEY,
    organization_id  TEXT NOT NULL,
    end_to_end_id    TEXT NOT NULL,
    -- As the PSP sent it; '' when it sent none.
    txid             TEXT NOT NULL,
    amount_cents     BIGINT NOT NULL,
    -- horario: when the Pix was paid (the payments' paid_at).
    paid_at          {{timestamp}} NOT NULL,
    -- infoPagador, the payer's free text.
    payer_note       TEXT NOT NULL,
    -- mtls or secret: how the PSP was authenticated.
    received_via     TEXT NOT NULL,
    -- The charge its txid named (matched), NULL when none.
    charge_id        TEXT,
    -- Recorded as payments (matched and assigned), and what waits for a
    -- person: amount_cents = applied_cents + unassigned_cents +
    -- dismissed_cents.
    applied_cents    BIGINT NOT NULL DEFAULT 0,
    unassigned_cents BIGINT NOT NULL,
    dismissed_cents  BIGINT NOT NULL DEFAULT 0,
    -- reconciled, unmatched, excess, assigned or dismissed.
    status           TEXT NOT NULL,
    -- Why it was not (wholly) recorded: txid_unknown, charge_not_found,
    -- charge_not_payable, paid_before_charge, excess; '' when it was.
    reason           TEXT NOT NULL,
    -- The person's last assignment or dismissal.
    resolved_by      TEXT,
    resolved_at      {{timestamp}},
    note             TEXT,
    received_at      {{timestamp}} NOT NULL,
    UNIQUE (organization_id, end_to_end_id)
);
CREATE INDEX dunning_pix_received_list ON dunning_pix_received (organization_id, unassigned_cents, received_at);

-- +goose Down
DROP TABLE dunning_pix_received;
DROP TABLE dunning_pix_webhooks;

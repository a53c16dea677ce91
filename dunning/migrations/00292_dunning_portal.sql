-- Dunning: the debtor page (docs/dunning.md "The debtor page"). A link to
-- it is signed, not stored: the row below only holds the debtor's link
-- generation, which a rotation raises so every older link stops working,
-- and its revocation (the debtor asked, or an admin cut the access).
-- Booleans are INTEGER 0/1; percentages ten-thousandths of a percent.

-- +goose Up
CREATE TABLE dunning_portal_links (
    organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    debtor_id       TEXT NOT NULL REFERENCES dunning_debtors (id) ON DELETE CASCADE,
    -- Links signed with another generation do not open the page.
    generation      INTEGER NOT NULL DEFAULT 0,
    -- Set: no link of the debtor opens the page until a rotation.
    revoked_at      {{timestamp}},
    revoked_by      TEXT,
    updated_at      {{timestamp}} NOT NULL,
    PRIMARY KEY (organization_id, debtor_id)
);
-- One row per accepted self-service form (its random id, signed in the
-- form): a second submission of the same form finds the agreement the
-- first made instead of making another.
CREATE TABLE dunning_portal_submissions (
    form_id         TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    debtor_id       TEXT NOT NULL,
    agreement_id    TEXT NOT NULL,
    created_at      {{timestamp}} NOT NULL
);
-- Days a portal link opens the page after it was made.
ALTER TABLE dunning_settings ADD COLUMN portal_link_days INTEGER NOT NULL DEFAULT 30;
-- Whether the page offers agreements the debtor accepts alone, and the
-- creditor's rules for them.
ALTER TABLE dunning_settings ADD COLUMN portal_agreements INTEGER NOT NULL DEFAULT 0;
ALTER TABLE dunning_settings ADD COLUMN portal_max_installments INTEGER NOT NULL DEFAULT 6;
-- The discount on fine and interest only (never on the open amount).
ALTER TABLE dunning_settings ADD COLUMN portal_max_discount INTEGER NOT NULL DEFAULT 0;
-- Days from the day of acceptance to the first installment's due date.
ALTER TABLE dunning_settings ADD COLUMN portal_first_due_days INTEGER NOT NULL DEFAULT 7;

-- +goose Down
ALTER TABLE dunning_settings DROP COLUMN portal_first_due_days;
ALTER TABLE dunning_settings DROP COLUMN portal_max_discount;
ALTER TABLE dunning_settings DROP COLUMN portal_max_installments;
ALTER TABLE dunning_settings DROP COLUMN portal_agreements;
ALTER TABLE dunning_settings DROP COLUMN portal_link_days;
DROP TABLE dunning_portal_submissions;
DROP TABLE dunning_portal_links;

-- Dunning: numbered pages seek under the page number instead of walking
-- every row before it (docs/decisions.md, "Numbered pages by remembered
-- marks").
--
-- v on the counter rows is the listings' version: every write of a charge
-- (debtor) adds one to the v of the counter row of its key, in the write's
-- transaction (SyncChargeCount, SyncDebtorCount), so the sum of an
-- organization's v grows with every committed write and never returns to
-- an earlier value. dunning_page_marks remembers, per organization, list
-- (table, filter and order) and position k, the id of the row just before
-- offset k × the stride, and the version it was read at; a page seeks
-- after the mark below it only while that version is still the sum.

-- +goose Up
ALTER TABLE dunning_charge_counts ADD COLUMN v BIGINT NOT NULL DEFAULT 0;
ALTER TABLE dunning_debtor_counts ADD COLUMN v BIGINT NOT NULL DEFAULT 0;
CREATE TABLE dunning_page_marks (
    organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    list            TEXT NOT NULL,
    position        BIGINT NOT NULL,
    version         BIGINT NOT NULL,
    row_id          TEXT NOT NULL,
    PRIMARY KEY (organization_id, list, position)
);

-- +goose Down
DROP TABLE dunning_page_marks;
ALTER TABLE dunning_debtor_counts DROP COLUMN v;
ALTER TABLE dunning_charge_counts DROP COLUMN v;

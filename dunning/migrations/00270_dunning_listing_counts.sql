-- Dunning: numbered listings keep their exact meta.total at any size
-- (docs/decisions.md, "Listings at scale").
--
-- dunning_charge_counts holds, per organization, archived or not, and
-- status, how many charges there are; dunning_debtor_counts the same per
-- debtor status. They change in the transaction of every write that
-- creates a charge or debtor or changes its status or archiving
-- (syncChargeCount, syncDebtorCount): each row remembers what it is
-- counted as (counted_status, counted_archived), so the write moves it
-- from that key to its current one under the row's own lock, whatever
-- the write was. The backfill counts what exists.
--
-- The charges' list reads the organization's live charges in the order
-- asked (due_date by default, amount, created_at, updated_at) with one
-- partial index per order, so its first page reads a page of index
-- entries instead of sorting every charge.

-- +goose Up
CREATE TABLE dunning_charge_counts (
    organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    archived        INTEGER NOT NULL,
    status          TEXT NOT NULL,
    n               BIGINT NOT NULL,
    PRIMARY KEY (organization_id, archived, status)
);
CREATE TABLE dunning_debtor_counts (
    organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    status          TEXT NOT NULL,
    n               BIGINT NOT NULL,
    PRIMARY KEY (organization_id, status)
);
ALTER TABLE dunning_charges ADD COLUMN counted_status TEXT;
ALTER TABLE dunning_charges ADD COLUMN counted_archived INTEGER;
ALTER TABLE dunning_debtors ADD COLUMN counted_status TEXT;
UPDATE dunning_charges SET counted_status = status, counted_archived = CASE WHEN archived_at IS NULL THEN 0 ELSE 1 END;
UPDATE dunning_debtors SET counted_status = status;
INSERT INTO dunning_charge_counts (organization_id, archived, status, n)
    SELECT organization_id, counted_archived, counted_status, COUNT(*) FROM dunning_charges GROUP BY organization_id, counted_archived, counted_status;
INSERT INTO dunning_debtor_counts (organization_id, status, n)
    SELECT organization_id, counted_status, COUNT(*) FROM dunning_debtors GROUP BY organization_id, counted_status;

CREATE INDEX dunning_charges_by_due ON dunning_charges (organization_id, due_date, id) WHERE archived_at IS NULL;
CREATE INDEX dunning_charges_by_amount ON dunning_charges (organization_id, amount_cents, id) WHERE archived_at IS NULL;
CREATE INDEX dunning_charges_by_created ON dunning_charges (organization_id, created_at, id) WHERE archived_at IS NULL;
CREATE INDEX dunning_charges_by_updated ON dunning_charges (organization_id, updated_at, id) WHERE archived_at IS NULL;

-- +goose Down
DROP INDEX dunning_charges_by_updated;
DROP INDEX dunning_charges_by_created;
DROP INDEX dunning_charges_by_amount;
DROP INDEX dunning_charges_by_due;
ALTER TABLE dunning_debtors DROP COLUMN counted_status;
ALTER TABLE dunning_charges DROP COLUMN counted_archived;
ALTER TABLE dunning_charges DROP COLUMN counted_status;
DROP TABLE dunning_debtor_counts;
DROP TABLE dunning_charge_counts;

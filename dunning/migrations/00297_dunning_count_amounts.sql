-- Dunning: the counters also hold what their charges still owe, so
-- dunning_me's open and overdue amounts read a few counter rows instead of
-- summing every open charge (docs/decisions.md, "Listings at scale").
--
-- cents is the sum of open_amount_cents of the charges counted under the
-- row's key; each charge remembers what it is counted with
-- (counted_cents), and SyncChargeCount moves the difference in the
-- write's transaction, as it moves n.

-- +goose Up
ALTER TABLE dunning_charge_counts ADD COLUMN cents BIGINT NOT NULL DEFAULT 0;
ALTER TABLE dunning_charges ADD COLUMN counted_cents BIGINT;
UPDATE dunning_charges SET counted_cents = open_amount_cents WHERE counted_status IS NOT NULL;
UPDATE dunning_charge_counts SET cents = COALESCE((SELECT SUM(c.counted_cents) FROM dunning_charges c
    WHERE c.organization_id = dunning_charge_counts.organization_id AND c.counted_archived = dunning_charge_counts.archived
    AND c.counted_status = dunning_charge_counts.status), 0);

-- +goose Down
ALTER TABLE dunning_charges DROP COLUMN counted_cents;
ALTER TABLE dunning_charge_counts DROP COLUMN cents;

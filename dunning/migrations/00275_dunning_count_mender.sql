-- Dunning: the counters of the numbered listings mend themselves
-- (docs/decisions.md, "Listings at scale"). A charge or debtor whose
-- status or archiving changed without syncChargeCount / syncDebtorCount —
-- a write site that forgot it, SQL run by hand, a bulk load — differs from
-- what it is counted as; these partial indexes hold exactly those rows
-- (none, normally), so the hourly mender finds them without reading the
-- table. The predicates are written the same way in count_mender.go, which
-- is how both engines' planners know the index answers the query.

-- +goose Up
CREATE INDEX dunning_charges_miscounted ON dunning_charges (id)
    WHERE counted_status IS NULL OR counted_status <> status OR counted_archived IS NULL
        OR counted_archived <> CASE WHEN archived_at IS NULL THEN 0 ELSE 1 END;
CREATE INDEX dunning_debtors_miscounted ON dunning_debtors (id)
    WHERE counted_status IS NULL OR counted_status <> status;

-- +goose Down
DROP INDEX dunning_debtors_miscounted;
DROP INDEX dunning_charges_miscounted;

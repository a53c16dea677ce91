-- Dunning: the charge's ledger (docs/decisions.md, "Payments"). A payment
-- is imputed first to the interest due, then to the fine, then to the
-- principal (Código Civil art. 354) unless the organization agreed
-- otherwise (payment_imputation = 'principal_first'). When a payment is
-- recorded, what accrued until its day is crystallised into the
-- charge's unpaid fine and interest; interest then accrues on the
-- principal left (open_amount_cents) from accrual_from. Existing charges
-- have nothing crystallised, so their amounts compute exactly as before.

-- +goose Up
-- Fine and interest assessed and still unpaid, in cents.
ALTER TABLE dunning_charges ADD COLUMN fine_due_cents INTEGER NOT NULL DEFAULT 0;
ALTER TABLE dunning_charges ADD COLUMN interest_due_cents INTEGER NOT NULL DEFAULT 0;
-- 1 once the one-time fine was assessed (it is never charged twice).
ALTER TABLE dunning_charges ADD COLUMN fine_assessed INTEGER NOT NULL DEFAULT 0;
-- The day (YYYY-MM-DD) interest accrues from; NULL: the due date.
ALTER TABLE dunning_charges ADD COLUMN accrual_from TEXT;
-- How each payment was imputed. Payments recorded before this migration
-- were applied to the principal (the rule then), which is what they say.
ALTER TABLE dunning_payments ADD COLUMN applied_interest_cents INTEGER NOT NULL DEFAULT 0;
ALTER TABLE dunning_payments ADD COLUMN applied_fine_cents INTEGER NOT NULL DEFAULT 0;
ALTER TABLE dunning_payments ADD COLUMN applied_principal_cents INTEGER NOT NULL DEFAULT 0;
UPDATE dunning_payments SET applied_principal_cents = amount_cents;
-- interest_first (CC art. 354, the default) or principal_first.
ALTER TABLE dunning_settings ADD COLUMN payment_imputation TEXT NOT NULL DEFAULT 'interest_first';
-- Fine or interest forgiven, an act of its own (dunning_charges_waive).
CREATE TABLE dunning_charge_waivers (
    id TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL,
    charge_id TEXT NOT NULL REFERENCES dunning_charges(id) ON DELETE CASCADE,
    fine_cents INTEGER NOT NULL,
    interest_cents INTEGER NOT NULL,
    reason TEXT NOT NULL,
    created_by TEXT NOT NULL,
    created_at {{timestamp}} NOT NULL
);
CREATE INDEX dunning_charge_waivers_charge ON dunning_charge_waivers (organization_id, charge_id, created_at);

-- +goose Down
DROP TABLE dunning_charge_waivers;
ALTER TABLE dunning_settings DROP COLUMN payment_imputation;
ALTER TABLE dunning_payments DROP COLUMN applied_principal_cents;
ALTER TABLE dunning_payments DROP COLUMN applied_fine_cents;
ALTER TABLE dunning_payments DROP COLUMN applied_interest_cents;
ALTER TABLE dunning_charges DROP COLUMN accrual_from;
ALTER TABLE dunning_charges DROP COLUMN fine_assessed;
ALTER TABLE dunning_charges DROP COLUMN interest_due_cents;
ALTER TABLE dunning_charges DROP COLUMN fine_due_cents;

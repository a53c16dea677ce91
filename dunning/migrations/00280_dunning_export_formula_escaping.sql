-- Dunning: exports safe to open (docs/decisions.md "Exports safe to
-- open"). An export's cells a spreadsheet would evaluate as a formula are
-- written as text ('quote', the default); 'none' writes them verbatim, an
-- unsafe choice the request names.

-- +goose Up
ALTER TABLE dunning_exports ADD COLUMN formula_escaping TEXT NOT NULL DEFAULT 'quote' CHECK (formula_escaping IN ('quote', 'none'));

-- +goose Down
ALTER TABLE dunning_exports DROP COLUMN formula_escaping;

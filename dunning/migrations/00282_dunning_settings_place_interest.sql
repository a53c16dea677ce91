-- Dunning: where the organization is, for its state's and city's bank
-- holidays (dunning/calendar's holidays_br.json), and the interest cap of
-- its company (CNPJ) charges, which Lei 14.905/2024 art. 3º frees from the
-- Lei de Usura; a natural person's stays 1 % a month by law
-- (docs/decisions.md, "Dunning: calendar and caps"). Percentages are
-- ten-thousandths of a percent (1 % = 10000).

-- +goose Up
-- Two-letter state (UF), '' for none: national holidays only.
ALTER TABLE dunning_settings ADD COLUMN state TEXT NOT NULL DEFAULT '';
-- The city's IBGE code (7 digits), '' for none; only with a state.
ALTER TABLE dunning_settings ADD COLUMN city TEXT NOT NULL DEFAULT '';
-- Monthly interest cap of company charges; 1 % until the organization
-- raises it.
ALTER TABLE dunning_settings ADD COLUMN company_interest_cap INTEGER NOT NULL DEFAULT 10000;

-- +goose Down
ALTER TABLE dunning_settings DROP COLUMN company_interest_cap;
ALTER TABLE dunning_settings DROP COLUMN city;
ALTER TABLE dunning_settings DROP COLUMN state;

-- Dunning: the creditor's Pix key, for the BR Code every reminder about a
-- charge carries (docs/decisions.md "Dunning: Pix BR Code"). '' for none:
-- then the Pix variables render empty.

-- +goose Up
-- The key as DICT holds it (brazil.NormalizePixKey) and its type: cpf,
-- cnpj, email, phone or evp.
ALTER TABLE dunning_creditors ADD COLUMN pix_key TEXT NOT NULL DEFAULT '';
ALTER TABLE dunning_creditors ADD COLUMN pix_key_type TEXT NOT NULL DEFAULT '';
-- The BR Code's merchant name (25) and city (15), upper-case ASCII; ''
-- derives them from the legal name and the address's city when used.
ALTER TABLE dunning_creditors ADD COLUMN pix_merchant_name TEXT NOT NULL DEFAULT '';
ALTER TABLE dunning_creditors ADD COLUMN pix_merchant_city TEXT NOT NULL DEFAULT '';
-- The Pix code an e-mail carries, whose QR the send attaches inline
-- (multipart/related); NULL for a message without one.
ALTER TABLE dunning_notifications ADD COLUMN pix_payload TEXT;

-- +goose Down
ALTER TABLE dunning_notifications DROP COLUMN pix_payload;
ALTER TABLE dunning_creditors DROP COLUMN pix_merchant_city;
ALTER TABLE dunning_creditors DROP COLUMN pix_merchant_name;
ALTER TABLE dunning_creditors DROP COLUMN pix_key_type;
ALTER TABLE dunning_creditors DROP COLUMN pix_key;

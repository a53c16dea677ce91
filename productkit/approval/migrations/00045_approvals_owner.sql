-- Approvals a product asks for itself (productkit/approval Policy.Request):
-- not a destructive MCP call made by a client, but a call the product is
-- about to make on a person's behalf (a Kadu execution's destructive
-- step). The same page shows the exact tool and arguments, with Continuar
-- and Cancelar; the decision goes back to the product (the owner's
-- handler, named here), which makes the call itself, exactly once.
--
-- owner     '' for an MCP call (Continuar runs the stored tool); otherwise
--           the name of the handler the product registered.
-- owner_ref what the owner's approval is about (a Kadu execution's id).

-- +goose Up
ALTER TABLE approvals ADD COLUMN owner TEXT NOT NULL DEFAULT '';
ALTER TABLE approvals ADD COLUMN owner_ref TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE approvals DROP COLUMN owner_ref;
ALTER TABLE approvals DROP COLUMN owner;

-- The client's own name and version, as the destructive MCP call carried
-- them in its request envelope (io.modelcontextprotocol/clientInfo, the
-- 2026-07-28 era; 2025 clients send none per request). Self-declared, so
-- the approval page shows them beside the OAuth client's registered name,
-- never instead of it. '' when the call carried none. Stored cleaned and
-- bounded (productkit/approval cleanClientInfo).

-- +goose Up
ALTER TABLE approvals ADD COLUMN client_info_name TEXT NOT NULL DEFAULT '';
ALTER TABLE approvals ADD COLUMN client_info_version TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE approvals DROP COLUMN client_info_version;
ALTER TABLE approvals DROP COLUMN client_info_name;

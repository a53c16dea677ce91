-- Kobana Autonomous Inbox: emails_list reads a page in index order at any
-- size (docs/decisions.md, "Listings at scale"). The listing is newest
-- first by (received_at, id) — id breaks ties between the copies of one
-- message delivered to several inboxes — and continues after the last
-- row by that pair (keyset), so received_from / received_to are a range
-- of the same order instead of a filter over every row.
--
-- One index per combination of the equality filters (none, status,
-- inbox, inbox and status), each leading with the workspace so SQLite's
-- planner, which has no statistics, prefers the one with the most
-- equalities. The three indexes of 00110 ordered by id only; the listing
-- was their only reader.

-- +goose Up
CREATE INDEX emails_list_idx ON emails (organization_id, workspace_id, received_at, id);
CREATE INDEX emails_list_status_idx ON emails (organization_id, workspace_id, status, received_at, id);
CREATE INDEX emails_list_inbox_idx ON emails (organization_id, workspace_id, inbox_id, received_at, id);
CREATE INDEX emails_list_inbox_status_idx ON emails (organization_id, workspace_id, inbox_id, status, received_at, id);
DROP INDEX emails_workspace_idx;
DROP INDEX emails_inbox_idx;
DROP INDEX emails_status_idx;

-- +goose Down
CREATE INDEX emails_workspace_idx ON emails (organization_id, workspace_id, id);
CREATE INDEX emails_inbox_idx ON emails (organization_id, inbox_id, id);
CREATE INDEX emails_status_idx ON emails (organization_id, workspace_id, status, id);
DROP INDEX emails_list_inbox_status_idx;
DROP INDEX emails_list_inbox_idx;
DROP INDEX emails_list_status_idx;
DROP INDEX emails_list_idx;

-- Kadu: business-day schedules (docs/kadu.md "Business-day schedules").

-- +goose Up
-- The schedule's business-day rule, beside its cron: NULL or '' for plain
-- cron; 'only' (ticks on closed days skipped), 'next' (moved to the next
-- business day), 'nth:N' (the Nth business day of the month), 'last'.
ALTER TABLE kadu_tasks ADD COLUMN schedule_business_day TEXT;
-- An organization's Kadu calendar: the place whose state and city
-- holidays close its days (platform/bankcalendar's table) and its own
-- closed days, JSON [{"date": "2026-07-09", "name": "…"}]. No row: the
-- national bank calendar alone.
CREATE TABLE kadu_calendars (
    organization_id TEXT PRIMARY KEY REFERENCES organizations (id) ON DELETE CASCADE,
    state           TEXT NOT NULL,
    city            TEXT NOT NULL,
    closed_days     TEXT NOT NULL,
    updated_at      {{timestamp}} NOT NULL
);

-- +goose Down
DROP TABLE kadu_calendars;
ALTER TABLE kadu_tasks DROP COLUMN schedule_business_day;

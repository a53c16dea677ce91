-- Dunning (versions 200–299): each organization's collection settings and
-- its debtors. JSON is TEXT; booleans are INTEGER 0/1; money is integer
-- cents (BIGINT); percentages are basis points of a percent ×100
-- (ten-thousandths: 2 % = 200); calendar dates are TEXT 'YYYY-MM-DD'.

-- +goose Up
CREATE TABLE dunning_settings (
    organization_id   TEXT PRIMARY KEY REFERENCES organizations (id) ON DELETE CASCADE,
    -- IANA zone the plans' send times and the daily sweep run in.
    timezone          TEXT NOT NULL,
    -- Messages go out only between quiet_end and quiet_start ('HH:MM').
    quiet_start       TEXT NOT NULL,
    quiet_end         TEXT NOT NULL,
    -- Days after the due date before a pending charge turns overdue.
    grace_days        INTEGER NOT NULL,
    -- JSON object channel → {"enabled":bool,"provider":"outbox|smtp|twilio"}.
    channels          TEXT NOT NULL,
    -- Fine cap for companies (CNPJ debtors), ten-thousandths of a percent.
    company_fine_cap  INTEGER NOT NULL,
    -- JSON array of extra closed days ('YYYY-MM-DD') of the organization's city.
    closed_days       TEXT NOT NULL,
    updated_at        {{timestamp}} NOT NULL
);

CREATE TABLE dunning_debtors (
    id              TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    external_id     TEXT NOT NULL,
    name            TEXT NOT NULL,
    -- CPF or CNPJ, digits (and the 2026 CNPJ's letters) only.
    document        TEXT NOT NULL,
    -- natural (CPF) or juridical (CNPJ), from the document.
    person_kind     TEXT NOT NULL CHECK (person_kind IN ('natural', 'juridical')),
    -- JSON arrays of strings: e-mail addresses, E.164 phone numbers.
    emails          TEXT NOT NULL,
    phones          TEXT NOT NULL,
    -- JSON object (street, number, complement, district, city, state, zip) or NULL.
    address         TEXT,
    status          TEXT NOT NULL CHECK (status IN ('active', 'archived')),
    created_at      {{timestamp}} NOT NULL,
    updated_at      {{timestamp}} NOT NULL,
    archived_at     {{timestamp}}
);
CREATE UNIQUE INDEX dunning_debtors_external_id_key ON dunning_debtors (organization_id, external_id);
CREATE INDEX dunning_debtors_document ON dunning_debtors (organization_id, document);
CREATE INDEX dunning_debtors_list ON dunning_debtors (organization_id, status, name, id);

-- A debtor opted out of a channel is never contacted on it.
CREATE TABLE dunning_opt_outs (
    debtor_id       TEXT NOT NULL REFERENCES dunning_debtors (id) ON DELETE CASCADE,
    organization_id TEXT NOT NULL,
    channel         TEXT NOT NULL CHECK (channel IN ('email', 'sms', 'whatsapp')),
    -- Why: "unsubscribe link", "STOP reply", "asked by phone"…
    reason          TEXT NOT NULL,
    -- Who recorded it: "debtor" (a link or reply) or a user id.
    source          TEXT NOT NULL,
    created_at      {{timestamp}} NOT NULL,
    PRIMARY KEY (debtor_id, channel)
);

-- +goose Down
DROP TABLE dunning_opt_outs;
DROP TABLE dunning_debtors;
DROP TABLE dunning_settings;

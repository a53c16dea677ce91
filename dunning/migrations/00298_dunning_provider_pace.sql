-- Dunning: each channel provider's own send rate, held across every
-- worker process (docs/decisions.md "The step runner at scale"). One row
-- per paced provider: the earliest instant, in microseconds since the
-- Unix epoch, at which its next message may start. A send reserves its
-- slot by moving it one interval on, the row locked.

-- +goose Up
CREATE TABLE dunning_provider_pace (
    provider TEXT PRIMARY KEY,
    next_us  BIGINT NOT NULL
);

-- +goose Down
DROP TABLE dunning_provider_pace;

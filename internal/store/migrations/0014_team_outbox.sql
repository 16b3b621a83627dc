-- Records waiting to be published to the team store: written in the same
-- process as the record, sent in the background, deleted once the team
-- store has them (publishing is idempotent by the record's key, so one
-- sent twice after a failure is stored once).
CREATE TABLE team_outbox (
	record_id  INTEGER PRIMARY KEY,
	queued_at  INTEGER NOT NULL,
	attempts   INTEGER NOT NULL DEFAULT 0,
	last_error TEXT NOT NULL DEFAULT ''
);

-- Artifacts waiting to be published to the team store, by key: a put
-- queues its artifact, and the publisher sends every slice it holds then
-- (many puts of one artifact's slices are one entry). Deleted once sent.
CREATE TABLE team_artifact_outbox (
	repo       TEXT NOT NULL,
	ref        TEXT NOT NULL,
	type       TEXT NOT NULL,
	key        TEXT NOT NULL,
	queued_at  INTEGER NOT NULL,
	attempts   INTEGER NOT NULL DEFAULT 0,
	last_error TEXT NOT NULL DEFAULT '',
	PRIMARY KEY (repo, ref, type, key)
) STRICT;

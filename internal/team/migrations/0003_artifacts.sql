-- Artifacts a team shares: every slice of one artifact with the SHA-256 of
-- each input it was derived from (and for a repo map the tree and the set
-- of files), so that a teammate's artifact is a hit only where the work
-- tree holds those bytes. The id is the SHA-256 of all of it: publishing
-- the same artifact again stores nothing new.
CREATE TABLE IF NOT EXISTS team_artifacts (
	id          text PRIMARY KEY,
	repo_id     text NOT NULL,
	type        text NOT NULL,
	key         text NOT NULL,
	commit      text NOT NULL DEFAULT '',
	tree        text NOT NULL DEFAULT '',
	slices      jsonb NOT NULL,     -- [{"slice","path_set","inputs":[{"path","sha256"}],…,"content_sha256"}]
	contents    bytea[] NOT NULL,   -- the slices' contents, in the same order, redacted
	bytes       bigint NOT NULL,
	author      text NOT NULL,
	machine     text NOT NULL,
	ci          boolean NOT NULL DEFAULT false,
	created_at  timestamptz NOT NULL,
	published_at timestamptz NOT NULL DEFAULT now(),
	signature   text NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS team_artifacts_key ON team_artifacts (repo_id, type, key, created_at DESC);

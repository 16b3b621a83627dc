-- The records a team shares: what a command printed (redacted), its
-- summary, and the SHA-256 of every file it named, so that a teammate's
-- record is labelled by the bytes of my work tree.
CREATE TABLE IF NOT EXISTS team_records (
	key         text PRIMARY KEY,   -- idempotent: the publisher's store and record
	repo_id     text NOT NULL,      -- the repository, the same in every clone
	command     text NOT NULL,
	label       text NOT NULL DEFAULT '',
	exit_code   integer,
	intent      text NOT NULL DEFAULT '',
	summary     text NOT NULL,      -- the digest the model reads
	raw         bytea NOT NULL,     -- the whole output, redacted (empty over the size limit)
	files       jsonb NOT NULL,     -- [{"path","sha256","size","existed"}]
	commit      text NOT NULL DEFAULT '',
	branch      text NOT NULL DEFAULT '',
	author      text NOT NULL,
	machine     text NOT NULL,
	ci          boolean NOT NULL DEFAULT false,
	created_at  timestamptz NOT NULL,
	published_at timestamptz NOT NULL DEFAULT now(),
	signature   text NOT NULL DEFAULT '',
	search      tsvector GENERATED ALWAYS AS (
		to_tsvector('simple', command || ' ' || label || ' ' || summary)) STORED
);
CREATE INDEX IF NOT EXISTS team_records_search ON team_records USING gin (search);
CREATE INDEX IF NOT EXISTS team_records_repo ON team_records (repo_id, created_at DESC);

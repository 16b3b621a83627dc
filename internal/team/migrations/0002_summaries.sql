-- File summaries a team shares, each of the exact bytes it describes: a
-- teammate's registry takes one only for a file whose bytes hash the same.
CREATE TABLE IF NOT EXISTS team_summaries (
	repo_id    text NOT NULL,
	path       text NOT NULL,
	sha256     text NOT NULL,
	summary    text NOT NULL,
	author     text NOT NULL,
	machine    text NOT NULL,
	ci         boolean NOT NULL DEFAULT false,
	created_at timestamptz NOT NULL,
	signature  text NOT NULL DEFAULT '',
	PRIMARY KEY (repo_id, path, sha256)
);

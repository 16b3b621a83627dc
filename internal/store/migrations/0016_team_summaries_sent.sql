-- The summaries this store gave the team store, by the bytes they
-- describe: each is sent once.
CREATE TABLE team_summaries_sent (
	path   TEXT NOT NULL,
	sha256 TEXT NOT NULL,
	PRIMARY KEY (path, sha256)
) WITHOUT ROWID;

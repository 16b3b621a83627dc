-- The file registry (seed 002): one row per file of a work tree, keyed by
-- the workspace root, with its digest and an agent-written summary that is
-- kept (flagged stale) when the file changes.
CREATE TABLE registry_files (
  root               TEXT NOT NULL,
  path               TEXT NOT NULL,
  digest             TEXT NOT NULL,           -- SHA-256 of the content now
  size               INTEGER NOT NULL,
  lang               TEXT NOT NULL,
  worktree           INTEGER NOT NULL DEFAULT 0, -- git saw it modified or untracked when hashed
  summary            TEXT,                    -- NULL until an agent writes one
  summary_stale      INTEGER NOT NULL DEFAULT 0,
  summary_updated_at INTEGER,                 -- unix ns
  digest_at_summary  TEXT,                    -- the content the summary describes
  summary_blob       TEXT REFERENCES blobs(digest), -- that content, to measure drift
  lines_added        INTEGER NOT NULL DEFAULT 0,    -- since the summary
  lines_removed      INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (root, path)
) STRICT, WITHOUT ROWID;
CREATE INDEX registry_files_worktree ON registry_files(root) WHERE worktree = 1;
CREATE INDEX registry_files_summary_blob ON registry_files(summary_blob);

-- Files the registry leaves out, and why.
CREATE TABLE registry_skipped (
  root   TEXT NOT NULL,
  path   TEXT NOT NULL,
  reason TEXT NOT NULL,
  PRIMARY KEY (root, path)
) STRICT, WITHOUT ROWID;

CREATE TABLE registry_state (
  root              TEXT PRIMARY KEY,
  last_verified_sha TEXT NOT NULL,
  verified_clean    INTEGER NOT NULL,  -- the tree was clean when verified
  verified_at       INTEGER NOT NULL
) STRICT;

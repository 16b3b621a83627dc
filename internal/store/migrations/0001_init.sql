-- Records: one captured command run (or stdin capture) each.
CREATE TABLE blobs (
  digest      TEXT PRIMARY KEY,          -- SHA-256 of the raw bytes, hex
  size        INTEGER NOT NULL,          -- raw bytes
  stored_size INTEGER NOT NULL,          -- compressed bytes on disk
  created_at  INTEGER NOT NULL           -- unix ns
) STRICT;

CREATE TABLE records (
  id             INTEGER PRIMARY KEY AUTOINCREMENT,
  kind           TEXT NOT NULL CHECK (kind IN ('run', 'capture')),
  command        TEXT NOT NULL,          -- display form of the command line
  argv           TEXT NOT NULL,          -- JSON array, empty for capture
  root           TEXT NOT NULL,          -- absolute workspace root at capture
  cwd            TEXT NOT NULL,          -- root-relative working directory
  label          TEXT NOT NULL DEFAULT '',
  intent         TEXT NOT NULL,
  compressor     TEXT NOT NULL,
  exit_code      INTEGER,                -- NULL for capture
  started_at     INTEGER NOT NULL,       -- unix ns
  duration_ms    INTEGER NOT NULL,
  stdout_blob    TEXT REFERENCES blobs(digest),
  stderr_blob    TEXT REFERENCES blobs(digest),
  stdout_bytes   INTEGER NOT NULL,
  stderr_bytes   INTEGER NOT NULL,
  raw_tokens     INTEGER NOT NULL,
  raw_tokens_exact INTEGER NOT NULL,
  digest         TEXT NOT NULL,
  digest_tokens  INTEGER NOT NULL,
  omitted        TEXT NOT NULL DEFAULT '', -- what --max-tokens left out
  git_repo_id    TEXT NOT NULL DEFAULT '',
  git_branch     TEXT NOT NULL DEFAULT '',
  git_head       TEXT NOT NULL DEFAULT '',
  git_tree       TEXT NOT NULL DEFAULT '',
  git_dirty      INTEGER NOT NULL DEFAULT 0,
  is_git         INTEGER NOT NULL DEFAULT 0,
  stamped_at     INTEGER NOT NULL        -- unix ns, when files were stamped
) STRICT;
CREATE INDEX records_started ON records(started_at);
CREATE INDEX records_stdout ON records(stdout_blob);
CREATE INDEX records_stderr ON records(stderr_blob);

-- The freshness stamp of every file a record references.
CREATE TABLE record_files (
  record_id  INTEGER NOT NULL REFERENCES records(id) ON DELETE CASCADE,
  path       TEXT NOT NULL,              -- root-relative, slash-separated
  existed    INTEGER NOT NULL,
  is_dir     INTEGER NOT NULL,
  size       INTEGER NOT NULL,
  mtime_ns   INTEGER NOT NULL,
  sha256     TEXT NOT NULL,              -- '' when not hashed
  git_clean  INTEGER NOT NULL,           -- tracked and clean at capture
  PRIMARY KEY (record_id, path)
) STRICT;
CREATE INDEX record_files_path ON record_files(path);

-- Stat cache: lets an unchanged file skip hashing (see package freshness).
CREATE TABLE stat_cache (
  root        TEXT NOT NULL,
  path        TEXT NOT NULL,
  size        INTEGER NOT NULL,
  mtime_ns    INTEGER NOT NULL,
  ctime_ns    INTEGER NOT NULL,
  inode       INTEGER NOT NULL,
  mode        INTEGER NOT NULL,
  sha256      TEXT NOT NULL,
  recorded_ns INTEGER NOT NULL,
  PRIMARY KEY (root, path)
) STRICT, WITHOUT ROWID;

CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;

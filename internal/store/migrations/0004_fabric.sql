-- The artifact cache ("fabric", seed 001): derived artifacts keyed by
-- (repo, ref, type, key), each slice with its own provenance and inputs.
CREATE TABLE artifacts (
  id                 INTEGER PRIMARY KEY,
  repo               TEXT NOT NULL,     -- repository id (root commit), or "path:ROOT" outside git
  ref                TEXT NOT NULL,     -- branch, or the commit when detached
  type               TEXT NOT NULL,
  key                TEXT NOT NULL,
  slice              TEXT NOT NULL DEFAULT '',
  root               TEXT NOT NULL,
  commit_sha         TEXT NOT NULL,
  tree               TEXT NOT NULL,
  tree_clean         INTEGER NOT NULL,  -- the work tree matched the tree at put
  path_set           TEXT NOT NULL DEFAULT '', -- digest of the file list, for repo_map
  agent_version      TEXT NOT NULL DEFAULT '',
  config_digest      TEXT NOT NULL DEFAULT '',
  policy_digest      TEXT NOT NULL DEFAULT '',
  entitlement_digest TEXT NOT NULL DEFAULT '',
  ttl_ns             INTEGER NOT NULL DEFAULT 0,   -- 0: none
  producer           TEXT NOT NULL DEFAULT '',
  created_at         INTEGER NOT NULL,
  stamped_at         INTEGER NOT NULL,
  content            BLOB,              -- small contents, inline
  content_blob       TEXT REFERENCES blobs(digest), -- larger ones
  content_size       INTEGER NOT NULL,
  invalidated        INTEGER NOT NULL DEFAULT 0,
  UNIQUE (repo, ref, type, key, slice)
) STRICT;
CREATE INDEX artifacts_lookup ON artifacts(repo, type, key, tree);
CREATE INDEX artifacts_blob ON artifacts(content_blob);

CREATE TABLE artifact_deps (
  artifact_id INTEGER NOT NULL REFERENCES artifacts(id) ON DELETE CASCADE,
  path        TEXT NOT NULL,
  existed     INTEGER NOT NULL,
  is_dir      INTEGER NOT NULL,
  size        INTEGER NOT NULL,
  mtime_ns    INTEGER NOT NULL,
  sha256      TEXT NOT NULL,
  git_clean   INTEGER NOT NULL,
  PRIMARY KEY (artifact_id, path)
) STRICT;
CREATE INDEX artifact_deps_path ON artifact_deps(path);

-- Every lookup and put, for hit rates and regeneration latency.
CREATE TABLE artifact_events (
  id   INTEGER PRIMARY KEY,
  at   INTEGER NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('hit', 'stale', 'cold', 'put')),
  repo TEXT NOT NULL,
  type TEXT NOT NULL,
  key  TEXT NOT NULL
) STRICT;
CREATE INDEX artifact_events_key ON artifact_events(repo, type, key, at);
CREATE INDEX artifact_events_at ON artifact_events(at);

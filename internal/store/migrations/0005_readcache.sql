-- The read cache (seed 003): sessions are trees of entries; the trust of the
-- current leaf is kept per path so a read never replays the session.
CREATE TABLE rc_sessions (
  name       TEXT PRIMARY KEY,
  root       TEXT NOT NULL,             -- workspace root
  leaf       INTEGER,                   -- current entry, NULL when empty
  created_at INTEGER NOT NULL
) STRICT;

CREATE TABLE rc_entries (
  id         INTEGER PRIMARY KEY,
  session    TEXT NOT NULL,
  parent     INTEGER REFERENCES rc_entries(id),
  depth      INTEGER NOT NULL,          -- entries from the root, 1 for the first
  kind       TEXT NOT NULL CHECK (kind IN ('read', 'compaction', 'invalidation', 'opaque')),
  path       TEXT NOT NULL DEFAULT '',
  range_start INTEGER NOT NULL DEFAULT 0, -- lines delivered (read) or refreshed (invalidation); 0,0 = none / whole file
  range_end  INTEGER NOT NULL DEFAULT 0,
  version    TEXT NOT NULL DEFAULT '',  -- digest of the content the lines were delivered from
  lines      INTEGER NOT NULL DEFAULT 0, -- lines of that version
  mode       TEXT NOT NULL DEFAULT '',
  tokens_full   INTEGER NOT NULL DEFAULT 0, -- what a plain read tool would have sent
  tokens_served INTEGER NOT NULL DEFAULT 0,
  delivered  INTEGER NOT NULL DEFAULT 1, -- a read becomes trust only once delivered
  note       TEXT NOT NULL DEFAULT '',
  created_at INTEGER NOT NULL
) STRICT;
CREATE INDEX rc_entries_session ON rc_entries(session, id);
CREATE INDEX rc_entries_version ON rc_entries(version);

-- Every file version delivered: its content as a blob, kept while an entry
-- refers to it (session gc removes the rest).
CREATE TABLE rc_versions (
  digest TEXT PRIMARY KEY,
  blob   TEXT NOT NULL REFERENCES blobs(digest),
  lines  INTEGER NOT NULL,
  tokens INTEGER NOT NULL
) STRICT;

-- What the model has seen at the session's leaf, per path: painted line
-- intervals with the version each came from.
CREATE TABLE rc_trust (
  session TEXT NOT NULL,
  path    TEXT NOT NULL,
  views   TEXT NOT NULL,                -- JSON
  PRIMARY KEY (session, path)
) STRICT;

-- Freshness evidence is freshctx's own fingerprint of a path (device,
-- inode, size, mtime ns, ctime ns, mode, and a symlink's own stat and
-- target), taken with the digest. Stamps and stat-cache entries written
-- before it have none: they are hashed again, never trusted.
ALTER TABLE stat_cache ADD COLUMN fp TEXT NOT NULL DEFAULT '';
DELETE FROM stat_cache;

ALTER TABLE record_files ADD COLUMN fp TEXT NOT NULL DEFAULT '';
ALTER TABLE record_files ADD COLUMN notes INTEGER NOT NULL DEFAULT 0;
ALTER TABLE artifact_deps ADD COLUMN fp TEXT NOT NULL DEFAULT '';
ALTER TABLE artifact_deps ADD COLUMN notes INTEGER NOT NULL DEFAULT 0;

-- Registry rows carry the fingerprint their digest was taken with, so a
-- row is re-examined whenever its file may have changed, whatever git says.
ALTER TABLE registry_files ADD COLUMN fp TEXT NOT NULL DEFAULT '';
ALTER TABLE registry_files ADD COLUMN fp_at INTEGER NOT NULL DEFAULT 0;

-- What a read entry showed: 'range' paints its lines over the picture,
-- 'whole' replaces the picture with the whole version (line count
-- included, an empty file too), 'notice' erases it (the model was told
-- something other than content).
ALTER TABLE rc_entries ADD COLUMN shown TEXT NOT NULL DEFAULT 'range';

-- Paths examined that have no row: absent, not a regular file (a link to a
-- directory), unreadable, or skipped for their content. Each keeps the
-- fingerprint it had ('' when absent), so a file that appears or changes
-- there is examined again even when git does not list it (a restored file,
-- a skip-worktree path, a link whose target came back).
CREATE TABLE registry_gone (
  root  TEXT NOT NULL,
  path  TEXT NOT NULL,
  fp    TEXT NOT NULL DEFAULT '',
  fp_at INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (root, path)
) STRICT, WITHOUT ROWID;

-- The fingerprints of a root's rows and watched paths in one compressed
-- value, so trust reads them in one go instead of row by row. gen counts
-- every change to those tables (kept by the triggers below); a scan is used
-- only while its gen is the current one, so it can never be stale.
CREATE TABLE registry_gen (
  root TEXT PRIMARY KEY,
  gen  INTEGER NOT NULL
) STRICT;
CREATE TABLE registry_scan (
  root TEXT PRIMARY KEY,
  gen  INTEGER NOT NULL,
  data BLOB NOT NULL
) STRICT;
CREATE TRIGGER registry_files_gen_ins AFTER INSERT ON registry_files BEGIN
  INSERT INTO registry_gen (root, gen) VALUES (NEW.root, 1) ON CONFLICT(root) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER registry_files_gen_upd AFTER UPDATE ON registry_files BEGIN
  INSERT INTO registry_gen (root, gen) VALUES (NEW.root, 1) ON CONFLICT(root) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER registry_files_gen_del AFTER DELETE ON registry_files BEGIN
  INSERT INTO registry_gen (root, gen) VALUES (OLD.root, 1) ON CONFLICT(root) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER registry_gone_gen_ins AFTER INSERT ON registry_gone BEGIN
  INSERT INTO registry_gen (root, gen) VALUES (NEW.root, 1) ON CONFLICT(root) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER registry_gone_gen_upd AFTER UPDATE ON registry_gone BEGIN
  INSERT INTO registry_gen (root, gen) VALUES (NEW.root, 1) ON CONFLICT(root) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER registry_gone_gen_del AFTER DELETE ON registry_gone BEGIN
  INSERT INTO registry_gen (root, gen) VALUES (OLD.root, 1) ON CONFLICT(root) DO UPDATE SET gen = gen + 1;
END;

-- A record is superseded by a later run of the same command in the same
-- workspace and folder: the index finds that run without a scan.
CREATE INDEX records_by_command ON records(root, cwd, command, id);

-- A record's input scope: the globs (root-relative, JSON) of the files its
-- command read, whose changes since the record are reported beside its
-- freshness. Empty for records made before: their scope is the work tree.
ALTER TABLE records ADD COLUMN inputs TEXT NOT NULL DEFAULT '';

-- A record is superseded by a later run of the same command in the same
-- workspace and folder: the index finds that run without a scan.
CREATE INDEX records_by_command ON records(root, cwd, command, id);

-- A record's input scope: the globs (root-relative, JSON) of the files its
-- command read, whose changes since the record are reported beside its
-- freshness. Empty for records made before: their scope is the work tree.
ALTER TABLE records ADD COLUMN inputs TEXT NOT NULL DEFAULT '';

-- Records made before the index held the parts of compound words (fish of
-- fish_completions_test.go) are re-indexed a batch per run, newest first:
-- those with an id below this one are still to do.
INSERT INTO meta(key, value) SELECT 'records.parts_below', coalesce(max(id), 0) + 1 FROM records;

-- A read answered "unchanged", "unchanged_range" or a diff after a read that
-- was taken back (its answer never reached the model) leaned on trust the
-- model may not have: from it on, the model's hold on the file is unknown,
-- and replaying the session erases the file's picture there.
ALTER TABLE rc_entries ADD COLUMN revoked INTEGER NOT NULL DEFAULT 0;

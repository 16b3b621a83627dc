-- The file stamps of a record naming many files, kept as one packed value
-- (freshness.PackStamps) beside its record_files rows, which recall's
-- searches by path still use: a record's check reads the pack in one go.
-- Written with the rows, in the same transaction, and never changed;
-- a record without one is read from its rows.
CREATE TABLE record_stamps (
	record_id INTEGER PRIMARY KEY REFERENCES records(id) ON DELETE CASCADE,
	format    INTEGER NOT NULL,
	data      BLOB NOT NULL
) STRICT;

-- The parts of compound words (TestAddNumbers: test, add, numbers;
-- calc_test.go: calc, test, go), as the publisher splits them: recall
-- finds a record by part of a name, in the team store as in the local one.
ALTER TABLE team_records ADD COLUMN IF NOT EXISTS parts text NOT NULL DEFAULT '';
DROP INDEX IF EXISTS team_records_search;
ALTER TABLE team_records DROP COLUMN IF EXISTS search;
ALTER TABLE team_records ADD COLUMN search tsvector GENERATED ALWAYS AS (
	to_tsvector('simple', command || ' ' || label || ' ' || summary || ' ' || parts)) STORED;
CREATE INDEX team_records_search ON team_records USING gin (search);

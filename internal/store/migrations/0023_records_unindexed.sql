-- A saved record waits here to enter the full-text index until a recall
-- needs the index: writing a row costs a run's save far less than FTS5's
-- flush of a new segment, and a recall indexes all that wait in one go.
-- facts is the index's facts column, made as the record was saved.
CREATE TABLE records_unindexed (
  record_id INTEGER PRIMARY KEY REFERENCES records(id) ON DELETE CASCADE,
  facts     TEXT NOT NULL
) STRICT;

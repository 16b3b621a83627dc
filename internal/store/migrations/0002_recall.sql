-- Recall: secrets redacted per record, facts found in the output, the
-- full-text index, and file base names for exact-name matches.
ALTER TABLE records ADD COLUMN redactions INTEGER NOT NULL DEFAULT 0;

CREATE TABLE record_facts (
  record_id INTEGER NOT NULL REFERENCES records(id) ON DELETE CASCADE,
  kind      TEXT NOT NULL CHECK (kind IN ('test', 'code', 'symbol')),
  value     TEXT NOT NULL,
  PRIMARY KEY (record_id, kind, value)
) STRICT, WITHOUT ROWID;
CREATE INDEX record_facts_value ON record_facts(kind, value);

ALTER TABLE record_files ADD COLUMN base TEXT NOT NULL DEFAULT '';
UPDATE record_files SET base = replace(path, rtrim(path, replace(path, '/', '')), '');
CREATE INDEX record_files_base ON record_files(base);

-- One row per record, rowid = records.id.
CREATE VIRTUAL TABLE records_fts USING fts5(
  command, label, digest, facts,
  tokenize = "unicode61 remove_diacritics 2 tokenchars '_'"
);
INSERT INTO records_fts(rowid, command, label, digest, facts)
  SELECT id, command, label, digest, '' FROM records;

CREATE TRIGGER records_fts_delete AFTER DELETE ON records BEGIN
  DELETE FROM records_fts WHERE rowid = old.id;
END;

-- Who wrote a file's summary: "" for the caller of registry summarize (an
-- agent, a person), else the teammate or CI whose summary of the same bytes
-- the team store gave ("ana@example.com on laptop (team)").
ALTER TABLE registry_files ADD COLUMN summary_by TEXT NOT NULL DEFAULT '';

-- How far an agent's transcript has been read, per read session, for the
-- context resets no hook reports (Claude Code's /rewind): the next check
-- reads on from read_to.
CREATE TABLE rc_transcripts (
  session TEXT PRIMARY KEY,
  path    TEXT NOT NULL,
  read_to INTEGER NOT NULL
) STRICT;

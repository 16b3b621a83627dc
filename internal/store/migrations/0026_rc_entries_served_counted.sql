-- The index of kept texts (migration 24) held every entry that kept a
-- text, counted or not, and the lookup asks for the newest one counted: a
-- note served again and again without a count (an unchanged file read
-- again, the note decided against the text's bound) left a run of entries
-- the lookup read one by one, each from the table, before the one it
-- wanted, so a read of a file cost more the more often the session had
-- read it. The index now holds only counted entries: the first it finds
-- is the answer.
DROP INDEX rc_entries_served;
CREATE INDEX rc_entries_served ON rc_entries(session, served_text)
  WHERE served_text != '' AND tokens_served >= 0;

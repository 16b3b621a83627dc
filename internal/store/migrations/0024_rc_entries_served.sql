-- A read's note is counted once and kept with the entry that served it
-- (served_text); the next choice of the same note looks the count up. The
-- lookup walked the session's entries from the newest and, for a note
-- never served before, every one of them: a read cost more the longer its
-- session. This index finds a note's entries at once, newest first (the
-- rowid orders equal keys), and holds only entries that kept a text.
CREATE INDEX rc_entries_served ON rc_entries(session, served_text) WHERE served_text != '';

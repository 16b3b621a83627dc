-- A change to a file the model made itself (an edit) or a read of it the
-- read cache cannot vouch for (forget) is an entry of the session where
-- the session holds a picture of the file, and also where a read of the
-- file waits for its delivery (parallel tool calls): the read, once
-- delivered, paints the picture, and the change that came after it must
-- still apply. This index finds such a read at once; it holds only reads
-- still waiting, a few at a time.
CREATE INDEX rc_entries_pending ON rc_entries(session, path)
  WHERE kind = 'read' AND delivered = 0 AND revoked = 0;

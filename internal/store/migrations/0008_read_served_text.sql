-- A read answered with a note may leave the note's token count to be made
-- when first asked for (a process that answers one read and exits need not
-- load the tokenizer for a dozen tokens): such an entry keeps
-- tokens_served = -1 and the note it served.
ALTER TABLE rc_entries ADD COLUMN served_text TEXT NOT NULL DEFAULT '';

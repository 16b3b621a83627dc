-- Who wrote a summary: summary_by says "agent", "person", "model" or a
-- teammate ("NAME (team)"); "" is a summary written before freshctx kept
-- its author. A summary written by a model also keeps the model, the
-- endpoint it answered at and the version of the prompt it was given;
-- digest_at_summary is the SHA-256 of the exact bytes it describes.
ALTER TABLE registry_files ADD COLUMN summary_model TEXT NOT NULL DEFAULT '';
ALTER TABLE registry_files ADD COLUMN summary_endpoint TEXT NOT NULL DEFAULT '';
ALTER TABLE registry_files ADD COLUMN summary_prompt TEXT NOT NULL DEFAULT '';

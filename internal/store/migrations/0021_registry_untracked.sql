-- A row's worktree says how git saw its file when it was hashed: 0 clean,
-- 1 changed in the work tree (tracked), 2 untracked. A changed row that
-- nothing names again is not examined again (registry.keptChanged); an
-- untracked one always is, since a new ignore rule can take it out of the
-- tree without touching it. A store's older rows may be either: marked 2,
-- each is examined at the next verification and written as it is.
UPDATE registry_files SET worktree = 2 WHERE worktree = 1;
CREATE INDEX registry_files_untracked ON registry_files(root) WHERE worktree = 2;

// Package registry is freshctx's memory of every file of a work tree and of
// the summary an agent wrote for it (seed 002), kept honest in O(changed).
//
// Sync runs the entry-state matrix: a work tree with no files is "empty" and
// nothing is written; files with an empty registry are a "bootstrap" (every
// tracked or untracked, non-ignored file listed with its digest, summaries
// null); a populated registry whose tree git calls clean, not behind its
// upstream and at the commit it was last verified at, and whose every row
// still has the settled fingerprint stored with its digest, is a "trust" (an
// lstat per row, no file read); anything else is a "verify".
//
// Verification looks only at candidates: the paths that differ between the
// last verified commit and HEAD (a tree-to-tree diff, no file read), the
// paths one git status lists (modified, deleted, untracked), the rows of
// untracked files, every row whose fingerprint moved, and the paths
// examined earlier without a row (absent, a link to a directory, skipped
// for their content) whose fingerprint moved. A row of a tracked file
// hashed while changed in the work tree is no candidate while nothing of
// that names it: it stays as it is, and the tree unclean. Candidates
// are hashed through the freshness stat cache, so an unchanged one is not
// even read. git lists candidates; it never vouches for a row.
// When the last verified commit is no longer an ancestor of HEAD (rebased
// away, collected, or another branch), it falls back to a full pass and says
// so.
//
// A summary is never cleared: when its file changes it is flagged stale and
// says how many lines were added and removed since it was written (the
// summarised content is kept as a blob to measure that). Binaries, lockfiles,
// vendored and generated files and files over the size limit are skipped and
// counted by reason.
//
// Rows are keyed by the workspace root. A Service is used by one goroutine.
package registry

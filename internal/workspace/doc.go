// Package workspace finds the workspace root, turns user paths into clean
// root-relative paths, and is the only place in freshctx that runs git.
//
// Paths handed to the rest of freshctx are slash-separated, cleaned and
// relative to the root; a path that escapes the root is refused with an
// error wrapping ErrOutsideRoot. Git is run as a separate process and is
// batched: one `git status --porcelain=v2 -z` answers every question a
// freshness check asks about the working tree, never one process per file.
//
// A workspace need not be a git repository (Git is then nil), and a
// repository with no commits yet has an empty Head and RepoID.
// A Workspace is immutable and safe for concurrent use.
package workspace

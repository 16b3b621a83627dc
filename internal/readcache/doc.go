// Package readcache is a read tool that is never wrong about what the model
// has seen (seed 003): it answers full, unchanged, unchanged_range, diff or
// baseline_fallback from the trust a session has built.
//
// A session is a tree of entries (reads, compactions, invalidations, and
// opaque entries an integration adds) with a current leaf. Trust is what the
// entries on the path from the root to the leaf showed the model, starting
// after the latest compaction on that path: pre-compaction trust is never
// used after it, a compaction on another branch does not apply, and moving
// the leaf before a compaction restores that view. Forks are separate
// sessions sharing the path up to the fork point.
//
// Trust is a Picture per file: the line spans the model was shown, each
// from one version; the latest view of a line wins. Only delivered lines
// count — a read truncated at the output limit trusts only what it showed,
// and a failed read trusts nothing; a read taken back (Revoke: its answer
// never reached the model) no longer counts, and a later answer about the
// file that leaned on trust erases the file's picture where it stands. A
// refresh erases the scope it names.
// The picture of the current leaf is stored per path and updated by each
// read, so a read costs the same at entry 10 and entry 10,000; moving the
// leaf (checkout, fork) rebuilds it once from the entries.
//
// Every version delivered is stored (as a blob) while an entry refers to it,
// so a diff base is never lost to age; `session gc` removes what nothing
// refers to. Sensitive files are not served unless allowed; binary files
// get a notice, not content; text that is not UTF-8 is served decoded as
// Latin-1, saying so.
package readcache

// Package freshness decides whether remembered context still holds: the one
// engine records, the registry, the artifact cache and the read cache share.
//
// A Stamp records what an item depended on: per file whether it existed, its
// SHA-256 and freshctx's own Fingerprint of the path (device, inode, size,
// mtime and ctime in ns, mode, and for a symlink its own stat and target),
// taken together — the file is fingerprinted again after hashing and hashed
// again if it moved. A file modified at or after the item's production
// started (by FileClock, the clock the kernel stamps files with) is noted
// NoteChangedDuringRun.
//
// Check(stamp) labels every file and the stamp as a whole, with a reason,
// on evidence freshctx gathered itself, cheapest first:
//  1. the fingerprint: equal to the stamp's, which was settled (taken at
//     least the racy window after the file's mtime and ctime), is fresh
//     after one lstat;
//  2. the bytes: SHA-256 against the stamp, through a stat cache whose
//     entries vouch for a digest only under the same settled rule;
//  3. where the bytes cannot be read: modified after capture + 1 s is
//     stale_changed, anything else unknown — never fresh.
//
// A directory is stamped by everything under it (dirDigest): its files'
// digests, its symlinks' targets and what they reach (a file elsewhere in
// the root by its digest), its entries' names and kinds; it is fresh only
// when all of these are unchanged, and unknown when they cannot all be
// compared (over MaxDirEntries, unreadable, changing, outside the root, or
// holding a link out of the root or to a folder outside it).
//
// CheckMany is Check of many stamps (an artifact's slices, a list of
// records) with the stat cache read once for all of them; each result is
// what Check would say.
//
// Check runs no git. git may prove a change and list candidates (callers
// use it for that) but never proves a file unchanged: its "clean" is blind
// to assume-unchanged, skip-worktree, eol conversion, symlink targets,
// nested repositories and same-second edits.
//
// Soundness: a file whose bytes differ from its stamp is never fresh; a
// file changed while its command ran, linking outside the root, or never
// stamped is unknown. Precision: a file whose bytes equal its stamp is
// fresh, however it was touched, committed, reverted or dirty at capture.
// The one blind spot is a write that keeps size, mtime and ctime (a shared
// mmap on some file systems): it is seen when the file is hashed.
//
// A Snapshot is used by one goroutine, except DigestMany and Fingerprint,
// which are safe to call from several; Stamp and Result are plain values.
package freshness

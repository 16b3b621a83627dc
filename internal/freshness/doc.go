// Package freshness decides whether remembered context still holds: the one
// engine records, the registry, the artifact cache and the read cache share.
//
// A Stamp records what an item depended on: per file whether it existed, its
// size, mtime and SHA-256, and whether git saw it clean; plus the git branch,
// HEAD and tree. A Snapshot reads the workspace once per command — one git
// status and a stat cache — and Check(stamp) labels every file and the stamp
// as a whole, with a reason per file.
//
// Three tiers, cheapest first:
//  1. git: a deleted file is stale_deleted; a file clean at capture, with
//     HEAD unchanged and still clean, is fresh without being read.
//  2. content (the authority): SHA-256 against the stamp. A stat cache
//     (size, mtime, ctime, inode, mode) skips hashing an unchanged file, but
//     an entry recorded within RacyWindow of the file's mtime is never
//     trusted (git's racy-git problem): such a file is hashed again.
//  3. mtime, only when content cannot be read: modified after capture + 1 s
//     is stale_changed; identical size and mtime is fresh; else unknown.
//
// Soundness: a file whose content differs from its stamp is never fresh.
// Precision: a file whose content equals its stamp is fresh, however it was
// touched, committed, reverted or dirty at capture.
//
// A Snapshot is used by one goroutine; Stamp and Result are plain values.
package freshness

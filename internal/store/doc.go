// Package store is freshctx's embedded database: one SQLite file (pure Go,
// WAL, foreign keys, busy timeout) beside a content-addressed area of
// zstd-compressed blobs for large payloads such as raw command output.
//
// Several processes may open the same store at once: SQLite serialises
// writers (waiting up to the busy timeout), and every logical write runs in
// one IMMEDIATE transaction through Update, so a failed write leaves the store
// as it was. Blobs are written to a temporary file first and only become
// visible when the transaction that references them commits. A process
// about to exit leaves the store (Leave) rather than closing it, its WAL
// kept beside the database for the next process to read back.
//
// Open refuses, with an error wrapping ErrCorrupt, ErrLocked or
// ErrNewerSchema, a file that is not a freshctx database, a database another
// process holds locked past the timeout, and a schema newer than this binary.
package store

// Package team is the shared tier of freshctx on PostgreSQL: the one home
// of its schema and queries. The local SQLite store stays the primary
// store and the only home of fingerprints, read sessions and pictures;
// what a team shares is published here and looked up from here.
//
// The contract (DESIGN.md "Team store"):
//   - A shared item is only ever evidence of what a teammate saw. It is
//     fresh for me only when the SHA-256 of every file it names equals the
//     bytes of my work tree now (the caller checks that, with its own
//     fingerprints and digests); a teammate's "fresh" is never evidence.
//   - Every item carries its author, machine and time; a publisher that
//     holds the team's private key (CI) signs it (Ed25519), readers check
//     it with the public key, and a team that requires signatures ignores
//     — and counts — the rest.
//   - What is published was redacted before it was stored locally; nothing
//     machine-local (fingerprints, inodes, pictures) is ever sent.
//   - Publishing is idempotent by key: an item sent twice is stored once.
//   - Credentials come from the URL, ~/.pgpass or the environment, as
//     libpq reads them; they are never printed (Redacted) nor stored in the
//     project.
package team

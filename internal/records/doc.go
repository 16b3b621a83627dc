// Package records captures command output losslessly and remembers it with
// a digest and a freshness stamp: `run` executes a command, `capture` reads
// stdin, `show`, `list` and `forget` read and prune what was kept.
//
// Output is streamed: each stream goes to its own zstd blob while a bounded
// analysis pipeline (line cleaning, compression, file-reference extraction,
// token counting) reads a copy, so an output of any size and any bytes is
// kept byte for byte in bounded memory. A record and its blobs land in one
// transaction; two runs against one store both land. Token counts are
// exact for the first 256 KiB of a stream and extrapolated past it; a
// caller that does not show them (Options.TokensLater) leaves those of a
// small output kept whole to be made from the kept bytes when first asked
// for, which gives the same numbers.
//
// File references found in the output are resolved against the workspace
// root (and the command's working directory) and kept only when they name a
// file that exists, or one git knows was deleted; each is stamped by package
// freshness, which later labels the record fresh or stale.
package records

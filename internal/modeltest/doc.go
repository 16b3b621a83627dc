// Package modeltest holds the model-based randomized test of freshctx's
// promise across all four features: random file and git operations, with
// every record label, artifact hit, registry row and read answer checked
// against the bytes on disk. It has no code of its own beyond the test.
package modeltest

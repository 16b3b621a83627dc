// Package testout makes tool output for tests and benchmarks that no tool
// in the repository's corpus prints, deterministically.
package testout

import (
	"encoding/base64"
	"math/rand/v2"
)

// Base64 returns n bytes of base64 of random bytes in lines of 76
// characters, as `base64` prints a binary file.
func Base64(n int) []byte {
	raw := make([]byte, n*3/4+3)
	rand.NewChaCha8([32]byte{1}).Read(raw)
	enc := base64.StdEncoding.EncodeToString(raw)
	out := make([]byte, 0, n+n/76+1)
	for len(out) < n {
		line := enc[:min(76, len(enc))]
		enc = enc[len(line):]
		out = append(append(out, line...), '\n')
	}
	return out[:n]
}

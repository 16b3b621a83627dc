// Package testout makes tool output for tests and benchmarks that no tool
// in the repository's corpus prints, deterministically.
package testout

import (
	"encoding/base64"
	"fmt"
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

// Minified returns n bytes of JavaScript on one line, ending in a newline,
// as a bundler's minified output prints: short names, and among them the
// words secrets are named by (`key`, `token`, `password`, `auth`) in
// property names, assignments and object literals, as real bundles hold
// them.
func Minified(n int) []byte {
	r := rand.New(rand.NewChaCha8([32]byte{2}))
	short := func() string {
		const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_$"
		b := []byte{letters[r.IntN(len(letters))]}
		if r.IntN(3) == 0 {
			b = append(b, letters[r.IntN(26)])
		}
		return string(b)
	}
	word := func() string { return minifiedWords[r.IntN(len(minifiedWords))] }
	templates := []func() string{
		func() string { return "function " + short() + "(e,t){return e." + word() + "=t," + short() + "(e)}" },
		func() string {
			return "var " + short() + "=" + short() + "." + word() + "(" + short() + ",\"" + word() + "\");"
		},
		func() string { return short() + ".prototype." + word() + "=function(e){this." + word() + "=e};" },
		func() string {
			return "{" + word() + ":" + short() + "," + word() + ":!0," + word() + ":\"" + short() + "\"}"
		},
		func() string {
			return "if(" + short() + "." + word() + "&&" + short() + "!==null)throw new Error(\"invalid " + word() + "\");"
		},
		func() string { return short() + "=" + short() + "[" + fmt.Sprint(r.IntN(4096)) + "]|0;" },
		func() string {
			return "case " + fmt.Sprint(r.IntN(64)) + ":return " + short() + "." + word() + "?" + short() + ":" + short() + ";"
		},
	}
	out := make([]byte, 0, n)
	for len(out) < n-1 {
		out = append(out, templates[r.IntN(len(templates))]()...)
	}
	out = append(out[:n-1], '\n')
	return out
}

var minifiedWords = []string{
	"key", "apiKey", "token", "accessToken", "password", "secret", "auth", "credentials", "linear",
	"length", "push", "call", "apply", "value", "type", "props", "state", "children", "render",
	"keys", "keyCode", "getKey", "tokenize", "passive", "authorization", "source", "target",
}

// Package testout makes tool output for tests and benchmarks that no tool
// in the repository's corpus prints, deterministically, and loads a tree's
// Go source as the input the capture benchmarks call Go source.
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

// GoTestMany returns about n bytes of `go test -v` output of many distinct
// tests, each a RUN and a PASS line, package after package of 10,000
// tests, as a large module's test run prints them: every line differs,
// so no compressor or cache sees a repetition of one small log.
func GoTestMany(n int) []byte {
	r := rand.New(rand.NewChaCha8([32]byte{3}))
	out := make([]byte, 0, n+256)
	for pkg := 0; len(out) < n; pkg++ {
		for i := 0; i < 10000 && len(out) < n; i++ {
			name := fmt.Sprintf("Test%s%d_%d", words[r.IntN(len(words))], i, r.IntN(100000))
			out = fmt.Appendf(out, "=== RUN   %s\n--- PASS: %s (0.%02ds)\n", name, name, r.IntN(100))
		}
		out = fmt.Appendf(out, "PASS\nok  \texample.com/mod/pkg%d\t%d.%03ds\n", pkg, r.IntN(5), r.IntN(1000))
	}
	return out
}

// GoTestInterleaved returns about n bytes of `go test -v` output whose
// tests log as they go (t.Logf lines between RUN and PASS, each with its
// file:line), one test in 500 failing with a got/want line.
func GoTestInterleaved(n int) []byte {
	r := rand.New(rand.NewChaCha8([32]byte{4}))
	out := make([]byte, 0, n+512)
	for pkg := 0; len(out) < n; pkg++ {
		failed := false
		for i := 0; i < 10000 && len(out) < n; i++ {
			word := words[r.IntN(len(words))]
			name := fmt.Sprintf("Test%s%d", word, i)
			out = fmt.Appendf(out, "=== RUN   %s\n", name)
			for step := range 3 {
				out = fmt.Appendf(out, "    %s_test.go:%d: step %d: %s=%d took %d.%04dms\n",
					word, 10+r.IntN(900), step, word, r.IntN(1000000), r.IntN(10), r.IntN(10000))
			}
			if r.IntN(500) == 0 {
				failed = true
				out = fmt.Appendf(out, "    %s_test.go:%d: got %d, want %d\n--- FAIL: %s (0.01s)\n",
					word, 10+r.IntN(900), r.IntN(10), 10+r.IntN(10), name)
				continue
			}
			out = fmt.Appendf(out, "--- PASS: %s (0.00s)\n", name)
		}
		if failed {
			out = fmt.Appendf(out, "FAIL\nFAIL\texample.com/mod/pkg%d\t1.%03ds\n", pkg, r.IntN(1000))
		} else {
			out = fmt.Appendf(out, "PASS\nok  \texample.com/mod/pkg%d\t1.%03ds\n", pkg, r.IntN(1000))
		}
	}
	return out
}

// words name the tests and their log lines.
var words = []string{"Parse", "Render", "Store", "Fetch", "Merge", "Split", "Route", "Cache", "Index", "Scan",
	"Token", "Digest", "Commit", "Branch", "Retry", "Limit", "Queue", "Worker", "Config", "Schema"}

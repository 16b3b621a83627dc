package compress

import (
	"strings"
	"testing"
)

// FuzzCompressors feeds any output, line by line, to every compressor
// under every intent: none may panic, each digest is valid text, and the
// generic digest is the output with gaps (TestDigestKeepsTheOutputsOrder).
func FuzzCompressors(f *testing.F) {
	for _, seed := range []string{
		"--- FAIL: TestX (0.00s)\n    x_test.go:3: boom\nFAIL\n",
		"error[E0308]: mismatched types\n --> src/main.rs:4:5\n",
		"Traceback (most recent call last):\n  File \"a.py\", line 1, in <module>\n",
		"x = (lo + hi)/(2 * step)\n",
		"\x1b[31m✗\x1b[0m a.test.ts > b\n",
		"at com.acme.A.b(A.java:3)\n\tat ...\n",
	} {
		f.Add(seed)
	}
	factories := append([]Factory{Generic}, registry...)
	intents := []Intent{Summary, Errors, Tests, Raw}
	f.Fuzz(func(t *testing.T, out string) {
		lines := strings.Split(out, "\n")
		for _, fac := range factories {
			for _, in := range intents {
				c := fac.New(Options{Intent: in, Root: "/r"})
				for _, l := range lines {
					c.Line(l)
				}
				kept := c.Finish()
				if fac.Name == Generic.Name && (in == Summary || in == Raw) && !strings.Contains(out, " [×") && !strings.Contains(out, "… [") {
					if err := isOutputWithGaps(cleaned(lines), kept); err != nil {
						t.Fatalf("%s/%s: %v", fac.Name, in, err)
					}
				}
				fit := Fit(kept, 50)
				if fit.Tokens < 0 {
					t.Fatalf("%s/%s: negative tokens", fac.Name, in)
				}
			}
		}
		_ = Select([]string{"sh", "-c", out}, []byte(out))
	})
}

// cleaned is each line as a compressor sees it.
func cleaned(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = Clean(l)
	}
	return out
}

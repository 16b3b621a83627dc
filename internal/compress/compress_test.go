package compress

import (
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/freshctx/freshctx/internal/termsafe"
	"github.com/freshctx/freshctx/internal/tokens"
)

func digest(in Intent, text string) string {
	c := NewGeneric(in)
	for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		c.Line(l)
	}
	return Render(c.Finish())
}

func TestClean(t *testing.T) {
	tests := []struct{ in, want string }{
		{"\x1b[31merror\x1b[0m: boom", "error: boom"},
		{"10%\r50%\r100% done", "100% done"},
		{"line\r", "line"},
		{"\x1b]0;title\x07text  ", "text"},
	}
	for _, tt := range tests {
		if got := Clean(tt.in); got != tt.want {
			t.Errorf("Clean(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestCleanIsItsDefinition: over any bytes, Clean is what its doc says in
// the standard library's words.
func TestCleanIsItsDefinition(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		line := rapid.OneOf(rapid.String(), rapid.StringOf(rapid.SampledFrom([]rune(" \t\r\x1bab[m\x07é")))).Draw(t, "line")
		want := strings.TrimSuffix(line, "\r")
		if i := strings.LastIndexByte(want, '\r'); i >= 0 {
			want = want[i+1:]
		}
		want = strings.TrimRight(termsafe.String(want), " \t")
		if got := Clean(line); got != want {
			t.Fatalf("Clean(%q) = %q, want %q", line, got, want)
		}
	})
}

// TestCleanSafeIsClean: over any line termsafe holds safe (tabs, blanks,
// Unicode spaces and text), CleanSafe is Clean.
func TestCleanSafeIsClean(t *testing.T) {
	safe := 0
	rapid.Check(t, func(t *rapid.T) {
		line := rapid.OneOf(rapid.String(), rapid.StringOf(rapid.SampledFrom([]rune(" \t\r\x1bab:.\u00a0\u3000\u202eé")))).Draw(t, "line")
		if !termsafe.Safe(line) {
			return
		}
		safe++
		if got, want := CleanSafe(line), Clean(line); got != want {
			t.Fatalf("CleanSafe(%q) = %q, Clean = %q", line, got, want)
		}
	})
	if safe == 0 {
		t.Fatal("no safe line drawn")
	}
}

func noisyLog() string {
	var b strings.Builder
	for i := range 200 {
		fmt.Fprintf(&b, "compiling module %d\n", i)
	}
	for range 120 {
		b.WriteString("Downloading dependency...\n")
	}
	for range 120 {
		b.WriteString("error: connection refused, retrying\n")
	}
	b.WriteString("step A\nstep B\n")
	b.WriteString("src/app/main.go:12:5: undefined: Foo\n")
	b.WriteString("step C\nstep D\nstep E\n")
	for i := range 100 {
		fmt.Fprintf(&b, "linking %d\n", i)
	}
	b.WriteString("warning: unused variable x\n")
	b.WriteString("panic: runtime error: index out of range\n")
	b.WriteString("FAIL\tgithub.com/acme/app\t0.01s\n")
	return b.String()
}

func TestGenericKeepsFactsDropsNoise(t *testing.T) {
	d := digest(Summary, noisyLog())
	for _, must := range []string{
		"src/app/main.go:12:5: undefined: Foo",
		"panic: runtime error: index out of range",
		"warning: unused variable x",
		"FAIL\tgithub.com/acme/app",
		"step B", "step C", // context around the error
		"error: connection refused, retrying [×120]",
		"lines omitted]",
	} {
		if !strings.Contains(d, must) {
			t.Errorf("digest lacks %q:\n%s", must, d)
		}
	}
	if strings.Contains(d, "compiling module 100") || strings.Contains(d, "linking 50") {
		t.Errorf("digest kept noise:\n%s", d)
	}
	raw, dig := tokens.Count(noisyLog()), tokens.Count(d)
	if dig*5 > raw {
		t.Errorf("digest %d tokens of %d raw: want at least 80%% smaller", dig, raw)
	}
}

func TestGenericIntents(t *testing.T) {
	log := noisyLog()
	errs := digest(Errors, log)
	if !strings.Contains(errs, "undefined: Foo") || strings.Contains(errs, "warning: unused") || strings.Contains(errs, "step B") {
		t.Errorf("errors intent:\n%s", errs)
	}
	tests := digest(Tests, log)
	if !strings.Contains(tests, "FAIL\tgithub.com") || strings.Contains(tests, "step C") {
		t.Errorf("tests intent:\n%s", tests)
	}
	raw := digest(Raw, log)
	if !strings.Contains(raw, "compiling module 100") {
		t.Error("raw intent dropped lines")
	}
}

func TestShortOutputKeptWhole(t *testing.T) {
	in := "hello\nworld\nall good\n"
	if got := digest(Summary, in); got != in {
		t.Fatalf("digest = %q, want the output whole", got)
	}
}

func TestFitCapsAndSaysWhat(t *testing.T) {
	c := NewGeneric(Summary)
	for i := range 400 {
		c.Line(fmt.Sprintf("pkg/f%d.go:%d: error: something broke here", i, i))
		c.Line("some context line")
	}
	lines := c.Finish()
	full := Fit(lines, 0)
	capped := Fit(lines, 300)
	if capped.Tokens > 300 {
		t.Fatalf("capped digest has %d tokens, cap 300", capped.Tokens)
	}
	if capped.Omitted == "" || !strings.Contains(capped.Text, "left out to fit 300 tokens") {
		t.Fatalf("cap not reported: %q", capped.Omitted)
	}
	if full.Omitted != "" || full.Tokens <= 300 {
		t.Fatal("uncapped digest should be whole")
	}
	if !strings.Contains(capped.Text, "pkg/f0.go:0: error") {
		t.Fatal("the first error should survive the cap")
	}
	if strings.Contains(capped.Text, "some context line") {
		t.Fatal("context should go before errors")
	}
}

func TestParseIntent(t *testing.T) {
	if in, err := ParseIntent(""); err != nil || in != Summary {
		t.Fatal("default intent")
	}
	if _, err := ParseIntent("bogus"); err == nil {
		t.Fatal("want error")
	}
}

func TestSelectFallsBackToGeneric(t *testing.T) {
	if f := Select([]string{"whatever"}, nil); f.Name != "generic" {
		t.Fatalf("Select = %s", f.Name)
	}
}

// An exception's class name is an error line however it is spelled; a
// method that handles errors is not.
func TestExceptionNamesAreErrors(t *testing.T) {
	for line, want := range map[string]Class{
		"TypeError: add is not a function":                                        Error,
		"json.decoder.JSONDecodeError: Expecting property name: line 1 column 15": Error,
		"requests.exceptions.ConnectionError: Max retries exceeded with url: /v1": Error,
		`Exception in thread "main" java.lang.NullPointerException`:               Error,
		"Caused by: java.io.IOException: Broken pipe":                             Error,
		"KeyError":                         Error,
		"calling handleError on the queue": Plain,
		"ErrorBoundary rendered":           Plain,
	} {
		if got := classify(line, NotSearched); got != want {
			t.Errorf("classify(%q) = %v, want %v", line, got, want)
		}
	}
}

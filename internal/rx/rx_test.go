package rx

import (
	"regexp/syntax"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"pgregory.net/rapid"
)

// patterns are shapes the line classifiers use, and some that must admit
// everything.
var patterns = []string{
	`^=== (RUN|CONT|NAME|PAUSE)\s+(\S+)`,
	`^\s*--- (PASS|FAIL|SKIP): (\S+)`,
	`(?i)^(ok\s+\S+|PASS$|FAIL\s+\S+|---\s*(PASS|FAIL)|\d+ (passed|failed)|Done in|Total:)`,
	`^(Collecting |npm (http|timing) |[━╸╺ ]+ [\d.]+/[\d.]+ [kMG]?B |[+-]{3,}$)`,
	`^[^a]x`,
	`^(?i)kelvin`,
	`^\S+:\d+:\d+: ([A-Z]\d{3,4}) `,
	`^✗ fail|^E\s`,
	`^a*$`,  // matches the empty string: no bound
	`x|^y`,  // not anchored everywhere: no bound
	`^.abc`, // any first byte
	`^(a?b?)c`,
	`(?i)^(FAIL|func|k\b)`,
	`^\d+ (passed|failed)`,
	`^[a-c]\S?x`,
	`^(?s)=.`,
	`^(ok|FAIL)$|^PASS\b`, // assertions past the start: never answered by the automaton
	`^\s*(FAIL |● )`,
	`^(?m)^x$`,
	`^a\Bb|^ab\b`,
	`^\[INFO\]\s*(Building |-{3}|$)|^=+ .* =+$`,
	`^(a$|b)c|^a$c`,
	`^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$`, // redaction's dotted name
	`(ab)+:\d`,                          // not anchored: the text every match holds
	`c?xy(?:z|a)\.`,
}

// alphabet holds the bytes the patterns turn on, and invalid UTF-8.
var alphabet = []byte("=-+ \t\nRUNPASFILabcdkKxyz0123456789:._✗━/\x80\xff\xe2")

// filtered is MustCompile(expr) with its prefilter made at once, as it is
// after prefilterAfter uses.
func filtered(expr string) *Regexp {
	r := MustCompile(expr)
	r.load()
	r.makeFilter()
	return r
}

// TestPrefilterMadeAfterUses: an expression is tried with the matcher
// alone until its prefilterAfter-th use, and with its prefilter from then
// on; every answer is the matcher's.
func TestPrefilterMadeAfterUses(t *testing.T) {
	re := MustCompile(`^=== (RUN|CONT)\s+\S+`)
	lines := []string{"=== RUN   TestX", "    x_test.go:3: log", "=== CONT  TestY", "--- PASS: TestX (0.00s)", ""}
	for i := range 2 * prefilterAfter {
		if made := re.pre.Load() != nil; made != (i >= prefilterAfter) {
			t.Fatalf("use %d: prefilter made %v", i, made)
		}
		l := lines[i%len(lines)]
		if got, want := re.MatchString(l), re.Std().MatchString(l); got != want {
			t.Fatalf("use %d: MatchString(%q) = %v, the matcher's %v", i, l, got, want)
		}
	}
	if re.May("    x_test.go:3: log") {
		t.Fatal("the prefilter made admits a line no match can start like")
	}
}

func TestMayNeverTurnsAwayAMatch(t *testing.T) {
	res := make([]*Regexp, len(patterns))
	for i, p := range patterns {
		res[i] = filtered(p)
	}
	rapid.Check(t, func(t *rapid.T) {
		re := res[rapid.IntRange(0, len(res)-1).Draw(t, "pattern")]
		b := rapid.SliceOfN(rapid.SampledFrom(alphabet), 0, 24).Draw(t, "line")
		// Lines that start like a match, so matches are common.
		if rapid.Bool().Draw(t, "seeded") {
			b = append([]byte(rapid.SampledFrom([]string{"=== RUN ", "--- FAIL: ", "ok ", "PASS", "✗ fail", "E ", "kelvin", "K", "npm http ", "━ 1/2 kB ", "a.go:1:2: E101 ", "abab:1", "cxyz.", "xya."}).Draw(t, "start")), b...)
		}
		s := string(b)
		want := re.Std().MatchString(s)
		if want && !re.May(s) {
			t.Fatalf("%q matches %q but the prefilter turned it away", re, s)
		}
		if re.MatchString(s) != want {
			t.Fatalf("%q: MatchString(%q) is not %v, as the expression's", re, s, want)
		}
	})
}

func TestPrefilterBounds(t *testing.T) {
	for _, c := range []struct {
		pattern string
		line    string
		may     bool
	}{
		{`^=== (RUN|CONT)`, "    foo_test.go:12: log", false},
		{`^=== (RUN|CONT)`, "=== RUN TestX", true},
		{`(?i)^(ok\s+\S+|Done in)`, "OK x", true},
		{`(?i)^(ok\s+\S+|Done in)`, "if err != nil {", false},
		{`^a*$`, "zzz", true},
		{`x|^y`, "zzz", true},
		{`^abc`, "", false},
		// The second byte.
		{`^(FAIL|func)`, "for x", false},
		{`^(FAIL|func)`, "func x", true},
		{`^(FAIL|func)`, "f", false}, // shorter than any match
		{`^(FAIL|func)`, "fun", false},
		{`^(FAIL|func)`, "funk", false},
		// Past the second byte.
		{`^\s*(FAIL |● )`, "        return lines.size;", false},
		{`^\s*(FAIL |● )`, "        FAIL x", true},
		{`^\s*(FAIL |● )`, "    ● x", true}, // a byte past ASCII is admitted
		{`^\s*(FAIL |● )`, "        FAILED", false},
		{`^(?i)panic: `, "PANIC: x", true},
		{`^(?i)panic: `, "panics x", false},
		{`^ok\s+\S+\s+\d`, "ok  \tpkg\t0.1s", true},
		{`^ok\s+\S+\s+\d`, "ok step 1", true},
		{`^ok\s+\S+\s+\d`, "ok step", false},
		{`^x\b`, "x", true}, // \b taken as holding at the end
		{`^\[INFO\]\s*(Building |-{3}|$)`, "[INFO] Building x", true},
		{`^\[INFO\]\s*(Building |-{3}|$)`, "[INFO]   ", true},
		{`^\[INFO\]\s*(Building |-{3}|$)`, "[INFO] Compiling 3 files", false},
		{`^\[INFO\]\s*(Building |-{3}|$)`, "[INFO] --", false},
		{`^(a$|b)c`, "ac", false}, // nothing follows the end
		{`^(a$|b)c`, "a", false},
		{`^(a$|b)c`, "bc", true},
		{`(?i)^fail`, "FAil", true},
		{`(?i)^fail`, "fx", false},
		{`^\d+ passed`, "12 passed", true},
		{`^\d+ passed`, "1x", false},
		{`^a$`, "ab", false}, // `$` holds at the end only
		{`^a$`, "a", true},
		{`^\w\b.`, "a!", true},   // \b taken as holding
		{`^x.`, "x\xff", true},   // a second byte past ASCII is admitted
		{`^(?s)x.`, "x\n", true}, // . with s matches a newline
		{`^x.`, "x\n", false},    // and without it does not
		{`^é`, "\xc3\xa9", true}, // a first byte past ASCII is admitted
	} {
		if got := filtered(c.pattern).May(c.line); got != c.may {
			t.Errorf("%s May(%q) = %v, want %v", c.pattern, c.line, got, c.may)
		}
	}
}

func FuzzMay(f *testing.F) {
	for _, p := range patterns {
		f.Add(p, "=== RUN x")
	}
	f.Fuzz(func(t *testing.T, pattern, line string) {
		re, err := compile(pattern)
		if err != nil {
			return
		}
		want := re.Std().MatchString(line)
		if want && !re.May(line) {
			t.Fatalf("%q matches %q but the prefilter turned it away", pattern, line)
		}
		if re.MatchString(line) != want {
			t.Fatalf("%q: MatchString(%q) is not %v, as the expression's", pattern, line, want)
		}
	})
}

func TestCompiledOnFirstUseOnly(t *testing.T) {
	made.Lock()
	before := len(made.all)
	made.Unlock()
	t.Cleanup(func() { // the next CheckAll sees only good expressions again
		made.Lock()
		made.all = made.all[:before]
		made.Unlock()
	})
	bad := MustCompile(`^(unclosed`) // made without a panic: nothing compiled yet
	if err := CheckAll(); err == nil {
		t.Fatal("CheckAll accepted an expression that does not compile")
	}
	defer func() {
		if recover() == nil {
			t.Fatal("using an expression that does not compile did not panic")
		}
	}()
	bad.MatchString("(")
}

// TestConcurrentUse matches from several goroutines at once while the
// automaton's states are still being made (run it with -race): every
// answer is the matcher's.
func TestConcurrentUse(t *testing.T) {
	re := MustCompile(`^\s*(--- (PASS|FAIL): \S+|=== RUN\s+\S+$|ok\s+\d+)`)
	lines := []string{"--- PASS: TestX (0.00s)", "  --- FAIL: T", "=== RUN   TestY", "=== RUN   TestY x", "ok 12", "ok x", "    log line", ""}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := range 8 {
		wg.Go(func() {
			for i := range 2000 {
				l := lines[(i+g)%len(lines)]
				if got, want := re.MatchString(l), re.Std().MatchString(l); got != want {
					errs <- l
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for l := range errs {
		t.Errorf("MatchString(%q) is not the matcher's answer", l)
	}
}

// TestClassName: a word ending in the suffix, longer than it and starting
// with a capital, with word boundaries as \b sees them.
func TestClassName(t *testing.T) {
	for _, c := range []struct {
		s    string
		want bool
	}{
		{"TypeError: x", true},
		{"raise ValueError('x')", true},
		{"json.decoder.JSONDecodeError", true},
		{"at java.lang.NullPointerException", true},
		{"E_Error", true},
		{"Error: x", false},           // the suffix alone
		{"err.Error()", false},        // the suffix alone, after a dot
		{"fmt.Errorf(", false},        // the word goes on
		{"handleError()", false},      // no capital
		{"my_Error", false},           // the word starts with 'm'
		{"ErrorError", true},          // a second occurrence ends the word
		{"TypeErrorX and Bad", false}, // ends in neither
		{"", false},
	} {
		if got := ClassName(c.s, "Error") || ClassName(c.s, "Exception"); got != c.want {
			t.Errorf("ClassName(%q) = %v, want %v", c.s, got, c.want)
		}
	}
}

// TestPairsAreEveryPairWalked: the pairs worked out from each instruction's
// bytes are those found by stepping the program over every pair of bytes.
func TestPairsAreEveryPairWalked(t *testing.T) {
	for _, p := range patterns {
		re, err := syntax.Parse(p, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		re = re.Simplify()
		got, gotOK := pairsOf(re)
		want, wantOK := walkEveryPair(re)
		if gotOK != wantOK || (gotOK && *got != *want) {
			t.Errorf("%q: the pairs differ from a walk of every pair", p)
		}
	}
}

// walkEveryPair is pairsOf as the definition reads: a first byte, then
// every second byte, each stepped through the program.
func walkEveryPair(re *syntax.Regexp) (*pairSet, bool) {
	prog, err := syntax.Compile(re)
	if err != nil {
		return nil, false
	}
	start := closure(prog, []uint32{uint32(prog.Start)})
	if start.matches {
		return nil, false
	}
	p := new(pairSet)
	for a := range 256 {
		next := closure(prog, step(prog, start.runes, rune(a)))
		if a >= utf8.RuneSelf || next.matches {
			p.setRow(byte(a))
			continue
		}
		for b := range 256 {
			if b >= utf8.RuneSelf || len(step(prog, next.runes, rune(b))) > 0 {
				p.set(byte(a), byte(b))
			}
		}
	}
	return p, true
}

func TestRequiredText(t *testing.T) {
	for _, c := range []struct{ expr, want string }{
		{`File "([^"]+)", line (\d+)`, `", line `},
		{`in ([\w./-]+):line (\d+)`, `:line `},
		{`at ([\w$.]+)\.[\w$<>]+\((\w+\.(?:java|kt)):(\d+)\)`, `at `},
		{`(?i)bearer\s+(\w+)`, ``}, // ignoring case
		{`(?:abc|xbd)y`, `y`},      // an alternation holds no one text
		{`(?:abc|abd)x`, `ab`},     // but its common start
		{`(ab)?cd`, `cd`},          // an optional part is not required
		{`(?:xyz)+q`, `xyz`},       // at least once
		{`(?:xyz){0,3}q`, `q`},     // maybe never
		{`é+abc`, `abc`},           // past ASCII: not used
		{`^=== (RUN|CONT)\s+(\S+)`, `=== `},
	} {
		re, err := syntax.Parse(c.expr, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		if got := required(re.Simplify()); got != c.want {
			t.Errorf("%q: required %q, want %q", c.expr, got, c.want)
		}
	}
}

// BenchmarkShortUse is what the expressions cost a short output, whose
// lines try each a few times (20 lines here): compiled, and tried with the
// matcher alone as MustCompile's are until their prefilterAfter-th use,
// against compiled with the prefilter made at once, as every expression
// was before (x_eager).
func BenchmarkShortUse(b *testing.B) {
	lines := []string{"=== RUN   TestX", "    x_test.go:3: log", "--- PASS: TestX (0.00s)", "ok  \tpkg\t0.1s", "PASS"}
	try := func(r *Regexp) {
		for i := range 20 {
			r.MatchString(lines[i%len(lines)])
		}
	}
	var lazy, eager time.Duration
	for b.Loop() {
		start := time.Now()
		for _, p := range patterns {
			try(&Regexp{expr: p}) // MustCompile's, without its entry in made
		}
		lazy += time.Since(start)
		start = time.Now()
		for _, p := range patterns {
			r, err := compile(p)
			if err != nil {
				b.Fatal(err)
			}
			try(r)
		}
		eager += time.Since(start)
	}
	b.ReportMetric(float64(lazy.Microseconds())/1000/float64(b.N), "lazy_ms")
	b.ReportMetric(float64(eager.Microseconds())/1000/float64(b.N), "eager_ms")
	b.ReportMetric(float64(eager)/float64(lazy), "x_eager")
}

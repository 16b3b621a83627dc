package redact

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// findsWith lists the secrets of line with rules that have a reach
// running on windows from lines of from bytes on, and with the gates off
// if off.
func findsWith(from int, off bool, line string) []find {
	defer func(old int, wasOff bool) { windowFrom, ungated = old, wasOff }(windowFrom, ungated)
	windowFrom, ungated = from, off
	var r Redactor
	return r.finds([]byte(line))
}

// filler is text a minified bundle or a log puts around secrets: names
// that hold keywords, separators, quotes, spaces and values.
var filler = []string{
	"function(e,t){return ", "e.key=t;", "this.token", "linear", "Linear", "password", "_PASSWORD",
	"apiKey", "secret", "credentials:", "auth", "access_", "key", "KEY", "Key", "test_", "live_",
	"sk", "SK", "s.", "hvs.", "data:", "-u", "-H", "ey", ".ey", "://", "user:pw@", "@host",
	" ", "  ", "\t", ";", ",", "=", ":", "=>", "|", "\"", "'", "`", "(", ")", "{", "}", "[", "]",
	"\\n", "/", ".", "-", "_", "x", "0", "9f", "abcdef0123456789abcdef0123456789",
	"Zx9qLm2Rt4Vw8Zy3Bn6Jc", "AKIAIOSFODNN7EXAMPLE", "dXNlcjpwYXNzd29yZA==", "ſ", "K",
	"src/pkg/key_test.go:12:5", "./secrets/token.txt",
}

// TestWindowsFindWhatTheWholeLineDoes: on any line, running the rules with
// a reach on the windows around the keywords their gates admit redacts all
// that running every rule whose keyword the line holds, ungated, on the
// whole line does. (Windows may find more: on the
// whole line a match consumes the byte a next one needs before it, as in
// `KEY:""DB_KEY="…"`.) Lines are made of matches of
// the rules' own expressions (drawn by rapid from the expressions),
// the secret corpus and filler.
func TestWindowsFindWhatTheWholeLineDoes(t *testing.T) {
	e := rules()
	var exprs []string
	for _, g := range e.gitleaks {
		exprs = append(exprs, g.ready().re.String())
	}
	for _, o := range e.own {
		exprs = append(exprs, o.re.String())
	}
	var corpus []string
	for _, c := range secretCorpus() {
		corpus = append(corpus, c.line)
	}
	part := rapid.OneOf(
		rapid.SampledFrom(filler),
		rapid.SampledFrom(corpus),
		rapid.SampledFrom(benignLines),
		rapid.Custom(func(t *rapid.T) string {
			expr := rapid.SampledFrom(exprs).Draw(t, "rule")
			return rapid.StringMatching(expr).Draw(t, "match")
		}),
	)
	rapid.Check(t, func(t *rapid.T) {
		parts := rapid.SliceOfN(part, 1, 60).Draw(t, "parts")
		line := strings.Join(parts, "")
		if strings.ContainsAny(line, "\n") || strings.Contains(line, "-----BEGIN") {
			return
		}
		whole, windowed := findsWith(1<<30, true, line), findsWith(0, false, line)
		for _, f := range whole {
			if !covered(windowed, f) {
				t.Fatalf("line %q\nwhole-line find %q (%s) is not found on windows; they found %v",
					line, line[f.start:f.end], f.kind, windowed)
			}
		}
	})
}

// covered reports whether f lies within one of fs (merged, in order).
func covered(fs []find, f find) bool {
	for _, g := range fs {
		if g.start <= f.start && f.end <= g.end {
			return true
		}
	}
	return false
}

// TestLongLinesKeepTheirSecrets: every secret of the corpus is redacted
// in the middle of a line of minified code long enough to run on windows.
func TestLongLinesKeepTheirSecrets(t *testing.T) {
	code := strings.Repeat("function(e,t){return e.key=t,this.token=e.linear?t:e.auth;}", 40)
	for _, c := range secretCorpus() {
		line := code + " " + c.line + " " + code
		if len(line) < windowFrom {
			t.Fatalf("a line of %d bytes is too short to test windows", len(line))
		}
		var r Redactor
		if got := r.Line([]byte(line)); bytes.Contains(got, []byte(c.secret)) {
			t.Errorf("%s: secret survived in a long line: %s", c.kind, c.secret)
		}
	}
}

// TestRefCoversAgreesWithFileRefs: on any line, refCovers says of any
// stretch what the file references of the whole line say.
func TestRefCoversAgreesWithFileRefs(t *testing.T) {
	pieces := []string{"src", "pkg", "/", ".", "..", "~", "@types", "-", "_", ":", "12", "5", ".go", ".ts",
		"main", " ", "\"", "'", "(", "=", ",", "+", "secret_token", "api_key", "\t", "x", "Z9"}
	rapid.Check(t, func(t *rapid.T) {
		line := []byte(strings.Join(rapid.SliceOfN(rapid.SampledFrom(pieces), 0, 40).Draw(t, "parts"), ""))
		s := rapid.IntRange(0, len(line)).Draw(t, "s")
		e := rapid.IntRange(s, len(line)).Draw(t, "e")
		if s == e {
			return
		}
		if got, want := refCovers(line, s, e), within(fileRefs(line), s, e); got != want {
			t.Fatalf("line %q [%d:%d] %q: refCovers %v, fileRefs %v (%v)", line, s, e, line[s:e], got, want, fileRefs(line))
		}
	})
}

// TestReachHoldsEveryMatch: for every rule with a reach, each match of its
// expression (drawn by rapid from the expression, between filler) that
// the rule would report holds a keyword occurrence that the rule's gate
// admits and whose reach holds the whole match.
func TestReachHoldsEveryMatch(t *testing.T) {
	e := rules()
	type rule struct {
		name  string
		re    *regexp.Regexp
		slot  int
		reach reach
		valid func([]byte, []int) bool // of freshctx's rules
	}
	var rs []rule
	for i, g := range e.gitleaks {
		if g.ready().reach != nil {
			rs = append(rs, rule{g.id, g.ready().re, i, g.ready().reach, nil})
		}
	}
	for i, o := range e.own {
		if o.reach != nil {
			rs = append(rs, rule{o.kind, o.re.Std(), len(e.gitleaks) + i, o.reach, o.valid})
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		r := rapid.SampledFrom(rs).Draw(t, "rule")
		before := strings.Join(rapid.SliceOfN(rapid.SampledFrom(filler), 0, 4).Draw(t, "before"), "")
		after := strings.Join(rapid.SliceOfN(rapid.SampledFrom(filler), 0, 4).Draw(t, "after"), "")
		line := []byte(before + rapid.StringMatching(r.re.String()).Draw(t, "match") + after)
		if hasFoldVariant(line) {
			return // such lines run whole, ungated
		}
		var occ []span
		e.keywords.scan(line, func(word, s, end int) {
			for _, tg := range e.targets[word] {
				k := tg.i
				if tg.own {
					k += len(e.gitleaks)
				}
				if k == r.slot && (tg.gate == nil || tg.gate(line, s, end)) &&
					(tg.lineWord == "" || containsFold(line, tg.lineWord)) {
					occ = append(occ, span{s, end})
				}
			}
		})
		for _, m := range r.re.FindAllSubmatchIndex(line, -1) {
			if r.valid != nil && !r.valid(line, m) {
				continue // a gate may turn away what the rule would not find
			}
			held := false
			for _, o := range occ {
				if w := r.reach(line, o.start, o.end); o.start >= m[0] && o.end <= m[1] && w.start <= m[0] && m[1] <= w.end {
					held = true
				}
			}
			if !held {
				t.Fatalf("%s: match %q of %q is within the reach of no admitted keyword (occurrences %v)",
					r.name, line[m[0]:m[1]], line, occ)
			}
		}
	})
}

// TestLineChecks: the two byte tests that decide how a line is searched.
func TestLineChecks(t *testing.T) {
	for _, c := range []struct {
		name  string
		check func([]byte) bool
		line  string
		want  bool
	}{
		{"hasFoldVariant", hasFoldVariant, "", false}, {"hasFoldVariant", hasFoldVariant, "plain ascii", false},
		{"hasFoldVariant", hasFoldVariant, "paſſword=x", true}, {"hasFoldVariant", hasFoldVariant, "\u212aEY=x", true},
		{"hasFoldVariant", hasFoldVariant, "\xc5", false}, {"hasFoldVariant", hasFoldVariant, "\xe2\x84", false},
		{"hasFoldVariant", hasFoldVariant, "é and ü and €", false}, {"hasFoldVariant", hasFoldVariant, "€\u212a", true},
		{"ascii", ascii, "", true}, {"ascii", ascii, "abc", true}, {"ascii", ascii, "exactly8", true},
		{"ascii", ascii, "sixteen bytes!!!", true}, {"ascii", ascii, "\x80", false},
		{"ascii", ascii, "1234567\x80", false}, {"ascii", ascii, "12345678\xff", false}, {"ascii", ascii, "é", false},
	} {
		if got := c.check([]byte(c.line)); got != c.want {
			t.Errorf("%s(%q) = %v, want %v", c.name, c.line, got, c.want)
		}
	}
}

// TestAdjacentAssignmentsBothFound: the example of windows' doc comment,
// whose second assignment a match on the whole line misses.
func TestAdjacentAssignmentsBothFound(t *testing.T) {
	line := `api_key="Zx9qLm2Rt4Vw8Zy3"db_key="Qw7eRt5Yu3Io1Pa9"`
	line = strings.Repeat("x", windowFrom) + " " + line
	var r Redactor
	got := string(r.Line([]byte(line)))
	if strings.Contains(got, "Zx9qLm2Rt4Vw8Zy3") || strings.Contains(got, "Qw7eRt5Yu3Io1Pa9") {
		t.Fatalf("a secret survived: %s", got[windowFrom:])
	}
	// on the whole line only the generic rule finds the second
	if n := r.kinds["secret-assignment"]; n != 2 {
		t.Fatalf("the assignment rule found %d, want both: %v", n, r.kinds)
	}
}

// TestGenericGateEndsTheValue: the generic rule's gate turns away a value
// its expression cannot end (Go's `key := x.Key()`, most of what source
// holds) and admits each way a value can end; on every line the gate must
// admit what the rule's own expression matches.
func TestGenericGateEndsTheValue(t *testing.T) {
	e := rules()
	var rule *leakRule
	for i := range e.gitleaks {
		if e.gitleaks[i].id == "generic-api-key" {
			rule = e.gitleaks[i]
		}
	}
	if rule == nil {
		t.Fatal("no generic-api-key rule")
	}
	gate := leakGates["generic-api-key"]
	for _, c := range []struct {
		line string
		want bool
	}{
		{`	tok := r.TokenizerName()`, false},
		{`	key = strings.TrimSpace(value)`, false},
		{`	apiKey := cfg.Section.Credentials[0]`, false},
		{`api_key=Zx9qLm2Rt4Vw8Zy3`, true},
		{`api_key="Zx9qLm2Rt4Vw8Zy3"`, true},
		{"api_key=`Zx9qLm2Rt4Vw8Zy3`", true},
		{`api_key: 'Zx9qLm2Rt4Vw8Zy3' # note`, true},
		{`export API_KEY=Zx9qLm2Rt4Vw8Zy3;`, true},
		{`"token": "Zx9qLm2Rt4Vw8Zy3\n"`, true},
		{`token = ==Zx9qLm2Rt4Vw8Zy3+/==` + "\t", true},
		{`token = Zx9qLm2Rt4Vw8Zy3)`, false},
	} {
		line := []byte(c.line)
		admitted := false
		for _, w := range []string{"key", "token", "api", "Key", "Token", "API"} {
			for s := 0; s+len(w) <= len(line); s++ {
				if string(line[s:s+len(w)]) == w && gate(line, s, s+len(w)) {
					admitted = true
				}
			}
		}
		if admitted != c.want {
			t.Errorf("gate(%q) = %v, want %v", c.line, admitted, c.want)
		}
		if rule.ready().re.Match(line) && !admitted {
			t.Errorf("the rule matches %q, which the gate turns away", c.line)
		}
	}
}

// TestSecretAfterAnEarlierKeyword: on a long line (windows), a rule's
// secret is found where its keyword occurs a second time, far from a first
// occurrence that holds none: each admitted occurrence gets its window.
func TestSecretAfterAnEarlierKeyword(t *testing.T) {
	e := rules()
	byID := map[string]*leakRule{}
	for _, g := range e.gitleaks {
		byID[g.id] = g
	}
	tried := 0
	for _, c := range secretCorpus() {
		g := byID[c.kind]
		if g == nil || len(mustFullConfig().Rules[g.index].Keywords) == 0 {
			continue
		}
		tried++
		decoy := strings.ToLower(mustFullConfig().Rules[g.index].Keywords[0])
		line := "first " + decoy + " = none;" + strings.Repeat(" filler", windowFrom/7+10) + " then " + c.line
		var r Redactor
		if out := string(r.Line([]byte(line))); strings.Contains(out, c.secret) {
			t.Errorf("%s: the secret after a first %q survives on a long line", c.kind, decoy)
		}
	}
	if tried < 50 {
		t.Fatalf("only %d rules of the corpus tried", tried)
	}
}

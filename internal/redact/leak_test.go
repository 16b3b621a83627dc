package redact

import (
	"bufio"
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"
	"pgregory.net/rapid"
)

// detectors builds gitleaks' own detector for each rule freshctx takes,
// configured as freshctx judges the rule: that rule alone, with the global
// allowlists. Only the tests import the detector.
func detectors(t testing.TB) map[string]*detect.Detector {
	d, err := detect.NewDetectorDefaultConfig()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*detect.Detector{}
	for _, g := range rules().gitleaks {
		r := d.Config.Rules[g.id]
		one := config.Config{
			Rules:        map[string]config.Rule{g.id: r},
			Keywords:     map[string]struct{}{},
			OrderedRules: []string{g.id},
			Allowlists:   d.Config.Allowlists,
		}
		for _, k := range r.Keywords {
			one.Keywords[strings.ToLower(k)] = struct{}{}
		}
		out[g.id] = detect.NewDetector(one)
	}
	return out
}

// sameJudgement fails unless every rule finds in line the secrets gitleaks'
// detector finds, in its order. It counts the rules that found a secret,
// and those whose expression matched but whose match was judged no secret
// (a secret group, an entropy floor, an allowlist, gitleaks:allow).
func sameJudgement(t rapid.TB, dets map[string]*detect.Detector, line string) (found, judgedOut int) {
	for _, g := range rules().gitleaks {
		var theirs []string
		for _, f := range dets[g.id].DetectString(line) {
			theirs = append(theirs, f.Secret)
		}
		if ours := g.judge.secrets(line); !slices.Equal(ours, theirs) {
			t.Fatalf("rule %s on %q: freshctx finds %q, gitleaks %q", g.id, line, ours, theirs)
		}
		switch {
		case len(theirs) > 0:
			found++
		case g.re.MatchString(line):
			judgedOut++
		}
	}
	return found, judgedOut
}

// judgedLines are lines to judge both ways: the secret corpus as it is and
// as allowlists, entropy floors and keywords meet it, the benign lines, a
// real go test -v log, and lines built around each rule's keywords.
func judgedLines(t *testing.T) []string {
	var lines []string
	for _, c := range secretCorpus() {
		lines = append(lines, c.line,
			c.line+" // gitleaks:allow",
			strings.Replace(c.line, c.secret, c.secret[:len(c.secret)/2]+"EXAMPLE", 1),
			strings.Replace(c.line, c.secret, strings.Repeat("a", len(c.secret)), 1),
			strings.Replace(c.line, c.secret, c.secret[:len(c.secret)/2]+"client"+c.secret[len(c.secret)/2:], 1),
			strings.ToLower(c.line), strings.ToUpper(c.line),
			"key="+c.secret, "password: "+c.secret+" token="+c.secret)
	}
	lines = append(lines, benignLines...)
	f, err := os.Open("testdata/go-test-v.log")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for n := 0; sc.Scan() && n < 3000; n++ {
		lines = append(lines, sc.Text())
	}
	for _, w := range rules().words {
		lines = append(lines, w+"=Xk9Lm2Qp7Rt4Vw8Zy3Bn6Jc", `"`+w+`": "0123456789abcdefABCDEF"`, w)
	}
	// A rule that names its secret group, and allowlists that look at the
	// whole line.
	return append(lines,
		`SONAR_TOKEN = "squ_0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b"`,
		`sonar.login: 0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b`,
		`RUN --mount=type=secret,id=x token=Xk9Lm2Qp7Rt4Vw8Zy3Bn6Jc cat /run/secrets/x`,
		`RUN --mount=type=cache token=Xk9Lm2Qp7Rt4Vw8Zy3Bn6Jc`,
		`import { apiKey, token } from "./Xk9Lm2Qp7Rt4Vw8Zy3Bn6Jc"`,
		`password = "pä€ßwörd-日本-Xk9Lm2Qp7"`)
}

// TestLeakRulesJudgeAsGitleaks holds leak.go, which judges a match by
// gitleaks' rules without its detector, to the detector itself on every
// rule freshctx takes.
func TestLeakRulesJudgeAsGitleaks(t *testing.T) {
	dets := detectors(t)
	lines := judgedLines(t)
	if testing.Short() { // every third line
		short := lines[:0]
		for i := 0; i < len(lines); i += 3 {
			short = append(short, lines[i])
		}
		lines = short
	}
	var found, judgedOut int
	for _, line := range lines {
		f, j := sameJudgement(t, dets, line)
		found, judgedOut = found+f, judgedOut+j
	}
	t.Logf("%d lines, %d rules: %d findings, %d matches judged no secret", len(lines), len(dets), found, judgedOut)
	if found < len(secretCorpus())/3 || judgedOut < 20 {
		t.Fatalf("the lines put the rules to too little test: %d findings, %d matches judged no secret", found, judgedOut)
	}
}

// TestLeakRulesJudgeDrawnLines draws lines of keywords, separators, quotes
// and values of every alphabet the rules use, so that expressions,
// secret groups, entropy floors and stop words meet what no corpus holds.
func TestLeakRulesJudgeDrawnLines(t *testing.T) {
	dets := detectors(t)
	words := rules().words
	rapid.Check(t, func(rt *rapid.T) {
		var b bytes.Buffer
		for range rapid.IntRange(1, 4).Draw(rt, "parts") {
			b.WriteString(rapid.SampledFrom(words).Draw(rt, "keyword"))
			b.WriteString(rapid.SampledFrom([]string{"", "_", "=", ": ", `":"`, " = '", "-", "."}).Draw(rt, "sep"))
			alphabet := []rune(rapid.SampledFrom([]string{alnum, hexLower, b64, upalnum, wordDash, "ab", "example", "aä€ß日本9"}).Draw(rt, "alphabet"))
			n := rapid.IntRange(0, 90).Draw(rt, "n")
			for range n {
				b.WriteRune(alphabet[rapid.IntRange(0, len(alphabet)-1).Draw(rt, "c")])
			}
			b.WriteString(rapid.SampledFrom([]string{"", `"`, "'", " ", ";"}).Draw(rt, "end"))
		}
		sameJudgement(rt, dets, b.String())
	})
}

// TestDefaultRulesNeedNoOtherRule: leak.go does not judge a rule that needs
// another's finding near its own (gitleaks' required rules); the default
// rules have none. A gitleaks that adds one fails here, not silently.
func TestDefaultRulesNeedNoOtherRule(t *testing.T) {
	cfg, err := defaultConfig()
	if err != nil {
		t.Fatal(err)
	}
	d, err := detect.NewDetectorDefaultConfig()
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Rules) != len(d.Config.Rules) || len(cfg.Allowlists) != len(d.Config.Allowlists) {
		t.Fatalf("freshctx loads %d rules and %d allowlists, gitleaks %d and %d",
			len(cfg.Rules), len(cfg.Allowlists), len(d.Config.Rules), len(d.Config.Allowlists))
	}
	for id, r := range cfg.Rules {
		if len(r.RequiredRules) > 0 {
			t.Errorf("rule %s requires other rules, which leak.go does not judge", id)
		}
		if theirs := d.Config.Rules[id]; theirs.Regex == nil != (r.Regex == nil) || (r.Regex != nil && r.Regex.String() != theirs.Regex.String()) {
			t.Errorf("rule %s: freshctx loads another expression than gitleaks", id)
		}
	}
}

package redact

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/freshctx/freshctx/internal/testrace"
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
		if ours := g.ready().judge.secrets(line); !slices.Equal(ours, theirs) {
			t.Fatalf("rule %s on %q: freshctx finds %q, gitleaks %q", g.id, line, ours, theirs)
		}
		switch {
		case len(theirs) > 0:
			found++
		case g.ready().re.MatchString(line):
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
	testrace.Skip(t, "judges a corpus line by line on one goroutine")
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
	cfg := defaultConfig(t)
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

// defaultConfig is gitleaks' default rules translated whole, as its
// detector loads them.
func defaultConfig(t testing.TB) config.Config {
	t.Helper()
	vc, err := defaultViperConfig()
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := vc.Translate()
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestRulesTranslateAsOne: each rule translated alone (ruleConfig) is the
// rule the whole configuration translates to, and the global allowlists
// translated alone (globalConfig) are its global allowlists: for the
// default rules, and for them with their global allowlist given as one
// that targets no rule beside one that targets three, which gitleaks
// allows and its default rules may one day hold.
func TestRulesTranslateAsOne(t *testing.T) {
	read := func() config.ViperConfig {
		vc, err := defaultViperConfig()
		if err != nil {
			t.Fatal(err)
		}
		return vc
	}
	targeted := func() config.ViperConfig {
		vc := read()
		all, some := *vc.AllowList, *vc.AllowList
		some.TargetRules = []string{"generic-api-key", "aws-access-token", "jwt"}
		some.Description = "targeted"
		vc.AllowList, vc.Allowlists = nil, append(vc.Allowlists, &all, &some)
		return vc
	}
	for name, load := range map[string]func() config.ViperConfig{"default": read, "targeted": targeted} {
		whole := load()
		want, err := whole.Translate()
		if err != nil {
			t.Fatal(err)
		}
		vc := load()
		g := globalConfig(&vc)
		globals, err := g.Translate()
		if err != nil {
			t.Fatalf("%s: the global allowlists alone: %v", name, err)
		}
		if got, want := allowlistsKey(globals.Allowlists), allowlistsKey(want.Allowlists); got != want {
			t.Errorf("%s: global allowlists alone\n%s\nwhole\n%s", name, got, want)
		}
		targets := 0
		for i, vr := range vc.Rules {
			one := ruleConfig(&vc, i)
			cfg, err := one.Translate()
			if err != nil {
				t.Fatalf("%s: rule %s alone: %v", name, vr.ID, err)
			}
			if len(cfg.Rules) != 1 || len(cfg.Allowlists) != 0 {
				t.Fatalf("%s: rule %s alone translates to %d rules and %d global allowlists", name, vr.ID, len(cfg.Rules), len(cfg.Allowlists))
			}
			got, wantRule := cfg.Rules[vr.ID], want.Rules[vr.ID]
			if a, b := ruleKey(got), ruleKey(wantRule); a != b {
				t.Errorf("%s: rule %s alone\n%s\nwhole\n%s", name, vr.ID, a, b)
			}
			if strings.Contains(allowlistsKey(got.Allowlists), "targeted") {
				targets++
			}
		}
		if wantTargets := map[string]int{"default": 0, "targeted": 3}[name]; targets != wantTargets {
			t.Errorf("%s: %d rules hold the targeted allowlist, want %d", name, targets, wantTargets)
		}
		if len(vc.Rules) != len(want.Rules) {
			t.Errorf("%s: %d rules read, %d translated whole", name, len(vc.Rules), len(want.Rules))
		}
	}
}

// ruleKey is everything of a translated rule that judging it reads.
func ruleKey(r config.Rule) string {
	re, path := "<nil>", "<nil>"
	if r.Regex != nil {
		re = r.Regex.String()
	}
	if r.Path != nil {
		path = r.Path.String()
	}
	return fmt.Sprintf("id=%s desc=%q re=%q path=%q group=%d entropy=%v keywords=%q tags=%q skip=%v required=%d allowlists=[%s]",
		r.RuleID, r.Description, re, path, r.SecretGroup, r.Entropy, r.Keywords, r.Tags, r.SkipReport, len(r.RequiredRules),
		allowlistsKey(r.Allowlists))
}

// allowlistsKey is every field of allowlists, their stop words and commits
// sorted (gitleaks keeps them as a set's keys).
func allowlistsKey(as []*config.Allowlist) string {
	var b strings.Builder
	for _, a := range as {
		var res, paths []string
		for _, r := range a.Regexes {
			res = append(res, r.String())
		}
		for _, p := range a.Paths {
			paths = append(paths, p.String())
		}
		stop, commits := slices.Sorted(slices.Values(a.StopWords)), slices.Sorted(slices.Values(a.Commits))
		fmt.Fprintf(&b, "{desc=%q cond=%v target=%q regexes=%q paths=%q stop=%q commits=%q} ",
			a.Description, a.MatchCondition, a.RegexTarget, res, paths, stop, commits)
	}
	return b.String()
}

// TestRulesTranslateOnceAcrossGoroutines: rules translated on first use by
// eight goroutines at once (an MCP server captures several outputs at a
// time) find, in every line of the secret corpus, what rules translated
// one after another find. Run with -race.
func TestRulesTranslateOnceAcrossGoroutines(t *testing.T) {
	var lines [][]byte
	for _, c := range secretCorpus() {
		lines = append(lines, []byte(c.line), []byte("x "+c.line+" y"))
	}
	one, err := build()
	if err != nil {
		t.Fatal(err)
	}
	want := make([][]find, len(lines))
	for i, l := range lines {
		want[i] = findAll(one, l)
	}
	shared, err := build()
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for w := range 8 {
		wg.Go(func() {
			for k := range lines {
				i := (k + w*len(lines)/8) % len(lines) // each starts elsewhere
				if got := findAll(shared, lines[i]); !slices.Equal(got, want[i]) {
					errs <- fmt.Sprintf("%q: found %v at once, %v one after another", lines[i], got, want[i])
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if n := len(slices.DeleteFunc(slices.Clone(want), func(f []find) bool { return len(f) == 0 })); n < len(lines)/2 {
		t.Fatalf("only %d of %d lines held a secret the rules found: the test proves little", n, len(lines))
	}
}

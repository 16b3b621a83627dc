package redact

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/zricethezav/gitleaks/v8/config"
)

// freshctx takes gitleaks' rules (package config: the expressions, their
// keywords, secret groups, entropy floors and allowlists) and judges a
// match by them as gitleaks' detector judges a fragment that has no file
// and no commit, which is what a line of output is. It does not import
// the detector: that package brings archive, file-type and version
// libraries for scanning files and repositories, whose start-up cost every
// freshctx process paid (1 ms of 5 for `freshctx version`), and the
// detector holds a keyword trie per instance. TestLeakRulesJudgeAsGitleaks
// (in the tests, which may import it) holds this file to the detector.

// defaultViperConfig reads gitleaks' default rules into the structure its
// detector reads them into, before they are translated (compiled). It
// decodes the TOML with go-toml, not through viper as gitleaks' loader does:
// viper's decoding (mapstructure and reflection over 200-odd rules) took
// 17 ms a process; TestDefaultRulesDecodeAsViper holds the two to the
// same result.
func defaultViperConfig() (config.ViperConfig, error) {
	var vc config.ViperConfig
	if err := toml.NewDecoder(strings.NewReader(config.DefaultConfig)).Decode(&vc); err != nil {
		return config.ViperConfig{}, fmt.Errorf("read: %w", err)
	}
	if vc.Extend.Path != "" || vc.Extend.UseDefault {
		return config.ViperConfig{}, errors.New("the default rules extend others, which are not translated one rule at a time")
	}
	return vc, nil
}

// A rule is translated only when a line first passes its keyword and gate
// (engine.go). gitleaks translates a configuration as a whole, compiling
// every rule's expressions and building a trie of the global allowlist's
// 1,500 stop words: built so, the ruleset took 27-28 ms at a process's
// first keyword, and 3 ms as it is built now (BenchmarkRulesBuild), where
// a line meets a handful of rules. ruleConfig and globalConfig split the
// configuration so that Translate does for one rule, and for the global
// allowlists, what it does for all (TestRulesTranslateAsOne holds them to
// the whole).

// ruleConfig is vc with its i-th rule alone, and the global allowlists
// that target that rule, narrowed to it.
func ruleConfig(vc *config.ViperConfig, i int) config.ViperConfig {
	one := config.ViperConfig{Title: vc.Title, Description: vc.Description, MinVersion: vc.MinVersion}
	one.Rules = slices.Clone(vc.Rules[i : i+1])
	one.Rules[0].Keywords = slices.Clone(one.Rules[0].Keywords) // Translate lowercases them in place
	id := one.Rules[0].ID
	for _, a := range vc.Allowlists {
		if slices.Contains(a.TargetRules, id) {
			narrowed := *a
			narrowed.TargetRules = []string{id}
			one.Allowlists = append(one.Allowlists, &narrowed)
		}
	}
	return one
}

// globalConfig is vc's global allowlists that target no rule, and no rule.
func globalConfig(vc *config.ViperConfig) config.ViperConfig {
	g := config.ViperConfig{Title: vc.Title, Description: vc.Description, MinVersion: vc.MinVersion, AllowList: vc.AllowList}
	for _, a := range vc.Allowlists {
		if len(a.TargetRules) == 0 {
			g.Allowlists = append(g.Allowlists, a)
		}
	}
	return g
}

// allowSignature on a line keeps gitleaks from reporting its secrets.
const allowSignature = "gitleaks:allow"

// leakJudge is one gitleaks rule and the allowlists that apply to it.
type leakJudge struct {
	rule     config.Rule
	global   []*config.Allowlist
	keywords []string // lower case
}

// secrets returns the secrets the rule finds in text, a fragment of one
// line, in the order gitleaks reports them: each match of the rule's
// expression, narrowed to its secret group (or its first non-empty
// group), above the rule's entropy floor and allowed by no allowlist.
func (j *leakJudge) secrets(text string) []string {
	r := &j.rule
	if r.SkipReport || r.Regex == nil || !j.hasKeyword(text) {
		return nil
	}
	if r.Path != nil && !r.Path.MatchString("") {
		return nil // the rule is for files of some kind; output is none
	}
	if strings.Contains(text, allowSignature) {
		return nil
	}
	var out []string
	for _, m := range r.Regex.FindAllStringIndex(text, -1) {
		match := strings.Trim(text[m[0]:m[1]], "\n")
		secret := match
		if groups := r.Regex.FindStringSubmatch(match); len(groups) >= 2 {
			if r.SecretGroup > 0 {
				if len(groups) <= r.SecretGroup {
					continue
				}
				secret = groups[r.SecretGroup]
			} else {
				for _, s := range groups[1:] {
					if s != "" {
						secret = s
						break
					}
				}
			}
		}
		if r.Entropy != 0 && leakEntropy(secret) <= r.Entropy {
			continue
		}
		if allowed(j.global, secret, match, text) || allowed(r.Allowlists, secret, match, text) {
			continue
		}
		out = append(out, secret)
	}
	return out
}

// hasKeyword reports whether text holds one of the rule's keywords, as the
// detector's prefilter requires before it runs a rule.
func (j *leakJudge) hasKeyword(text string) bool {
	if len(j.keywords) == 0 {
		return true
	}
	lower := strings.ToLower(text)
	for _, k := range j.keywords {
		if strings.Contains(lower, k) {
			return true
		}
	}
	return false
}

// allowed reports whether an allowlist lets the secret pass: its
// expressions tried on the secret, the match or the line (RegexTarget),
// its stop words on the secret; with the AND condition every kind of check
// the list has must pass (a list with none passes, as in gitleaks), and a
// list of paths or commits never does, since output has neither.
func allowed(lists []*config.Allowlist, secret, match, line string) bool {
	for _, a := range lists {
		target := secret
		switch a.RegexTarget {
		case "match":
			target = match
		case "line":
			target = line
		}
		regex := a.RegexAllowed(target)
		stop, _ := a.ContainsStopWord(secret)
		if a.MatchCondition != config.AllowlistMatchAnd {
			if regex || stop {
				return true
			}
			continue
		}
		if len(a.Commits) == 0 && len(a.Paths) == 0 && (len(a.Regexes) == 0 || regex) && (len(a.StopWords) == 0 || stop) {
			return true
		}
	}
	return false
}

// leakEntropy is the Shannon entropy gitleaks measures a secret by: symbol
// frequencies over characters, divided by the length in bytes.
func leakEntropy(s string) float64 {
	if s == "" {
		return 0
	}
	counts := map[rune]int{}
	for _, c := range s {
		counts[c]++
	}
	inv := 1 / float64(len(s))
	var e float64
	for _, n := range counts {
		f := float64(n) * inv
		e -= f * math.Log2(f)
	}
	return e
}

package redact

import (
	"fmt"
	"sync"

	"github.com/zricethezav/gitleaks/v8/config"
)

// ruleHead is what indexing a gitleaks rule by its keywords needs: its id,
// its expression and its keywords, in the order of the rules.
type ruleHead struct {
	id, regex string
	keywords  []string
}

// The heads of gitleaks' default rules are compiled in (rule_heads.go,
// generated from the decoded configuration): reading them from gitleaks'
// TOML took about 0.8 ms of every process whose output held a keyword, a
// twentieth of a `run` of a short command, and decoding the whole
// configuration about 3 ms; a process whose lines never pass a rule's gate
// never needs the rest (fullConfig). TestRuleHeadsAreTheRules holds the
// heads to the decoded rules, one by one; when gitleaks changes, run
// `go test ./internal/redact -run TestRuleHeadsAreTheRules -update`.

// fullConfig is gitleaks' default configuration decoded whole, once, when
// a rule is first translated: only then are its allowlists, entropy and
// the global allowlists needed.
var fullConfig = sync.OnceValues(defaultViperConfig)

// mustFullConfig is fullConfig; the default rules are compiled into
// gitleaks, so one that does not decode is a broken build (as in ready).
func mustFullConfig() *config.ViperConfig {
	vc, err := fullConfig()
	if err != nil {
		panic(fmt.Sprintf("redact: gitleaks' default rules do not decode: %v", err))
	}
	return &vc
}

package redact

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/pelletier/go-toml/v2/unstable"
	"github.com/zricethezav/gitleaks/v8/config"
)

// ruleHead is what indexing a gitleaks rule by its keywords needs: its id,
// its expression and its keywords, in the order of the rules.
type ruleHead struct {
	id, regex string
	keywords  []string
}

// ruleHeads reads the heads of gitleaks' default rules with go-toml's
// parser, without decoding the whole configuration into its structure:
// that decoding is most of what building the ruleset costs (about 3 ms of
// a process's CPU), and a process whose lines never pass a rule's gate
// never needs the rest (fullConfig). TestRuleHeadsAreTheRules holds the
// heads to the decoded rules.
func ruleHeads() ([]ruleHead, error) {
	var p unstable.Parser
	p.Reset([]byte(config.DefaultConfig))
	var heads []ruleHead
	inRule := false // the last table header was a [[rules]] entry
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			inRule = e.Kind == unstable.ArrayTable && dotted(e.Key()) == "rules"
			if inRule {
				heads = append(heads, ruleHead{})
			}
		case unstable.KeyValue:
			if !inRule {
				continue
			}
			if err := heads[len(heads)-1].set(dotted(e.Key()), e.Value()); err != nil {
				return nil, err
			}
		}
	}
	if err := p.Error(); err != nil {
		return nil, fmt.Errorf("read gitleaks' rules: %w", err)
	}
	return heads, nil
}

// set takes the value of one of a rule's keys, if it is one a head holds.
func (h *ruleHead) set(key string, v *unstable.Node) error {
	switch key {
	case "id", "regex":
		if v.Kind != unstable.String {
			return fmt.Errorf("gitleaks rule %q: %s is not a string", h.id, key)
		}
		if key == "id" {
			h.id = string(v.Data)
		} else {
			h.regex = string(v.Data)
		}
	case "keywords":
		if v.Kind != unstable.Array {
			return fmt.Errorf("gitleaks rule %q: keywords is not an array", h.id)
		}
		for it := v.Children(); it.Next(); {
			k := it.Node()
			if k.Kind != unstable.String {
				return errors.New("gitleaks rule " + h.id + ": a keyword is not a string")
			}
			h.keywords = append(h.keywords, string(k.Data))
		}
	}
	return nil
}

// dotted is a key's parts joined by dots.
func dotted(it unstable.Iterator) string {
	var parts []string
	for it.Next() {
		parts = append(parts, string(it.Node().Data))
	}
	return strings.Join(parts, ".")
}

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

package redact

import (
	"slices"
	"testing"
)

// TestRuleHeadsAreTheRules: the heads read with the parser alone are the
// id, expression and keywords of every rule the whole decoding reads, in
// its order: a rule missed or a keyword lost would be a secret kept.
func TestRuleHeadsAreTheRules(t *testing.T) {
	heads, err := ruleHeads()
	if err != nil {
		t.Fatal(err)
	}
	vc, err := defaultViperConfig()
	if err != nil {
		t.Fatal(err)
	}
	if len(heads) != len(vc.Rules) || len(heads) < 200 {
		t.Fatalf("%d heads, %d rules", len(heads), len(vc.Rules))
	}
	withKeywords := 0
	for i, r := range vc.Rules {
		h := heads[i]
		if h.id != r.ID || h.regex != r.Regex || !slices.Equal(h.keywords, r.Keywords) {
			t.Errorf("rule %d: head %q %q %q, decoded %q %q %q", i, h.id, h.regex, h.keywords, r.ID, r.Regex, r.Keywords)
		}
		if len(h.keywords) > 0 {
			withKeywords++
		}
	}
	if withKeywords < 150 {
		t.Fatalf("only %d rules with keywords", withKeywords)
	}
}

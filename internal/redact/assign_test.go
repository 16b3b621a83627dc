package redact

import (
	"reflect"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// assignPieces build lines where assignments, near-assignments and their
// parts meet: key words in every case, names, quotes, separators, values,
// the bytes the lead admits and those it does not.
var assignPieces = []string{"password", "PassWd", "pass", "PWD", "secret", "Token", "apikey", "KEY", "credentials",
	"credential", "db_", "DB_", "x.", "-", "_", ".", "/", "a", "Z", "9", "=", ":", " = ", ": ", " ", "\t", `"`, "'",
	`"v a l"`, "'q'", "hunter2", "s3cr3t-Value", ",", ";", "&", "(", ")", "{", "[", "<", "@", "#", "`", "\\"}

// assignment draws an assignment, or something close to one: a lead, a
// quote or not, a name ending in a key word or not, separators and a value.
func assignment() *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		part := func(name string, from ...string) string { return rapid.SampledFrom(from).Draw(t, name) }
		return part("lead", "", " ", "\t", "(", ",", "/", ".", "a", "-", `"`) + part("open", "", `"`, "'") +
			part("name", "", "db_", "X.", "my-", "a1") + part("key", "password", "PASSWD", "pass", "Pwd", "secret", "token",
			"ApiKey", "key", "credentials", "credential", "keys", "tok") + part("close", "", `"`, "'") +
			part("space", "", " ", "  ", "\t") + part("sep", "=", ":", "==", " ", "=>", "") + part("space2", "", " ", "\t") +
			part("value", `"a b"`, `''`, "'x y'", "hunter2", "s3-cr.et", "", ",", "(v)", "a;b", "xyz@host")
	})
}

// TestAssignMatchesAreTheExpressions: the anchored search finds what the
// rule's expression finds, match for match and group for group.
func TestAssignMatchesAreTheExpressions(t *testing.T) {
	whole := assignExprs()[0]
	found, drawn := 0, 0
	piece := rapid.OneOf(rapid.SampledFrom(assignPieces), assignment())
	rapid.Check(t, func(t *rapid.T) {
		drawn++
		// Each line holds one plain assignment between the pieces, so the
		// test compares matches on every line, however few lines rapid
		// draws (with 20 the count of matches was left to chance).
		line := strings.Join(rapid.SliceOfN(piece, 0, 12).Draw(t, "before"), "") + " password=hunter2 " +
			strings.Join(rapid.SliceOfN(piece, 0, 12).Draw(t, "after"), "")
		want := whole.FindAllSubmatchIndex([]byte(line), -1)
		got := assignMatches([]byte(line))
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\n got %v\nwant %v", line, got, want)
		}
		found += len(want)
	})
	if found < drawn { // the planted one, at least
		t.Fatalf("only %d matches in the %d lines drawn: the test compares too little", found, drawn)
	}
	for _, line := range []string{
		"",
		"    token_test.go:123: step 0: Token=123456 took 1.2345ms",
		`password="a b" TOKEN: 'x' key=1 apikey=2`,
		"passpass=1",
		"/key=1 x/key=2 .key=3 -key=4",
		"\"'key=1",
		"é key=1 ſecret=2 \u212aey=3", // past ASCII: the expression itself
	} {
		if got, want := assignMatches([]byte(line)), whole.FindAllSubmatchIndex([]byte(line), -1); !reflect.DeepEqual(got, want) {
			t.Errorf("%q:\n got %v\nwant %v", line, got, want)
		}
	}
}

func TestAssignRuleIsTheExpression(t *testing.T) {
	for _, o := range ownRules {
		if o.kind == "secret-assignment" && (o.matches == nil || o.re.String() != assignExprs()[0].String()) {
			t.Fatalf("the assignment rule's expression %q is not the one its search is held to", o.re)
		}
	}
}

func BenchmarkAssignMatches(b *testing.B) {
	line := []byte("    token_test.go:123: step 0: Token=123456 took 1.2345ms")
	whole := assignExprs()[0]
	b.Run("expression", func(b *testing.B) {
		for b.Loop() {
			whole.FindAllSubmatchIndex(line, -1)
		}
	})
	b.Run("anchored", func(b *testing.B) {
		for b.Loop() {
			assignMatches(line)
		}
	})
}

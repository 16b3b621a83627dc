package readcache

import (
	"context"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/freshctx/freshctx/internal/tokens"
)

// cheaper decides as an exact count would: the shortcut by bytes never
// says a note is cheaper when its tokens are not fewer.
func TestCheaperIsTheExactComparison(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		note := rapid.OneOf(
			rapid.String(),
			rapid.StringMatching(`\[unchanged: [^\]]{0,60}, as read at entry [0-9]{1,6}\]`),
			rapid.StringMatching(`[ \t\n]{0,300}`),
			rapid.Map(rapid.SliceOf(rapid.Byte()), func(b []byte) string { return string(b) }),
		).Draw(t, "note")
		n := rapid.IntRange(0, 200).Draw(t, "n")
		if got, want := cheaper(note, n), countTokens(note) < n; got != want {
			t.Fatalf("cheaper(%q, %d) = %v, but the note has %d tokens", note, n, got, countTokens(note))
		}
	})
}

// A note whose count is left for later counts the same when Status makes
// it, and the answers are the same answers.
func TestNoteCountsMadeLaterAreTheSame(t *testing.T) {
	ctx := context.Background()
	now, later := newFixture(t), newFixture(t)
	later.svc.TokensLater = true
	content := lines(80, "first")
	for _, f := range []*fixture{now, later} {
		f.r.Write("pkg/a.go", content)
		f.r.Write("pkg/b.go", lines(30, "b"))
	}
	script := []struct{ target, mode string }{
		{"pkg/a.go", ModeFull},
		{"pkg/a.go", ModeUnchanged},
		{"pkg/a.go:10-40", ModeUnchangedRange},
		{"pkg/b.go:5-20", ModeFull},
		{"pkg/b.go:5-20", ModeUnchangedRange},
		{"pkg/a.go", ModeUnchanged},
	}
	for _, step := range script {
		a := now.expect("s", step.target, step.mode)
		b := later.expect("s", step.target, step.mode)
		if a.Text != b.Text {
			t.Fatalf("%s: answers differ:\n%s\n---\n%s", step.target, a.Text, b.Text)
		}
		noted := step.mode == ModeUnchanged || step.mode == ModeUnchangedRange
		if noted && b.Tokens != NotCounted {
			t.Fatalf("%s: a note counted at once (%d) with TokensLater", step.target, b.Tokens)
		}
		if !noted && b.Tokens != a.Tokens {
			t.Fatalf("%s: %d tokens, want %d", step.target, b.Tokens, a.Tokens)
		}
	}
	sa, err := now.svc.Status(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	sb, err := later.svc.Status(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	if sa.TokensServed != sb.TokensServed || sa.TokensPlain != sb.TokensPlain || sa.TokensSaved != sb.TokensSaved {
		t.Fatalf("status %d served / %d plain, want %d / %d", sb.TokensServed, sb.TokensPlain, sa.TokensServed, sa.TokensPlain)
	}
	if sb.Modes[ModeUnchanged] != 2 || sb.Modes[ModeUnchangedRange] != 2 {
		t.Fatalf("status counts modes %v, want 2 unchanged and 2 unchanged_range", sb.Modes)
	}
}

// The memo of recent counts never answers for another text.
func TestCountMemoAnswersOnlyForItsText(t *testing.T) {
	a := lines(40, "a")
	same := func(unit string) string { // as long as a, other tokens
		return strings.Repeat(unit, len(a)/len(unit)+1)[:len(a)]
	}
	texts := []string{a, same("x"), same("ab "), same("(){}[];\n"), lines(41, "a")}
	want := make([]int, len(texts))
	for i, s := range texts {
		want[i] = tokens.Count(s)
	}
	for round := range 3 {
		for i := range texts {
			j := (i + round) % len(texts) // every order of reuse and eviction
			if got := countTokens(texts[j]); got != want[j] {
				t.Fatalf("text %d: %d tokens, want %d", j, got, want[j])
			}
		}
	}
}

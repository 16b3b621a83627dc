package readcache

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
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
			rapid.StringMatching(`\[unchanged: [^\]]{0,60}( lines [0-9]{1,6}-[0-9]{1,6})?, (all [0-9]{1,6} lines )?as you last read them\]`),
			rapid.StringMatching(`[ \t\n]{0,300}`),
			rapid.Map(rapid.SliceOf(rapid.Byte()), func(b []byte) string { return string(b) }),
		).Draw(t, "note")
		n := rapid.IntRange(0, 200).Draw(t, "n")
		if got, want := cheaper(note, n, countTokens), countTokens(note) < n; got != want {
			t.Fatalf("cheaper(%q, %d) = %v, but the note has %d tokens", note, n, got, countTokens(note))
		}
	})
}

// Counts left for later (a note's, and a plain answer's, made from the
// version kept) come to the same totals when Status makes them, and the
// answers are the same answers: every choice between a note and the text
// is the one an exact count makes. The script reads a file too short for
// the bound on its count to decide (so it is counted), one long enough,
// ranges, a changed file (a diff), and a file over the output limit.
// Every read is made by both services in turn.
func TestCountsMadeLaterAreTheSame(t *testing.T) {
	ctx := context.Background()
	now, later := newFixture(t), newFixture(t)
	later.svc.TokensLater = true
	content := lines(80, "first")
	for _, f := range []*fixture{now, later} {
		f.svc.MaxLines = 300
		f.r.Write("pkg/a.go", content)
		f.r.Write("pkg/b.go", lines(30, "b"))
		f.r.Write("pkg/tiny.go", "x\n")
		f.r.Write("pkg/big.go", lines(400, "big"))
	}
	type step struct{ target, mode string }
	script := []step{
		{"pkg/a.go", ModeFull},
		{"pkg/a.go", ModeUnchanged},
		{"pkg/a.go:10-40", ModeUnchangedRange},
		{"pkg/b.go:5-20", ModeFull},
		{"pkg/b.go:5-20", ModeUnchangedRange},
		{"pkg/b.go:5-6", ModeUnchangedRange},
		{"pkg/tiny.go", ModeFull},
		{"pkg/tiny.go", ModeFull}, // unchanged, but no dearer than a note: the count decides
		{"pkg/big.go", ModeFull},  // over the limit: cut
		{"pkg/big.go:1-300", ModeUnchangedRange},
		{"pkg/a.go", ModeUnchanged},
	}
	run := func(script []step) {
		for _, st := range script {
			a := now.expect("s", st.target, st.mode)
			b := later.expect("s", st.target, st.mode)
			if a.Text != b.Text {
				t.Fatalf("%s: answers differ:\n%s\n---\n%s", st.target, a.Text, b.Text)
			}
			if b.Tokens != NotCounted && b.Tokens != a.Tokens {
				t.Fatalf("%s: %d tokens, want %d", st.target, b.Tokens, a.Tokens)
			}
			if b.PlainTokens != NotCounted && b.PlainTokens != a.PlainTokens {
				t.Fatalf("%s: %d plain tokens, want %d", st.target, b.PlainTokens, a.PlainTokens)
			}
		}
	}
	run(script)
	for _, f := range []*fixture{now, later} {
		f.r.Write("pkg/a.go", editLine(content, 7, "line 7 changed"))
	}
	run([]step{{"pkg/a.go", ModeDiff}, {"pkg/a.go", ModeUnchanged}})

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
	if sb.Modes[ModeUnchanged] != 3 || sb.Modes[ModeUnchangedRange] != 4 {
		t.Fatalf("status counts modes %v, want 3 unchanged and 4 unchanged_range", sb.Modes)
	}
}

// TestLaterFirstReadCountsNothing: a first read with TokensLater makes no
// count at all, so a process that answers it never loads the tokenizer's
// vocabulary.
func TestLaterFirstReadCountsNothing(t *testing.T) {
	f := newFixture(t)
	f.svc.TokensLater = true
	f.r.Write("pkg/a.go", lines(80, "first"))
	res := f.expect("s", "pkg/a.go", ModeFull)
	if res.Tokens != NotCounted || res.PlainTokens != NotCounted {
		t.Fatalf("a first read counted %d served, %d plain tokens with TokensLater", res.Tokens, res.PlainTokens)
	}
	if again := f.expect("s", "pkg/a.go", ModeUnchanged); again.PlainTokens != NotCounted {
		t.Fatalf("the unchanged read of 80 lines counted %d plain tokens: the bound decides it", again.PlainTokens)
	}
}

// TestNumberedLinesBoundTheirTokens holds the premise of the bound
// noteCheaper takes before counting: numbered lines have at least as many
// tokens as lines, whatever the lines hold.
func TestNumberedLinesBoundTheirTokens(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 60).Draw(t, "lines")
		var ls []string
		for i := range n {
			line := rapid.OneOf(rapid.String(), rapid.StringMatching(`[ \t]{0,200}`), rapid.StringMatching(`[0-9]{0,40}`),
				rapid.StringMatching(`[a-z (){}.,;:'"/\\-]{0,80}`)).Draw(t, fmt.Sprintf("line %d", i))
			ls = append(ls, strings.ReplaceAll(line, "\n", "")+"\n")
		}
		if got := tokens.Count(numbered(ls, 1, n)); got < n {
			t.Fatalf("%d numbered lines are %d tokens", n, got)
		}
	})
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

// A count made for a choice the bound could not make is kept with the
// version, so a later read of it, in another process, need not load the
// tokenizer to choose again.
func TestCountMadeForAChoiceIsKept(t *testing.T) {
	f := newFixture(t)
	f.svc.TokensLater = true
	content := "x\ny\nz\n"
	f.r.Write("pkg/tiny.go", content)
	first := f.read("s", "pkg/tiny.go")
	version := func() int {
		var n int
		if err := f.svc.Store.DB().QueryRow(`SELECT tokens FROM rc_versions`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := version(); n != NotCounted {
		t.Fatalf("the first read counted the version: %d", n)
	}
	second := f.read("s", "pkg/tiny.go")
	want := tokens.Count(numbered(splitLines([]byte(content)), 1, 3))
	if n := version(); n != want {
		t.Fatalf("after the read that had to count it (%s, then %s), the version keeps %d tokens, want %d", first.Mode, second.Mode, n, want)
	}
}

// A note counted for a choice the bounds could not make is kept with its
// entry, and the session's next choice of the same note takes the count
// kept instead of loading the tokenizer again; another session counts its
// own. The answers stay the ones an exact count makes
// (TestCountsMadeLaterAreTheSame).
func TestNoteCountMadeForAChoiceIsKept(t *testing.T) {
	f := newFixture(t)
	f.svc.TokensLater = true
	content := "package small\n\nimport \"fmt\"\n\nfunc F() { fmt.Println(1) }\n"
	f.r.Write("pkg/small.go", content)
	note := wholeNote("pkg/small.go", 5)
	plain := tokens.Count(numbered(splitLines([]byte(content)), 1, 5))
	if len(note) < plain || tokens.AtLeast(note) >= plain {
		t.Fatalf("the bounds decide the note (%d bytes, at least %d tokens) against %d tokens: the test proves nothing",
			len(note), tokens.AtLeast(note), plain)
	}
	f.expect("s", "pkg/small.go", ModeFull)
	again := f.expect("s", "pkg/small.go", ModeUnchanged)
	if want := tokens.Count(note); again.Tokens != want {
		t.Fatalf("the note counted for the choice was not kept: %d tokens, want %d", again.Tokens, want)
	}
	// The next choice takes the count kept: one as dear as the text turns
	// the answer to the text.
	if _, err := f.svc.Store.DB().Exec(`UPDATE rc_entries SET tokens_served = ? WHERE id = ?`, plain, again.Entry); err != nil {
		t.Fatal(err)
	}
	if third := f.read("s", "pkg/small.go"); third.Mode == ModeUnchanged {
		t.Fatalf("with the count kept made %d, as many tokens as the text, the note was chosen again", plain)
	}
	f.expect("other", "pkg/small.go", ModeFull)
	if other := f.expect("other", "pkg/small.go", ModeUnchanged); other.Tokens != tokens.Count(note) {
		t.Fatalf("another session took %d tokens for the note, want its own count %d", other.Tokens, tokens.Count(note))
	}
}

// A count left for later whose version is gone (its blob lost) counts
// nothing: Status still answers, with what it can count.
func TestCountLeftForAVersionGoneCountsNothing(t *testing.T) {
	f := newFixture(t)
	f.svc.TokensLater = true
	f.r.Write("pkg/a.go", lines(80, "first"))
	f.expect("s", "pkg/a.go", ModeFull)
	before, err := f.svc.Status(context.Background(), "s")
	if err != nil || before.TokensPlain <= 0 || before.TokensServed != before.TokensPlain {
		t.Fatalf("with the version kept: %+v, %v; want its count, served as plain", before, err)
	}
	var blob string
	if err := f.svc.Store.DB().QueryRow(`SELECT blob FROM rc_versions`).Scan(&blob); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(f.svc.Store.BlobDir(), blob[:2], blob[2:]+"*"))
	if len(files) != 1 {
		t.Fatalf("the version's blob file: %v", files)
	}
	if err := os.Remove(files[0]); err != nil {
		t.Fatal(err)
	}
	after, err := f.svc.Status(context.Background(), "s")
	if err != nil {
		t.Fatalf("status with the version gone: %v", err)
	}
	if after.TokensPlain != 0 || after.TokensServed != 0 || after.Modes[ModeFull] != 1 {
		t.Fatalf("with the version gone: %d plain, %d served, modes %v; want 0, 0 and the read", after.TokensPlain, after.TokensServed, after.Modes)
	}
}

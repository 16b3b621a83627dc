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

// testForm is a client that numbers lines as "N\t" (as Claude Code does)
// and delivers the bytes as they are.
type testForm struct{}

func (testForm) Text(b []byte) string       { return string(b) }
func (testForm) TotalLines(text string) int { return strings.Count(text, "\n") + 1 }
func (testForm) Numbered() bool             { return true }
func (testForm) Sent(text string, start int) string {
	var b strings.Builder
	for i, line := range strings.Split(text, "\n") {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%d\t%s", start+i, line)
	}
	return b.String()
}

// A small file read again through a client's form, in a process that
// leaves counts for later (the Claude Code hook), is answered without
// counting anything after the session's first read of it again: the text
// is bounded from below without the tokenizer (its numbered lines, its
// runs of letters and digits), and the note by its count kept with its
// entry, as the client sends it, made with the text's in that first read
// again even where the note's bytes decided it (a short path). Counting
// there loaded the tokenizer's vocabulary in every hook process: 57% of
// the Read hook's time. The answer is the one an exact count makes.
func TestFormReadAgainCountsNothing(t *testing.T) {
	for _, name := range []string{"small.go", "pkg000/sub00/file000003.go"} {
		t.Run(name, func(t *testing.T) { formReadAgainCountsNothing(t, name) })
	}
}

// formRead reads all of name in session "s" as delivered through testForm
// with content, and delivers the answer.
func formRead(t *testing.T, f *fixture, name, content string) *ReadResult {
	t.Helper()
	seen := content
	res, err := f.svc.Read(context.Background(), ReadRequest{Session: "s", Target: name,
		Seen: &seen, SeenTotal: testForm{}.TotalLines(seen), Form: testForm{}})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.svc.Delivered(context.Background(), res); err != nil {
		t.Fatal(err)
	}
	return res
}

func formReadAgainCountsNothing(t *testing.T, name string) {
	f := newFixture(t)
	f.svc.TokensLater = true
	content := "package pkg000\n\n// F3 returns what version 0 of this file computes.\nfunc F3(x int) int {\n\tif x < 0 {\n\t\treturn -x * 1\n\t}\n\treturn x + 3\n}\n"
	f.r.Write(name, content)
	read := func() *ReadResult { return formRead(t, f, name, content) }
	sentNote := testForm{}.Sent(wholeNote(name, 9), 1)
	plain := tokens.Count(testForm{}.Sent(content, 1))
	if tokens.AtLeast(sentNote) >= plain || tokens.Count(sentNote) >= plain {
		t.Fatalf("the note (%d tokens, %d by its runs) is no cheaper than the text (%d): the test proves nothing",
			tokens.Count(sentNote), tokens.AtLeast(sentNote), plain)
	}
	if least := max(10, tokens.AtLeast(testForm{}.Sent(content, 1))); len(sentNote) < least {
		t.Fatalf("the note's bytes (%d) decide it against the text's bound (%d): the test proves nothing", len(sentNote), least)
	}
	if first := read(); first.Mode != ModeFull {
		t.Fatalf("first read: %s", first.Mode)
	}
	if second := read(); second.Mode != ModeUnchanged || second.Tokens != tokens.Count(sentNote) {
		t.Fatalf("second read: %s, %d tokens; want unchanged, the note's %d as sent", second.Mode, second.Tokens, tokens.Count(sentNote))
	}
	for i := range 2 {
		before := countsMade.Load()
		again := read()
		if n := countsMade.Load() - before; n != 0 {
			t.Fatalf("read %d counted %d texts", i+3, n)
		}
		if again.Mode != ModeUnchanged || again.Tokens != tokens.Count(sentNote) || again.PlainTokens != NotCounted {
			t.Fatalf("read %d: %s, %d tokens, %d plain; want unchanged, the note's count kept (%d), the text's left for later",
				i+3, again.Mode, again.Tokens, again.PlainTokens, tokens.Count(sentNote))
		}
	}
}

// A tiny file, whose text costs no more than a note saying it is
// unchanged, read again through a client's form in a process that leaves
// counts for later, is answered with its text without counting anything
// once the session has read it twice: either its bytes are under the
// note's fewest tokens, or its count is kept with the entry that served it
// (a text served in place of a note) and is. Status finds the text served
// where a plain read's was.
func TestTinyFormReadAgainCountsNothing(t *testing.T) {
	for _, c := range []struct {
		name, content string
		byBytes       bool // its bytes decide, with no count kept
	}{
		{"VERSION", "v1.2.3\n", true},
		{"small.cfg", "[core]\n\tbare = false\n", false},
	} {
		t.Run(c.name, func(t *testing.T) { tinyFormReadAgain(t, c.name, c.content, c.byBytes) })
	}
}

func tinyFormReadAgain(t *testing.T, name, content string, byBytes bool) {
	f := newFixture(t)
	f.svc.TokensLater = true
	f.r.Write(name, content)
	read := func() *ReadResult { return formRead(t, f, name, content) }
	text := testForm{}.Sent(content, 1)
	note := testForm{}.Sent(wholeNote(name, strings.Count(content, "\n")), 1)
	if tokens.Count(note) < tokens.Count(text) {
		t.Fatalf("the note (%d tokens) is cheaper than the text (%d): the test proves nothing", tokens.Count(note), tokens.Count(text))
	}
	if decides := tokens.AtLeast(note) >= len(text); decides != byBytes {
		t.Fatalf("the text's %d bytes against the note's fewest %d tokens decide: %v, want %v", len(text), tokens.AtLeast(note), decides, byBytes)
	}
	if !byBytes && tokens.AtLeast(note) < tokens.Count(text) {
		t.Fatalf("the text's count kept (%d) does not decide against the note's fewest tokens (%d): the test proves nothing",
			tokens.Count(text), tokens.AtLeast(note))
	}
	reads := 4
	for i := range reads {
		before := countsMade.Load()
		res := read()
		if res.Mode != ModeFull || res.Text != text {
			t.Fatalf("read %d: %s %q; want its text, %q", i+1, res.Mode, res.Text, text)
		}
		if res.Tokens != NotCounted && res.Tokens != tokens.Count(text) {
			t.Fatalf("read %d: %d tokens, want %d", i+1, res.Tokens, tokens.Count(text))
		}
		if n := countsMade.Load() - before; i >= 2 && n != 0 {
			t.Fatalf("read %d counted %d texts", i+1, n)
		}
	}
	st, err := f.svc.Status(context.Background(), "s")
	if err != nil {
		t.Fatal(err)
	}
	if st.TokensServed != st.TokensPlain || st.TokensServed < reads*tokens.Count(text) {
		t.Fatalf("status: %d served, %d plain; want the same, %d at least", st.TokensServed, st.TokensPlain, reads*tokens.Count(text))
	}
}

// A file read again whose version is no longer kept (or never was: over
// maxStored) is served whole without weighing a note against it, and its
// text is not kept with the entry: only a text chosen over a note is.
func TestTextNotWeighedIsNotKept(t *testing.T) {
	f := newFixture(t)
	f.svc.TokensLater = true
	content := "[core]\n\tbare = false\n"
	f.r.Write("small.cfg", content)
	formRead(t, f, "small.cfg", content)
	formRead(t, f, "small.cfg", content)
	ctx := context.Background()
	if _, err := f.svc.Store.DB().ExecContext(ctx, `DELETE FROM rc_versions`); err != nil {
		t.Fatal(err)
	}
	res := formRead(t, f, "small.cfg", content)
	if res.Mode != ModeFull {
		t.Fatalf("read again with its version gone: %s", res.Mode)
	}
	var kept string
	if err := f.svc.Store.DB().QueryRowContext(ctx, `SELECT served_text FROM rc_entries WHERE id = ?`, res.Entry).Scan(&kept); err != nil {
		t.Fatal(err)
	}
	if kept != "" {
		t.Fatalf("a text not weighed against a note was kept: %q", kept)
	}
}

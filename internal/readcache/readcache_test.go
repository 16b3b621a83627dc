package readcache

import (
	"context"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/freshctx/freshctx/internal/teststore"

	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/testgit"
)

type fixture struct {
	t   *testing.T
	r   *testgit.Repo
	svc *Service
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	r := testgit.Plain(t, t.TempDir())
	st := teststore.Open(t, "", store.Options{})
	ws := teststore.Workspace(t, r.Dir)
	return &fixture{t: t, r: r, svc: &Service{WS: ws, Store: st, Cwd: r.Dir}}
}

// read reads and delivers, as a tool that wrote its answer out does.
func (f *fixture) read(session, target string) *ReadResult {
	f.t.Helper()
	res, err := f.svc.Read(context.Background(), ReadRequest{Session: session, Target: target})
	if err != nil {
		f.t.Fatalf("read %s: %v", target, err)
	}
	if err := f.svc.Delivered(context.Background(), res); err != nil {
		f.t.Fatal(err)
	}
	return res
}

func (f *fixture) expect(session, target, mode string) *ReadResult {
	f.t.Helper()
	res := f.read(session, target)
	if res.Mode != mode {
		f.t.Fatalf("read %s: mode %s (%s), want %s", target, res.Mode, res.Reason, mode)
	}
	return res
}

// lines makes a file of n numbered lines.
func lines(n int, tag string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d of the %s version, with some words to make it real\n", i, tag)
	}
	return b.String()
}

func editLine(content string, line int, text string) string {
	ls := strings.SplitAfter(content, "\n")
	ls[line-1] = text + "\n"
	return strings.Join(ls, "")
}

func TestFullThenUnchangedThenDiff(t *testing.T) {
	f := newFixture(t)
	f.r.Write("a.go", lines(300, "first"))
	f.expect("s", "a.go", ModeFull)
	res := f.expect("s", "a.go", ModeUnchanged)
	if res.Tokens >= res.PlainTokens/10 {
		t.Fatalf("unchanged cost %d of %d tokens", res.Tokens, res.PlainTokens)
	}
	f.r.Write("a.go", editLine(lines(300, "first"), 150, "a changed line"))
	res = f.expect("s", "a.go", ModeDiff)
	if !strings.Contains(res.Text, "+a changed line") || !strings.Contains(res.Text, "-line 150 of the first version") {
		t.Fatalf("diff:\n%s", res.Text)
	}
	f.expect("s", "a.go", ModeUnchanged) // the diff brought the model up to date
}

// Fix 5: small files get a diff when it is cheaper.
func TestDiffForSmallFiles(t *testing.T) {
	f := newFixture(t)
	f.r.Write("small.go", lines(30, "v1"))
	f.expect("s", "small.go", ModeFull)
	f.r.Write("small.go", editLine(lines(30, "v1"), 12, "changed"))
	f.expect("s", "small.go", ModeDiff)
	// A rewrite of every line is cheaper in full.
	f.r.Write("small.go", lines(30, "v2"))
	res := f.expect("s", "small.go", ModeBaselineFallback)
	if !strings.Contains(res.Reason, "diff is not smaller") {
		t.Fatalf("reason = %q", res.Reason)
	}
}

// Fix 1: trust covers only what was delivered.
func TestTruncatedReadTrustsOnlyDeliveredLines(t *testing.T) {
	f := newFixture(t)
	f.svc.MaxLines, f.svc.MaxBytes = 2000, 1<<30
	f.r.Write("big.txt", lines(3000, "only"))
	res := f.expect("s", "big.txt", ModeFull)
	if *res.Range != [2]int{1, 2000} || !strings.Contains(res.Text, "continue with big.txt:2001-") {
		t.Fatalf("range %v, text tail %q", res.Range, res.Text[len(res.Text)-80:])
	}
	f.expect("s", "big.txt:2100-2200", ModeFull)
	f.expect("s", "big.txt:2100-2200", ModeUnchangedRange)
	f.expect("s", "big.txt", ModeUnchangedRange) // the same first window, as delivered before
}

// Fix 2: the model's latest view wins.
func TestLatestViewWinsAfterRevert(t *testing.T) {
	f := newFixture(t)
	a := lines(100, "A")
	f.r.Write("f.txt", a)
	f.expect("s", "f.txt", ModeFull)
	b := editLine(a, 15, "the B version of line 15")
	f.r.Write("f.txt", b)
	f.expect("s", "f.txt:10-20", ModeBaselineFallback) // shows B's lines
	f.r.Write("f.txt", a)
	res := f.read("s", "f.txt")
	if res.Mode == ModeUnchanged || res.Mode == ModeDiff {
		t.Fatalf("after a revert the model never saw: %s (%s)", res.Mode, res.Reason)
	}
}

// Fix 3: a read that failed or was never delivered is not trust.
func TestUndeliveredReadIsNotTrust(t *testing.T) {
	f := newFixture(t)
	f.r.Write("a.txt", lines(50, "x"))
	if _, err := f.svc.Read(context.Background(), ReadRequest{Session: "s", Target: "a.txt"}); err != nil {
		t.Fatal(err)
	}
	// never delivered (the process died, the client went away)
	f.expect("s", "a.txt", ModeFull)
	if _, err := f.svc.Read(context.Background(), ReadRequest{Session: "s", Target: "missing.txt"}); err == nil {
		t.Fatal("a missing file was read")
	}
	f.expect("s", "a.txt", ModeUnchanged)
}

// Fix 4: versions are kept while entries refer to them, whatever their age.
func TestVersionsKeptWhileReferenced(t *testing.T) {
	f := newFixture(t)
	f.r.Write("a.txt", lines(200, "old"))
	f.expect("s", "a.txt", ModeFull)
	f.svc.Now = func() time.Time { return time.Now().Add(90 * 24 * time.Hour) }
	gc, err := f.svc.GC(context.Background())
	if err != nil || gc.Versions != 0 {
		t.Fatalf("gc = %+v, %v", gc, err)
	}
	f.r.Write("a.txt", editLine(lines(200, "old"), 7, "edited months later"))
	f.expect("s", "a.txt", ModeDiff) // the base is still there
	// A version nothing refers to is collected.
	f.svc.Store.DB().Exec(`UPDATE rc_entries SET version = '' WHERE id = 1`)
	if gc, _ := f.svc.GC(context.Background()); gc.Versions != 1 || gc.Blobs != 1 {
		t.Fatalf("gc of an orphan version = %+v", gc)
	}
}

// Fix 6: reads do not replay the session.
func TestReadsDoNotReplay(t *testing.T) {
	f := newFixture(t)
	f.r.Write("a.txt", lines(40, "x"))
	f.r.Write("b.txt", lines(40, "y"))
	before := rebuilds.Load()
	for i := range 200 {
		f.read("s", []string{"a.txt", "b.txt", "a.txt:3-9"}[i%3])
	}
	if n := rebuilds.Load() - before; n != 0 {
		t.Fatalf("%d replays during 200 reads", n)
	}
}

func TestSensitiveBinaryAndOutside(t *testing.T) {
	f := newFixture(t)
	f.r.Write(".env", "TOKEN=x\n")
	f.r.Write("logo.png", "\x89PNG\x00\x01\x02")
	f.r.Write("latin1.txt", "caf\xe9\n")
	if _, err := f.svc.Read(context.Background(), ReadRequest{Session: "s", Target: ".env"}); err == nil || !strings.Contains(err.Error(), "--allow-sensitive") {
		t.Fatalf("sensitive: %v", err)
	}
	res, err := f.svc.Read(context.Background(), ReadRequest{Session: "s", Target: ".env", AllowSensitive: true})
	if err != nil || res.Mode != ModeFull {
		t.Fatalf("allowed: %+v %v", res, err)
	}
	// latin1.txt is text in another encoding: served decoded (encoding_test.go).
	if res := f.expect("s", "latin1.txt", ModeFull); !strings.Contains(res.Text, "café") {
		t.Fatalf("latin1.txt: %q", res.Text)
	}
	for _, p := range []string{"logo.png"} {
		f.expect("s", p, ModeFull)
		res := f.expect("s", p, ModeFull) // never cached
		if !strings.Contains(res.Text, "content is not shown") {
			t.Fatalf("%s: %q", p, res.Text)
		}
	}
	if _, err := f.svc.Read(context.Background(), ReadRequest{Session: "s", Target: "../x"}); err == nil {
		t.Fatal("a path outside the root was read")
	}
	if _, err := f.svc.Read(context.Background(), ReadRequest{Session: "s", Target: "a.txt:5-2"}); err == nil {
		t.Fatal("an inverted range was accepted")
	}
	big, err := os.Create(f.r.Path("huge.log"))
	if err != nil {
		t.Fatal(err)
	}
	big.Truncate(maxReadable + 1) // sparse: no disk used
	big.Close()
	if _, err := f.svc.Read(context.Background(), ReadRequest{Session: "s", Target: "huge.log"}); err == nil ||
		!strings.Contains(err.Error(), "over the 64 MiB the read cache handles") {
		t.Fatalf("a 64 MiB file: %v", err)
	}
	if err := syscall.Mkfifo(f.r.Path("pipe"), 0o600); err == nil {
		if _, err := f.svc.Read(context.Background(), ReadRequest{Session: "s", Target: "pipe"}); err == nil ||
			!strings.Contains(err.Error(), "not a regular file") {
			t.Fatalf("a fifo: %v", err)
		}
	}
}

func TestCompactLiveReachesRunningSessionsOnly(t *testing.T) {
	f := newFixture(t)
	f.r.Write("a.txt", lines(20, "v1"))
	f.expect("served", "a.txt", ModeFull)
	f.expect("gone", "a.txt", ModeFull)
	ctx := context.Background()
	if err := f.svc.Attach(ctx, "served", os.Getpid(), false); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.Attach(ctx, "gone", 1<<30, false); err != nil { // no such process
		t.Fatal(err)
	}
	done, err := f.svc.CompactLive(ctx)
	if err != nil || len(done) != 1 || done[0] != "served" {
		t.Fatalf("CompactLive = %v, %v", done, err)
	}
	f.expect("served", "a.txt", ModeFull)
	f.expect("gone", "a.txt", ModeUnchanged)
	if done, _ := f.svc.CompactLive(ctx); len(done) != 1 {
		t.Fatalf("a dead session is forgotten, the served one stays: %v", done)
	}
}

// TestUnchangedNamesTheReadThatDelivered: however many unchanged answers
// follow, each one's reason names the read that delivered the content,
// never a note; the note itself names the file and its lines, which the
// model can recognise, and no entry, which it cannot.
func TestUnchangedNamesTheReadThatDelivered(t *testing.T) {
	f := newFixture(t)
	f.r.Write("a.txt", lines(40, "first"))
	full := f.expect("s", "a.txt", ModeFull)
	for range 3 {
		res := f.expect("s", "a.txt", ModeUnchanged)
		if want := fmt.Sprintf("(entry %d)", full.Entry); !strings.HasSuffix(res.Reason, want) {
			t.Fatalf("unchanged's reason is %q, want it to name entry %d", res.Reason, full.Entry)
		}
		if res.Text != "[unchanged: a.txt, all 40 lines as you last read them]" {
			t.Fatalf("unchanged says %q", res.Text)
		}
	}
	part := f.expect("s", "a.txt:5-9", ModeUnchangedRange)
	again := f.expect("s", "a.txt:5-9", ModeUnchangedRange)
	if !strings.Contains(part.Reason, fmt.Sprintf("entry %d", full.Entry)) || !strings.Contains(again.Reason, fmt.Sprintf("entry %d", full.Entry)) {
		t.Fatalf("range answers %q, %q: want entry %d named", part.Reason, again.Reason, full.Entry)
	}
	if again.Text != "[unchanged: a.txt lines 5-9, as you last read them]" || strings.Contains(again.Text, "entry") {
		t.Fatalf("range note %q", again.Text)
	}
}

// TestUnchangedNeverCostsMoreThanTheContent: a tiny file is answered with
// itself; lines unchanged in a file edited elsewhere say the file changed.
func TestUnchangedNeverCostsMoreThanTheContent(t *testing.T) {
	f := newFixture(t)
	f.r.Write("tiny.txt", "ok\n")
	f.expect("s", "tiny.txt", ModeFull)
	res := f.expect("s", "tiny.txt", ModeFull)
	if res.Text != "     1\tok\n" || res.Tokens > res.PlainTokens {
		t.Fatalf("tiny file answered %q (%d tokens, content %d)", res.Text, res.Tokens, res.PlainTokens)
	}
	f.r.Write("a.txt", lines(40, "first"))
	f.expect("s", "a.txt", ModeFull)
	f.r.Write("a.txt", editLine(lines(40, "first"), 30, "an edit far below"))
	res = f.expect("s", "a.txt:5-9", ModeUnchangedRange)
	if !strings.Contains(res.Text, "other lines of the file changed since") {
		t.Fatalf("range after an edit elsewhere: %q", res.Text)
	}
	if res.Tokens >= res.PlainTokens {
		t.Fatalf("the note costs %d tokens, the lines %d", res.Tokens, res.PlainTokens)
	}
}

// TestLongLineIsCutAndNeverTrusted: a one-line file past the 50 KB limit
// is shown cut, with a notice, and a second read shows it again.
func TestLongLineIsCutAndNeverTrusted(t *testing.T) {
	f := newFixture(t)
	long := strings.Repeat("é", 2<<20/2) + "\n" // 2 MiB, two bytes a character
	f.r.Write("min.js", long)
	for range 2 {
		res := f.expect("s", "min.js", ModeFull)
		if len(res.Text) > DefaultMaxBytes+200 || !strings.Contains(res.Text, "[line 1 cut:") || !utf8.ValidString(res.Text) {
			t.Fatalf("long line answered with %d bytes: %.80q", len(res.Text), res.Text[len(res.Text)-80:])
		}
		if res.Range != nil {
			t.Fatalf("a cut line is reported as shown: %v", res.Range)
		}
	}
}

// TestLongLineAnswerErasesThePicture: a line over the output limit is
// shown cut; the model then holds part of a line of that version beside
// what it held before, so when the file goes back to the version it held
// whole, the next read is content, not [unchanged].
func TestLongLineAnswerErasesThePicture(t *testing.T) {
	f := newFixture(t)
	a := lines(40, "first")
	f.r.Write("a.txt", a)
	f.expect("s", "a.txt", ModeFull)
	f.r.Write("a.txt", strings.Repeat("x", DefaultMaxBytes+100)+"\n"+a)
	if res := f.expect("s", "a.txt", ModeFull); !strings.Contains(res.Text, "[line 1 cut") {
		t.Fatalf("the long line was not cut: %.200q", res.Text)
	}
	f.r.Write("a.txt", a)
	f.expect("s", "a.txt", ModeFull)
}

// TestEditedPictureGivesNoNote: once the model changed a file itself, no
// note stands for what it was shown of it, also after the tree is replayed
// (a checkout); a diff from what it was shown may, and a read shows it the
// file again, after which notes are right again.
func TestEditedPictureGivesNoNote(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	a := lines(40, "first")
	f.r.Write("a.txt", a)
	f.expect("s", "a.txt", ModeFull)
	if err := f.svc.Edited(ctx, "s", "a.txt"); err != nil {
		t.Fatal(err)
	}
	leaf, err := f.svc.Mark(ctx, "s", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Checkout(ctx, "s", leaf.Entry); err != nil {
		t.Fatal(err)
	}
	f.expect("s", "a.txt:3-9", ModeBaselineFallback)
	f.expect("s", "a.txt", ModeFull)
	f.expect("s", "a.txt", ModeUnchanged)
	if err := f.svc.Edited(ctx, "s", "a.txt"); err != nil {
		t.Fatal(err)
	}
	f.r.Write("a.txt", strings.Replace(a, "line 7", "line seven", 1))
	f.expect("s", "a.txt", ModeDiff)
}

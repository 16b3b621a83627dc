package records

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/freshctx/freshctx/internal/store"
)

// tester is what the helpers need of a *testing.T or a *rapid.T.
type tester interface {
	Helper()
	Fatal(args ...any)
}

// captureText records text through the Capture path with opt.
func captureText(t tester, s *Service, text string, opt Options) *Record {
	t.Helper()
	rec, err := s.Capture(context.Background(), CaptureRequest{Options: opt, Input: strings.NewReader(text)})
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// storedCounts reads a record's counts as the store holds them.
func storedCounts(t tester, s *Service, id int64) (raw, dig int, exact bool) {
	t.Helper()
	err := s.Store.View(context.Background(), func(tx *store.Tx) error {
		return tx.QueryRowContext(context.Background(), `SELECT raw_tokens, digest_tokens, raw_tokens_exact FROM records WHERE id = ?`, id).
			Scan(&raw, &dig, &exact)
	})
	if err != nil {
		t.Fatal(err)
	}
	return raw, dig, exact
}

// A count left for later is the count the run would have made: the same
// kept bytes through the same counter, the same digest.
func TestCountsMadeLaterAreTheCountsMadeAtOnce(t *testing.T) {
	s, _ := newService(t)
	ctx := context.Background()
	deferred, drawn := 0, 0
	rapid.Check(t, func(t *rapid.T) {
		drawn++
		line := rapid.StringMatching(`[ -~]{0,120}|--- FAIL: Test[A-Z][a-z]{0,8}|pkg/calc\.go:[0-9]{1,3}: [a-z ]{0,30}|\t +|`)
		if rapid.Bool().Draw(t, "plain") { // mostly kept whole
			line = rapid.StringMatching(`[a-z][a-z ]{0,60}|pkg/calc\.go:[0-9]{1,3}: [a-z ]{0,30}`)
		}
		lines := rapid.SliceOfN(line, 0, 40).Draw(t, "lines")
		text := strings.Join(lines, "\n")
		if rapid.IntRange(0, 4).Draw(t, "big") == 0 { // past the 64 KiB counted as it comes
			text += strings.Repeat("x"+text+"\n", 70<<10/(len(text)+2)+1)
		}
		now := captureText(t, s, text, Options{})
		later := captureText(t, s, text, Options{TokensLater: true})
		if !now.Counted() {
			t.Fatalf("counts left for later without TokensLater")
		}
		if len(text) >= 64<<10 && !later.Counted() {
			t.Fatalf("%d bytes: counts left for later, want them made as the output came", len(text))
		}
		if later.Counted() {
			if later.RawTokens != now.RawTokens || later.DigestTokens != now.DigestTokens {
				t.Fatalf("counts made at once differ: %d → %d against %d → %d", later.RawTokens, later.DigestTokens, now.RawTokens, now.DigestTokens)
			}
			return
		}
		deferred++
		if raw, dig, _ := storedCounts(t, s, later.ID); raw != NotCounted || dig != NotCounted {
			t.Fatalf("stored %d → %d, want both NotCounted", raw, dig)
		}
		shown, err := s.Show(ctx, later.ID)
		if err != nil {
			t.Fatal(err)
		}
		if shown.RawTokens != now.RawTokens || shown.RawTokensExact != now.RawTokensExact || shown.DigestTokens != now.DigestTokens {
			t.Fatalf("made later %d (exact %v) → %d, at once %d (exact %v) → %d", shown.RawTokens, shown.RawTokensExact,
				shown.DigestTokens, now.RawTokens, now.RawTokensExact, now.DigestTokens)
		}
		if raw, dig, exact := storedCounts(t, s, later.ID); raw != now.RawTokens || dig != now.DigestTokens || exact != now.RawTokensExact {
			t.Fatalf("kept %d (exact %v) → %d, want %d → %d", raw, exact, dig, now.RawTokens, now.DigestTokens)
		}
	})
	t.Logf("%d of %d outputs had their counts left for later", deferred, drawn)
	if deferred*5 < drawn {
		t.Fatalf("only %d of the %d outputs drawn had their counts left for later", deferred, drawn)
	}
}

func TestCountsAreMadeWhereverTheyAreShown(t *testing.T) {
	ctx := context.Background()
	text := "pkg/calc.go:3: Add is wrong\n--- FAIL: TestAdd\nok\n"
	s, _ := newService(t)
	want := captureText(t, s, text, Options{})

	t.Run("list", func(t *testing.T) {
		later := captureText(t, s, text, Options{TokensLater: true})
		recs, err := s.List(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) != 1 || recs[0].ID != later.ID || recs[0].RawTokens != want.RawTokens || recs[0].DigestTokens != want.DigestTokens {
			t.Fatalf("list gave %+v, want %d → %d", recs[0], want.RawTokens, want.DigestTokens)
		}
	})
	t.Run("stats", func(t *testing.T) {
		s, _ := newService(t)
		captureText(t, s, text, Options{})
		captureText(t, s, text, Options{TokensLater: true})
		st, err := s.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if st.RawTokens != 2*int64(want.RawTokens) || st.DigestTokens != 2*int64(want.DigestTokens) || st.Estimated != 0 {
			t.Fatalf("stats %+v, want twice %d → %d", st.Savings, want.RawTokens, want.DigestTokens)
		}
	})
	t.Run("both streams", func(t *testing.T) {
		script := `echo "pkg/calc.go:3: Add is wrong"; echo "warning: deprecated" >&2; echo "see pkg/calc_test.go" >&2`
		runWith := func(later bool) *Record {
			r, err := s.Run(ctx, RunRequest{Argv: []string{"sh", "-c", script}, Env: os.Environ(), Options: Options{TokensLater: later}})
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
		now, later := runWith(false), runWith(true)
		if later.Counted() {
			t.Fatal("a small run's counts were made at once")
		}
		shown, err := s.Show(ctx, later.ID)
		if err != nil {
			t.Fatal(err)
		}
		if shown.RawTokens != now.RawTokens || shown.DigestTokens != now.DigestTokens {
			t.Fatalf("made later %d → %d, at once %d → %d", shown.RawTokens, shown.DigestTokens, now.RawTokens, now.DigestTokens)
		}
	})
	t.Run("budget", func(t *testing.T) {
		r := captureText(t, s, text, Options{TokensLater: true, MaxTokens: 1000})
		if !r.Counted() {
			t.Fatal("a digest fitted to a budget is counted to fit it")
		}
	})
	t.Run("not kept", func(t *testing.T) {
		unstored := &Service{WS: s.WS, Cwd: s.Cwd, StoreErr: os.ErrPermission}
		r := captureText(t, unstored, text, Options{TokensLater: true})
		if r.NotKept == "" || r.RawTokens != want.RawTokens || r.DigestTokens != want.DigestTokens {
			t.Fatalf("unkept record %q with %d → %d, want counts made at once (%d → %d)", r.NotKept, r.RawTokens, r.DigestTokens,
				want.RawTokens, want.DigestTokens)
		}
	})
}

// A small output whose digest leaves lines out has its counts made when
// first asked for, as one kept whole does: loading the vocabulary would be
// most of the run's cost. From preloadLater on the vocabulary loads while
// the output comes, and the counts are made at once.
func TestSmallRunsCountLater(t *testing.T) {
	s, _ := newService(t)
	var log strings.Builder
	for i := range 40 {
		fmt.Fprintf(&log, "=== RUN   TestCase%d\n--- PASS: TestCase%d (0.00s)\n", i, i)
	}
	log.WriteString("--- FAIL: TestAdd (0.00s)\n    calc_test.go:12: got 3, want 4\nFAIL\nFAIL\texample.com/calc\t0.01s\n")
	small := captureText(t, s, log.String(), Options{TokensLater: true})
	if small.Whole {
		t.Fatalf("the digest kept every line of a passing run: %q", small.Digest)
	}
	if small.Counted() {
		t.Fatalf("%d bytes digested to %d: counted at once, want later", small.RawBytes, len(small.Digest))
	}
	now := captureText(t, s, log.String(), Options{})
	if shown, err := s.Show(context.Background(), small.ID); err != nil || shown.RawTokens != now.RawTokens || shown.DigestTokens != now.DigestTokens {
		t.Fatalf("made when shown %d → %d (%v), at once %d → %d", shown.RawTokens, shown.DigestTokens, err, now.RawTokens, now.DigestTokens)
	}
	big := strings.Repeat(log.String(), preloadLater/log.Len()+1)
	if r := captureText(t, s, big, Options{TokensLater: true}); !r.Counted() {
		t.Fatalf("%d bytes: counts left for later, want them made with the vocabulary loaded", r.RawBytes)
	}
}

// A record whose kept output was deleted by hand cannot be counted whole:
// what it shows is marked inexact, and the store keeps it uncounted.
func TestCountsOfLostOutputAreNotExact(t *testing.T) {
	ctx := context.Background()
	s, _ := newService(t)
	r := captureText(t, s, "pkg/calc.go:3: Add is wrong\n", Options{TokensLater: true})
	if r.Counted() {
		t.Fatal("counts made at once")
	}
	got, err := s.Get(ctx, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	h := got.blobs[Stdout]
	if err := os.Remove(filepath.Join(s.Store.BlobDir(), h[:2], h[2:]+".zst")); err != nil {
		t.Fatal(err)
	}
	shown, err := s.Show(ctx, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if shown.RawTokensExact || shown.DigestTokens <= 0 {
		t.Fatalf("lost output counted %d (exact %v) → %d, want inexact", shown.RawTokens, shown.RawTokensExact, shown.DigestTokens)
	}
	if raw, _, _ := storedCounts(t, s, r.ID); raw != NotCounted {
		t.Fatalf("kept raw count %d for output that could not be read", raw)
	}
	st, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.RawTokens < 0 || st.DigestTokens != int64(shown.DigestTokens) || st.Estimated != 1 {
		t.Fatalf("stats %+v", st.Savings)
	}
}

// A read that makes many counts at once says so first.
func TestManyCountsAreAnnounced(t *testing.T) {
	defer func(n int) { manyCounts = n }(manyCounts)
	manyCounts = 3
	s, _ := newService(t)
	for i := range 3 {
		captureText(t, s, fmt.Sprintf("line %d\n", i), Options{TokensLater: true})
	}
	var progress strings.Builder
	s.Progress = &progress
	if _, err := s.Stats(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(progress.String(), "counting the tokens of 3 records") {
		t.Fatalf("progress %q", progress.String())
	}
	progress.Reset()
	if _, err := s.Stats(context.Background()); err != nil {
		t.Fatal(err)
	}
	if progress.Len() != 0 {
		t.Fatalf("counts made again: %q", progress.String())
	}
}

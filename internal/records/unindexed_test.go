package records

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/testrace"
	"github.com/freshctx/freshctx/internal/teststore"
)

// failer is what the helpers need of a test: a *testing.T or a *rapid.T.
type failer interface {
	Helper()
	Fatal(...any)
	Fatalf(string, ...any)
}

var searchWords = []string{"zircon", "quartz", "basalt", "gneiss", "schist"}

func keep(t failer, s *Service, text string) *Record {
	t.Helper()
	rec, err := s.Capture(context.Background(), CaptureRequest{Input: strings.NewReader(text)})
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

func recallIDs(t failer, s *Service, q string) []int64 {
	t.Helper()
	hits, err := s.Recall(context.Background(), RecallRequest{Query: q, Limit: 1000})
	if err != nil {
		t.Fatalf("Recall(%q): %v", q, err)
	}
	out := ids(hits)
	slices.Sort(out)
	return out
}

func waiting(t failer, s *Service) int {
	t.Helper()
	var n int
	if err := s.Store.DB().QueryRow(`SELECT count(*) FROM records_unindexed`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestRecallFindsEveryRecordKept: whatever runs of saves, forgets and
// recalls, a recall of a word finds exactly the records kept that hold it,
// whether they were saved before the last recall (indexed) or after it
// (waiting), and nothing waits for a record that is gone.
func TestRecallFindsEveryRecordKept(t *testing.T) {
	testrace.Skip(t, "steps saves and recalls on one goroutine")
	ctx := context.Background()
	base, r := newService(t)
	rapid.Check(t, func(rt *rapid.T) {
		st, err := store.Open(ctx, filepath.Join(t.TempDir(), "freshctx.db"), store.Options{})
		if err != nil {
			rt.Fatal(err)
		}
		defer st.Close()
		s := &Service{WS: base.WS, Store: st, Cwd: r.Dir}
		kept := map[int64][]string{}
		rt.Repeat(map[string]func(*rapid.T){
			"save": func(rt *rapid.T) {
				words := rapid.SliceOfNDistinct(rapid.SampledFrom(searchWords), 1, 3, rapid.ID).Draw(rt, "words")
				rec := keep(rt, s, "sample "+strings.Join(words, " ")+"\n")
				kept[rec.ID] = words
			},
			"forget": func(rt *rapid.T) {
				if len(kept) == 0 {
					rt.Skip("nothing to forget")
				}
				id := rapid.SampledFrom(slices.Sorted(maps.Keys(kept))).Draw(rt, "id")
				if _, err := s.Forget(ctx, []int64{id}); err != nil {
					rt.Fatal(err)
				}
				delete(kept, id)
			},
			"recall": func(rt *rapid.T) {
				w := rapid.SampledFrom(searchWords).Draw(rt, "word")
				var want []int64
				for id, ws := range kept {
					if slices.Contains(ws, w) {
						want = append(want, id)
					}
				}
				slices.Sort(want)
				if got := recallIDs(rt, s, w); !slices.Equal(got, want) {
					rt.Fatalf("recall %q = %v, want %v", w, got, want)
				}
				if n := waiting(rt, s); n != 0 {
					rt.Fatalf("%d records still wait after a recall", n)
				}
			},
			"": func(rt *rapid.T) {
				var orphans int
				err := st.DB().QueryRow(`SELECT count(*) FROM records_unindexed
					WHERE record_id NOT IN (SELECT id FROM records)`).Scan(&orphans)
				if err != nil || orphans != 0 {
					rt.Fatalf("rows waiting for records that are gone: %d (%v)", orphans, err)
				}
			},
		})
	})
}

// TestRecallInAStoreThatCannotBeWritten: records waiting for the index are
// found in a store on a read-only mount, which is left as it was.
func TestRecallInAStoreThatCannotBeWritten(t *testing.T) {
	base, r := newService(t)
	st, readOnly := teststore.OnAMount(t, store.Options{})
	s := &Service{WS: base.WS, Store: st, Cwd: r.Dir}
	indexed := keep(t, s, "sample zircon quartz\n")
	recallIDs(t, s, "zircon")
	late := []int64{keep(t, s, "sample zircon\n").ID, keep(t, s, "sample basalt\n").ID}
	s = &Service{WS: base.WS, Store: readOnly(), Cwd: r.Dir}
	for range 2 { // the index's copy goes with each recall
		if got, want := recallIDs(t, s, "zircon"), []int64{indexed.ID, late[0]}; !slices.Equal(got, want) {
			t.Fatalf("recall zircon = %v, want %v", got, want)
		}
		if got, want := recallIDs(t, s, "basalt"), late[1:]; !slices.Equal(got, want) {
			t.Fatalf("recall basalt = %v, want %v", got, want)
		}
	}
	if n := waiting(t, s); n != 2 {
		t.Fatalf("%d records wait, want the 2 saved after the last recall", n)
	}
}

// TestRecallWhileAWriterHoldsTheStore: a recall whose indexing cannot take
// the writers' lock within the busy timeout searches the index's copy.
func TestRecallWhileAWriterHoldsTheStore(t *testing.T) {
	ctx := context.Background()
	base, r := newService(t)
	p := filepath.Join(t.TempDir(), "freshctx.db")
	s := &Service{WS: base.WS, Store: teststore.Open(t, p, store.Options{BusyTimeout: 50 * time.Millisecond}), Cwd: r.Dir}
	want := []int64{keep(t, s, "sample schist\n").ID, keep(t, s, "sample schist quartz\n").ID}
	other := teststore.Open(t, p, store.Options{})
	held, release := make(chan struct{}), make(chan struct{})
	done := make(chan error)
	go func() {
		done <- other.Update(ctx, func(*store.Tx) error { close(held); <-release; return nil })
	}()
	<-held
	got := recallIDs(t, s, "schist")
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("recall schist while the store was held = %v, want %v", got, want)
	}
	if n := waiting(t, s); n != 2 {
		t.Fatalf("%d records wait, want 2: the held store was not written", n)
	}
}

// TestRecallBesideSaves: a recall finds every record whose save ended
// before it began, while other saves go on.
func TestRecallBesideSaves(t *testing.T) {
	s, _ := newService(t)
	const saves = 40
	var (
		mu    sync.Mutex
		saved []int64
		wg    sync.WaitGroup
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range saves {
			rec, err := s.Capture(context.Background(), CaptureRequest{Input: strings.NewReader(fmt.Sprintf("sample gneiss %d\n", i))})
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			saved = append(saved, rec.ID)
			mu.Unlock()
		}
	}()
	for done := false; !done; {
		mu.Lock()
		before := slices.Clone(saved)
		done = len(saved) == saves
		mu.Unlock()
		got := recallIDs(t, s, "gneiss")
		for _, id := range before {
			if !slices.Contains(got, id) {
				t.Fatalf("record %d, saved before the recall began, not found (found %v)", id, got)
			}
		}
	}
	wg.Wait()
}

// TestWaitingForTheIndexIsBounded: however many records are saved without
// a recall, fewer than maxWaiting wait, and every one is found.
func TestWaitingForTheIndexIsBounded(t *testing.T) {
	testrace.Skip(t, "saves on one goroutine")
	s, _ := newService(t)
	var saved []int64
	for i := range maxWaiting + 10 {
		saved = append(saved, keep(t, s, fmt.Sprintf("sample quartz mark%d\n", i)).ID)
		if n := waiting(t, s); n >= maxWaiting {
			t.Fatalf("%d records wait after %d saves", n, i+1)
		}
		if i == maxWaiting-1 && waiting(t, s) != 0 {
			t.Fatalf("the save of the %dth record left %d waiting", maxWaiting, waiting(t, s))
		}
	}
	for _, i := range []int{0, maxWaiting - 1, maxWaiting, maxWaiting + 9} {
		if got := recallIDs(t, s, fmt.Sprintf("mark%d", i)); !slices.Equal(got, saved[i:i+1]) {
			t.Fatalf("recall mark%d = %v, want %d", i, got, saved[i])
		}
	}
}

package records

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/freshctx/freshctx/internal/freshness"
)

func TestInputsCountFromTheFileClock(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "gen.go")
	if err := os.WriteFile(p, []byte("package gen\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	info, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	at := freshness.ChangeTime(info)
	// time.Now read the start just after the write's time; the file clock
	// had read it just before.
	r := &Record{root: root, inputs: []string{"**"}, CreatedAt: at.Add(time.Millisecond), DurationMS: 5,
		fileStart: at.Add(-time.Millisecond), Freshness: &freshness.Result{}}
	checkInputs([]*Record{r}, make([]map[string]bool, 1), startWalks([]*Record{r})())
	if got := r.Freshness.InputsChanged; got.Count != 1 || !slices.Equal(got.Paths, []string{"gen.go"}) {
		t.Fatalf("inputs changed = %d %q, want gen.go", got.Count, got.Paths)
	}
	// A record made before the file clock was kept counts from its start.
	old := &Record{root: root, inputs: []string{"**"}, CreatedAt: at.Add(time.Millisecond), DurationMS: 5,
		Freshness: &freshness.Result{}}
	checkInputs([]*Record{old}, make([]map[string]bool, 1), startWalks([]*Record{old})())
	if got := old.Freshness.InputsChanged; got.Count != 0 {
		t.Fatalf("record without a file clock start: inputs changed = %d %q, want none", got.Count, got.Paths)
	}
}

func TestAFileWrittenAtTheStartIsAChangedInput(t *testing.T) {
	s, _ := newService(t)
	for i := range 5 {
		rec := run(t, s, fmt.Sprintf("echo %d > gen%d.txt", i, i))
		got, err := s.Get(context.Background(), rec.ID)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.CheckAll(context.Background(), []*Record{got}); err != nil {
			t.Fatal(err)
		}
		if ch := got.Freshness.InputsChanged; !slices.Contains(ch.Paths, fmt.Sprintf("gen%d.txt", i)) {
			t.Fatalf("run %d: inputs changed = %d %q, want gen%d.txt among them", i, ch.Count, ch.Paths, i)
		}
	}
}

func inputsOfRun(t *testing.T, s *Service, script string, inputs ...string) *freshness.InputsChanged {
	t.Helper()
	req := RunRequest{Argv: []string{"sh", "-c", script}, Env: os.Environ()}
	req.Inputs = inputs
	rec, err := s.Run(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(context.Background(), rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CheckAll(context.Background(), []*Record{got}); err != nil {
		t.Fatal(err)
	}
	return got.Freshness.InputsChanged
}

func TestInputsCompleteOnlyWhereKnown(t *testing.T) {
	s, r := newService(t)
	r.Write("pkg/want_test.go", "package pkg\n\nimport (\n\t\"os\"\n\t\"path/filepath\"\n\t\"runtime\"\n\t\"testing\"\n)\n\n"+
		"func TestWant(t *testing.T) {\n\t_, f, _, _ := runtime.Caller(0)\n\tos.ReadFile(filepath.Join(filepath.Dir(f), \"..\", \"..\", \"shared\", \"want.txt\"))\n}\n")
	r.Write("d/data.txt", "data\n")
	time.Sleep(20 * time.Millisecond)
	guessed := inputsOfRun(t, s, "cd pkg && echo go test .")
	if guessed.Complete || !guessed.Guessed {
		t.Fatalf("a guessed scope: %+v, want complete false, guessed true", guessed)
	}
	given := inputsOfRun(t, s, "cat d/data.txt", "d/**")
	if !given.Complete || given.Guessed || given.Count != 0 {
		t.Fatalf("a given scope nothing changed in: %+v, want complete", given)
	}
	deleted := inputsOfRun(t, s, "rm d/data.txt; sleep 0.05", "d/**")
	if deleted.Complete || deleted.Unchecked == "" {
		t.Fatalf("a file of the scope deleted while the command ran: %+v, want not complete", deleted)
	}
}

// TestNamedFilesAreLeftToTheCheck: the walk of a record's scope leaves
// the files the record names to its check; one the check finds changed
// still counts as a changed input, one it finds fresh does not.
func TestNamedFilesAreLeftToTheCheck(t *testing.T) {
	s, r := newService(t)
	r.Write("pkg/other.go", "package pkg\n")
	r.Commit("other")
	time.Sleep(20 * time.Millisecond) // past the file clock's tick
	rec, err := s.Run(context.Background(), RunRequest{Argv: []string{"sh", "-c", "echo pkg/calc.go:3: wrong; echo pkg/other.go:1: fine"},
		Env: os.Environ(), Options: Options{Inputs: []string{"pkg/**"}}})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	r.Write("pkg/calc.go", "package pkg\n\nfunc Add(a, b int) int { return a + b }\n")
	got, err := s.Get(context.Background(), rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	if left := startWalks([]*Record{got})()[scopeKey(got)].Left(); !slices.Equal(left, []string{"pkg/calc.go", "pkg/other.go"}) {
		t.Fatalf("the walk left %q to the check, want the two named files", left)
	}
	if err := s.CheckAll(context.Background(), []*Record{got}); err != nil {
		t.Fatal(err)
	}
	ch := got.Freshness.InputsChanged
	if ch.Count != 1 || !slices.Equal(ch.Paths, []string{"pkg/calc.go"}) || !ch.Complete {
		t.Fatalf("inputs changed = %+v, want pkg/calc.go alone, complete", ch)
	}
}

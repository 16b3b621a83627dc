package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/freshctx/freshctx/internal/testbin"
	"github.com/freshctx/freshctx/internal/testgit"
)

// loadDuration is how long a load test drives its stores:
// FRESHCTX_LOAD_SECONDS, else normal (short with -short). The issues'
// full runs are 30 s.
func loadDuration(normal, short time.Duration) time.Duration {
	if s, err := strconv.Atoi(os.Getenv("FRESHCTX_LOAD_SECONDS")); err == nil && s > 0 {
		return time.Duration(s) * time.Second
	}
	if testing.Short() {
		return short
	}
	return normal
}

// loadWorker is one of the processes-at-a-time driving the store.
type loadWorker struct {
	bin, dir string
	n        int
	rng      *rand.Rand
	runs     map[string]string // label → the output its command printed
	puts     map[string]string // artifact key → content
	ops      map[string]int
}

func (w *loadWorker) exec(stdin string, args ...string) (string, error) {
	cmd := exec.Command(w.bin, args...)
	cmd.Dir = w.dir
	cmd.Env = append(os.Environ(), "FRESHCTX_SESSION=load-"+strconv.Itoa(w.n))
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if err != nil || strings.Contains(errb.String(), "locked") {
		return out.String(), fmt.Errorf("freshctx %s: %v: %s", strings.Join(args, " "), err, errb.String())
	}
	return out.String(), nil
}

// step runs one random operation and says what went wrong, if anything.
func (w *loadWorker) step(i int) error {
	op := []string{"run", "run", "recall", "show", "read", "summarize", "artifact", "sync"}[w.rng.IntN(8)]
	w.ops[op]++
	switch op {
	case "run":
		label := fmt.Sprintf("w%d-%d", w.n, i)
		want := strings.Repeat(label+" ok\n", 1+w.rng.IntN(200))
		_, err := w.exec("", "run", "--label", label, "--", "sh", "-c", fmt.Sprintf(`yes %q | head -n %d`, label+" ok", strings.Count(want, "\n")))
		w.runs[label] = want
		return err
	case "recall":
		_, err := w.exec("", "recall", fmt.Sprintf("w%d ok", w.n))
		return err
	case "show":
		_, err := w.exec("", "list", "--limit", "5")
		return err
	case "read":
		_, err := w.exec("", "read", fmt.Sprintf("f%d.go", w.rng.IntN(4)))
		return err
	case "summarize":
		_, err := w.exec("", "registry", "summarize", fmt.Sprintf("f%d.go", w.rng.IntN(4)), "--text", fmt.Sprintf("summary by %d at %d", w.n, i))
		return err
	case "artifact":
		key := fmt.Sprintf("k%d-%d", w.n, i)
		content := strings.Repeat(key+"\n", 1+w.rng.IntN(2000))
		w.puts[key] = content
		_, err := w.exec(content, "artifact", "put", "dependency_graph", key, "--dep", "f0.go")
		return err
	}
	_, err := w.exec("", "registry", "sync")
	return err
}

// TestLoad runs 16 processes at a time of mixed run, recall, list, read,
// registry and artifact against one store. Every command must succeed (no
// lock error reaches a user) and every write must land: each run's record
// with its output byte for byte, each artifact with its content.
func TestLoad(t *testing.T) {
	r := testgit.New(t)
	for i := range 4 {
		r.Write(fmt.Sprintf("f%d.go", i), fmt.Sprintf("package f\n\nfunc F%d() {}\n", i))
	}
	r.Commit("init")
	bin := testbin.Build(t)
	setup := &loadWorker{bin: bin, dir: r.Dir}
	if _, err := setup.exec("", "registry", "sync"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(loadDuration(5*time.Second, 2*time.Second))
	workers := make([]*loadWorker, 16)
	errs := make(chan error, len(workers))
	var wg sync.WaitGroup
	for n := range workers {
		w := &loadWorker{bin: bin, dir: r.Dir, n: n, rng: rand.New(rand.NewPCG(uint64(n), uint64(time.Now().UnixNano()))),
			runs: map[string]string{}, puts: map[string]string{}, ops: map[string]int{}}
		workers[n] = w
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; time.Now().Before(deadline); i++ {
				if err := w.step(i); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		return
	}
	checkLoadLanded(t, setup, workers)
}

func checkLoadLanded(t *testing.T, w *loadWorker, workers []*loadWorker) {
	out, err := w.exec("", "list", "--limit", "0", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Records []struct {
			ID    int64
			Label string
		}
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatal(err)
	}
	ids := map[string]int64{}
	for _, rec := range list.Records {
		ids[rec.Label] = rec.ID
	}
	ops, runs, puts := map[string]int{}, 0, 0
	for _, wk := range workers {
		for op, n := range wk.ops {
			ops[op] += n
		}
		for label, want := range wk.runs {
			runs++
			id, ok := ids[label]
			if !ok {
				t.Errorf("run %s did not land", label)
				continue
			}
			got, err := w.exec("", "show", strconv.FormatInt(id, 10), "--raw", "--stream", "stdout")
			if err != nil || got != want {
				t.Errorf("record %d (%s): raw output differs (%d bytes, want %d): %v", id, label, len(got), len(want), err)
			}
		}
		for key, want := range wk.puts {
			puts++
			got, err := w.exec("", "artifact", "get", "dependency_graph", key)
			if err != nil || got != want {
				t.Errorf("artifact %s: %d bytes, want %d: %v", key, len(got), len(want), err)
			}
		}
	}
	t.Logf("%d commands (%v): %d runs and %d artifacts all landed", total(ops), ops, runs, puts)
}

func total(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

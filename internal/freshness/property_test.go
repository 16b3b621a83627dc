package freshness

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/freshctx/freshctx/internal/testgit"
	"github.com/freshctx/freshctx/internal/workspace"
)

// tickFS models a file system whose timestamps have one-second ticks driven
// by a logical clock: every write or touch stamps the file with the current
// tick, so same-tick writes of the same size leave the stat unchanged — the
// racy-git situation the stat cache must survive.
type tickFS struct {
	OSFS
	mtime map[string]int64
}

func (f *tickFS) Stat(name string) (FileInfo, error) {
	fi, err := f.OSFS.Stat(name)
	if err == nil {
		fi.ModTime, fi.Ctime = f.mtime[name], f.mtime[name]
	}
	return fi, err
}

func (f *tickFS) Lstat(name string) (FileInfo, error) {
	fi, err := f.OSFS.Lstat(name)
	if err == nil {
		fi.ModTime, fi.Ctime = f.mtime[name], f.mtime[name]
	}
	return fi, err
}

// TestPropertyNeverWrong applies random edits, touches, deletes, reverts,
// commits and clock ticks, checking after each step that a file whose content
// differs from its stamp is never fresh and an identical one always is. The
// folder "dir" is stamped too: it is the same when dir/c.txt is.
func TestPropertyNeverWrong(t *testing.T) {
	paths := []string{"a.txt", "b.txt", "dir/c.txt"}
	stamped := append(slices.Clip(paths), "dir")
	contents := []string{"", "x", "y", "xy", "yx", "xyz"}
	rapid.Check(t, func(rt *rapid.T) {
		r := testgit.Init(rt, t.TempDir())
		fsys := &tickFS{mtime: map[string]int64{}}
		clock := time.Unix(1_700_000_000, 0)
		now := func() time.Time { return clock.Add(300 * time.Millisecond) }
		write := func(p, c string) {
			r.Write(p, c)
			fsys.mtime[r.Path(p)] = clock.UnixNano()
		}
		cur := map[string]*string{} // nil: absent
		set := func(p string, c *string) {
			if c == nil {
				r.Remove(p)
			} else {
				write(p, *c)
			}
			cur[p] = c
		}
		for _, p := range paths {
			c := rapid.SampledFrom(contents).Draw(rt, "init")
			set(p, &c)
		}
		r.Commit("init")
		if rapid.Bool().Draw(rt, "dirty at capture") {
			c := rapid.SampledFrom(contents).Draw(rt, "dirty")
			set(paths[0], &c)
		}

		ws, err := workspace.Discover(r.Dir)
		if err != nil {
			rt.Fatal(err)
		}
		cache := &MemCache{}
		ctx := context.Background()
		opt := Options{FS: fsys, Cache: cache, Now: now}
		snap, err := NewSnapshot(ctx, ws, stamped, opt)
		if err != nil {
			rt.Fatal(err)
		}
		st, err := snap.Stamp(ctx, stamped, time.Time{})
		if err != nil {
			rt.Fatal(err)
		}
		snap.Flush(ctx)
		captured := map[string]*string{}
		for p, c := range cur {
			captured[p] = c
		}

		steps := rapid.IntRange(1, 8).Draw(rt, "steps")
		for range steps {
			p := rapid.SampledFrom(paths).Draw(rt, "path")
			switch rapid.IntRange(0, 5).Draw(rt, "op") {
			case 0: // edit
				c := rapid.SampledFrom(contents).Draw(rt, "content")
				set(p, &c)
			case 1: // touch
				if cur[p] != nil {
					fsys.mtime[r.Path(p)] = clock.UnixNano()
					os.Chtimes(r.Path(p), clock, clock)
				}
			case 2: // delete
				set(p, nil)
			case 3: // revert to the captured content
				set(p, captured[p])
			case 4:
				r.Commit("step")
			case 5: // time passes
				clock = clock.Add(time.Duration(rapid.IntRange(0, 3).Draw(rt, "secs")) * time.Second)
			}
			var judged []Result
			if rapid.Bool().Draw(rt, "as many stamps") {
				judged = checkSplit(rt, ctx, ws, stamped, opt, st)
			} else {
				judged = checkNow(rt, ctx, ws, stamped, opt, func(snap *Snapshot) ([]Result, error) {
					res, err := snap.Check(ctx, st)
					return []Result{res}, err
				})
			}
			for _, res := range judged {
				for _, f := range res.Files {
					model := f.Path
					if model == "dir" {
						model = "dir/c.txt"
					}
					same := eq(cur[model], captured[model])
					if same && f.Label != Fresh {
						rt.Fatalf("%s is identical to its stamp but labelled %s (%s)", f.Path, f.Label, f.Reason)
					}
					if !same && !f.Label.Stale() {
						rt.Fatalf("%s changed but labelled %s (%s)", f.Path, f.Label, f.Reason)
					}
				}
			}
		}
	})
}

// checkSplit checks st with CheckMany in a new snapshot, as the whole, as
// one stamp per file and as a stamp with no files, as an artifact's slices
// and a list of records are checked: every result must say what Check would.
func checkSplit(rt *rapid.T, ctx context.Context, ws *workspace.Workspace, paths []string, opt Options, st Stamp) []Result {
	sts := []Stamp{st, {At: st.At}}
	for _, f := range st.Files {
		sts = append(sts, Stamp{At: st.At, Stamped: st.Stamped, Files: []FileStamp{f}})
	}
	res := checkNow(rt, ctx, ws, paths, opt, func(snap *Snapshot) ([]Result, error) { return snap.CheckMany(ctx, sts) })
	if len(res) != len(sts) || res[1].Label != NoRefs {
		rt.Fatalf("CheckMany of %d stamps gave %d results, the empty one %q", len(sts), len(res), res[1].Label)
	}
	for i, r := range res {
		labels := []Label{}
		for _, f := range r.Files {
			labels = append(labels, f.Label)
		}
		if len(labels) > 0 && r.Label != Worst(labels...) {
			rt.Fatalf("stamp %d labelled %s, its files %v", i, r.Label, labels)
		}
	}
	return res
}

// checkNow checks with a new snapshot of the workspace and keeps what it
// learnt in the stat cache, as a command does.
func checkNow(rt *rapid.T, ctx context.Context, ws *workspace.Workspace, paths []string, opt Options,
	check func(*Snapshot) ([]Result, error)) []Result {
	snap, err := NewSnapshot(ctx, ws, paths, opt)
	if err != nil {
		rt.Fatal(err)
	}
	res, err := check(snap)
	if err != nil {
		rt.Fatal(err)
	}
	if err := snap.Flush(ctx); err != nil {
		rt.Fatal(err)
	}
	return res
}

func eq(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

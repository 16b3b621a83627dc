package registry

import (
	"context"
	"testing"
)

// Each of these made the registry trust a changed file, or lose a row.
// The fixture's clock runs ahead, so every fingerprint is settled: the
// fingerprint scan, not only hashing, must see each change.

func TestSoundAssumeUnchangedEditIsNotTrusted(t *testing.T) {
	for _, flag := range []string{"--assume-unchanged", "--skip-worktree"} {
		t.Run(flag, func(t *testing.T) {
			f := newFixture(t, project(t))
			f.sync()
			f.summarize("lib/calc.go", "Add two ints.")
			f.sync()
			if res := f.sync(); res.Action != ActionTrust {
				t.Fatalf("sync = %+v, want trust before the edit", res)
			}
			f.r.Git("update-index", flag, "lib/calc.go")
			f.r.Write("lib/calc.go", "package lib\n\nfunc Add(a, b int) int { return a - b }\n")
			res := f.sync()
			if res.Action == ActionTrust || res.Mismatch != 1 {
				t.Fatalf("sync = %+v, want a verify with 1 mismatch", res)
			}
			if !f.file("lib/calc.go").SummaryStale {
				t.Fatal("summary not flagged stale")
			}
		})
	}
}

func TestSoundCRLFStagedIsNotTrusted(t *testing.T) {
	r := project(t)
	r.Write(".gitattributes", "* text=auto\n")
	r.Commit("attributes")
	f := newFixture(t, r)
	f.sync()
	f.sync()
	r.Write("main.go", "package main\r\n\r\nfunc main() {}\r\n")
	r.Git("add", "main.go")
	if res := f.sync(); res.Action == ActionTrust || res.Mismatch != 1 {
		t.Fatalf("sync = %+v, want a verify with 1 mismatch", res)
	}
}

func TestSoundSummaryOfDirtyFileRevertedByCheckout(t *testing.T) {
	f := newFixture(t, project(t))
	f.sync()
	f.r.Write("lib/calc.go", "package lib\n\n// dirty\nfunc Add(a, b int) int { return a + b }\n")
	f.summarize("lib/calc.go", "Add, with a comment.")
	f.r.Git("checkout", "--", "lib/calc.go")
	res := f.sync()
	if res.Action == ActionTrust {
		t.Fatalf("sync = %+v, want verify: the summarised content was reverted", res)
	}
	if !f.file("lib/calc.go").SummaryStale {
		t.Fatal("summary of the reverted content not flagged stale")
	}
}

func TestSoundCloseOfMergeCommit(t *testing.T) {
	r := project(t)
	r.Write("c.txt", "one\n")
	r.Commit("c")
	f := newFixture(t, r)
	f.sync()
	f.summarize("c.txt", "Says one.")
	f.sync()
	r.Git("checkout", "-q", "-b", "topic")
	r.Write("c.txt", "one\ntwo\n")
	r.Commit("two")
	r.Git("checkout", "-q", "main")
	r.Write("README.md", "# demo, on main\n")
	r.Commit("main moves")
	f.sync()
	r.Git("merge", "-q", "--no-ff", "-m", "merge topic", "topic")
	res, err := f.svc.Close(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if !res.Advanced || len(res.Updated) != 1 || res.Updated[0] != "c.txt" {
		t.Fatalf("close = %+v, want c.txt updated and the commit advanced", res)
	}
	if !f.file("c.txt").SummaryStale {
		t.Fatal("c.txt changed by the merge but its summary is not stale")
	}
	if s := f.sync(); s.Action != ActionTrust {
		t.Fatalf("sync after close = %+v, want trust (every row matches)", s)
	}
}

func TestSoundDeletedThenRestoredGetsItsRowBack(t *testing.T) {
	f := newFixture(t, project(t))
	f.sync()
	f.r.Remove("README.md")
	if res := f.sync(); res.Missing != 1 || f.has("README.md") {
		t.Fatalf("sync = %+v, want README.md missing", res)
	}
	f.r.Git("checkout", "--", "README.md")
	if res := f.sync(); res.New != 1 || !f.has("README.md") {
		t.Fatalf("sync = %+v, want README.md back", res)
	}
}

func TestSoundUntrackedAndIgnoredIsDropped(t *testing.T) {
	r := project(t)
	r.Write("cfg.txt", "port = 1\n")
	r.Commit("cfg")
	f := newFixture(t, r)
	f.sync()
	f.summarize("cfg.txt", "The port.")
	f.sync()
	r.Git("rm", "-q", "--cached", "cfg.txt")
	r.Write(".gitignore", "cfg.txt\n")
	r.Write("cfg.txt", "port = 2\n")
	if res := f.sync(); res.Action == ActionTrust {
		t.Fatalf("sync = %+v, want verify", res)
	}
	if f.has("cfg.txt") {
		t.Fatal("an untracked, ignored file kept its row")
	}
	r.Commit("stop tracking cfg.txt")
	r.Write("cfg.txt", "port = 3\n")
	if f.sync(); f.has("cfg.txt") {
		t.Fatal("an untracked, ignored file came back")
	}
}

func TestSoundPureRenameKeepsSummary(t *testing.T) {
	f := newFixture(t, project(t))
	f.sync()
	f.summarize("lib/calc.go", "Add two ints.")
	f.sync()
	f.r.Git("mv", "lib/calc.go", "lib/arith.go")
	res := f.sync()
	if res.Missing != 1 || res.New != 1 {
		t.Fatalf("sync = %+v", res)
	}
	got := f.file("lib/arith.go")
	if got.Summary == nil || *got.Summary != "Add two ints." || got.SummaryStale {
		t.Fatalf("renamed file = %+v, want the summary carried, not stale", got)
	}
}

func TestSoundUntrackedIgnoredThenResetGetsItsRowBack(t *testing.T) {
	r := project(t)
	r.Write("cfg.txt", "port = 1\n")
	r.Commit("cfg")
	f := newFixture(t, r)
	f.sync()
	r.Git("rm", "-q", "--cached", "cfg.txt")
	r.Write(".gitignore", "cfg.txt\n")
	if f.sync(); f.has("cfg.txt") {
		t.Fatal("an untracked, ignored file kept its row")
	}
	r.Git("reset", "-q", "--hard") // back in the index, the file untouched
	if f.sync(); !f.has("cfg.txt") {
		t.Fatal("a file tracked again after a reset has no row")
	}
}

func TestSoundNewUntrackedFileIsNotTrusted(t *testing.T) {
	f := newFixture(t, project(t))
	f.sync()
	if res := f.sync(); res.Action != ActionTrust {
		t.Fatalf("sync = %+v, want trust", res)
	}
	f.r.Write("lib/new.go", "package lib\n")
	if res := f.sync(); res.Action == ActionTrust || res.New != 1 {
		t.Fatalf("sync = %+v, want a verify finding the new file", res)
	}
	f.r.Git("add", "lib/new.go")
	f.r.Commit("new")
	f.sync()
	if res := f.sync(); res.Action != ActionTrust {
		t.Fatalf("sync = %+v, want trust after the commit", res)
	}
	f.r.Git("rm", "-q", "--cached", "main.go") // staged, the file untouched
	if res := f.sync(); res.Action == ActionTrust {
		t.Fatalf("sync = %+v, want verify with a staged change", res)
	}
}

func TestScanIndexIsUsedOnlyWhileCurrent(t *testing.T) {
	f := newFixture(t, project(t))
	f.sync()
	f.sync() // a scan builds the index
	current := func() bool {
		var n int
		f.svc.Store.DB().QueryRow(`SELECT count(*) FROM registry_scan s JOIN registry_gen g USING (root)
			WHERE s.gen = g.gen`).Scan(&n)
		return n == 1
	}
	if !current() {
		t.Fatal("no current scan index after a scan")
	}
	f.summarize("main.go", "The entry point.")
	if current() {
		t.Fatal("the scan index survived a change to the rows")
	}
	f.r.Write("main.go", "package main\n\nfunc main() { println() }\n")
	if res := f.sync(); res.Mismatch != 1 {
		t.Fatalf("sync = %+v, want the edit found", res)
	}
}

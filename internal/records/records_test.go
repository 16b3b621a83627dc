package records

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	mathrand "math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/freshctx/freshctx/internal/teststore"

	"github.com/freshctx/freshctx/internal/freshness"
	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/testgit"
	"github.com/freshctx/freshctx/internal/workspace"
)

func newService(t testing.TB) (*Service, *testgit.Repo) {
	t.Helper()
	r := testgit.New(t)
	r.Write("pkg/calc.go", "package pkg\n\nfunc Add(a, b int) int { return a - b }\n")
	r.Write("pkg/calc_test.go", "package pkg\n")
	r.Commit("init")
	ws := teststore.Workspace(t, r.Dir)
	st := teststore.Open(t, "", store.Options{})
	return &Service{WS: ws, Store: st, Cwd: r.Dir}, r
}

func run(t *testing.T, s *Service, script string) *Record {
	t.Helper()
	rec, err := s.Run(context.Background(), RunRequest{Argv: []string{"sh", "-c", script}, Env: os.Environ()})
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

func raw(t *testing.T, s *Service, id int64, st Stream) []byte {
	t.Helper()
	rc, err := s.Raw(context.Background(), id, st)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

const failing = `echo "=== RUN TestAdd"; echo "    pkg/calc_test.go:12: Add(1, 2) = -1, want 3";
echo "--- FAIL: TestAdd (0.00s)"; echo "see also missing/nowhere.go:3 and /etc/passwd:1" ; echo oops >&2; echo FAIL; exit 3`

func TestRunRecordsEverything(t *testing.T) {
	s, _ := newService(t)
	rec := run(t, s, failing)
	if rec.ExitCode == nil || *rec.ExitCode != 3 {
		t.Fatalf("exit = %v, want 3", rec.ExitCode)
	}
	if len(rec.Files) != 1 || rec.Files[0].Path != "pkg/calc_test.go" || !rec.Files[0].Exists {
		t.Fatalf("files = %+v, want only pkg/calc_test.go (missing and outside-root paths dropped)", rec.Files)
	}
	if !strings.Contains(rec.Digest, "pkg/calc_test.go:12") || !strings.Contains(rec.Digest, "--- FAIL: TestAdd") {
		t.Fatalf("digest lost facts:\n%s", rec.Digest)
	}
	if rec.Git.Branch != "main" || rec.Git.Head == "" || rec.RawTokens == 0 || !rec.RawTokensExact {
		t.Fatalf("record = %+v", rec)
	}
	if got := string(raw(t, s, rec.ID, Stderr)); got != "oops\n" {
		t.Fatalf("stderr = %q", got)
	}
	if got := raw(t, s, rec.ID, Stdout); !bytes.HasPrefix(got, []byte("=== RUN TestAdd\n")) {
		t.Fatalf("stdout = %q", got)
	}
}

func TestShowLabelsStaleAfterEdit(t *testing.T) {
	s, r := newService(t)
	rec := run(t, s, failing)
	ctx := context.Background()
	shown, err := s.Show(ctx, rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	if shown.Freshness.Label != freshness.Fresh {
		t.Fatalf("label = %s, want fresh", shown.Freshness.Label)
	}
	r.Write("pkg/calc_test.go", "package pkg // edited\n")
	shown, _ = s.Show(ctx, rec.ID)
	if shown.Freshness.Label != freshness.StaleChanged || shown.Freshness.Files[0].Reason == "" {
		t.Fatalf("after edit: %+v", shown.Freshness)
	}
	r.Remove("pkg/calc_test.go")
	shown, _ = s.Show(ctx, rec.ID)
	if shown.Freshness.Label != freshness.StaleDeleted {
		t.Fatalf("after delete: %+v", shown.Freshness)
	}
}

func TestRunKeepsBinaryByteForByte(t *testing.T) {
	s, _ := newService(t)
	// Seeded, not /dev/urandom: random bytes now and then hold something
	// shaped like a secret (a KEY=value), which redaction rightly replaces.
	noise := make([]byte, 100000)
	rng := mathrand.New(mathrand.NewPCG(7, 11))
	for i := range noise {
		noise[i] = byte(rng.Uint32())
	}
	blob := filepath.Join(t.TempDir(), "noise.bin")
	if err := os.WriteFile(blob, noise, 0o644); err != nil {
		t.Fatal(err)
	}
	rec := run(t, s, `printf '\000\001\377\376 bad \303\050 utf8\n'; cat '`+blob+`'`)
	got := raw(t, s, rec.ID, Stdout)
	if !bytes.HasPrefix(got, []byte("\x00\x01\xff\xfe bad \xc3\x28 utf8\n")) || len(got) != 100000+len("\x00\x01\xff\xfe bad \xc3\x28 utf8\n") {
		t.Fatalf("binary output altered (%d bytes)", len(got))
	}
	if !strings.Contains(rec.Digest, "binary output") && strings.ContainsRune(rec.Digest, 0) {
		t.Fatalf("digest carries raw NULs")
	}
}

func TestRunCommandNotFound(t *testing.T) {
	s, _ := newService(t)
	_, err := s.Run(context.Background(), RunRequest{Argv: []string{"definitely-not-a-command-xyz"}})
	var se *StartError
	if !errors.As(err, &se) || se.Code != 127 {
		t.Fatalf("err = %v, want StartError 127", err)
	}
	recs, _ := s.List(context.Background(), 0)
	if len(recs) != 0 {
		t.Fatal("a command that never started was recorded")
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(s.Store.Path()), "blobs", "tmp-*"))
	if len(left) != 0 {
		t.Fatalf("temporary blobs left: %v", left)
	}
}

func TestRunSignalExitCode(t *testing.T) {
	s, _ := newService(t)
	rec := run(t, s, "kill -TERM $$")
	if *rec.ExitCode != 128+15 {
		t.Fatalf("exit = %d, want 143", *rec.ExitCode)
	}
}

func TestCaptureWithExplicitFile(t *testing.T) {
	s, _ := newService(t)
	rec, err := s.Capture(context.Background(), CaptureRequest{
		Input: strings.NewReader("deploy notes\nnothing referenced\n"),
		Files: []string{"pkg/calc.go"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if rec.ExitCode != nil || len(rec.Files) != 1 || rec.Files[0].Path != "pkg/calc.go" {
		t.Fatalf("capture = %+v", rec)
	}
	_, err = s.Capture(context.Background(), CaptureRequest{Input: strings.NewReader(""), Files: []string{"../outside"}})
	if !errors.Is(err, workspace.ErrOutsideRoot) {
		t.Fatalf("outside --file: %v", err)
	}
}

func TestForgetDeletesBlobs(t *testing.T) {
	s, _ := newService(t)
	ctx := context.Background()
	a := run(t, s, "echo same")
	b := run(t, s, "echo same")
	f, err := s.Forget(ctx, []int64{a.ID})
	if err != nil || f.BlobsDeleted != 0 {
		t.Fatalf("forget a: %+v %v (blob still used by b)", f, err)
	}
	if got := string(raw(t, s, b.ID, Stdout)); got != "same\n" {
		t.Fatalf("b's output lost: %q", got)
	}
	f, err = s.Forget(ctx, []int64{b.ID})
	if err != nil || f.BlobsDeleted != 1 || f.BytesFreed == 0 {
		t.Fatalf("forget b: %+v %v", f, err)
	}
	if _, err := s.Forget(ctx, []int64{b.ID}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("forget again: %v", err)
	}
}

func TestForgetAllOrNothing(t *testing.T) {
	s, _ := newService(t)
	a := run(t, s, "echo a")
	if _, err := s.Forget(context.Background(), []int64{a.ID, 999}); !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
	if _, err := s.Get(context.Background(), a.ID); err != nil {
		t.Fatal("record deleted although the forget failed")
	}
}

func TestReferencesResolveAgainstCwd(t *testing.T) {
	s, r := newService(t)
	s.Cwd = r.Path("pkg")
	rec := run(t, s, `echo "calc.go:3:1: bad"`)
	if len(rec.Files) != 1 || rec.Files[0].Path != "pkg/calc.go" {
		t.Fatalf("files = %+v", rec.Files)
	}
}

// A name no folder freshctx looks in holds is the files of the work tree
// whose path ends with it, all of them (a record saying fresh must have
// stamped the file the output meant); one that too many files end with
// leaves the record unknown; one no file ends with names no file.
func TestReferencesPlacedElsewhere(t *testing.T) {
	s, r := newService(t)
	r.Write("deep/x/y.go", "package x\n")
	r.Write("other/x/y.go", "package x\n")
	for i := range maxElsewhere + 1 {
		r.Write(fmt.Sprintf("cmd/c%d/main.go", i), "package main\n")
	}
	r.Commit("more")
	r.Write("new/untracked.go", "package n\n")
	rec := run(t, s, `echo "x/y.go:3: undefined: z"; echo "untracked.go:1: bad"; echo "nowhere.go:4: x"`)
	var got []string
	for _, f := range rec.Files {
		got = append(got, f.Path)
	}
	slices.Sort(got)
	if want := []string{"deep/x/y.go", "new/untracked.go", "other/x/y.go"}; !slices.Equal(got, want) {
		t.Fatalf("files = %q, want %q", got, want)
	}
	if rec := run(t, s, `echo "nowhere.go:4: x"`); len(rec.Files) != 0 {
		t.Fatalf("a name no file has: files = %+v", rec.Files)
	}
	rec = run(t, s, `echo "main.go:3: boom"; echo "pkg/calc.go:1: x"`)
	if err := s.CheckAll(context.Background(), []*Record{rec}); err != nil {
		t.Fatal(err)
	}
	if rec.Freshness.Label != freshness.Unknown {
		t.Fatalf("a name %d files end with: label %s, want unknown (files %+v)", maxElsewhere+1, rec.Freshness.Label, rec.Files)
	}
}

// TestPlaceListsWhenNeeded: the listing keep starts beside the status is
// stopped, and waited for, when pick places every name (a file git
// reports deleted); a name it was not started for is placed all the same,
// from a listing made then; one it was started for, from that one.
func TestPlaceListsWhenNeeded(t *testing.T) {
	s, r := newService(t)
	r.Write("deep/x/y.go", "package x\n")
	r.Commit("deep")
	ctx := context.Background()
	e := s.startElsewhere(ctx, []string{"y.go"})
	if found, over := s.place(ctx, e, nil); found != nil || over != nil {
		t.Fatalf("nothing to place: found %q, over %q", found, over)
	}
	select {
	case <-e.done:
	default:
		t.Fatal("the listing outlived place")
	}
	for _, maybe := range [][]string{nil, {"y.go"}} {
		found, over := s.place(ctx, s.startElsewhere(ctx, maybe), []string{"x/y.go"})
		if !slices.Equal(found, []string{"deep/x/y.go"}) || over != nil {
			t.Fatalf("listing started for %q: found %q, over %q", maybe, found, over)
		}
	}
}

// A file list git cannot give (here the command broke the index) leaves
// an unplaced path not stamped: the record is kept, and unknown.
func TestUnplacedPathWithoutAFileListIsKeptUnknown(t *testing.T) {
	s, r := newService(t)
	r.Write("deep/y.go", "package deep\n")
	r.Commit("deep")
	rec := run(t, s, `echo "y.go:3: x"; echo junk > .git/index`)
	if rec.ID == 0 {
		t.Fatalf("record not kept: %s", rec.NotKept)
	}
	if err := s.CheckAll(context.Background(), []*Record{rec}); err != nil {
		t.Fatal(err)
	}
	if rec.Freshness.Label != freshness.Unknown {
		t.Fatalf("label %s, want unknown (files %+v)", rec.Freshness.Label, rec.Files)
	}
}

// Outside git, the files an unplaced path may be are found by a walk of
// the tree.
func TestReferencesPlacedElsewhereOutsideGit(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"deep/x/y.go", "node_modules/m/y.go", "a.go"} {
		p := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("package x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws := teststore.Workspace(t, dir)
	if ws.Git != nil {
		t.Fatal("a plain folder is a git work tree here")
	}
	s := &Service{WS: ws, Store: teststore.Open(t, "", store.Options{}), Cwd: dir}
	rec := run(t, s, `echo "y.go:3: undefined: z"`)
	if len(rec.Files) != 1 || rec.Files[0].Path != "deep/x/y.go" {
		t.Fatalf("files = %+v, want deep/x/y.go alone (node_modules is not searched)", rec.Files)
	}
}

// TestNonASCIIPathsResolve: a path whose folder is named with accents or
// in another script is the file named, and a decoration drawn against a
// path (a box-drawing line) is no part of it: each reading is tried
// against the workspace.
func TestNonASCIIPathsResolve(t *testing.T) {
	s, r := newService(t)
	r.Write("café/main.go", "package main\n")
	r.Write("プロジェクト/app.py", "x = 1\n")
	r.Write("ü.txt", "ü\n")
	r.Write("thé/main.go", "package main\n")
	rec := run(t, s, `echo "café/main.go:3: boom"; echo "thé/main.go:3: boom"; echo "│pkg/calc.go:3│"; echo "`+r.Path("プロジェクト/app.py")+`:9"; echo "ü.txt:1: bad"`)
	var got []string
	for _, f := range rec.Files {
		got = append(got, f.Path)
	}
	slices.Sort(got)
	if want := []string{"café/main.go", "pkg/calc.go", "thé/main.go", "ü.txt", "プロジェクト/app.py"}; !slices.Equal(got, want) {
		t.Fatalf("files = %q, want %q", got, want)
	}
}

func TestDeletedFileReferenceKept(t *testing.T) {
	s, r := newService(t)
	r.Remove("pkg/calc.go")
	rec := run(t, s, `echo "pkg/calc.go:3: was here"`)
	if len(rec.Files) != 1 || rec.Files[0].Exists {
		t.Fatalf("files = %+v, want the deleted tracked file, not existing", rec.Files)
	}
}

func TestDirectoryReferenceNotKept(t *testing.T) {
	s, _ := newService(t)
	rec := run(t, s, `echo "pkg:3: a directory, not a file"; echo "pkg/:4: also"`)
	if len(rec.Files) != 0 {
		t.Fatalf("files = %+v, want none", rec.Files)
	}
}

// Output that names freshctx's own store (find ., ls -R) does not make
// the record depend on it: the store changes with every command.
func TestStoreIsNeverAReference(t *testing.T) {
	s, r := newService(t)
	r.Write(".freshctx/freshctx.db", "the store")
	rec := run(t, s, `find . -name '*.db' -o -name calc.go | sort`)
	if len(rec.Files) != 1 || rec.Files[0].Path != "pkg/calc.go" {
		t.Fatalf("files = %+v, want pkg/calc.go alone", rec.Files)
	}
	// A store given inside the work tree, under another name, likewise.
	inTree := teststore.Open(t, r.Path("cache/own.db"), store.Options{})
	s2 := &Service{WS: s.WS, Store: inTree, Cwd: r.Dir}
	rec = run(t, s2, `ls cache/own.db cache/own.db-wal pkg/calc.go 2>/dev/null; echo cache/own.db:1`)
	if len(rec.Files) != 1 || rec.Files[0].Path != "pkg/calc.go" {
		t.Fatalf("with the store in cache/: files = %+v, want pkg/calc.go alone", rec.Files)
	}
}

func TestSecretsRedactedBeforeStorage(t *testing.T) {
	s, r := newService(t)
	r.Write("secrets.txt", "export GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789AB\n"+
		"-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAsecretmaterial\n-----END RSA PRIVATE KEY-----\n")
	r.Write("pw.txt", "db password=hunter2\n")
	rec := run(t, s, `cat secrets.txt; cat pw.txt >&2; echo "pkg/calc.go:3: error: boom"`)
	if rec.Redactions != 3 {
		t.Fatalf("redactions = %d, want 3", rec.Redactions)
	}
	all := string(raw(t, s, rec.ID, Stdout)) + string(raw(t, s, rec.ID, Stderr)) + rec.Digest
	for _, secret := range []string{"ghp_abcdefghijklmnopqrstuvwxyz0123456789AB", "MIIEowIBAAKCAQEAsecretmaterial", "hunter2"} {
		if strings.Contains(all, secret) {
			t.Fatalf("%q was stored", secret)
		}
	}
	if !strings.Contains(all, "pkg/calc.go:3: error: boom") {
		t.Fatal("ordinary output lost")
	}
	// the key material goes whole, its lines' ends with it
	if out := string(raw(t, s, rec.ID, Stdout)); strings.Contains(out, "\n\n") {
		t.Fatalf("a dropped line left its newline:\n%s", out)
	}
	recall(t, s, "boom") // the index takes the record
	var n int
	s.Store.DB().QueryRow("SELECT count(*) FROM records_fts WHERE records_fts MATCH 'hunter2'").Scan(&n)
	if n != 0 {
		t.Fatal("secret indexed")
	}
}

func TestSecretsRedactedFromCommandLine(t *testing.T) {
	s, _ := newService(t)
	rec := run(t, s, `true --token=abcd1234efgh`)
	if strings.Contains(rec.Command, "abcd1234efgh") || rec.Redactions != 1 {
		t.Fatalf("command = %q, redactions %d", rec.Command, rec.Redactions)
	}
	var argv string
	s.Store.DB().QueryRow("SELECT argv FROM records WHERE id = ?", rec.ID).Scan(&argv)
	if strings.Contains(argv, "abcd1234efgh") {
		t.Fatalf("argv stored the secret: %s", argv)
	}
}

func TestRetentionPrunesOldRecords(t *testing.T) {
	s, _ := newService(t)
	now := time.Now()
	s.Now = func() time.Time { return now }
	old := run(t, s, "echo old output")
	// A month and a day later, with 30 days' retention.
	now = now.Add(31 * 24 * time.Hour)
	s.Store = reopenWithClock(t, s.Store, func() time.Time { return now })
	s.Retention = 30 * 24 * time.Hour
	fresh := run(t, s, "echo new output")
	if _, err := s.Get(context.Background(), old.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("old record kept: %v", err)
	}
	if _, err := s.Get(context.Background(), fresh.ID); err != nil {
		t.Fatal(err)
	}
	var blobs int
	s.Store.DB().QueryRow("SELECT count(*) FROM blobs").Scan(&blobs)
	if blobs != 1 {
		t.Fatalf("blobs = %d, want only the new record's", blobs)
	}
}

func reopenWithClock(t *testing.T, old *store.Store, now func() time.Time) *store.Store {
	t.Helper()
	s := teststore.Open(t, old.Path(), store.Options{Now: now})
	return s
}

func TestStatsNeverInflated(t *testing.T) {
	s, _ := newService(t)
	run(t, s, "seq 1 3000")                         // compresses a lot
	run(t, s, "echo short")                         // kept whole: saves nothing
	run(t, s, `echo "--- FAIL: TestX"; seq 1 2000`) // go-like
	st, err := s.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.Records != 3 || st.SavedTokens <= 0 || st.SavedTokens > st.RawTokens {
		t.Fatalf("stats = %+v", st)
	}
	var sum int64
	for _, c := range st.ByCommand {
		sum += c.SavedTokens
		if c.SavedTokens < 0 || c.SavedTokens > c.RawTokens {
			t.Fatalf("group %+v", c)
		}
	}
	if sum != st.SavedTokens || st.SavingsPct <= 0 || st.SavingsPct > 100 {
		t.Fatalf("groups sum to %d of %d (%v%%)", sum, st.SavedTokens, st.SavingsPct)
	}
	if fam := family("run", `["/usr/bin/go","test","./..."]`, ""); fam != "go test" {
		t.Fatalf("family = %q", fam)
	}
}

// TestGitStateIsAsTheCommandFoundIt: the record's branch, HEAD and dirty
// bit are read as the command starts, beside it (a command longer than one
// status pays nothing for them), so a command that commits or edits once
// the status has been read is recorded with what it found, and the tree is
// that of the HEAD recorded. Each command here waits for the status to end.
func TestGitStateIsAsTheCommandFoundIt(t *testing.T) {
	s, r := newService(t)
	read := filepath.Join(t.TempDir(), "status-read")
	git := s.WS.Git.Run
	// The whole status is two gits at once on two cores or more (the
	// tracked files, and ls-files for the untracked ones), one otherwise:
	// the command goes on once every part of it has read the tree, or the
	// part still reading would see what the command does.
	parts := 1
	if runtime.NumCPU() >= 2 {
		parts = 2
	}
	var mu sync.Mutex
	finished := 0
	s.WS.Git.Run = func(ctx context.Context, dir string, args ...string) ([]byte, error) {
		out, err := git(ctx, dir, args...)
		if slices.Contains(args, "status") || slices.Contains(args, "--others") {
			mu.Lock()
			if finished++; finished == parts {
				os.WriteFile(read, nil, 0o644)
			}
			mu.Unlock()
		}
		return out, err
	}
	waitThen := func(script string) *Record {
		mu.Lock()
		finished = 0
		mu.Unlock()
		os.Remove(read)
		return run(t, s, "i=0; while [ ! -e "+read+" ] && [ $i -lt 1000 ]; do sleep 0.01; i=$((i+1)); done; "+script)
	}
	head := strings.TrimSpace(r.Git("rev-parse", "HEAD"))
	tree := strings.TrimSpace(r.Git("rev-parse", "HEAD^{tree}"))
	rec := waitThen(`echo next > pkg/new.go && git add pkg/new.go && git -c user.name=t -c user.email=t@t commit -qm next && echo committed`)
	if rec.Git.Head != head || rec.Git.Dirty {
		t.Fatalf("a commit after the status: git = %+v, want head %s, clean", rec.Git, head)
	}
	got, err := s.Get(context.Background(), rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.stamp.Git.Tree != tree {
		t.Fatalf("stored tree %q, want that of the HEAD recorded, %s", got.stamp.Git.Tree, tree)
	}
	head = strings.TrimSpace(r.Git("rev-parse", "HEAD"))
	rec = waitThen(`echo edit >> pkg/calc.go`)
	if rec.Git.Head != head || rec.Git.Dirty {
		t.Fatalf("an edit after the status: git = %+v, want head %s, clean", rec.Git, head)
	}
	rec = waitThen(`true`)
	if rec.Git.Head != head || !rec.Git.Dirty {
		t.Fatalf("after the edit: git = %+v, want head %s, dirty", rec.Git, head)
	}
}

// TestRunTakesTheStatusItIsGiven: a status the caller started for the run
// (the CLI starts it before the store opens) is the one the record's git
// facts come from; Run starts none of its own.
func TestRunTakesTheStatusItIsGiven(t *testing.T) {
	s, r := newService(t)
	given := s.WS.Git.StartStatus(context.Background())
	if _, err := given(); err != nil {
		t.Fatal(err)
	}
	r.Write("pkg/new.go", "package pkg\n") // dirty from here on
	statuses := 0
	git := s.WS.Git.Run
	s.WS.Git.Run = func(ctx context.Context, dir string, args ...string) ([]byte, error) {
		if slices.Contains(args, "status") {
			statuses++
		}
		return git(ctx, dir, args...)
	}
	rec, err := s.Run(context.Background(), RunRequest{Argv: []string{"true"}, GitStatus: given})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Git.Dirty || statuses != 0 {
		t.Fatalf("dirty %v after %d statuses of its own, want the given status's clean tree and none", rec.Git.Dirty, statuses)
	}
}

// TestAFileTheCommandDeletesIsStamped: a file the output names and the
// command deleted is kept among the record's files, missing, though the
// status read as the command started saw it: restored, it makes the record
// stale.
func TestAFileTheCommandDeletesIsStamped(t *testing.T) {
	s, r := newService(t)
	rec := run(t, s, `rm pkg/calc.go; echo "pkg/calc.go:3: gone"`)
	if len(rec.Files) != 1 || rec.Files[0].Path != "pkg/calc.go" || rec.Files[0].Exists {
		t.Fatalf("files = %+v, want pkg/calc.go, missing", rec.Files)
	}
	r.Git("checkout", "-q", "HEAD", "--", "pkg/calc.go")
	got, err := s.Show(context.Background(), rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Freshness.Label != freshness.StaleChanged {
		t.Fatalf("restored: %s, want %s", got.Freshness.Label, freshness.StaleChanged)
	}
}

// TestStoredFilesKeepTheirOrder: a record read back lists its files in the
// order they were stamped, for every record of a batch (the order is
// restored from rowids, not left to the query).
func TestStoredFilesKeepTheirOrder(t *testing.T) {
	s, r := newService(t)
	for _, f := range []string{"pkg/z.go", "pkg/a.go", "pkg/m.go"} {
		r.Write(f, "package pkg\n")
	}
	var made []*Record
	for _, script := range []string{
		`echo "pkg/z.go:1: one"; echo "pkg/a.go:2: two"; echo "pkg/m.go:3: three"`,
		`echo "pkg/m.go:1: one"; echo "pkg/z.go:2: two"; echo "pkg/a.go:3: three"`,
	} {
		made = append(made, run(t, s, script))
	}
	for _, rec := range made {
		got, err := s.Get(context.Background(), rec.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(rec.Files) != 3 || fmt.Sprint(got.Files) != fmt.Sprint(rec.Files) {
			t.Fatalf("record %d read back with files %v, stamped %v", rec.ID, got.Files, rec.Files)
		}
	}
	if fmt.Sprint(made[0].Files) == fmt.Sprint(made[1].Files) {
		t.Fatalf("both records stamped their files in one order (%v): the test shows nothing", made[0].Files)
	}
}

// TestListingsAnswerAsStat: pick's listings say what a stat of each path
// would: through links, for folders that are files or missing, and for
// dangling links (there, but not a regular file).
func TestListingsAnswerAsStat(t *testing.T) {
	s, r := newService(t)
	r.Write("sub/f.go", "package sub\n")
	os.Symlink("f.go", r.Path("sub/link.go"))
	os.Symlink("nowhere.go", r.Path("sub/dangling.go"))
	os.Symlink("sub", r.Path("alias"))
	l := newListings(s.WS)
	for _, tt := range []struct {
		rel             string
		regular, exists bool
	}{
		{"sub/f.go", true, true},
		{"sub/link.go", true, true},
		{"sub/dangling.go", false, true},
		{"sub", false, true},
		{"alias/f.go", true, true},
		{"sub/f.go/x", false, false},
		{"nosuch/f.go", false, false},
		{"pkg/calc.go", true, true},
		{"calc.go", false, false},
	} {
		if got := l.regular(tt.rel); got != tt.regular {
			t.Errorf("regular(%s) = %v, want %v", tt.rel, got, tt.regular)
		}
		if got := l.exists(tt.rel); got != tt.exists {
			t.Errorf("exists(%s) = %v, want %v", tt.rel, got, tt.exists)
		}
	}
}

package team

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/freshctx/freshctx/internal/testpg"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testpg.StopShared()
	os.Exit(code)
}

func open(t *testing.T) *Store {
	t.Helper()
	url := testpg.Shared(t).Database(t)
	s, err := Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	if _, err := s.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s
}

func record(key, command, summary string, files ...File) Record {
	code := 1
	return Record{Key: key, RepoID: "repo-1", Command: command, ExitCode: &code, Summary: summary,
		Raw: []byte(summary + "\nthe whole output\n"), Files: files, Commit: "abc", Branch: "main",
		Author: "ana", Machine: "laptop", CreatedAt: time.Now().UTC().Truncate(time.Microsecond)}
}

// TestPublishIsIdempotentAndSearchFinds: a record published twice is
// stored once; the team's records are found by their words, in their
// repository only, with every file's hash as published.
func TestPublishIsIdempotentAndSearchFinds(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	if v, err := s.Migrate(ctx); err != nil || v < 1 {
		t.Fatalf("migrating again: version %d, %v", v, err)
	}
	a := record("k1", "go test ./...", "--- FAIL: TestAdd\ncalc_test.go:12: Add(1, 2) = -1", File{Path: "calc.go", SHA256: "aa", Size: 10, Existed: true})
	b := record("k2", "go vet ./...", "all good")
	other := record("k3", "go test ./...", "--- FAIL: TestAdd elsewhere")
	other.RepoID = "repo-2"
	for range 2 {
		if _, err := s.Publish(ctx, []Record{a, b, other}); err != nil {
			t.Fatal(err)
		}
	}
	if c, err := s.Count(ctx, "repo-1"); err != nil || c.Records != 2 {
		t.Fatalf("count %+v, %v; want 2 records", c, err)
	}
	a.Parts = "test add calc" // as the publisher splits TestAdd and calc_test.go
	if _, err := s.Publish(ctx, []Record{a}); err != nil {
		t.Fatal(err)
	}
	found, err := s.Candidates(ctx, "repo-1", []string{"testadd", "fail"}, 10, 100)
	if err != nil || len(found.Records) != 1 || found.Records[0].Key != "k1" {
		t.Fatalf("candidates: %+v, %v", found.Records, err)
	}
	if found.Sample != 2 || found.Docs["fail"] != 1 || found.Docs["testadd"] != 1 {
		t.Fatalf("word counts %v over %v, want fail and testadd in 1 of 2", found.Docs, found.Sample)
	}
	if f := found.Records[0].Files; len(f) != 1 || f[0].SHA256 != "aa" || f[0].Path != "calc.go" {
		t.Fatalf("files: %+v", f)
	}
	if found, err := s.Candidates(ctx, "repo-1", []string{"it's", "(a)", "&", "|", "!", "query:*"}, 10, 100); err != nil {
		t.Fatalf("words with tsquery's operators: %v (%d found)", err, len(found.Records))
	}
	if got, err := s.Search(ctx, Query{RepoID: "repo-1", Limit: 1}); err != nil || len(got) != 1 || got[0].Key != "k2" {
		t.Fatalf("the newest: %+v, %v", got, err)
	}
	raw, err := s.Raw(ctx, "k1")
	if err != nil || !strings.Contains(string(raw), "the whole output") {
		t.Fatalf("raw: %q, %v", raw, err)
	}
}

// TestSignatures: a signed record verifies, as fetched without its raw
// output too; one changed after signing, or signed by another key, does
// not.
func TestSignatures(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	pub, key, _ := ed25519.GenerateKey(nil)
	_, other, _ := ed25519.GenerateKey(nil)
	good := record("s1", "go test ./...", "FAIL one")
	good.Sign(key)
	forged := record("s2", "go test ./...", "FAIL two")
	forged.Sign(other)
	tampered := record("s3", "go test ./...", "FAIL three")
	tampered.Sign(key)
	tampered.Files = []File{{Path: "x.go", SHA256: "00", Existed: true}}
	if _, err := s.Publish(ctx, []Record{good, forged, tampered}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Search(ctx, Query{RepoID: "repo-1", Limit: 10})
	if err != nil || len(got) != 3 {
		t.Fatalf("search: %d, %v", len(got), err)
	}
	for _, r := range got {
		if want := r.Key == "s1"; r.Signed(pub) != want {
			t.Errorf("%s: signed %v, want %v", r.Key, r.Signed(pub), want)
		}
	}
}

// TestURLsNeverShowPasswords: what freshctx prints of a URL has no
// password, and an error that quotes one is scrubbed.
func TestURLsNeverShowPasswords(t *testing.T) {
	for _, u := range []string{"postgres://ana:s3cr3t-pw@db.example.com:5432/team", "postgres://db/team?password=s3cr3t-pw&sslmode=verify-full"} {
		if r := Redacted(u); strings.Contains(r, "s3cr3t-pw") || !HasPassword(u) {
			t.Errorf("%s → %s", u, r)
		}
		if _, err := Open(context.Background(), strings.Replace(u, "db.example.com", "127.0.0.1", 1)+"&connect_timeout=1"); err == nil || strings.Contains(err.Error(), "s3cr3t-pw") {
			t.Errorf("open %s: %v", Redacted(u), err)
		}
	}
	if HasPassword("postgres://ana@db/team") {
		t.Error("no password, but said to have one")
	}
}

// TestReadOnlyRoleReads: the read-only role the README gives laptops finds
// the team's records and cannot publish.
func TestReadOnlyRoleReads(t *testing.T) {
	owner := open(t)
	ctx := context.Background()
	if _, err := owner.Publish(ctx, []Record{record("r1", "go test ./...", "FAIL readable")}); err != nil {
		t.Fatal(err)
	}
	role := "laptop_" + strings.ToLower(strings.ReplaceAll(t.Name(), "/", "_"))
	for _, q := range []string{
		"CREATE ROLE " + role + " LOGIN",
		"GRANT SELECT ON team_records, team_summaries, team_artifacts, freshctx_team_schema TO " + role,
	} {
		if _, err := owner.conn.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	url := strings.Replace(owner.url, "postgres://postgres@", "postgres://"+role+"@", 1)
	laptop, err := Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer laptop.Close()
	if got, err := laptop.Search(ctx, Query{RepoID: "repo-1"}); err != nil || len(got) != 1 {
		t.Fatalf("the read-only role's search: %d, %v", len(got), err)
	}
	if _, err := laptop.Publish(ctx, []Record{record("r2", "go vet", "nope")}); err == nil || !strings.Contains(err.Error(), "permission denied") {
		t.Fatalf("the read-only role published: %v", err)
	}
	if _, err := owner.PublishArtifacts(ctx, []Artifact{artifact("a map")}); err != nil {
		t.Fatal(err)
	}
	if got, err := laptop.FindArtifacts(ctx, "repo-1", "repo_map", "root"); err != nil || len(got) != 1 {
		t.Fatalf("the read-only role's artifact lookup: %d, %v", len(got), err)
	}
	if _, err := laptop.PublishArtifacts(ctx, []Artifact{artifact("another")}); err == nil || !strings.Contains(err.Error(), "permission denied") {
		t.Fatalf("the read-only role published an artifact: %v", err)
	}
}

// TestUnreachable: a connection never made and a round trip out of time
// are the store unreachable; what the server answered, and an error that
// only says "connect", are not.
func TestUnreachable(t *testing.T) {
	ctx := context.Background()
	_, refused := pgconn.Connect(ctx, "postgres://nobody@127.0.0.1:1/none?connect_timeout=2")
	if refused == nil {
		t.Fatal("a connection to port 1 was made")
	}
	for _, c := range []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"refused", refused, true},
		{"out of time", fmt.Errorf("publish: %w", context.DeadlineExceeded), true},
		{"the server's answer", fmt.Errorf("publish: %w", &pgconn.PgError{Code: "42501", Message: "permission denied"}), false},
		{"a word alone", errors.New("could not connect the dots"), false},
	} {
		if got := Unreachable(c.err); got != c.want {
			t.Errorf("%s (%v): Unreachable %v, want %v", c.name, c.err, got, c.want)
		}
	}
}

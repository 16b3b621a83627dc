package team

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/freshctx/freshctx/internal/testpg"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testpg.StopShared()
	os.Exit(code)
}

func open(t testing.TB) *Store {
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
	found, err := s.Candidates(ctx, "repo-1", []string{"testadd", "fail"}, 10, 100, true)
	if err != nil || len(found.Records) != 1 || found.Records[0].Key != "k1" {
		t.Fatalf("candidates: %+v, %v", found.Records, err)
	}
	if found.Sample != 2 || found.Docs["fail"] != 1 || found.Docs["testadd"] != 1 {
		t.Fatalf("word counts %v over %v, want fail and testadd in 1 of 2", found.Docs, found.Sample)
	}
	if f := found.Records[0].Files; len(f) != 1 || f[0].SHA256 != "aa" || f[0].Path != "calc.go" {
		t.Fatalf("files: %+v", f)
	}
	if found, err := s.Candidates(ctx, "repo-1", []string{"it's", "(a)", "&", "|", "!", "query:*"}, 10, 100, false); err != nil {
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
// output too (the newest, and the candidates of a search with the
// outputs' sums); one changed after signing (its files or its output), or
// signed by another key, does not; and a candidate fetched without the
// sums never does.
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
	rewritten := record("s4", "go test ./...", "FAIL four")
	rewritten.Sign(key)
	rewritten.Raw = append(rewritten.Raw, "and a line the signer never saw\n"...)
	if _, err := s.Publish(ctx, []Record{good, forged, tampered, rewritten}); err != nil {
		t.Fatal(err)
	}
	check := func(how string, got []Record, want func(key string) bool) {
		t.Helper()
		if len(got) != 4 {
			t.Fatalf("%s: %d records, want 4", how, len(got))
		}
		for _, r := range got {
			if r.Signed(pub) != want(r.Key) {
				t.Errorf("%s: %s signed %v, want %v", how, r.Key, r.Signed(pub), want(r.Key))
			}
		}
	}
	onlyGood := func(key string) bool { return key == "s1" }
	got, err := s.Search(ctx, Query{RepoID: "repo-1", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	check("the newest", got, onlyGood)
	for _, sums := range []bool{true, false} {
		found, err := s.Candidates(ctx, "repo-1", []string{"fail"}, 10, 100, sums)
		if err != nil {
			t.Fatal(err)
		}
		want := onlyGood
		if !sums {
			want = func(string) bool { return false }
		}
		check(fmt.Sprintf("candidates, sums %v", sums), found.Records, want)
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

// docRoles are the statements of docs/team.md's ```sql block, with each
// role it creates given a name of this test's (roles belong to the whole
// cluster), and those names in the page's order.
func docRoles(t *testing.T) (stmts, roles []string) {
	t.Helper()
	data, err := os.ReadFile("../../docs/team.md")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(data), "```sql\n")
	block, _, ok2 := strings.Cut(block, "```")
	if !ok || !ok2 {
		t.Fatal("docs/team.md has no ```sql block")
	}
	var sql strings.Builder
	for _, l := range strings.Split(block, "\n") {
		l, _, _ = strings.Cut(l, "--")
		sql.WriteString(l + "\n")
	}
	text := sql.String()
	suffix := fmt.Sprintf("_%d", time.Now().UnixNano()%1e9)
	for _, m := range regexp.MustCompile(`CREATE ROLE (\w+)`).FindAllStringSubmatch(text, -1) {
		roles = append(roles, m[1]+suffix)
		text = regexp.MustCompile(`\b`+m[1]+`\b`).ReplaceAllString(text, m[1]+suffix)
	}
	for _, st := range strings.Split(text, ";") {
		if st = strings.TrimSpace(st); st != "" {
			stmts = append(stmts, st)
		}
	}
	return stmts, roles
}

// TestDocRolesDoWhatTheySay: the roles docs/team.md gives CI and laptops,
// made by the page's own statements, do what it says: CI publishes
// records, summaries and artifacts and reads them; a laptop reads them
// and can publish none.
func TestDocRolesDoWhatTheySay(t *testing.T) {
	owner := open(t)
	ctx := context.Background()
	stmts, roles := docRoles(t)
	if len(roles) != 2 {
		t.Fatalf("roles %v, want CI's and the laptops'", roles)
	}
	for _, q := range stmts {
		if _, err := owner.conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	as := func(role string) *Store {
		s, err := Open(ctx, strings.Replace(owner.url, "postgres://postgres@", "postgres://"+role+"@", 1))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		return s
	}
	ci, laptop := as(roles[0]), as(roles[1])
	if v, err := ci.Version(ctx); err != nil || v < 1 {
		t.Fatalf("CI reads the schema's version: %d, %v", v, err)
	}
	sum := Summary{RepoID: "repo-1", Path: "a.go", SHA256: strings.Repeat("a", 64), Summary: "adds", Author: "ci", Machine: "ci", CreatedAt: time.Now().UTC()}
	if _, err := ci.Publish(ctx, []Record{record("r1", "go test ./...", "FAIL readable")}); err != nil {
		t.Fatalf("CI publishes a record: %v", err)
	}
	if _, err := ci.PublishSummaries(ctx, []Summary{sum}); err != nil {
		t.Fatalf("CI publishes a summary: %v", err)
	}
	if _, err := ci.PublishArtifacts(ctx, []Artifact{artifact("a map")}); err != nil {
		t.Fatalf("CI publishes an artifact: %v", err)
	}
	for name, s := range map[string]*Store{"CI": ci, "a laptop": laptop} {
		if got, err := s.Search(ctx, Query{RepoID: "repo-1"}); err != nil || len(got) != 1 {
			t.Errorf("%s's search: %d, %v", name, len(got), err)
		}
		if got, err := s.FindSummaries(ctx, "repo-1", []FileBytes{{Path: sum.Path, SHA256: sum.SHA256}}); err != nil || len(got) != 1 {
			t.Errorf("%s's summary lookup: %d, %v", name, len(got), err)
		}
		if got, err := s.FindArtifacts(ctx, "repo-1", "repo_map", "root"); err != nil || len(got) != 1 {
			t.Errorf("%s's artifact lookup: %d, %v", name, len(got), err)
		}
	}
	denied := func(what string, _ int, err error) {
		if err == nil || !strings.Contains(err.Error(), "permission denied") {
			t.Errorf("a laptop published %s: %v", what, err)
		}
	}
	n, err := laptop.Publish(ctx, []Record{record("r2", "go vet", "nope")})
	denied("a record", n, err)
	n, err = laptop.PublishSummaries(ctx, []Summary{{RepoID: "repo-1", Path: "b.go", SHA256: strings.Repeat("b", 64), Summary: "no", CreatedAt: time.Now().UTC()}})
	denied("a summary", n, err)
	n, err = laptop.PublishArtifacts(ctx, []Artifact{artifact("another")})
	denied("an artifact", n, err)
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

// TestOpenSearchReadsAsOpen: a connection that sends each statement in
// one round trip (recall --team's) reads what the described form reads:
// the newest records, and the candidates of words with and without the
// sums of their outputs, every field alike.
func TestOpenSearchReadsAsOpen(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	a := record("k1", "go test ./...", "--- FAIL: TestAdd\ncalc_test.go:12: Add(1, 2) = -1", File{Path: "calc.go", SHA256: "aa", Size: 10, Existed: true})
	a.Parts = "test add calc"
	b := record("k2", "go vet ./...", "FAIL all bad", File{Path: "pkg/x.go", Existed: false})
	b.Signature = "sig"
	if _, err := s.Publish(ctx, []Record{a, b}); err != nil {
		t.Fatal(err)
	}
	one, err := OpenSearch(ctx, s.url, Asked)
	if err != nil {
		t.Fatal(err)
	}
	defer one.Close()
	if mode := one.conn.Config().DefaultQueryExecMode; mode != pgx.QueryExecModeExec {
		t.Fatalf("OpenSearch's connection describes its statements first (mode %v)", mode)
	}
	utc := func(rs []Record) []Record {
		for i := range rs {
			rs[i].CreatedAt = rs[i].CreatedAt.UTC()
		}
		return rs
	}
	want, err := s.Search(ctx, Query{RepoID: "repo-1", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	got, err := one.Search(ctx, Query{RepoID: "repo-1", Limit: 10})
	if err != nil || !reflect.DeepEqual(utc(got), utc(want)) || len(got) != 2 {
		t.Fatalf("search: %+v, %v\nwant %+v", got, err, want)
	}
	for _, sums := range []bool{false, true} {
		want, err := s.Candidates(ctx, "repo-1", []string{"testadd", "fail"}, 10, 100, sums)
		if err != nil {
			t.Fatal(err)
		}
		got, err := one.Candidates(ctx, "repo-1", []string{"testadd", "fail"}, 10, 100, sums)
		utc(got.Records)
		utc(want.Records)
		if err != nil || !reflect.DeepEqual(got, want) || len(got.Records) != 2 {
			t.Fatalf("candidates (sums %v): %+v, %v\nwant %+v", sums, got, err, want)
		}
	}
}

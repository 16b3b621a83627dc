package records

import (
	"database/sql"
	"github.com/freshctx/freshctx/internal/rank"
	"testing"

	_ "modernc.org/sqlite"
)

// FuzzQuery: whatever a user asks recall, the FTS5 expression it becomes
// is valid FTS5 (no user text is syntax) and the query's paths are clean.
func FuzzQuery(f *testing.F) {
	for _, s := range []string{`foo "bar`, `a AND (b OR`, `NEAR(x y)`, `*`, `col:x`, `pkg/a.go:12:3 undefined`, `^x`, `"`, `-x +y`} {
		f.Add(s)
	}
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { db.Close() })
	if _, err := db.Exec(`CREATE VIRTUAL TABLE t USING fts5(a)`); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string) {
		q := rank.Parse(text)
		if q.Empty {
			return
		}
		if len(q.Terms) == 0 {
			return
		}
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM t WHERE t MATCH ?`, ftsExpr(q)).Scan(&n); err != nil {
			t.Fatalf("query %q became %q: %v", text, ftsExpr(q), err)
		}
		for _, p := range q.Paths {
			if p == "" {
				t.Fatalf("empty path from %q", text)
			}
		}
	})
}

package doctor

import (
	"context"
	"fmt"
	"strings"

	"github.com/freshctx/freshctx/internal/nouns"
	"github.com/freshctx/freshctx/internal/store"
)

// integrityCheck runs SQLite's integrity and foreign key checks.
func integrityCheck(ctx context.Context, st *store.Store) Check {
	c := Check{Name: "integrity", Status: OK}
	var problems []string
	err := st.View(ctx, func(tx *store.Tx) error {
		rows, err := tx.QueryContext(ctx, "PRAGMA integrity_check(20)")
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var line string
			if err := rows.Scan(&line); err != nil {
				return err
			}
			if line != "ok" {
				problems = append(problems, line)
			}
		}
		if err := rows.Err(); err != nil {
			return err
		}
		var fk int
		if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM pragma_foreign_key_check").Scan(&fk); err != nil {
			return err
		}
		if fk > 0 {
			problems = append(problems, nouns.Count(fk, "row refers", "rows refer")+" to a missing row")
		}
		return nil
	})
	switch {
	case err != nil:
		c.Status, c.Detail = Fail, fmt.Sprintf("could not check: %v", err)
	case len(problems) > 0:
		c.Status = Fail
		c.Detail = strings.Join(problems, "; ") + " — copy the store aside, then start a new one; the raw outputs stay readable in the copy's blob folder"
	default:
		c.Detail = "database is intact"
	}
	return c
}

// schemaCheck compares the store's schema with this binary's.
func schemaCheck(ctx context.Context, st *store.Store) Check {
	var version int
	err := st.View(ctx, func(tx *store.Tx) error {
		return tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version)
	})
	want := store.SchemaVersion()
	switch {
	case err != nil:
		return Check{Name: "schema", Status: Fail, Detail: fmt.Sprintf("could not read: %v", err)}
	case version != want:
		return Check{Name: "schema", Status: Fail, Detail: fmt.Sprintf("version %d, this freshctx writes %d", version, want)}
	}
	return Check{Name: "schema", Status: OK, Detail: fmt.Sprintf("version %d, current", version)}
}

package doctor

import (
	"context"
	"fmt"
	"strings"

	"github.com/freshctx/freshctx/internal/nouns"
	"github.com/freshctx/freshctx/internal/store"
)

// blobCheck compares the blob area with the blob rows and, with fix,
// removes leftovers.
func blobCheck(ctx context.Context, st *store.Store, fix bool) (*store.BlobFiles, Check) {
	c := Check{Name: "blob files", Status: OK}
	files, err := st.CheckBlobFiles(ctx, fix)
	if err != nil {
		c.Status, c.Detail = Fail, fmt.Sprintf("could not check %s: %v", st.BlobDir(), err)
		return nil, c
	}
	var found []string
	if n := len(files.Orphans); n > 0 {
		found = append(found, nouns.Count(n, "orphan file", "orphan files")+" no row records")
	}
	if n := len(files.Temporary); n > 0 {
		found = append(found, nouns.Count(n, "unfinished file", "unfinished files")+" of killed writers")
	}
	if n := len(files.Trash); n > 0 {
		found = append(found, nouns.Count(n, "file", "files")+" an older freshctx set aside")
	}
	if files.Linked != "" {
		found = append(found, "the blob folder is a link (to "+files.Linked+"): its files are not freshctx's alone, so nothing in it is cleaned; "+
			"make it a folder of its own")
	}
	if n := len(files.Unknown); n > 0 {
		found = append(found, nouns.Count(n, "file", "files")+" freshctx did not write (left alone: "+strings.Join(first(files.Unknown, 3), ", ")+")")
	}
	c.Detail = fmt.Sprintf("%s in %s", nouns.Count(files.Files, "blob", "blobs"), st.BlobDir())
	if len(found) > 0 {
		c.Status = Warn
		c.Detail += "; " + strings.Join(found, "; ")
	}
	if fix && (files.Removed > 0 || len(files.Restored) > 0) {
		c.Fixed = fmt.Sprintf("removed %s (%d bytes)", nouns.Count(files.Removed, "file", "files"), files.Freed)
		if n := len(files.Restored); n > 0 {
			c.Fixed += ", put back " + nouns.Count(n, "set-aside blob", "set-aside blobs")
		}
		if len(files.Unknown) == 0 {
			c.Status = OK
		}
	} else if !fix && files.Leftovers() > 0 {
		c.Detail += " — doctor --fix removes them"
	}
	return files, c
}

func first(s []string, n int) []string {
	if len(s) > n {
		return append(s[:n:n], "…")
	}
	return s
}

// missingCheck names the rows whose blob file is gone. Records keep their
// digest and are named; cache rows are dropped with fix so they are rebuilt.
func missingCheck(ctx context.Context, st *store.Store, missing []store.Blob, fix bool) Check {
	c := Check{Name: "raw output", Status: OK, Detail: "every row's content is in place"}
	if len(missing) == 0 {
		if fix {
			c.Fixed = dropUnreferenced(ctx, st)
		}
		return c
	}
	var ids []string
	var caches int
	err := st.View(ctx, func(tx *store.Tx) error {
		for _, b := range missing {
			h := b.Digest.String()
			rows, err := tx.QueryContext(ctx, "SELECT id FROM records WHERE stdout_blob = ?1 OR stderr_blob = ?1 ORDER BY id", h)
			if err != nil {
				return err
			}
			for rows.Next() {
				var id int64
				rows.Scan(&id)
				ids = append(ids, fmt.Sprint(id))
			}
			rows.Close()
			var n int
			err = tx.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM artifacts WHERE content_blob = ?1)
				+ (SELECT count(*) FROM registry_files WHERE summary_blob = ?1)
				+ (SELECT count(*) FROM rc_versions WHERE blob = ?1)`, h).Scan(&n)
			if err != nil {
				return err
			}
			caches += n
		}
		return nil
	})
	if err != nil {
		c.Status, c.Detail = Fail, fmt.Sprintf("could not check: %v", err)
		return c
	}
	var lost []string
	if len(ids) > 0 {
		c.Status = Warn
		lost = append(lost, fmt.Sprintf("%s lost their raw output (the digest is kept): #%s — freshctx forget %s",
			nouns.Count(len(ids), "record", "records"), strings.Join(first(ids, 10), " #"), strings.Join(ids, " ")))
	}
	if caches > 0 {
		c.Status = Warn
		lost = append(lost, nouns.Count(caches, "cached item", "cached items")+" lost content (rebuilt on next use)")
	}
	if len(lost) == 0 {
		lost = append(lost, nouns.Count(len(missing), "unused blob row has", "unused blob rows have")+" no file")
		c.Status = Warn
	}
	c.Detail = strings.Join(lost, "; ")
	if fix {
		n, err := dropLostCaches(ctx, st, missing)
		if err != nil {
			c.Status, c.Fixed = Fail, fmt.Sprintf("fix failed: %v", err)
			return c
		}
		c.Fixed = fmt.Sprintf("dropped %s", nouns.Count(int(n), "cache row", "cache rows"))
		if more := dropUnreferenced(ctx, st); more != "" {
			c.Fixed += ", " + more
		}
		if len(ids) == 0 {
			c.Status = OK
		}
	}
	return c
}

// dropLostCaches removes cache rows whose content is gone: artifacts and
// read-cache versions are rebuilt (a read without its base version serves
// the file whole), a registry summary loses only its drift base.
func dropLostCaches(ctx context.Context, st *store.Store, missing []store.Blob) (int64, error) {
	var n int64
	err := st.Update(ctx, func(tx *store.Tx) error {
		n = 0
		for _, b := range missing {
			for _, q := range []string{
				"DELETE FROM artifacts WHERE content_blob = ?",
				"DELETE FROM rc_versions WHERE blob = ?",
				"UPDATE registry_files SET summary_blob = NULL WHERE summary_blob = ?",
			} {
				res, err := tx.ExecContext(ctx, q, b.Digest.String())
				if err != nil {
					return err
				}
				k, _ := res.RowsAffected()
				n += k
			}
		}
		return nil
	})
	return n, err
}

// dropUnreferenced deletes blob rows nothing references.
func dropUnreferenced(ctx context.Context, st *store.Store) string {
	var n int
	err := st.Update(ctx, func(tx *store.Tx) error {
		var err error
		n, _, err = tx.DeleteOrphanBlobs()
		return err
	})
	if err != nil || n == 0 {
		return ""
	}
	return "deleted " + nouns.Count(n, "unreferenced blob", "unreferenced blobs")
}

package artifact

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/freshctx/freshctx/internal/store"
)

// InvalidateRequest selects artifacts of the current repository to force
// refreshing: by type, key, and/or a path prefix — every artifact with an
// input whose root-relative path starts with it, as a string: "src/auth"
// selects src/auth.go, src/auth/token.go and src/authz.go alike ("src/auth/"
// only the folder), and an artifact whose input is a folder holding the
// prefix (src, or the root). Selecting too much costs a regeneration; too
// little would serve stale content. At least one is needed.
type InvalidateRequest struct {
	Type, Key, PathPrefix string
}

// InvalidateResult counts the artifacts (type and key pairs) invalidated.
type InvalidateResult struct {
	Invalidated int `json:"invalidated"`
}

// Invalidate marks the selected artifacts so that their next lookup is
// stale (reason "invalidated"), keeping their content for regeneration.
func (s *Service) Invalidate(ctx context.Context, req InvalidateRequest) (*InvalidateResult, error) {
	if req.Type == "" && req.Key == "" && req.PathPrefix == "" {
		return nil, errors.New("invalidate needs --type, --key or --path-prefix")
	}
	at, err := s.here(ctx)
	if err != nil {
		return nil, err
	}
	where, args := []string{"repo = ?"}, []any{at.repo}
	if req.Type != "" {
		where, args = append(where, "type = ?"), append(args, req.Type)
	}
	if req.Key != "" {
		where, args = append(where, "key = ?"), append(args, req.Key)
	}
	if req.PathPrefix != "" {
		p, err := s.WS.Rel(req.PathPrefix, s.Cwd)
		if err != nil {
			return nil, fmt.Errorf("--path-prefix: %w", err)
		}
		if p != "." {
			if strings.HasSuffix(req.PathPrefix, "/") {
				p += "/"
			}
			// A folder input holds whatever the prefix names under it.
			where = append(where, `id IN (SELECT artifact_id FROM artifact_deps WHERE substr(path, 1, ?) = ?
				OR (is_dir AND (path = '.' OR substr(?, 1, length(path) + 1) = path || '/')))`)
			args = append(args, len(p), p, p)
		}
	}
	res := &InvalidateResult{}
	err = s.Store.Update(ctx, func(tx *store.Tx) error {
		cond := strings.Join(where, " AND ")
		if err := tx.QueryRowContext(ctx, `SELECT count(DISTINCT type || char(0) || key) FROM artifacts WHERE `+cond,
			args...).Scan(&res.Invalidated); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE artifacts SET invalidated = 1 WHERE `+cond, args...)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("invalidate: %w", err)
	}
	return res, nil
}

// Keys lists the keys of the artifacts of a type kept for this work
// tree's root, on any ref: what a regeneration may renew.
func (s *Service) Keys(ctx context.Context, typ string) (map[string]bool, error) {
	out := map[string]bool{}
	err := s.Store.View(ctx, func(tx *store.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT DISTINCT key FROM artifacts WHERE type = ? AND root = ?`, typ, s.WS.Root)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var k string
			if err := rows.Scan(&k); err != nil {
				return err
			}
			out[k] = true
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("artifact keys: %w", err)
	}
	return out, nil
}

package teamsync

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/freshctx/freshctx/internal/redact"
	"github.com/freshctx/freshctx/internal/registry"
	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/team"
	"github.com/freshctx/freshctx/internal/workspace"
)

// repoID is the repository's id, the same in every clone.
func repoID(ctx context.Context, ws *workspace.Workspace) (string, error) {
	if ws == nil || ws.Git == nil {
		return "", errors.New("the team store shares by repository: this is not a git work tree")
	}
	id, err := ws.Git.RepoID(ctx)
	if err == nil && id == "" {
		err = errors.New("the team store shares by repository: this one has no commit yet")
	}
	return id, err
}

// publishSummaries gives the team store the summaries written here (not
// ones a teammate wrote) that describe their file's content now, each
// once, redacted.
func publishSummaries(ctx context.Context, ts *team.Store, st *store.Store, reg *registry.Service, author, machine string, ci bool) (int, error) {
	repo, err := repoID(ctx, reg.WS)
	if err != nil {
		return 0, nil // no repository: nothing a team could match
	}
	sums, digests, err := reg.Current(ctx)
	if err != nil {
		return 0, err
	}
	key, err := signingKey()
	if err != nil {
		return 0, err
	}
	var out []team.Summary
	err = st.View(ctx, func(tx *store.Tx) error {
		for i, s := range sums {
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM team_summaries_sent WHERE path = ? AND sha256 = ?`,
				s.Path, digests[i]).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				continue
			}
			text, _ := redact.String(s.Summary)
			x := team.Summary{RepoID: repo, Path: s.Path, SHA256: digests[i], Summary: text, Author: author, Machine: machine,
				CI: ci, CreatedAt: time.Now().UTC().Truncate(time.Microsecond)}
			if key != nil {
				x.Sign(key)
			}
			out = append(out, x)
		}
		return nil
	})
	if err != nil || len(out) == 0 {
		return 0, err
	}
	n, err := ts.PublishSummaries(ctx, out)
	if err != nil {
		return 0, err
	}
	return n, st.Update(ctx, func(tx *store.Tx) error {
		for _, x := range out {
			if _, err := tx.ExecContext(ctx, `INSERT INTO team_summaries_sent (path, sha256) VALUES (?, ?) ON CONFLICT DO NOTHING`,
				x.Path, x.SHA256); err != nil {
				return err
			}
		}
		return nil
	})
}

// FillResult says what FillSummaries did.
type FillResult struct {
	Filled  int `json:"filled"`
	Ignored int `json:"ignored"` // unsigned, with team.require_signed
}

// FillSummaries gives the registry's files without a current summary the
// team's summary of the same bytes: each is stored only if the file hashes
// now, here, to what the summary describes (registry.Summary.Want), and
// says who wrote it.
func FillSummaries(ctx context.Context, reg *registry.Service, s Settings) (FillResult, error) {
	var res FillResult
	repo, err := repoID(ctx, reg.WS)
	if err != nil {
		return res, err
	}
	wanted, err := reg.SummariesWanted(ctx)
	if err != nil || len(wanted) == 0 {
		return res, err
	}
	ts, err := team.Open(ctx, s.URL)
	if err != nil {
		return res, err
	}
	defer ts.Close()
	for i := 0; i < len(wanted); i += 500 {
		var files []team.FileBytes
		for _, w := range wanted[i:min(i+500, len(wanted))] {
			files = append(files, team.FileBytes{Path: w.Path, SHA256: w.Digest})
		}
		found, err := ts.FindSummaries(ctx, repo, files)
		if err != nil {
			return res, err
		}
		for _, x := range found {
			if s.RequireSigned && !(s.VerifyKey != nil && x.Signed(s.VerifyKey)) {
				res.Ignored++
				continue
			}
			by := team.Who(x.Author, x.Machine, x.CI)
			_, err := reg.Summarize(ctx, []registry.Summary{{Path: x.Path, Summary: x.Summary, Want: x.SHA256, By: by + " (team)"}})
			if errors.Is(err, registry.ErrOtherContent) {
				continue // the file changed since the registry saw it: not these bytes
			}
			if err != nil {
				return res, fmt.Errorf("%s: %w", x.Path, err)
			}
			res.Filled++
		}
	}
	return res, nil
}

package records

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/freshctx/freshctx/internal/freshness"
	"github.com/freshctx/freshctx/internal/scope"
	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/workspace"
)

// CheckAll sets the Freshness of every record, reading each workspace once:
// one snapshot per distinct root among the records. It runs no git: each
// file is lstat'ed, and hashed only when its fingerprint moved. It also
// says which records a later run of their command superseded, and what
// changed in each record's input scope since (one walk per scope).
func (s *Service) CheckAll(ctx context.Context, recs []*Record) error {
	// The walks of the input scopes read other files than the check, and
	// need nothing of it until their counts are made: they run meanwhile.
	walked := startWalks(recs)
	err := s.checkFiles(ctx, recs)
	walks := walked()
	if err != nil {
		return err
	}
	fresh := make([]map[string]bool, len(recs)) // by record: the files its check found fresh
	for i, r := range recs {
		if r.Freshness != nil {
			fresh[i] = freshFiles(r.Freshness)
		}
	}
	fillWalks(recs, fresh, walks)
	checkInputs(recs, fresh, walks)
	return nil
}

// checkFiles labels each record's files, one snapshot per root, and says
// which records a later run superseded.
func (s *Service) checkFiles(ctx context.Context, recs []*Record) error {
	byRoot := map[string][]*Record{}
	for _, r := range recs {
		byRoot[r.root] = append(byRoot[r.root], r)
	}
	for root, group := range byRoot {
		if err := s.checkRoot(ctx, root, group); err != nil {
			return err
		}
	}
	return s.markSuperseded(ctx, recs)
}

// markSuperseded sets SupersededBy: the first later run of the same
// command in the same workspace and folder.
func (s *Service) markSuperseded(ctx context.Context, recs []*Record) error {
	return s.Store.View(ctx, func(tx *store.Tx) error {
		stmt, err := tx.PrepareContext(ctx, `SELECT coalesce(min(id), 0) FROM records
			WHERE root = ? AND cwd = ? AND command = ? AND id > ? AND kind = 'run'`)
		if err != nil {
			return fmt.Errorf("superseded: %w", err)
		}
		defer stmt.Close()
		for _, r := range recs {
			if r.Kind != "run" || r.Freshness == nil {
				continue
			}
			if err := stmt.QueryRowContext(ctx, r.root, r.Cwd, r.Command, r.ID).Scan(&r.Freshness.SupersededBy); err != nil {
				return fmt.Errorf("superseded: %w", err)
			}
		}
		return nil
	})
}

// scopeKey names the walk a record's input scope needs.
func scopeKey(r *Record) string { return r.root + "\x00" + strings.Join(r.inputs, "\x00") }

// startWalks walks each distinct input scope of recs once, for changes
// since the oldest of the records that share it, in goroutines of their
// own; the function returned waits for them and returns each walk by its
// scopeKey. A walk leaves the files every record sharing it names to the
// records' check, which stats them anyway (fillWalks).
func startWalks(recs []*Record) func() map[string]scope.Times {
	since := map[string]time.Time{}
	roots := map[string]*Record{}
	named := map[string]map[string]int{} // by scopeKey: how many of its records name each file
	sharing := map[string]int{}
	for _, r := range recs {
		if r.root == "" {
			continue
		}
		k := scopeKey(r)
		if t, ok := since[k]; !ok || r.inputsSince().Before(t) {
			since[k] = r.inputsSince()
		}
		roots[k] = r
		sharing[k]++
		if named[k] == nil {
			named[k] = make(map[string]int, len(r.stamp.Files))
		}
		for _, p := range stampedPaths(r) {
			named[k][p]++
		}
	}
	walks := make(map[string]scope.Times, len(since))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for k, r := range roots {
		byAll, n := named[k], sharing[k]
		leave := func(rel string) bool { return byAll[rel] == n }
		wg.Go(func() {
			st := scope.WalkLeaving(r.root, r.inputs, since[k], leave)
			mu.Lock()
			walks[k] = st
			mu.Unlock()
		})
	}
	return func() map[string]scope.Times {
		wg.Wait()
		return walks
	}
}

// stampedPaths are the files r's stamp names, each once.
func stampedPaths(r *Record) []string {
	seen := make(map[string]bool, len(r.stamp.Files))
	out := make([]string, 0, len(r.stamp.Files))
	for _, f := range r.stamp.Files {
		if !seen[f.Path] {
			seen[f.Path] = true
			out = append(out, f.Path)
		}
	}
	return out
}

// fillWalks has each walk stat the files it left to the check that a
// record sharing it did not find fresh (fresh, by record): those count by
// their times.
func fillWalks(recs []*Record, fresh []map[string]bool, walks map[string]scope.Times) {
	judged := map[string]map[string]bool{} // by scopeKey: files some record must judge by their times
	for i, r := range recs {
		if r.root == "" {
			continue
		}
		k := scopeKey(r)
		if judged[k] == nil {
			judged[k] = map[string]bool{} // most often none: a record's files are mostly fresh
		}
		for _, p := range stampedPaths(r) {
			if !fresh[i][p] {
				judged[k][p] = true
			}
		}
	}
	for k, st := range walks {
		st.Fill(func(rel string) bool { return judged[k][rel] })
		walks[k] = st
	}
}

// checkInputs sets InputsChanged from the walks of the records' scopes;
// fresh holds, by record, the files its check found fresh.
func checkInputs(recs []*Record, fresh []map[string]bool, walks map[string]scope.Times) {
	for i, r := range recs {
		if r.Freshness == nil || r.root == "" {
			continue
		}
		st := walks[scopeKey(r)]
		from := r.inputsSince()
		ch := st.ChangedSince(from, from.Add(time.Duration(r.DurationMS)*time.Millisecond), fresh[i])
		ch.Scope = r.inputs
		if !r.inputsGiven {
			ch.Complete, ch.Guessed = false, true
		}
		r.Freshness.InputsChanged = ch
	}
}

// freshFiles are the files a check labelled fresh: their bytes are the
// ones stamped, whatever their times say.
func freshFiles(res *freshness.Result) map[string]bool {
	out := make(map[string]bool, len(res.Files))
	for _, f := range res.Files {
		if f.Label == freshness.Fresh {
			out[f.Path] = true
		}
	}
	return out
}

func (s *Service) checkRoot(ctx context.Context, root string, recs []*Record) error {
	ws := s.WS
	if root != s.WS.Root {
		var err error
		if ws, err = workspace.Open(root); err != nil {
			ws = &workspace.Workspace{Root: root} // gone: every file is unknown
		}
	}
	n := 0
	for _, r := range recs {
		n += len(r.stamp.Files)
	}
	paths := make([]string, 0, n)
	seen := make(map[string]bool, n)
	for _, r := range recs {
		for _, f := range r.stamp.Files {
			if !seen[f.Path] {
				seen[f.Path] = true
				paths = append(paths, f.Path)
			}
		}
	}
	snap, err := freshness.NewSnapshot(ctx, ws, paths, freshness.Options{
		Cache: freshness.StoreCache{S: s.Store}, Now: s.now, RacyWindow: s.RacyWindow,
	})
	if err != nil {
		return err
	}
	stamps := make([]freshness.Stamp, len(recs))
	for i, r := range recs {
		stamps[i] = r.stamp
	}
	results, err := snap.CheckMany(ctx, stamps)
	if err != nil {
		return err
	}
	for i, r := range recs {
		r.Freshness = &results[i]
	}
	return snap.Flush(ctx)
}

package teamsync

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/freshctx/freshctx/internal/artifact"
	"github.com/freshctx/freshctx/internal/rank"
	"github.com/freshctx/freshctx/internal/records"
	"github.com/freshctx/freshctx/internal/registry"
	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/team"
)

// MaxRaw bounds the raw output a record takes to the team store; over it
// the summary and the files' hashes go, the output stays local.
const MaxRaw = 8 << 20

// ErrBusy: another publisher of this store is sending (Publish without wait).
var ErrBusy = errors.New("another freshctx is publishing this store's records")

// batch is how many records one round trip publishes.
const batch = 50

// Sources are the local features whose work is published.
type Sources struct {
	Records   *records.Service
	Registry  *registry.Service // nil: no summaries
	Artifacts *artifact.Service // nil: no artifacts
}

// PublishResult says what a drain of the queue did.
type PublishResult struct {
	Published int    `json:"published"` // new in the team store
	Sent      int    `json:"sent"`      // sent (a record sent before counts here, not above)
	Dropped   int    `json:"dropped"`   // deleted locally before they were sent
	Pending   int    `json:"pending"`   // still queued
	Summaries int    `json:"summaries"` // file summaries new to the team store
	Artifacts int    `json:"artifacts"` // artifacts new to the team store
	Error     string `json:"error,omitempty"`
}

// Publish drains the queue into the team store: each record built from
// the local store (redacted when it was stored), signed when this
// machine holds the team's key, sent in batches, and taken off the queue
// only once the team store has it. A team store that cannot be reached
// leaves the queue as it is, and says so once.
func Publish(ctx context.Context, st *store.Store, src Sources, s Settings, wait bool) (PublishResult, error) {
	recs := src.Records
	var res PublishResult
	unlock, ok := lockPublisher(st.Path(), wait)
	defer func() { unlock() }() // the lock held last
	if !ok {
		res.Pending, _ = pending(ctx, st)
		return res, ErrBusy
	}
	key, err := signingKey()
	if err != nil {
		return res, err
	}
	timeouts := team.Asked
	if !wait {
		timeouts = team.Background // no one waits for it: a slow store still drains
	}
	ts, err := team.OpenWith(ctx, s.URL, timeouts)
	if err != nil {
		res.Pending, _ = pending(ctx, st)
		st.Update(ctx, func(tx *store.Tx) error { return tx.SetMeta(failedKey, strconv.FormatInt(tx.Now.UnixNano(), 10)) })
		return res, err
	}
	defer ts.Close()
	st.Update(ctx, func(tx *store.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM meta WHERE key = ?`, failedKey)
		return err
	})
	sid, err := storeID(ctx, st)
	if err != nil {
		return res, err
	}
	author, machine, ci := identity(ctx, recs.WS)
	if src.Registry != nil {
		if res.Summaries, err = publishSummaries(ctx, ts, st, src.Registry, author, machine, ci); err != nil {
			return res, err
		}
	}
	who := publisher{author: author, machine: machine, ci: ci, key: key}
	for {
		if src.Artifacts != nil {
			n, err := publishArtifacts(ctx, ts, st, src.Artifacts, who)
			res.Artifacts += n
			if err != nil {
				res.Pending, _ = pending(ctx, st)
				res.Error = err.Error()
				return res, err
			}
		}
		ids, err := queued(ctx, st, batch)
		if err == nil && len(ids) == 0 {
			// A run that queued a record while this one held the lock
			// started no publisher: what it queued is sent here. The
			// lock is let go first, so a row queued after this last
			// look finds it free and starts one.
			unlock()
			if n, _ := pending(ctx, st); n > 0 {
				if unlock, ok = lockPublisher(st.Path(), false); ok {
					continue
				}
			}
		}
		if err != nil || len(ids) == 0 {
			res.Pending, _ = pending(ctx, st)
			return res, err
		}
		var out []team.Record
		var sent, gone []int64
		for _, id := range ids {
			sh, err := recs.Shared(ctx, id, MaxRaw)
			if errors.Is(err, records.ErrNotFound) {
				gone = append(gone, id)
				continue
			}
			if err != nil {
				return res, err
			}
			r := teamRecord(sid, sh, author, machine, ci)
			if key != nil {
				r.Sign(key)
			}
			out = append(out, r)
			sent = append(sent, id)
		}
		n, err := ts.Publish(ctx, out)
		if err != nil {
			noteFailure(ctx, st, sent, err)
			res.Pending, _ = pending(ctx, st)
			res.Error = err.Error()
			return res, err
		}
		res.Published += n
		res.Sent += len(sent)
		res.Dropped += len(gone)
		if err := dequeue(ctx, st, append(sent, gone...)); err != nil {
			return res, err
		}
	}
}

func teamRecord(storeID string, sh *records.Shared, author, machine string, ci bool) team.Record {
	r := team.Record{Key: fmt.Sprintf("%s/%d", storeID, sh.ID), RepoID: sh.RepoID, Command: sh.Command, Label: sh.Label,
		ExitCode: sh.ExitCode, Intent: sh.Intent, Summary: sh.Summary, Raw: sh.Raw, Commit: sh.Head, Branch: sh.Branch,
		Author: author, Machine: machine, CI: ci, CreatedAt: sh.CreatedAt.UTC().Truncate(time.Microsecond),
		Parts: rank.PartsText(sh.Command, sh.Label, sh.Summary)}
	for _, f := range sh.Files {
		r.Files = append(r.Files, team.File{Path: f.Path, SHA256: f.SHA256, Size: f.Size, Existed: f.Existed})
	}
	return r
}

func queued(ctx context.Context, st *store.Store, limit int) ([]int64, error) {
	var ids []int64
	err := st.View(ctx, func(tx *store.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT record_id FROM team_outbox ORDER BY queued_at, record_id LIMIT ?`, limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return rows.Err()
	})
	return ids, err
}

// pending counts the records and artifacts waiting to be published.
func pending(ctx context.Context, st *store.Store) (int, error) {
	var n int
	err := st.View(ctx, func(tx *store.Tx) error {
		return tx.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM team_outbox) + (SELECT count(*) FROM team_artifact_outbox)`).Scan(&n)
	})
	return n, err
}

func dequeue(ctx context.Context, st *store.Store, ids []int64) error {
	return st.Update(ctx, func(tx *store.Tx) error {
		for _, id := range ids {
			if _, err := tx.ExecContext(ctx, `DELETE FROM team_outbox WHERE record_id = ?`, id); err != nil {
				return err
			}
		}
		return nil
	})
}

func noteFailure(ctx context.Context, st *store.Store, ids []int64, cause error) {
	st.Update(ctx, func(tx *store.Tx) error {
		for _, id := range ids {
			tx.ExecContext(ctx, `UPDATE team_outbox SET attempts = attempts + 1, last_error = ? WHERE record_id = ?`, cause.Error(), id)
		}
		return nil
	})
}

// EnqueueSince queues every record made in the last d (team publish
// --since), whatever the policy: the user asked for them.
func EnqueueSince(ctx context.Context, st *store.Store, d time.Duration) (int, error) {
	var n int
	err := st.Update(ctx, func(tx *store.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO team_outbox (record_id, queued_at)
			SELECT id, ? FROM records WHERE started_at >= ? ON CONFLICT DO NOTHING`,
			tx.Now.UnixNano(), tx.Now.Add(-d).UnixNano())
		if err != nil {
			return err
		}
		k, _ := res.RowsAffected()
		n = int(k)
		return nil
	})
	return n, err
}

// Pending is how many records wait to be published.
func Pending(ctx context.Context, st *store.Store) (int, error) { return pending(ctx, st) }

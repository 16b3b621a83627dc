// Package teamsync joins the local features to the team store (package
// team): which records are queued for it, the background publishing that
// drains the queue, and recall over the team's records labelled against
// this work tree. The local store stays primary: a team store that is
// slow, down or gone costs a local command nothing but a queued row.
package teamsync

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/freshctx/freshctx/internal/config"
	"github.com/freshctx/freshctx/internal/records"
	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/team"
	"github.com/freshctx/freshctx/internal/workspace"
)

// Settings is the team configuration of a store.
type Settings struct {
	URL           string // "" when no team store is configured
	Publish       string // all, failures, none
	VerifyKey     ed25519.PublicKey
	RequireSigned bool
	// FailedAt is when a publisher last found the team store unreachable.
	FailedAt time.Time
}

// Load reads the team settings (FRESHCTX_TEAM overrides team.url).
func Load(ctx context.Context, st *store.Store) (Settings, error) {
	var s Settings
	get := func(key string) string {
		v, err := config.Get(ctx, st, key)
		if err != nil {
			return ""
		}
		return v.Value
	}
	s.URL = team.URLFrom(get("team.url"))
	s.Publish = get("team.publish")
	if k := get("team.verify_key"); k != "" {
		b, err := hex.DecodeString(k)
		if err != nil {
			return s, fmt.Errorf("team.verify_key: %w", err)
		}
		s.VerifyKey = b
	}
	s.RequireSigned = get("team.require_signed") == "true"
	st.View(ctx, func(tx *store.Tx) error {
		if v, ok, _ := tx.Meta(failedKey); ok {
			if ns, err := strconv.ParseInt(v, 10, 64); err == nil {
				s.FailedAt = time.Unix(0, ns)
			}
		}
		return nil
	})
	return s, nil
}

// failedKey is the meta key of Settings.FailedAt.
const failedKey = "team.failed_at"

// Backoff is how long after a publisher found the team store unreachable
// a run starts no other: the queue waits, the commands pay nothing.
const Backoff = 30 * time.Second

// signingKey is the team's private key, from FRESHCTX_TEAM_SIGNING_KEY
// (the 32-byte Ed25519 seed, hex or base64): CI holds it, laptops do not.
func signingKey() (ed25519.PrivateKey, error) {
	v := strings.TrimSpace(os.Getenv("FRESHCTX_TEAM_SIGNING_KEY"))
	if v == "" {
		return nil, nil
	}
	seed, err := hex.DecodeString(v)
	if err != nil {
		if seed, err = base64.StdEncoding.DecodeString(v); err != nil {
			return nil, errors.New("FRESHCTX_TEAM_SIGNING_KEY: want the 32-byte Ed25519 seed in hex or base64")
		}
	}
	if len(seed) != ed25519.SeedSize {
		return nil, errors.New("FRESHCTX_TEAM_SIGNING_KEY: want a 32-byte Ed25519 seed")
	}
	return ed25519.NewKeyFromSeed(seed), nil
}

// NewKey makes a team key pair: the seed (hex) for CI's secret, the
// public key (hex) for team.verify_key.
func NewKey() (seed, public string, err error) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return "", "", err
	}
	return hex.EncodeToString(priv.Seed()), hex.EncodeToString(pub), nil
}

// Enqueue queues a record for the team store when one is configured and
// the policy takes it; it reports whether it did. A queued row is all a
// command pays: sending is Publish's, in the background.
func Enqueue(ctx context.Context, st *store.Store, s Settings, rec *records.Record) (bool, error) {
	if s.URL == "" || rec == nil || rec.ID == 0 {
		return false, nil
	}
	failed := rec.ExitCode != nil && *rec.ExitCode != 0
	if s.Publish == "none" || s.Publish == "failures" && !failed {
		return false, nil
	}
	err := st.Update(ctx, func(tx *store.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO team_outbox (record_id, queued_at) VALUES (?, ?) ON CONFLICT DO NOTHING`,
			rec.ID, tx.Now.UnixNano())
		return err
	})
	return err == nil, err
}

// StartPublisher starts `freshctx team publish --background` detached, to
// drain the queue after the command that queued a record has returned —
// unless one is running (it sends what was queued meanwhile) or one found
// the team store unreachable within Backoff.
func StartPublisher(self, root, storePath string, env []string, s Settings) error {
	if publisherRunning(storePath) || time.Since(s.FailedAt) < Backoff {
		return nil
	}
	cmd := exec.Command(self, "--root", root, "--store", storePath, "team", "publish", "--background")
	cmd.Dir, cmd.Env = root, env
	detach(cmd)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start publishing to the team store: %w", err)
	}
	return cmd.Process.Release()
}

// identity is who publishes: the git user's email (else $USER), this
// machine's name, and whether CI runs it.
func identity(ctx context.Context, ws *workspace.Workspace) (author, machine string, ci bool) {
	if ws != nil && ws.Git != nil {
		author = ws.Git.UserEmail(ctx)
	}
	if author == "" {
		author = os.Getenv("USER")
	}
	machine, _ = os.Hostname()
	ci = os.Getenv("CI") != "" && os.Getenv("CI") != "false"
	return author, machine, ci
}

// storeID is this store's own id, made once: with a record's id it is the
// record's key in the team store.
func storeID(ctx context.Context, st *store.Store) (string, error) {
	var id string
	err := st.Update(ctx, func(tx *store.Tx) error {
		v, ok, err := tx.Meta("team.store_id")
		if err != nil || ok {
			id = v
			return err
		}
		b := make([]byte, 12)
		rand.Read(b)
		id = hex.EncodeToString(b)
		return tx.SetMeta("team.store_id", id)
	})
	return id, err
}

var nowFunc = time.Now

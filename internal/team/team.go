package team

import (
	"context"
	"crypto/ed25519"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Timeouts: the team store is never in the way of a local command.
const (
	ConnectTimeout = 2 * time.Second
	QueryTimeout   = 5 * time.Second
)

// Timeouts bound how long a connection and each query may take.
type Timeouts struct{ Connect, Query time.Duration }

// Foreground are the timeouts of a command that asks the team store on
// the way to its own work (a cold artifact get, registry sync): a store
// that is slow or away costs it little.
var Foreground = Timeouts{Connect: ConnectTimeout, Query: QueryTimeout}

// Asked are the timeouts of a command that is about the team store
// (team …, recall --team): someone asked, and waits for a slow one.
var Asked = Timeouts{Connect: 15 * time.Second, Query: time.Minute}

// Background are the timeouts of the background publisher, which no one
// waits for: a slow team store still takes what is queued.
var Background = Timeouts{Connect: 30 * time.Second, Query: 2 * time.Minute}

// ErrNotConfigured: no team store is configured.
var ErrNotConfigured = errors.New("no team store configured (freshctx team init URL, or FRESHCTX_TEAM)")

// Store is a connection to the team store.
type Store struct {
	conn     *pgx.Conn
	url      string
	timeouts Timeouts
}

// Open connects to the team store at rawURL with the Foreground timeouts.
func Open(ctx context.Context, rawURL string) (*Store, error) {
	return OpenWith(ctx, rawURL, Foreground)
}

// OpenWith connects to the team store at rawURL within t.Connect; each
// query then takes at most t.Query.
func OpenWith(ctx context.Context, rawURL string, t Timeouts) (*Store, error) {
	return openConfigured(ctx, rawURL, t, nil)
}

// OpenSearch connects as OpenWith does, for a process that only searches
// (recall --team): each of its statements goes in one round trip, its
// parameters typed by their Go values (text, integers, text arrays), where
// pgx first asks the server to describe every statement new to the
// connection, a round trip that pays only when the statement runs again,
// which a search's one batch never does. Writers keep the described form:
// it types each parameter by its column (jsonb, bytea).
func OpenSearch(ctx context.Context, rawURL string, t Timeouts) (*Store, error) {
	return openConfigured(ctx, rawURL, t, func(cfg *pgx.ConnConfig) {
		cfg.DefaultQueryExecMode = pgx.QueryExecModeExec
	})
}

func openConfigured(ctx context.Context, rawURL string, t Timeouts, configure func(*pgx.ConnConfig)) (*Store, error) {
	if rawURL == "" {
		return nil, ErrNotConfigured
	}
	cfg, err := pgx.ParseConfig(rawURL)
	if err != nil {
		return nil, fmt.Errorf("team store URL %s: %w", Redacted(rawURL), scrub(err, rawURL))
	}
	cfg.ConnectTimeout = t.Connect
	if configure != nil {
		configure(cfg)
	}
	cctx, cancel := context.WithTimeout(ctx, t.Connect)
	defer cancel()
	conn, err := pgx.ConnectConfig(cctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("team store %s: %w", Redacted(rawURL), scrub(err, rawURL))
	}
	return &Store{conn: conn, url: rawURL, timeouts: t}, nil
}

// Close closes the connection.
func (s *Store) Close() { s.conn.Close(context.Background()) }

// URL is the store's URL without its password.
func (s *Store) URL() string { return Redacted(s.url) }

// Latency is one round trip to the server.
func (s *Store) Latency(ctx context.Context) (time.Duration, error) {
	start := time.Now()
	err := s.conn.Ping(ctx)
	return time.Since(start), err
}

// Migrate creates or updates the schema, one migration at a time in a
// transaction each, recording the version reached; a server whose schema
// is newer than this binary knows is refused.
func (s *Store) Migrate(ctx context.Context) (int, error) {
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return 0, err
	}
	sort.Strings(names)
	if _, err := s.conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS freshctx_team_schema (version integer NOT NULL)`); err != nil {
		return 0, fmt.Errorf("create the schema table: %w", err)
	}
	var version int
	if err := s.conn.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM freshctx_team_schema`).Scan(&version); err != nil {
		return 0, err
	}
	if version > len(names) {
		return version, fmt.Errorf("the team store's schema is version %d, this freshctx knows up to %d: upgrade freshctx", version, len(names))
	}
	for i := version; i < len(names); i++ {
		sql, err := migrations.ReadFile(names[i])
		if err != nil {
			return version, err
		}
		err = pgx.BeginFunc(ctx, s.conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, string(sql)); err != nil {
				return fmt.Errorf("%s: %w", names[i], err)
			}
			_, err := tx.Exec(ctx, `INSERT INTO freshctx_team_schema (version) VALUES ($1)`, i+1)
			return err
		})
		if err != nil {
			return version, err
		}
		version = i + 1
	}
	return version, nil
}

// Version is the schema version the store is at (0: not initialised).
func (s *Store) Version(ctx context.Context) (int, error) {
	var version int
	err := s.conn.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM freshctx_team_schema`).Scan(&version)
	if err != nil && strings.Contains(err.Error(), "does not exist") {
		return 0, nil
	}
	return version, err
}

// Redacted is rawURL with its password replaced: what freshctx prints.
func Redacted(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "(a URL that does not parse)"
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	q := u.Query()
	if q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// HasPassword reports whether rawURL carries a password, which freshctx
// never stores: use ~/.pgpass or PGPASSWORD instead.
func HasPassword(rawURL string) bool {
	u, err := url.Parse(rawURL)
	if err != nil {
		return strings.Contains(rawURL, "password")
	}
	_, has := u.User.Password()
	return has || u.Query().Has("password")
}

// scrub takes the password out of an error that quotes the URL.
func scrub(err error, rawURL string) error {
	u, perr := url.Parse(rawURL)
	if perr != nil {
		return errors.New("connection failed")
	}
	pw, has := u.User.Password()
	if !has || pw == "" {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), pw, "xxxxx"))
}

// URLFrom is the team store's URL: FRESHCTX_TEAM, else the configured one.
func URLFrom(configured string) string {
	if u := os.Getenv("FRESHCTX_TEAM"); u != "" {
		return u
	}
	return configured
}

// send runs a batch of n inserts within the query timeout and returns how many
// rows they added; what names them in an error.
func (s *Store) send(ctx context.Context, batch *pgx.Batch, n int, what string) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeouts.Query)
	defer cancel()
	res := s.conn.SendBatch(ctx, batch)
	defer res.Close()
	added := 0
	for range n {
		tag, err := res.Exec()
		if err != nil {
			return added, fmt.Errorf("publish %s: %w", what, explain(err))
		}
		added += int(tag.RowsAffected())
	}
	return added, nil
}

// sign signs msg with key (hex).
func sign(key ed25519.PrivateKey, msg []byte) string {
	return hex.EncodeToString(ed25519.Sign(key, msg))
}

// verify reports whether sig (hex) is key's private half's signature of msg.
func verify(key ed25519.PublicKey, msg []byte, sig string) bool {
	b, err := hex.DecodeString(sig)
	return err == nil && len(key) == ed25519.PublicKeySize && ed25519.Verify(key, msg, b)
}

// Who names a publisher: the author, the machine, and "(CI)" for CI.
func Who(author, machine string, ci bool) string {
	who := author + " on " + machine
	if ci {
		who += " (CI)"
	}
	return who
}

// explain names the failures a user can act on: a full disk on the
// server (SQLSTATE 53100), or no permission to write (a read-only role).
// Unreachable reports whether err says the team store could not be
// reached: no connection made (refused, no route, a timeout) or a round
// trip that did not come back in time. An error the server itself
// answered (a role it refuses, a full disk) is not one.
func Unreachable(err error) bool {
	if err == nil {
		return false
	}
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return false
	}
	var connect *pgconn.ConnectError
	var op *net.OpError
	return errors.As(err, &connect) || errors.As(err, &op) || errors.Is(err, context.DeadlineExceeded) || pgconn.Timeout(err)
}

func explain(err error) error {
	var pg *pgconn.PgError
	if !errors.As(err, &pg) {
		return err
	}
	switch pg.Code {
	case "53100":
		return fmt.Errorf("the team store's disk is full; what is queued stays queued: %w", err)
	case "42501":
		return fmt.Errorf("this role may not write to the team store (a read-only role: set team.publish none): %w", err)
	}
	return err
}

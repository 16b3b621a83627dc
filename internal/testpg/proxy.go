package testpg

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Proxy is a TCP proxy on loopback in front of a cluster's socket, to put
// faults between freshctx and a real server: latency, and a hook when the
// client has sent so many bytes (to stop the server mid-publish).
type Proxy struct {
	ln     net.Listener
	target string

	mu      sync.Mutex
	delay   time.Duration
	sent    int64 // client to server, over every connection
	trigger int64
	hook    func()
	conns   map[net.Conn]bool
}

// Proxy starts a proxy to the cluster, closed when the test ends.
func (c *Cluster) Proxy(t testing.TB) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("proxy: %v", err)
	}
	p := &Proxy{ln: ln, target: filepath.Join(c.Dir, fmt.Sprintf(".s.PGSQL.%d", c.Port)), conns: map[net.Conn]bool{}}
	go p.serve()
	t.Cleanup(p.Close)
	return p
}

// Via is a database URL of the cluster (Database's) through the proxy.
func (p *Proxy) Via(dbURL string) string {
	u, err := url.Parse(dbURL)
	if err != nil {
		panic(err)
	}
	return fmt.Sprintf("postgres://postgres@%s/%s?sslmode=disable", p.ln.Addr(), strings.TrimPrefix(u.Path, "/"))
}

// SetDelay holds every chunk, each way, for d before passing it on: a
// round trip takes 2d more.
func (p *Proxy) SetDelay(d time.Duration) {
	p.mu.Lock()
	p.delay = d
	p.mu.Unlock()
}

// When calls f once, before passing on the chunk with which the clients
// will have sent more than n bytes in all (counted from now); the chunk
// waits for f.
func (p *Proxy) When(n int64, f func()) {
	p.mu.Lock()
	p.trigger, p.hook = p.sent+n, f
	p.mu.Unlock()
}

// Close stops accepting and closes every connection.
func (p *Proxy) Close() {
	p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		c.Close()
	}
}

func (p *Proxy) serve() {
	for {
		client, err := p.ln.Accept()
		if err != nil {
			return
		}
		server, err := net.Dial("unix", p.target)
		if err != nil {
			client.Close()
			continue
		}
		p.mu.Lock()
		p.conns[client], p.conns[server] = true, true
		p.mu.Unlock()
		go p.pipe(client, server, true)
		go p.pipe(server, client, false)
	}
}

// chunk is bytes read and when.
type chunk struct {
	b  []byte
	at time.Time
}

// pipe copies from → to, each chunk held for the delay; up counts the
// client's bytes and fires the hook.
func (p *Proxy) pipe(from, to net.Conn, up bool) {
	defer func() {
		from.Close()
		to.Close()
		p.mu.Lock()
		delete(p.conns, from)
		delete(p.conns, to)
		p.mu.Unlock()
	}()
	q := make(chan chunk, 1024)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for c := range q {
			p.mu.Lock()
			d := p.delay
			p.mu.Unlock()
			time.Sleep(time.Until(c.at.Add(d)))
			if _, err := to.Write(c.b); err != nil {
				return
			}
		}
	}()
	buf := make([]byte, 32<<10)
	for {
		n, err := from.Read(buf)
		if n > 0 {
			if up {
				p.count(int64(n))
			}
			q <- chunk{b: append([]byte(nil), buf[:n]...), at: time.Now()}
		}
		if err != nil {
			break // EOF or a cut: the other side sees it closed
		}
	}
	close(q)
	<-done
}

func (p *Proxy) count(n int64) {
	p.mu.Lock()
	p.sent += n
	var hook func()
	if p.hook != nil && p.sent > p.trigger {
		hook, p.hook = p.hook, nil
	}
	p.mu.Unlock()
	if hook != nil {
		hook()
	}
}

// StopNow stops the server (fast shutdown: connections are cut), keeping its
// data; for hooks, which run outside the test's goroutine.
func (c *Cluster) StopNow() error {
	if out, err := c.run("pg_ctl", "-D", c.Dir, "-m", "fast", "-w", "stop"); err != nil {
		return fmt.Errorf("stop: %v %s", err, out)
	}
	return nil
}

// Exec runs statements on a database of the cluster (by its URL), as the
// superuser.
func (c *Cluster) Exec(t testing.TB, dbURL string, stmts ...string) {
	t.Helper()
	ctx := context.Background()
	conn := connect(t, dbURL)
	defer conn.Close(ctx)
	for _, q := range stmts {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// Strings runs a query on a database of the cluster (by its URL) and
// returns the first column of every row as text.
func (c *Cluster) Strings(t testing.TB, dbURL, query string, args ...any) []string {
	t.Helper()
	ctx := context.Background()
	conn := connect(t, dbURL)
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return out
}

func connect(t testing.TB, dbURL string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), dbURL)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	return conn
}

// Package testpg starts a throw-away PostgreSQL cluster for tests: the
// real server from the system's packages (postgresql-15 on Debian),
// initialised into a temporary folder, listening on a unix socket in it
// only, stopped and deleted when the tests end. Without PostgreSQL's
// binaries the tests that need it skip, saying what to install.
package testpg

import (
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Cluster is a running throw-away cluster.
type Cluster struct {
	Dir  string // data folder; the socket is in it too
	Port int
	bin  string
	as   []string // the command prefix that runs as the cluster's owner
}

var (
	once    sync.Once
	shared  *Cluster
	started error
)

// Bin is the folder of PostgreSQL's server binaries, "" when none is
// installed.
func Bin() string {
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			if _, err := os.Stat(filepath.Join(filepath.Dir(real), "createdb")); err == nil {
				return filepath.Dir(real)
			}
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Strings(dirs)
	for i := len(dirs) - 1; i >= 0; i-- {
		if _, err := os.Stat(filepath.Join(dirs[i], "initdb")); err == nil {
			return dirs[i]
		}
	}
	return ""
}

// Shared is one cluster for the whole test binary, started on first use;
// Stop it in TestMain. The test skips when PostgreSQL is not installed.
func Shared(t testing.TB) *Cluster {
	t.Helper()
	bin := Bin()
	if bin == "" {
		t.Skip("PostgreSQL is not installed (apt-get install postgresql-15): the team store's tests need a real server")
	}
	once.Do(func() { shared, started = Start(bin) })
	if started != nil {
		t.Fatalf("start PostgreSQL: %v", started)
	}
	return shared
}

// StopShared stops the shared cluster, if one was started.
func StopShared() {
	if shared != nil {
		shared.Stop()
	}
}

// Start initialises and starts a cluster. initdb refuses to run as root,
// so as root the cluster belongs to the postgres user.
func Start(bin string) (*Cluster, error) {
	dir, err := os.MkdirTemp("", "freshctx-pg-")
	if err != nil {
		return nil, err
	}
	c := &Cluster{Dir: dir, bin: bin, Port: 20000 + os.Getpid()%20000}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, fmt.Errorf("running as root, and there is no postgres user to own the cluster: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			return nil, err
		}
		c.as = []string{"runuser", "-u", "postgres", "--"}
	}
	if out, err := c.run("initdb", "-D", dir, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"); err != nil {
		return nil, fmt.Errorf("initdb: %v\n%s", err, out)
	}
	opts := fmt.Sprintf("-k %s -p %d -c listen_addresses='' -c fsync=off -c max_connections=200", dir, c.Port)
	if out, err := c.run("pg_ctl", "-D", dir, "-o", opts, "-l", filepath.Join(dir, "log"), "-w", "-t", "60", "start"); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "log"))
		return nil, fmt.Errorf("pg_ctl start: %v\n%s\n%s", err, out, log)
	}
	return c, nil
}

func (c *Cluster) run(name string, args ...string) ([]byte, error) {
	argv := append(append(append([]string{}, c.as...), filepath.Join(c.bin, name)), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = os.TempDir()
	return cmd.CombinedOutput()
}

// Stop stops the cluster and deletes its folder.
func (c *Cluster) Stop() {
	c.run("pg_ctl", "-D", c.Dir, "-m", "immediate", "-w", "stop")
	os.RemoveAll(c.Dir)
}

// Down stops the server, keeping its data: a team store that went away.
func (c *Cluster) Down(t testing.TB) {
	t.Helper()
	if err := c.StopNow(); err != nil {
		t.Fatal(err)
	}
}

// Up starts a server Down stopped, on the same folder and port.
func (c *Cluster) Up(t testing.TB) {
	t.Helper()
	opts := fmt.Sprintf("-k %s -p %d -c listen_addresses='' -c fsync=off -c max_connections=200", c.Dir, c.Port)
	if out, err := c.run("pg_ctl", "-D", c.Dir, "-o", opts, "-l", filepath.Join(c.Dir, "log"), "-w", "start"); err != nil {
		t.Fatalf("start: %v %s", err, out)
	}
}

// Restart stops the server and starts it again after down.
func (c *Cluster) Restart(t testing.TB, down time.Duration) {
	t.Helper()
	c.Down(t)
	time.Sleep(down)
	c.Up(t)
}

// Database makes a database of its own for one test and returns its URL.
func (c *Cluster) Database(t testing.TB) string {
	t.Helper()
	name := "t_" + strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, strings.ToLower(t.Name()))
	if len(name) > 50 {
		name = name[:50]
	}
	name = fmt.Sprintf("%s_%d", name, time.Now().UnixNano()%1e9)
	url, err := c.NewDatabase(name)
	if err != nil {
		t.Fatal(err)
	}
	return url
}

// NewDatabase makes a database and returns its URL (for the benchmark
// report, which has no test).
func (c *Cluster) NewDatabase(name string) (string, error) {
	if out, err := c.run("createdb", "-h", c.Dir, "-p", strconv.Itoa(c.Port), "-U", "postgres", name); err != nil {
		return "", fmt.Errorf("createdb: %v %s", err, out)
	}
	return c.URL(name), nil
}

// URL is the connection URL of a database of the cluster.
func (c *Cluster) URL(db string) string {
	return fmt.Sprintf("postgres://postgres@/%s?host=%s&port=%d", db, c.Dir, c.Port)
}

// Own starts a cluster for one test, stopped when the test ends; it skips
// when PostgreSQL is not installed.
func Own(t testing.TB) *Cluster {
	t.Helper()
	bin := Bin()
	if bin == "" {
		t.Skip("PostgreSQL is not installed (apt-get install postgresql-15): the team store's tests need a real server")
	}
	c, err := Start(bin)
	if err != nil {
		t.Fatalf("start PostgreSQL: %v", err)
	}
	t.Cleanup(c.Stop)
	return c
}

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/freshctx/freshctx/internal/testbin"
	"github.com/freshctx/freshctx/internal/testpg"
	"github.com/freshctx/freshctx/internal/testrace"
)

// status is team status --json.
func (c *teamClone) status() teamStatusJSON {
	c.t.Helper()
	var s teamStatusJSON
	out := c.must("team", "status", "--json")
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		c.t.Fatalf("team status --json: %v\n%s", err, out)
	}
	return s
}

type teamStatusJSON struct {
	Reachable bool
	Error     string
	Records   int
	Pending   int
}

// runFailing makes a failing record that names case i, its output about
// size bytes more: a hex dump of random bytes, which no compression
// shrinks much and no secret rule takes for a secret.
func (c *teamClone) runFailing(i, size int) string {
	c.t.Helper()
	script := fmt.Sprintf("echo 'notes.txt:3: FAIL case %d'; head -c %d /dev/urandom | od -An -tx1; exit 1", i, size/3)
	out, err := c.freshctx("run", "--", "sh", "-c", script)
	if err == nil || !strings.Contains(out, fmt.Sprintf("FAIL case %d", i)) {
		c.t.Fatalf("run %d: %v\n%s", i, err, out)
	}
	return out
}

// TestTeamStoreStoppedMidPublish: the server stops while a publish is
// sending its second batch; the first batch stays, the rest stays queued,
// and the next publish sends it: every record once.
func TestTeamStoreStoppedMidPublish(t *testing.T) {
	pg, db, proxy, a := proxiedTeam(t)
	const n, size = 100, 20000 // two batches of 50, each about 1 MB on the wire
	for i := range n {
		a.runFailing(i, size) // no team store yet: nothing is sent in the background
	}
	a.must("team", "init", proxy.Via(db))
	stopped := make(chan error, 1)
	proxy.When(75*size, func() { stopped <- pg.StopNow() }) // halfway through the second batch
	out, err := a.freshctx("team", "publish", "--since", "1h")
	select {
	case err := <-stopped:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatalf("the publish ended and the server was not stopped: %v\n%s", err, out)
	}
	if err == nil || !strings.Contains(out, "still waiting") {
		t.Fatalf("publish while the server stops: %v\n%s", err, out)
	}
	pg.Up(t)
	if s := a.status(); s.Records != 50 || s.Pending != n-50 {
		t.Fatalf("after the stop: %d shared, %d waiting; want the first batch shared and the rest waiting", s.Records, s.Pending)
	}
	if out := a.must("team", "publish"); !strings.Contains(out, "0 waiting") {
		t.Fatalf("publish once the server is back: %s", out)
	}
	if s := a.status(); s.Records != n || s.Pending != 0 {
		t.Fatalf("in the end: %d shared, %d waiting; want %d and 0", s.Records, s.Pending, n)
	}
	var found struct{ Results []struct{ Command string } }
	json.Unmarshal([]byte(a.must("recall", "--team", "--json", "--limit", "1000", "FAIL")), &found)
	cases := map[string]int{}
	for _, h := range found.Results {
		cases[h.Command]++
	}
	if len(found.Results) != n || len(cases) != n {
		t.Fatalf("recall --team finds %d records of %d runs, want each of the %d once", len(found.Results), len(cases), n)
	}
}

// TestTeamStoreSlow: with 2 s more on every round trip, run costs nothing
// it would not cost without a team store and keeps its output; the
// background publisher takes the record through the slow link; a cold
// artifact get gives up on the store, says so once, and stays cold.
func TestTeamStoreSlow(t *testing.T) {
	pg, db, proxy, a := proxiedTeam(t)
	a.must("team", "init", db)
	a.must("config", "team.url", proxy.Via(db))
	proxy.SetDelay(time.Second)

	start := time.Now()
	out := a.runFailing(1, 1000)
	if took := time.Since(start); took >= 2*time.Second {
		t.Fatalf("run took %v with a slow team store: it waited for a round trip\n%s", took, out)
	}
	if !strings.Contains(a.must("list"), "FAIL case 1") {
		t.Fatal("the run's record is not kept")
	}
	// The background publisher needs a few round trips; the team store
	// is watched directly, not through the slow link.
	deadline := time.Now().Add(2 * time.Minute)
	for pg.Strings(t, db, `SELECT count(*)::text FROM team_records`)[0] != "1" {
		if time.Now().After(deadline) {
			t.Fatal("the background publisher did not get the record through the slow link")
		}
		time.Sleep(200 * time.Millisecond)
	}

	code, out := a.get("tool_result", "lint")
	if code != exitColdCode || strings.Count(out, "the get stays local") != 1 {
		t.Fatalf("a cold get with a slow team store: exit %d\n%s", code, out)
	}
	if code, out := a.get("tool_result", "lint"); code != exitColdCode || strings.Contains(out, "team store") {
		t.Fatalf("a cold get right after: exit %d, want cold without asking the store again\n%s", code, out)
	}
	proxy.SetDelay(0)
	if s := a.status(); s.Records != 1 || s.Pending != 0 {
		t.Fatalf("once the link is fast again: %d shared, %d waiting; want 1 and 0", s.Records, s.Pending)
	}
}

// TestTeamStoreDiskFull: the team's tables live on a file system that
// fills up; runs keep their records, publishing fails saying the disk is
// full and keeps the queue, and once there is room it sends every record
// once.
func TestTeamStoreDiskFull(t *testing.T) {
	testrace.Skip(t, "drives separate processes")
	t.Parallel() // mostly waits: on the server, the slow link, the publisher
	if os.Geteuid() != 0 {
		t.Skip("a full disk is a small file system mounted for the test: that needs root")
	}
	pg := testpg.Own(t)
	db := pg.Database(t)
	// The mount point sits right in the temporary folder, which the
	// server's user can reach; the file system is that user's.
	small, err := os.MkdirTemp("", "freshctx-small-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(small) })
	opts := "size=256k,mode=0700"
	if u, err := user.Lookup("postgres"); err == nil {
		opts += ",uid=" + u.Uid + ",gid=" + u.Gid
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", opts, "tmpfs", small).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a small file system here: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", small).Run() })
	bin := testbin.Build(t)
	a := newTeamRepo(t, bin)("a", "ana@example.com")
	a.must("team", "init", db)
	space := "small_" + strconv.Itoa(os.Getpid())
	pg.Exec(t, db, "CREATE TABLESPACE "+space+" LOCATION '"+small+"'", "ALTER TABLE team_records SET TABLESPACE "+space)

	const n = 12
	for i := range n {
		a.runFailing(i, 60000) // about 60 KB each, 40 KB compressed: the file system holds a few
	}
	if got := strings.Count(a.must("list", "--limit", "0"), "FAIL case"); got != n {
		t.Fatalf("%d records kept locally, want %d", got, n)
	}
	out, err := a.freshctx("team", "publish", "--since", "1h")
	if err == nil || !strings.Contains(out, "disk is full") || !strings.Contains(out, "still waiting") {
		t.Fatalf("publish to a full team disk: %v\n%s", err, out)
	}
	if out, err := exec.Command("mount", "-o", "remount,size=64m", small).CombinedOutput(); err != nil {
		t.Fatalf("make room: %v %s", err, out)
	}
	if out := a.must("team", "publish"); !strings.Contains(out, "0 waiting") {
		t.Fatalf("publish once there is room: %s", out)
	}
	if s := a.status(); s.Records != n || s.Pending != 0 {
		t.Fatalf("in the end: %d shared, %d waiting; want %d and 0", s.Records, s.Pending, n)
	}
}

// proxiedTeam is a cluster of its own, a database in it, a proxy in front
// of it and a clone; the test runs beside the others, as it mostly waits
// (on the server, the slow link, the publisher).
func proxiedTeam(t *testing.T) (*testpg.Cluster, string, *testpg.Proxy, *teamClone) {
	t.Helper()
	testrace.Skip(t, "drives separate processes")
	t.Parallel()
	pg := testpg.Own(t)
	db := pg.Database(t)
	return pg, db, pg.Proxy(t), newTeamRepo(t, testbin.Build(t))("a", "ana@example.com")
}

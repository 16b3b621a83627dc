package config

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/freshctx/freshctx/internal/teststore"

	"github.com/freshctx/freshctx/internal/store"
)

func TestSettings(t *testing.T) {
	ctx := context.Background()
	s := teststore.Open(t, "", store.Options{})
	if d, err := Retention(ctx, s); err != nil || d != 30*24*time.Hour {
		t.Fatalf("default retention = %v, %v", d, err)
	}
	if _, err := Set(ctx, s, "retention", "12h"); err != nil {
		t.Fatal(err)
	}
	if d, _ := Retention(ctx, s); d != 12*time.Hour {
		t.Fatalf("retention = %v", d)
	}
	if _, err := Set(ctx, s, "retention", "soon"); err == nil {
		t.Fatal("bad duration accepted")
	}
	if _, err := Set(ctx, s, "nope", "1"); err == nil {
		t.Fatal("unknown key accepted")
	}
	all, _ := All(ctx, s)
	if len(all) != len(Keys) || all[0].Value != "12h" || all[0].Default || !all[1].Default {
		t.Fatalf("All = %+v", all)
	}
	if _, err := Set(ctx, s, "hooks.run_commands", "go test; rm -rf /"); err == nil {
		t.Fatal("a command list with ; accepted")
	}
	if _, err := Set(ctx, s, "hooks.run_commands", " go  test ,just build,"); err != nil {
		t.Fatal(err)
	}
	if got, _ := RunCommands(ctx, s); strings.Join(got, "|") != "go test|just build" {
		t.Fatalf("RunCommands = %q", got)
	}
}

func TestParseAge(t *testing.T) {
	for in, want := range map[string]time.Duration{"0": 0, "30d": 720 * time.Hour, "90m": 90 * time.Minute} {
		if got, err := ParseAge(in); err != nil || got != want {
			t.Errorf("ParseAge(%q) = %v, %v", in, got, err)
		}
	}
	for _, bad := range []string{"-1h", "d", "x"} {
		if _, err := ParseAge(bad); err == nil {
			t.Errorf("ParseAge(%q) accepted", bad)
		}
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"500000": 500000, "512KiB": 512 << 10, "1MiB": 1 << 20, "2MB": 2_000_000, "1 GiB": 1 << 30} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "0", "-1", "big", "1TiB"} {
		if _, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) accepted", bad)
		}
	}
}

// TestTeamSettings: a team URL is a postgres:// URL without a password; a
// verify key is an Ed25519 public key; the policy one of three.
func TestTeamSettings(t *testing.T) {
	s := teststore.Open(t, "", store.Options{})
	ctx := context.Background()
	for _, c := range []struct {
		key, value string
		ok         bool
	}{
		{"team.url", "postgres://ana@db.example.com/team?sslmode=verify-full", true},
		{"team.url", "postgres://ana:pw@db.example.com/team", false},
		{"team.url", "postgres://db/team?password=pw", false},
		{"team.url", "mysql://db/team", false},
		{"team.publish", "all", true},
		{"team.publish", "some", false},
		{"team.verify_key", strings.Repeat("ab", 32), true},
		{"team.verify_key", "abcd", false},
		{"team.require_signed", "yes", false},
	} {
		if _, err := Set(ctx, s, c.key, c.value); (err == nil) != c.ok {
			t.Errorf("%s = %q: %v", c.key, c.value, err)
		}
	}
}

// TestRunCommandsMirror: the run commands beside the store follow the
// setting: written when it is set or read, gone while it changes, and a
// store's own value wins over a mirror someone left behind.
func TestRunCommandsMirror(t *testing.T) {
	ctx := context.Background()
	s := teststore.Open(t, "", store.Options{})
	if _, ok := CachedRunCommands(s.Path()); ok {
		t.Fatal("a mirror before the setting was ever read")
	}
	def, err := RunCommands(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := CachedRunCommands(s.Path()); !ok || strings.Join(got, "|") != strings.Join(def, "|") {
		t.Fatalf("mirror after a read = %q %v, want %q", got, ok, def)
	}
	if _, err := Set(ctx, s, "hooks.run_commands", "just test"); err != nil {
		t.Fatal(err)
	}
	if got, ok := CachedRunCommands(s.Path()); !ok || strings.Join(got, "|") != "just test" {
		t.Fatalf("mirror after a set = %q %v", got, ok)
	}
	keepMirror(s.Path(), "stale, old") // left by a process that read the old value
	if got, _ := RunCommands(ctx, s); strings.Join(got, "|") != "just test" {
		t.Fatalf("RunCommands = %q, want the store's", got)
	}
	if got, _ := CachedRunCommands(s.Path()); strings.Join(got, "|") != "just test" {
		t.Fatalf("a stale mirror was not replaced on the next read: %q", got)
	}
	if _, err := Set(ctx, s, "hooks.run_commands", ""); err != nil {
		t.Fatal(err)
	}
	if got, ok := CachedRunCommands(s.Path()); !ok || len(got) != 0 {
		t.Fatalf("mirror of no commands = %q %v, want an empty list", got, ok)
	}
	// A file of the mirror's name that freshctx did not write is never
	// read, replaced or removed.
	theirs := []byte("ls\nmy own list\n")
	if err := os.WriteFile(mirrorPath(s.Path()), theirs, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, ok := CachedRunCommands(s.Path()); ok {
		t.Fatalf("someone else's file read as the mirror: %q", got)
	}
	if _, err := Set(ctx, s, "hooks.run_commands", "just test"); err != nil {
		t.Fatal(err)
	}
	if got, _ := RunCommands(ctx, s); strings.Join(got, "|") != "just test" {
		t.Fatalf("RunCommands = %q, want the store's", got)
	}
	if b, err := os.ReadFile(mirrorPath(s.Path())); err != nil || string(b) != string(theirs) {
		t.Fatalf("someone else's file became %q (%v)", b, err)
	}
}

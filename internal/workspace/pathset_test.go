package workspace

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/freshctx/freshctx/internal/testgit"
)

func TestExcludesFile(t *testing.T) {
	for _, c := range []struct {
		name, config, xdg, home, want string
		unprovable                    bool
	}{
		{name: "unset: XDG's", xdg: "/x", home: "/h", want: "/x/git/ignore"},
		{name: "unset: HOME's", home: "/h", want: "/h/.config/git/ignore"},
		{name: "unset, no HOME", unprovable: true},
		{name: "absolute", config: "core.excludesfile\n/etc/ignore\x00", home: "/h", want: "/etc/ignore"},
		{name: "in HOME", config: "core.excludesfile\n~/.ignore\x00", home: "/h", want: "/h/.ignore"},
		{name: "the last wins", config: "core.excludesfile\n/a\x00core.ignorecase\ntrue\x00core.excludesfile\n/b\x00", want: "/b"},
		{name: "another user's HOME", config: "core.excludesfile\n~bob/.ignore\x00", home: "/h", unprovable: true},
		{name: "relative", config: "core.excludesfile\nignore\x00", home: "/h", unprovable: true},
		{name: "ignoreCase alone", config: "core.ignorecase\ntrue\x00", home: "/h", want: "/h/.config/git/ignore"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("XDG_CONFIG_HOME", c.xdg)
			t.Setenv("HOME", c.home)
			got, err := excludesFile(c.config)
			if c.unprovable {
				if !errors.Is(err, ErrUnprovable) {
					t.Fatalf("excludesFile = %q, %v, want ErrUnprovable", got, err)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("excludesFile = %q, %v, want %q", got, err, c.want)
			}
		})
	}
}

// TestIgnoredFolders: only folders git's rules exclude themselves are
// ignored as a whole; a folder of ignored files is not, nor one a later
// rule takes back, and a workspace below the top sees its own.
func TestIgnoredFolders(t *testing.T) {
	r := testgit.New(t)
	r.Write(".gitignore", "build/\n*.log\nnode_modules\ndist/\n!dist/\n")
	r.Write("src/a.go", "package a\n")
	r.Commit("init")
	for _, f := range []string{"build/x/o", "logs/a.log", "src/node_modules/m/i.js", "dist/d.js", "src/build/b.o"} {
		r.Write(f, "")
	}
	for _, c := range []struct {
		root string
		want []string
	}{
		{r.Dir, []string{"build", "src/build", "src/node_modules"}},
		{r.Path("src"), []string{"build", "node_modules"}},
	} {
		ws, err := Open(c.root)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ws.Git.IgnoredFolders(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(got)
		if !slices.Equal(got, c.want) {
			t.Errorf("IgnoredFolders under %s = %q, want %q", c.root, got, c.want)
		}
	}
}

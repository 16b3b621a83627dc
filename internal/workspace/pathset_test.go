package workspace

import (
	"errors"
	"testing"
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

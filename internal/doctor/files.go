package doctor

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/workspace"
)

// permissionCheck wants the store's files readable by their owner alone:
// they hold command output.
func permissionCheck(st *store.Store, fix bool) Check {
	c := Check{Name: "permissions", Status: OK, Detail: "store files are private (0700/0600)"}
	var loose, fixed []string
	for _, p := range []string{st.Path(), st.Path() + "-wal", st.Path() + "-shm", store.WritersPath(st.Path()), st.BlobDir()} {
		fi, err := os.Stat(p)
		if err != nil {
			continue
		}
		want := os.FileMode(0o600)
		if fi.IsDir() {
			want = 0o700
		}
		if fi.Mode().Perm()&0o077 == 0 {
			continue
		}
		loose = append(loose, fmt.Sprintf("%s is %#o", p, fi.Mode().Perm()))
		if fix && !st.ReadOnly() && os.Chmod(p, want) == nil {
			fixed = append(fixed, fmt.Sprintf("%s → %#o", p, want))
		}
	}
	if len(loose) > 0 {
		c.Status, c.Detail = Warn, "others may read command output: "+strings.Join(loose, ", ")
	}
	if len(fixed) > 0 {
		c.Fixed = strings.Join(fixed, ", ")
		if len(fixed) == len(loose) {
			c.Status = OK
		}
	}
	if st.ReadOnly() {
		c.Status = Warn
		c.Detail = "the store is read-only here (read-only file system, no write permission or a full disk): list, show and recall work, nothing new is kept; " + c.Detail
	}
	return c
}

// gitCheck says whether freshness can use git.
func gitCheck(ctx context.Context, ws *workspace.Workspace) Check {
	c := Check{Name: "git", Status: OK}
	if _, err := exec.LookPath("git"); err != nil {
		c.Status, c.Detail = Warn, "git is not on PATH: freshness compares file stats and contents only"
		return c
	}
	out, err := exec.CommandContext(ctx, "git", "--version").Output()
	if err != nil {
		c.Status, c.Detail = Warn, fmt.Sprintf("git --version failed: %v", err)
		return c
	}
	version := strings.TrimSpace(string(out))
	switch {
	case ws == nil:
		c.Detail = version
	case ws.Git == nil:
		c.Detail = version + "; " + ws.Root + " is not in a git work tree: freshness compares file stats and contents only"
	default:
		if _, err := ws.Git.ReadHead(ctx); err != nil {
			c.Status, c.Detail = Warn, fmt.Sprintf("%s; reading HEAD failed: %v", version, err)
			return c
		}
		c.Detail = version + "; work tree at " + ws.Root
	}
	return c
}

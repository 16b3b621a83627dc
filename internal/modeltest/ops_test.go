package modeltest

import (
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"time"

	"pgregory.net/rapid"
)

func exec(dir string, args ...string) *osexec.Cmd {
	cmd := osexec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t",
		"GIT_COMMITTER_EMAIL=t@t", "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	return cmd
}

// fileOps change the work tree the way editors and tools do.
func (w *world) fileOps() map[string]func(*rapid.T) {
	pick := func(t *rapid.T) string { return rapid.SampledFrom(w.files).Draw(t, "path") }
	return map[string]func(*rapid.T){
		"write": func(t *rapid.T) {
			p := pick(t)
			if c := w.read(p); c.ok {
				w.before[p] = string(c.b)
			}
			w.write(p, rapid.SampledFrom(w.texts).Draw(t, "content"))
		},
		"undo": func(t *rapid.T) { // an editor's undo: back to the bytes before the last write
			p := pick(t)
			if c, ok := w.before[p]; ok {
				w.write(p, c)
			}
		},
		"same size, mtime kept": func(t *rapid.T) {
			p := pick(t)
			fi, err := os.Stat(w.abs(p))
			if err != nil || !fi.Mode().IsRegular() {
				return
			}
			old := w.read(p).b
			next := []byte(rapid.SampledFrom(w.texts).Draw(t, "content"))
			if len(next) != len(old) {
				next = make([]byte, len(old))
				for i := range next {
					next[i] = old[len(old)-1-i] // same size, other bytes
				}
			}
			os.WriteFile(w.abs(p), next, fi.Mode())
			os.Chtimes(w.abs(p), fi.ModTime(), fi.ModTime())
		},
		"touch": func(t *rapid.T) {
			d := time.Duration(rapid.IntRange(-3, 3).Draw(t, "seconds")) * time.Second
			at := time.Now().Add(d)
			os.Chtimes(w.abs(pick(t)), at, at)
		},
		"chmod": func(t *rapid.T) {
			mode := rapid.SampledFrom([]os.FileMode{0o644, 0o755, 0o600}).Draw(t, "mode")
			os.Chmod(w.abs(pick(t)), mode)
		},
		"delete": func(t *rapid.T) { os.RemoveAll(w.abs(pick(t))) },
		"rename": func(t *rapid.T) {
			from, to := pick(t), pick(t)
			if from != to {
				os.MkdirAll(filepath.Dir(w.abs(to)), 0o755)
				os.Rename(w.abs(from), w.abs(to))
			}
		},
		"replace by a directory": func(t *rapid.T) {
			p := pick(t)
			os.RemoveAll(w.abs(p))
			w.write(p+"/inside.txt", "inside\n")
		},
		"replace by a symlink": func(t *rapid.T) {
			p, target := pick(t), pick(t)
			if p == target {
				return
			}
			os.RemoveAll(w.abs(p))
			rel, _ := filepath.Rel(filepath.Dir(w.abs(p)), w.abs(target))
			os.MkdirAll(filepath.Dir(w.abs(p)), 0o755)
			os.Symlink(rel, w.abs(p))
		},
		"link CLAUDE.md and ln": func(t *rapid.T) {
			os.RemoveAll(w.abs("CLAUDE.md"))
			os.Symlink(rapid.SampledFrom([]string{"a.txt", "e.txt"}).Draw(t, "target"), w.abs("CLAUDE.md"))
			if _, err := os.Lstat(w.abs("ln")); err != nil {
				os.Symlink("dir", w.abs("ln"))
			}
		},
		"nested repository": func(t *rapid.T) {
			c := rapid.SampledFrom(contents[:8]).Draw(t, "content")
			if _, err := os.Stat(w.abs("inner/.git")); err != nil {
				os.MkdirAll(w.abs("inner"), 0o755)
				exec(w.abs("inner"), "init", "-q", "-b", "main").Run()
			}
			w.write("inner/x.go", c)
			if rapid.Bool().Draw(t, "commit inside") {
				exec(w.abs("inner"), "add", "-A").Run()
				exec(w.abs("inner"), "commit", "-q", "-m", "inner").Run()
			}
		},
	}
}

// gitOps change the repository the way people and agents do.
func (w *world) gitOps() map[string]func(*rapid.T) {
	pick := func(t *rapid.T) string { return rapid.SampledFrom(files).Draw(t, "path") }
	return map[string]func(*rapid.T){
		"commit": func(*rapid.T) {
			w.git("add", "-A")
			w.git("commit", "-q", "-m", w.name("commit"))
		},
		"amend": func(*rapid.T) { w.git("commit", "-q", "-a", "--amend", "--no-edit") },
		"checkout and back": func(*rapid.T) {
			w.git("checkout", "-q", "--detach", "HEAD~1")
			w.git("checkout", "-q", "main")
		},
		"stash": func(t *rapid.T) {
			if rapid.Bool().Draw(t, "pop") {
				w.git("stash", "pop", "-q")
			} else {
				w.git("stash", "-q", "-u")
			}
		},
		"reset --hard": func(*rapid.T) { w.git("reset", "-q", "--hard") },
		"merge": func(t *rapid.T) {
			w.git("checkout", "-q", "-B", "side")
			w.write(pick(t), rapid.SampledFrom(contents).Draw(t, "side content"))
			w.git("commit", "-q", "-a", "-m", w.name("side"))
			w.git("checkout", "-q", "main")
			w.git("merge", "-q", "--no-edit", "side")
			w.git("merge", "--abort")
		},
		"merge left in conflict": func(t *rapid.T) {
			w.diverge(t, "other", pick(t))
			w.git("merge", "-q", "--no-edit", "other") // stops on a conflict: resolved, if ever, by a later commit
		},
		"rebase left stopped": func(t *rapid.T) {
			w.diverge(t, "onto", pick(t))
			w.git("rebase", "-q", "onto") // stops on a conflict, HEAD detached mid-way
		},
		"switch branch": func(t *rapid.T) {
			to := rapid.SampledFrom([]string{"main", "other", "onto", "side"}).Draw(t, "branch")
			w.git("checkout", "-q", to) // stays there; a branch not made yet, or a dirty tree, leaves HEAD as it is
		},
		"rebase": func(*rapid.T) {
			w.git("rebase", "-q", "side")
			w.git("rebase", "--abort")
		},
		"git mv": func(t *rapid.T) { w.git("mv", pick(t), pick(t)) },
		"assume-unchanged": func(t *rapid.T) {
			flag := rapid.SampledFrom([]string{"--assume-unchanged", "--skip-worktree", "--no-assume-unchanged"}).Draw(t, "flag")
			w.git("update-index", flag, pick(t))
		},
		"rm --cached and ignore": func(t *rapid.T) {
			p := pick(t)
			w.git("rm", "-q", "--cached", p)
			f, err := os.OpenFile(w.abs(".gitignore"), os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
			if err == nil {
				fmt.Fprintf(f, "/%s\n", p)
				f.Close()
			}
		},
	}
}

func (w *world) name(kind string) string {
	w.n++
	return fmt.Sprintf("%s-%d", kind, w.n)
}

// diverge commits p changed on branch (made from HEAD) and, on main, p
// changed otherwise or deleted: merging one into the other conflicts.
func (w *world) diverge(t *rapid.T, branch, p string) {
	w.git("checkout", "-q", "-B", branch)
	w.write(p, rapid.SampledFrom(contents).Draw(t, branch+" content"))
	w.git("commit", "-q", "-a", "-m", w.name(branch))
	w.git("checkout", "-q", "main")
	if rapid.Bool().Draw(t, "delete on main") { // a modify/delete conflict
		os.RemoveAll(w.abs(p))
	} else {
		w.write(p, rapid.SampledFrom(contents).Draw(t, "main content"))
	}
	w.git("commit", "-q", "-a", "-m", w.name("main"))
}

// Package testgit builds real git repositories in temporary directories for
// tests. Every helper fails the test on error.
package testgit

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TB is the part of testing.TB the helpers use; rapid.T satisfies it too.
type TB interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

// Repo is a git work tree (or a plain directory) made for one test.
type Repo struct {
	tb  TB
	Dir string
}

// New makes an empty repository (no commits) in a fresh temporary directory.
func New(tb testing.TB) *Repo {
	tb.Helper()
	return Init(tb, tb.TempDir())
}

// Init makes an empty repository in dir, which must exist.
func Init(tb TB, dir string) *Repo {
	tb.Helper()
	r := Plain(tb, dir)
	r.Git("init", "-q", "-b", "main")
	r.noBackgroundWork(".git")
	return r
}

// noBackgroundWork turns off git's automatic gc and maintenance: after a
// large commit they run detached and write into .git while the test's
// temporary directory is being removed. It writes the settings into the
// repository's config file, gitDir/config, as `git config` would, without
// two more git processes for every repository a test makes.
func (r *Repo) noBackgroundWork(gitDir string) {
	r.tb.Helper()
	f, err := os.OpenFile(filepath.Join(r.Dir, gitDir, "config"), os.O_APPEND|os.O_WRONLY, 0)
	if err == nil {
		_, err = f.WriteString("[gc]\n\tauto = 0\n[maintenance]\n\tauto = false\n")
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		r.tb.Fatalf("turn off git's background work: %v", err)
	}
}

// Bare makes an empty bare repository, to serve as an "upstream".
func Bare(tb testing.TB) *Repo {
	tb.Helper()
	r := Plain(tb, tb.TempDir())
	r.Git("init", "-q", "--bare", "-b", "main")
	r.noBackgroundWork(".")
	return r
}

// Clone clones url (a path) into a fresh temporary directory.
func Clone(tb testing.TB, url string) *Repo {
	tb.Helper()
	parent := Plain(tb, tb.TempDir())
	parent.Git("clone", "-q", url, "work")
	r := Plain(tb, parent.Path("work"))
	r.noBackgroundWork(".git")
	return r
}

// Plain uses dir as a directory that is not a git repository.
func Plain(tb TB, dir string) *Repo {
	tb.Helper()
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		tb.Fatal(err)
	}
	return &Repo{tb: tb, Dir: real}
}

// Git runs git in the repository and returns its trimmed output.
func (r *Repo) Git(args ...string) string {
	r.tb.Helper()
	return r.GitInput("", args...)
}

// GitInput is Git with in on git's standard input.
func (r *Repo) GitInput(in string, args ...string) string {
	r.tb.Helper()
	out, err := r.run(in, args...)
	if err != nil {
		r.tb.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// Try runs git in the repository like Git, for a git that may fail (a
// merge that conflicts, nothing to commit), and returns its error rather
// than failing the test.
func (r *Repo) Try(args ...string) (string, error) {
	return r.run("", args...)
}

// run runs git with in on its standard input and returns its trimmed
// output, stderr included.
func (r *Repo) run(in string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Stdin = strings.NewReader(in)
	cmd.Dir = r.Dir
	cmd.Env = append(os.Environ(),
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
		"GIT_CONFIG_NOSYSTEM=1", "HOME="+r.Dir)
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// Write creates or replaces a file (and its parent directories).
func (r *Repo) Write(rel, content string) {
	r.tb.Helper()
	p := r.Path(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.tb.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		r.tb.Fatal(err)
	}
}

// Read returns a file's content.
func (r *Repo) Read(rel string) string {
	r.tb.Helper()
	b, err := os.ReadFile(r.Path(rel))
	if err != nil {
		r.tb.Fatal(err)
	}
	return string(b)
}

// Remove deletes a file or directory tree.
func (r *Repo) Remove(rel string) {
	r.tb.Helper()
	if err := os.RemoveAll(r.Path(rel)); err != nil {
		r.tb.Fatal(err)
	}
}

// Touch sets a file's modification time.
func (r *Repo) Touch(rel string, t time.Time) {
	r.tb.Helper()
	if err := os.Chtimes(r.Path(rel), t, t); err != nil {
		r.tb.Fatal(err)
	}
}

// Commit stages everything and commits, returning the new HEAD.
func (r *Repo) Commit(msg string) string {
	r.tb.Helper()
	r.Git("add", "-A")
	r.Git("commit", "-q", "--allow-empty", "-m", msg)
	return r.Git("rev-parse", "HEAD")
}

// Path returns the absolute path of a repository-relative path.
func (r *Repo) Path(rel string) string {
	return filepath.Join(r.Dir, filepath.FromSlash(rel))
}

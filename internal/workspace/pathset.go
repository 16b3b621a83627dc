package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// PathSetInputs are what, besides the work tree's folders themselves,
// decides which files `git ls-files --cached` and `git ls-files --others
// --exclude-standard` list for the workspace: the exclude settings of
// git's configuration, as git itself prints them, and the files git reads
// for the listing. A caller that finds all of them as they were, and every
// folder of the tree unchanged, knows the listing is unchanged too.
type PathSetInputs struct {
	// Config is `git config -z --get-regexp` of core.excludesFile and
	// core.ignoreCase: whatever file or command line set them.
	Config string
	// Files are absolute paths, any of which may be absent: the index
	// (always the first), info/exclude, the global excludes file and the
	// .gitignore files of the folders between the top and the workspace
	// root. The root's own .gitignore files are in the folders a caller
	// walks.
	Files []string
}

// ErrUnprovable says the listing depends on something PathSetInputs cannot
// name (an index or excludes file given by a path git resolves on its own).
var ErrUnprovable = errors.New("the listing's inputs cannot be named")

// pathSetEnv are the variables that move the files git reads for a
// listing; a caller compares their values with PathSetEnv.
var pathSetEnv = []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE", "HOME", "XDG_CONFIG_HOME"}

// PathSetEnv is the values of the environment variables that move the
// files PathSetInputs names, as one string.
func PathSetEnv() string {
	var b strings.Builder
	for _, v := range pathSetEnv {
		val, set := os.LookupEnv(v)
		fmt.Fprintf(&b, "%s=%t:%q;", v, set, val)
	}
	return b.String()
}

// PathSetInputs reads the exclude settings (one `git config` process) and
// names the files the listing reads.
func (g *Git) PathSetInputs(ctx context.Context) (PathSetInputs, error) {
	if os.Getenv("GIT_INDEX_FILE") != "" {
		return PathSetInputs{}, fmt.Errorf("GIT_INDEX_FILE is set: %w", ErrUnprovable)
	}
	dirs, err := g.dirs(ctx)
	if err != nil {
		return PathSetInputs{}, fmt.Errorf("find the git folder: %w", err)
	}
	out, err := g.Run(ctx, g.Top, "config", "-z", "--get-regexp", `^core\.(excludesfile|ignorecase)$`)
	if err != nil && !answeredNo(err) { // none set
		return PathSetInputs{}, fmt.Errorf("git config: %w", err)
	}
	in := PathSetInputs{Config: string(out)}
	excludes, err := excludesFile(in.Config)
	if err != nil {
		return PathSetInputs{}, err
	}
	in.Files = []string{filepath.Join(dirs.dir, "index"), filepath.Join(dirs.common, "info", "exclude"), excludes}
	if g.prefix != "" {
		dir := g.Top
		in.Files = append(in.Files, filepath.Join(dir, ".gitignore"))
		parts := strings.Split(g.prefix, "/")
		for _, p := range parts[:len(parts)-1] {
			dir = filepath.Join(dir, p)
			in.Files = append(in.Files, filepath.Join(dir, ".gitignore"))
		}
	}
	return in, nil
}

// excludesFile is the global excludes file the configuration names, or
// git's default for it.
func excludesFile(config string) (string, error) {
	value, set := "", false
	for _, e := range strings.Split(config, "\x00") {
		key, v, _ := strings.Cut(e, "\n")
		if key == "core.excludesfile" {
			value, set = v, true // the last one wins, as in git
		}
	}
	home := os.Getenv("HOME")
	switch {
	case !set:
		if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
			return filepath.Join(x, "git", "ignore"), nil
		}
		if home == "" {
			return "", fmt.Errorf("no HOME for the default excludes file: %w", ErrUnprovable)
		}
		return filepath.Join(home, ".config", "git", "ignore"), nil
	case strings.HasPrefix(value, "~/") && home != "":
		return filepath.Join(home, value[2:]), nil
	case filepath.IsAbs(value):
		return value, nil
	}
	return "", fmt.Errorf("core.excludesFile %q: %w", value, ErrUnprovable)
}

// maxIgnoredFolders bounds the candidates IgnoredFolders passes to git
// check-ignore on its command line.
const maxIgnoredFolders = 2000

// IgnoredFolders lists the folders git ignores as a whole, root-relative:
// nothing below one is listed however it changes, while the exclude rules
// stay as they are. `git ls-files --others --ignored --directory` names
// the candidates and `git check-ignore` keeps those its rules exclude
// themselves (a folder whose files are all ignored is a candidate, and
// not one of them).
func (g *Git) IgnoredFolders(ctx context.Context) ([]string, error) {
	listed, err := g.lsFiles(ctx, "--others", "--ignored", "--exclude-standard", "--directory")
	if err != nil {
		return nil, err
	}
	args := []string{"check-ignore", "--"} // -z needs --stdin, which Run has not
	for _, f := range listed {
		if strings.HasSuffix(f, "/") {
			args = append(args, g.toGit(strings.TrimSuffix(f, "/"))+"/")
		}
	}
	switch n := len(args) - 2; {
	case n == 0:
		return nil, nil
	case n > maxIgnoredFolders:
		return nil, fmt.Errorf("%d ignored folders: %w", n, ErrUnprovable)
	}
	excluded, err := g.Run(ctx, g.Top, args...)
	if err != nil && !answeredNo(err) { // none of them
		return nil, fmt.Errorf("git check-ignore: %w", err)
	}
	var folders []string
	for _, f := range lines(excluded) {
		if f == "" || strings.HasPrefix(f, `"`) {
			continue // quoted by git (an unusual name): walked, not left out
		}
		if rel, ok := g.fromGit(strings.TrimSuffix(f, "/")); ok && rel != "." {
			folders = append(folders, rel)
		}
	}
	return folders, nil
}

// answeredNo reports whether git exited with status 1 and nothing else
// went wrong: how `git config --get-regexp` says nothing is set and `git
// check-ignore` that nothing is ignored.
func answeredNo(err error) bool {
	var ee *exec.ExitError
	return errors.As(err, &ee) && ee.ExitCode() == 1
}

package records

import (
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/mod/modfile"

	"github.com/freshctx/freshctx/internal/scope"
	"github.com/freshctx/freshctx/internal/workspace"
)

// Some tools print paths relative to a folder other than the command's,
// and say which on a line of their own. The folders those lines name are
// where the output's relative paths are looked for too; a name found in
// more than one folder is stamped in each (pick), never guessed.
//
// make (make -C, recursive make) and ninja announce the folder they work
// in: "make[1]: Entering directory '/abs/sub'", "ninja: Entering directory
// `build'" — a path relative to the command's folder or absolute.
//
// go test prints a failing test's file relative to its package's folder
// (calc_test.go:7), and names the package on the line that ends its
// results: "ok  \tPKG\t0.01s", "FAIL\tPKG\t0.01s", "FAIL\tPKG [build
// failed]", "?   \tPKG\t[no test files]". The folders of those packages are
// where such a file may be; a name found in more than one of them is
// stamped in each (pick), never guessed.

// maxOutDirs bounds the folders taken from one output, of each kind.
const maxOutDirs = scope.MaxDirs

// goBlocks follows go test's output, a block per package ended by its
// summary line, to say in which packages' output each reference was seen.
// A reference is a number given by the caller (its index in scan.refs).
// Memory grows with the distinct packages and references, not with the
// blocks: a log of the same packages run a thousand times costs as one.
type goBlocks struct {
	pkgs []string // the distinct packages named, up to maxOutDirs
	of   [][]int  // per reference: indexes into pkgs of its blocks' packages
	open []int    // the references seen in the block not ended yet
	// in is, per reference, 1 + the block it was last seen in.
	in    []int
	block int
	// over is a reference seen in a block whose package could not be kept
	// (past maxOutDirs), -1 when none was.
	over int
}

func newGoBlocks() goBlocks { return goBlocks{over: -1} }

// seen notes reference i in the current block.
func (g *goBlocks) seen(i int) {
	for len(g.in) <= i {
		g.in, g.of = append(g.in, 0), append(g.of, nil)
	}
	if g.in[i] != g.block+1 {
		g.in[i] = g.block + 1
		g.open = append(g.open, i)
	}
}

// ended ends the current block with its package's summary line; it
// keeps a copy of pkg, which is cut from the line.
func (g *goBlocks) ended(pkg string) {
	k := slices.Index(g.pkgs, pkg)
	if k < 0 && len(g.pkgs) < maxOutDirs {
		k, g.pkgs = len(g.pkgs), append(g.pkgs, strings.Clone(pkg))
	}
	for _, i := range g.open {
		switch {
		case k < 0:
			if g.over < 0 {
				g.over = i
			}
		case !slices.Contains(g.of[i], k):
			g.of[i] = append(g.of[i], k)
		}
	}
	g.open = g.open[:0]
	g.block++
}

// unended reports whether reference i was seen in a block whose summary
// line never came (a killed run): its package may be any.
func (g *goBlocks) unended(i int) bool { return i < len(g.in) && g.in[i] == g.block+1 }

// enteredDir returns the folder a line says a tool works in: make's and
// ninja's "Entering directory", pytest's "rootdir: /abs" (its paths are
// relative to it), cargo's "Compiling NAME vX (/abs)" (a package outside a
// workspace prints paths relative to itself) and vitest's "RUN vX /abs".
func enteredDir(line string) (string, bool) {
	// Every line of every output is asked: each form is told by its first
	// or last byte before the line is searched.
	if line == "" {
		return "", false
	}
	if line[len(line)-1] == '\'' {
		return makeDir(line)
	}
	if rest, ok := strings.CutPrefix(line, "rootdir: "); ok {
		rest, _, _ = strings.Cut(rest, ", ") // pytest before 6: "rootdir: /x, inifile: …"
		if !path.IsAbs(rest) {
			return "", false
		}
		return rest, true
	}
	if line[0] != ' ' && line[0] != 'R' && line[0] != 'C' {
		return "", false
	}
	t := strings.TrimLeft(line, " ")
	if rest, ok := strings.CutPrefix(t, "Compiling "); ok && strings.HasSuffix(rest, ")") {
		if i := strings.LastIndex(rest, " (/"); i >= 0 {
			return rest[i+2 : len(rest)-1], true
		}
	}
	if rest, ok := strings.CutPrefix(t, "RUN  v"); ok {
		if _, dir, ok := strings.Cut(rest, " "); ok && path.IsAbs(dir) {
			return strings.TrimSpace(dir), true
		}
	}
	return "", false
}

// makeDir reads make's and ninja's "…: Entering directory '/abs'" (or
// `build').
func makeDir(line string) (string, bool) {
	_, rest, ok := strings.Cut(line, ": Entering directory ")
	if !ok || len(rest) < 3 || (rest[0] != '\'' && rest[0] != '`') {
		return "", false
	}
	return rest[1 : len(rest)-1], true
}

// goPackageLine returns the import path a go test summary line names.
func goPackageLine(line string) (string, bool) {
	var rest string
	switch {
	case strings.HasPrefix(line, "ok  \t"):
		rest = line[len("ok  \t"):]
	case strings.HasPrefix(line, "FAIL\t"):
		rest = line[len("FAIL\t"):]
	case strings.HasPrefix(line, "?   \t"):
		rest = line[len("?   \t"):]
	default:
		return "", false
	}
	pkg, _, _ := strings.Cut(rest, "\t")
	pkg, _, _ = strings.Cut(pkg, " ")
	return pkg, pkg != ""
}

// enteredDirs maps the folders make and ninja entered, relative to the
// command's folder cwd (absolute) or absolute, to root-relative ones; those
// outside the root are dropped.
func enteredDirs(ws *workspace.Workspace, cwd string, dirs []string) []string {
	var out []string
	for _, d := range dirs {
		if rel, err := ws.Rel(d, cwd); err == nil && rel != "." {
			out = append(out, rel)
		}
	}
	return out
}

// goPackageDirs maps import paths to root-relative folders through the
// module path of the go.mod nearest cwd (both root-relative), one entry per
// path: none for a path outside that module or its root package (whose
// folder is the module's, where paths are looked for anyway).
func goPackageDirs(root, cwd string, pkgs []string) [][]string {
	if len(pkgs) == 0 {
		return nil
	}
	dir := scope.ProjectDir(root, cwd, "go.mod")
	mod := modulePath(filepath.Join(root, filepath.FromSlash(dir), "go.mod"))
	out := make([][]string, len(pkgs))
	if mod == "" {
		return out
	}
	for i, p := range pkgs {
		var rel string
		switch {
		case p == mod:
			rel = dir
		case strings.HasPrefix(p, mod+"/"):
			rel = path.Join(dir, strings.TrimPrefix(p, mod+"/"))
		default:
			continue
		}
		if rel != "." && rel != "" && !strings.HasPrefix(rel, "../") {
			out[i] = []string{rel}
		}
	}
	return out
}

// modulePath reads the module path of a go.mod file; "" when there is none
// to read.
func modulePath(gomod string) string {
	data, err := os.ReadFile(gomod)
	if err != nil {
		return ""
	}
	return modfile.ModulePath(data)
}

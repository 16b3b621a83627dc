package scope

import (
	"bytes"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/mod/modfile"
)

// goScope is what a go command (test, build, vet, install) run in cwd
// reads of the work tree: the module's go.mod and go.sum and, for each
// package it names and each package of the module those import, tests
// included, the package's files, its testdata and the folders it embeds.
// A fix that lands in an imported package is a changed input of the
// record of the test that failed.
//
// Where the packages cannot be told from the files, the scope is the
// module whole (the folder of go.mod and everything under it): a pattern
// with "...", a module without a path, a vendor folder, a replace by a
// local folder, -C, a file that does not parse or that names a folder
// above its own in a string (a test opening "../other/testdata/x"); and a
// go.work, whose other modules the packages may import, makes it the
// workspace's folder whole. Every file of a package is taken, whatever its
// build constraints say: more files than the build reads, never fewer.
//
// Without imports, the scope is goNamed's.
func goScope(root, cwd string, args []string, imports bool) []string {
	mod := ProjectDir(root, cwd, "go.mod")
	if !imports {
		return goNamed(mod, cwd, args)
	}
	if work := goWorkDir(root, mod); work != "" {
		return []string{join(work, "**")}
	}
	files := []string{join(mod, "go.mod"), join(mod, "go.sum")}
	whole := append(slices.Clone(files), join(mod, "**"))
	g := &goGraph{root: root, mod: mod}
	if !g.load() {
		return whole
	}
	var named []string
	for _, a := range args {
		switch {
		case a == "-C" || strings.HasPrefix(a, "-C="):
			return whole
		case strings.HasPrefix(a, "-"):
			continue
		case strings.Contains(a, "..."):
			return whole
		case strings.HasPrefix(a, "."):
			named = append(named, path.Clean(path.Join(cwd, a)))
		case a == g.path || strings.HasPrefix(a, g.path+"/"):
			named = append(named, join(mod, strings.TrimPrefix(strings.TrimPrefix(a, g.path), "/")))
		}
		// Anything else is a test's name, a flag's value or a package
		// outside the module: none of them is a folder of the work tree.
	}
	if len(named) == 0 {
		named = []string{cwd} // the package in cwd
	}
	for _, dir := range named {
		if dir == ".." || strings.HasPrefix(dir, "../") {
			return whole
		}
	}
	globs, ok := g.closure(named)
	if !ok {
		return whole
	}
	return append(files, globs...)
}

// goNamed is the module files and the folders a go command names as
// packages ("./x/..." with all under it; the current folder if none):
// where the output's paths are looked for, not all the command reads.
func goNamed(mod, cwd string, args []string) []string {
	scope := []string{join(mod, "go.mod"), join(mod, "go.sum")}
	pkgs := 0
	for _, a := range args {
		if strings.HasPrefix(a, "-") || !strings.HasPrefix(a, ".") {
			continue // a flag, an import path or a test name: not a folder we can name
		}
		pkgs++
		rel := path.Clean(path.Join(cwd, strings.TrimSuffix(a, "/...")))
		if strings.HasSuffix(a, "...") {
			scope = append(scope, join(rel, "**"))
		} else {
			scope = append(scope, join(rel, "*"))
		}
	}
	if pkgs == 0 {
		scope = append(scope, join(cwd, "*")) // the package in cwd
	}
	return scope
}

// goWorkDir is the folder of the nearest go.work from the module's folder
// up to the root, or "".
func goWorkDir(root, mod string) string {
	dir := ProjectDir(root, mod, "go.work")
	if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(dir), "go.work")); err != nil {
		return "" // ProjectDir gives mod back when none is found
	}
	return dir
}

// goGraph follows the imports of a module's packages, from their files.
type goGraph struct {
	root, mod string // mod: the module's folder, root-relative
	path      string // the module path
}

// load reads the module path; false where the packages cannot be told
// from the module's own folders: no path, a vendor folder, a replace by a
// local folder.
func (g *goGraph) load() bool {
	abs := filepath.Join(g.root, filepath.FromSlash(g.mod))
	data, err := os.ReadFile(filepath.Join(abs, "go.mod"))
	if err != nil {
		return false
	}
	f, err := modfile.Parse("go.mod", data, nil)
	if err != nil || f.Module == nil || f.Module.Mod.Path == "" {
		return false
	}
	g.path = f.Module.Mod.Path
	for _, r := range f.Replace {
		if modfile.IsDirectoryPath(r.New.Path) {
			return false
		}
	}
	if _, err := os.Stat(filepath.Join(abs, "vendor")); err == nil {
		return false
	}
	return true
}

// closure is the scope's globs for the packages in dirs (root-relative
// folders) and every package of the module they import; false when a
// package's imports could not all be read.
func (g *goGraph) closure(dirs []string) ([]string, bool) {
	seen := map[string]bool{}
	var out []string
	for len(dirs) > 0 {
		dir := dirs[0]
		dirs = dirs[1:]
		if seen[dir] {
			continue
		}
		seen[dir] = true
		imported, embeds, ok := g.read(dir)
		if !ok {
			return nil, false
		}
		out = append(out, join(dir, "*"), join(dir, "testdata/**"))
		for _, e := range embeds {
			out = append(out, join(dir, e))
		}
		for _, p := range imported {
			if p == g.path || strings.HasPrefix(p, g.path+"/") {
				dirs = append(dirs, join(g.mod, strings.TrimPrefix(strings.TrimPrefix(p, g.path), "/")))
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out), true
}

// read returns the imports of every Go file in dir, and the globs of the
// folders its //go:embed lines name (each folder whole); false when a file
// could not be read or parsed, or names a path above its folder in a
// string (leavesFolder). A folder that cannot be listed has no package.
func (g *goGraph) read(dir string) (imports, embeds []string, ok bool) {
	abs := filepath.Join(g.root, filepath.FromSlash(dir))
	list, err := os.ReadDir(abs)
	if err != nil {
		return nil, nil, true
	}
	fset := token.NewFileSet()
	for _, d := range list {
		if d.IsDir() || !strings.HasSuffix(d.Name(), ".go") {
			continue
		}
		src, err := os.ReadFile(filepath.Join(abs, d.Name()))
		if err != nil {
			return nil, nil, false
		}
		f, err := parser.ParseFile(fset, d.Name(), src, parser.ImportsOnly)
		if err != nil || leavesFolder(src, ".") {
			return nil, nil, false
		}
		for _, is := range f.Imports {
			if p, err := strconv.Unquote(is.Path.Value); err == nil {
				imports = append(imports, p)
			}
		}
		embeds = append(embeds, embedGlobs(src)...)
	}
	return imports, embeds, true
}

// embedGlobs are the folders a file's //go:embed lines name, each as
// FOLDER/**: a pattern's part before its first slash (a pattern naming a
// folder embeds all under it; one naming a file of the package's folder is
// in dir/* already). A pattern whose first part is a glob, or that cannot
// be read, gives "**": everything under the package.
func embedGlobs(src []byte) []string {
	var out []string
	for line := range bytes.Lines(src) {
		rest, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte("//go:embed"))
		if !ok {
			continue
		}
		for _, pat := range embedPatterns(string(rest)) {
			pat = strings.TrimPrefix(pat, "all:")
			first, _, _ := strings.Cut(pat, "/")
			if first == "" || first == "." || first == ".." || strings.ContainsAny(first, "*?[\\") {
				out = append(out, "**")
				continue
			}
			out = append(out, first+"/**")
		}
	}
	return out
}

// embedPatterns splits a //go:embed line's patterns: words, or Go string
// literals for names with spaces. One that does not parse is "" (read as
// everything).
func embedPatterns(s string) []string {
	var out []string
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		if s[0] == '"' || s[0] == '`' {
			lit, err := strconv.QuotedPrefix(s)
			if err != nil {
				return append(out, "")
			}
			v, _ := strconv.Unquote(lit)
			out, s = append(out, v), s[len(lit):]
			continue
		}
		end := strings.IndexAny(s, " \t")
		if end < 0 {
			end = len(s)
		}
		out, s = append(out, s[:end]), s[end:]
	}
	return out
}

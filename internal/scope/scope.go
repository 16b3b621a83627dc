package scope

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/freshctx/freshctx/internal/freshness"
	"github.com/freshctx/freshctx/internal/rx"
)

// MaxFiles bounds the walk that looks for changed inputs; past it the
// answer is incomplete and says so.
const MaxFiles = 20000

// SkipDirs are never inputs: version control, dependencies, build output.
var SkipDirs = map[string]bool{".git": true, ".hg": true, ".svn": true, ".freshctx": true, "node_modules": true,
	"target": true, "__pycache__": true, ".pytest_cache": true, ".mypy_cache": true, ".venv": true,
	"venv": true, ".tox": true}

// Of chooses the scope of a command run in cwd (root-relative).
// A shell line (sh -c LINE) is read with a shell parser: the scope is that
// of every command it runs, after the cd before it, where a command that
// only filters or prints (`| tail -n 50`, `| grep FAIL`, echo) reads no
// file; an unknown command, a word that expands ($PKG) or a line that does
// not parse makes it the whole work tree.
func Of(root, cwd string, argv []string) []string {
	return scoper{root: root}.scope(cwd, argv)
}

// Named is Of without the packages a go command's packages
// import: the folders it names, where its output's paths are looked for.
func Named(root, cwd string, argv []string) []string {
	return scoper{root: root, named: true}.scope(cwd, argv)
}

// scoper chooses scopes in one work tree.
type scoper struct {
	root string
	// named leaves out the packages of the module that a go command's
	// packages import (goScope).
	named bool
}

func (sc scoper) scope(cwd string, argv []string) []string {
	if len(argv) == 3 && shells[path.Base(argv[0])] && argv[1] == "-c" {
		return sc.shell(cwd, argv[2])
	}
	return sc.call(cwd, argv)
}

// shells are the programs whose -c LINE is a shell line.
var shells = map[string]bool{"sh": true, "bash": true, "zsh": true, "dash": true}

// everything is the scope of a command freshctx cannot tell the inputs of.
var everything = []string{"**"}

// call is the scope of one command's words.
func (sc scoper) call(cwd string, words []string) []string {
	root := sc.root
	words = skipLaunchers(words)
	if len(words) == 0 || slices.Contains(words, "") {
		return everything
	}
	tool := path.Base(words[0])
	switch {
	case tool == "go" && len(words) > 1 && words[1] == "run" && !sc.named:
		return everything // the program it builds reads what it is told to
	case tool == "go" && len(words) > 1 && (isGoBuildVerb(words[1]) || words[1] == "run"):
		return goScope(root, cwd, words[2:], !sc.named)
	case tool == "cargo" || tool == "cargo-clippy":
		return sc.project(cwd, "Cargo.toml")
	case isProjectTool(words):
		return sc.project(cwd, "package.json", "pyproject.toml", "setup.py", "setup.cfg", "tsconfig.json")
	}
	return everything
}

// project is the folder of the nearest project file (markers) from cwd,
// whole; the folder of a workspace it belongs to (workspaceAt), whole; and
// the work tree where a project file or a source file may name a file or
// package outside that folder (reachesOut, sourcesReachOut), which named
// scopes do not look for.
func (sc scoper) project(cwd string, markers ...string) []string {
	root := sc.root
	dir := ProjectDir(root, cwd, markers...)
	for d := dir; ; d = path.Dir(d) {
		if workspaceAt(root, d) {
			dir = d
		}
		if d == "." || d == "/" || d == "" {
			break
		}
	}
	if !sc.named && (reachesOut(root, dir) || sourcesReachOut(root, dir)) {
		return everything
	}
	return []string{join(dir, "**")}
}

// sourceExts are the files whose strings may name a file to read or a
// module to import by a relative path.
var sourceExts = map[string]bool{".rs": true, ".py": true, ".js": true, ".mjs": true, ".cjs": true, ".jsx": true,
	".ts": true, ".tsx": true, ".mts": true, ".cts": true, ".vue": true, ".svelte": true}

// maxProjectSources bounds the files sourcesReachOut reads; past it the
// project is taken to reach out.
const maxProjectSources = 5000

// sourcesReachOut reports whether a source file of the project in dir
// names, in a string, a path relative to its own folder that leaves the
// project's (require("../../shared/x"), include_str!("../../data"),
// sys.path.insert(0, "..")): files outside the project are then inputs of
// its tests. A string that is ".." alone counts where it is an argument
// (a path join), not where it is compared. A project of more than maxProjectSources source files counts,
// as one whose walk stops (treeFiles: a folder it cannot read, more than
// MaxFiles files).
func sourcesReachOut(root, dir string) bool {
	abs := filepath.Join(root, filepath.FromSlash(dir))
	files, err := TreeFiles(abs)
	if err != nil {
		return true // a folder it cannot read, or past the walk's bound, may hold such a file
	}
	n := 0
	for _, rel := range files {
		if !sourceExts[path.Ext(rel)] || hiddenFolder(rel) {
			continue
		}
		if n++; n > maxProjectSources {
			return true
		}
		src, err := os.ReadFile(filepath.Join(abs, filepath.FromSlash(rel)))
		if err != nil || leavesFolder(src, path.Dir(rel)) {
			return true
		}
	}
	return false
}

// hiddenFolder reports a path under a folder whose name starts with ".".
func hiddenFolder(rel string) bool {
	for _, seg := range strings.Split(path.Dir(rel), "/") {
		if strings.HasPrefix(seg, ".") && seg != "." {
			return true
		}
	}
	return false
}

// leavesFolder reports a string literal in src that starts with "../" and,
// taken from the folder from (relative to the project's), leads out of
// the project, or that is ".." given as an argument (joined).
func leavesFolder(src []byte, from string) bool {
	for _, q := range []byte{'"', '\'', '`'} {
		for i := 0; ; {
			j := bytes.Index(src[i:], []byte{q, '.', '.'})
			if j < 0 {
				break
			}
			i += j + 1
			end := bytes.IndexAny(src[i:], string([]byte{q, '\n'}))
			if end < 0 {
				end = len(src) - i
			}
			lit := string(src[i : i+end])
			if (lit == ".." && joined(src[i+end:])) || (strings.HasPrefix(lit, "../") && escapes(path.Join(from, lit))) {
				return true
			}
		}
	}
	return false
}

// joined reports that the string a literal ".." ends (rest starts at its
// closing quote) is an argument, as in filepath.Join("..", "x") or
// os.path.join(here, '..'), not a value compared (rel == "..").
func joined(rest []byte) bool {
	if len(rest) == 0 {
		return true // no closing quote: it cannot be told
	}
	rest = bytes.TrimLeft(rest[1:], " \t")
	return len(rest) == 0 || rest[0] == ',' || rest[0] == ')'
}

// escapes reports a cleaned relative path that leads above its start.
func escapes(rel string) bool { return rel == ".." || strings.HasPrefix(rel, "../") }

// projectFiles are the files that say what a project is made of and
// where its tools look: its manifests and the test runners' and
// compilers' configurations.
var projectFiles = []string{"Cargo.toml", "package.json", "pyproject.toml", "setup.py", "setup.cfg", "tsconfig.json",
	"jest.config.js", "jest.config.ts", "jest.config.mjs", "vitest.config.ts", "vitest.config.js", "vite.config.ts",
	"vite.config.js", "pytest.ini", "tox.ini", "conftest.py", ".mocharc.json", ".mocharc.js"}

// workspaceAt reports a folder that declares a workspace of projects,
// whose members may use each other: Cargo's [workspace], npm's and yarn's
// "workspaces", pnpm-workspace.yaml, lerna.json, uv's [tool.uv.workspace].
func workspaceAt(root, dir string) bool {
	abs := filepath.Join(root, filepath.FromSlash(dir))
	for _, f := range []string{"pnpm-workspace.yaml", "lerna.json"} {
		if _, err := os.Stat(filepath.Join(abs, f)); err == nil {
			return true
		}
	}
	has := func(file, text string) bool {
		data, err := os.ReadFile(filepath.Join(abs, file))
		return err == nil && bytes.Contains(data, []byte(text))
	}
	return has("Cargo.toml", "[workspace]") || has("package.json", `"workspaces"`) || has("pyproject.toml", "[tool.uv.workspace]")
}

// reachesOut reports whether a project file of dir may name something
// outside it: a parent folder ("../"), a dependency by path (Cargo's and
// Poetry's path =, uv's sources, npm's file:, link: and portal:), a
// file:// URL. Any such text counts, wherever it is: the scope is then
// wider than it needs to be, never narrower.
func reachesOut(root, dir string) bool {
	abs := filepath.Join(root, filepath.FromSlash(dir))
	for _, f := range projectFiles {
		data, err := os.ReadFile(filepath.Join(abs, f))
		if err != nil {
			continue
		}
		if bytes.Contains(data, []byte("../")) || bytes.Contains(data, []byte("file:")) ||
			bytes.Contains(data, []byte("link:")) || bytes.Contains(data, []byte("portal:")) ||
			hasPathKey(data) {
			return true
		}
	}
	return false
}

// hasPathKey reports a TOML key "path" given a value (path = …), as
// Cargo's and Poetry's path dependencies and uv's sources write it.
func hasPathKey(data []byte) bool {
	for from := 0; ; {
		i := bytes.Index(data[from:], []byte("path"))
		if i < 0 {
			return false
		}
		i += from
		from = i + len("path")
		if i > 0 && rx.IsWordByte(data[i-1]) {
			continue
		}
		rest := bytes.TrimLeft(data[from:], " \t")
		if len(rest) > 0 && rest[0] == '=' {
			return true
		}
	}
}

// shell is the scope of a shell line: the union of its commands'.
func (sc scoper) shell(cwd, line string) []string {
	calls, redirect := parseShell(line)
	if redirect {
		return everything // < FILE: a file no command's words name
	}
	var out []string
	for _, c := range calls {
		c = skipLaunchers(c)
		switch {
		case len(c) == 0:
			continue // an assignment alone
		case c[0] == "cd":
			if len(c) != 2 || c[1] == "" || c[1] == "-" || path.IsAbs(c[1]) || strings.HasPrefix(c[1], "~") {
				return everything
			}
			if cwd = path.Join(cwd, c[1]); cwd == ".." || strings.HasPrefix(cwd, "../") {
				return everything
			}
			continue
		case readsNoFile(c):
			continue
		}
		scope := sc.call(cwd, c)
		if slices.Equal(scope, everything) {
			return everything
		}
		for _, g := range scope {
			if !slices.Contains(out, g) {
				out = append(out, g)
			}
		}
	}
	if len(out) == 0 {
		return everything
	}
	return out
}

// skipLaunchers drops what runs before the command: environment settings,
// env, npx, exec, time.
func skipLaunchers(words []string) []string {
	for len(words) > 0 && (strings.Contains(words[0], "=") || words[0] == "env" || words[0] == "npx" ||
		words[0] == "exec" || words[0] == "time") {
		words = words[1:]
	}
	return words
}

// readsNoFile reports a command that reads only its input and writes only
// its output or files it names (tee): printing, filtering a pipe. Any word
// that may name a file to read makes it false.
func readsNoFile(words []string) bool {
	var operands []string
	for _, w := range words[1:] {
		if !strings.HasPrefix(w, "-") || w == "-" {
			operands = append(operands, w)
		}
	}
	numbers := func() bool {
		for _, o := range operands {
			if strings.Trim(o, "0123456789+") != "" {
				return false
			}
		}
		return true
	}
	switch path.Base(words[0]) {
	case "echo", "printf", "true", "false", ":", "tee", "set", "export", "unset":
		return true
	case "head", "tail":
		return numbers() // -n 50
	case "cat", "sort", "uniq", "wc":
		return len(operands) == 0
	case "grep", "egrep", "fgrep":
		for _, w := range words[1:] {
			if strings.HasPrefix(w, "-") && strings.ContainsAny(strings.TrimLeft(w, "-"), "frRd") {
				return false // a file of patterns, a recursive search
			}
		}
		return len(operands) == 1 // the pattern
	}
	return false
}

func isGoBuildVerb(v string) bool {
	switch v {
	case "test", "build", "vet", "install":
		return true
	}
	return false
}

func isProjectTool(words []string) bool {
	tool := path.Base(words[0])
	switch tool {
	case "pytest", "py.test", "jest", "vitest", "tsc", "mocha", "tox", "nox", "eslint":
		return true
	case "npm", "pnpm", "yarn", "bun":
		return len(words) > 1 && (words[1] == "test" || words[1] == "run" || words[1] == "t")
	}
	if strings.HasPrefix(tool, "python") {
		for i, w := range words {
			if w == "-m" && i+1 < len(words) && (words[i+1] == "pytest" || words[i+1] == "unittest") {
				return true
			}
		}
	}
	return false
}

// ProjectDir is the nearest folder from cwd up to the root holding one of
// the marker files, else cwd.
func ProjectDir(root, cwd string, markers ...string) string {
	for dir := cwd; ; dir = path.Dir(dir) {
		for _, m := range markers {
			if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(dir), m)); err == nil {
				return dir
			}
		}
		if dir == "." || dir == "/" || dir == "" {
			return cwd
		}
	}
}

func join(dir, rest string) string {
	if dir == "." || dir == "" {
		return rest
	}
	return dir + "/" + rest
}

// matchScope reports whether a root-relative path is in the scope.
func matchScope(scope []string, p string) bool {
	for _, g := range scope {
		if g == "**" {
			return true // every path: the walk of a whole tree splits none
		}
		if matchGlob(strings.Split(g, "/"), strings.Split(p, "/")) {
			return true
		}
	}
	return false
}

func matchGlob(pat, segs []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for i := 0; i <= len(segs); i++ {
				if matchGlob(pat[1:], segs[i:]) {
					return true
				}
			}
			return false
		}
		if len(segs) == 0 {
			return false
		}
		if ok, err := path.Match(pat[0], segs[0]); err != nil || !ok {
			return false
		}
		pat, segs = pat[1:], segs[1:]
	}
	return len(segs) == 0
}

// scopeDirMatch reports whether a folder may hold files of the scope.
func scopeDirMatch(scope []string, dir string) bool {
	if dir == "." {
		return true
	}
	if slices.Contains(scope, "**") {
		return true
	}
	segs := strings.Split(dir, "/")
	for _, g := range scope {
		pat := strings.Split(g, "/")
		if prefixMatch(pat, segs) {
			return true
		}
	}
	return false
}

// prefixMatch: could a path below the folder segs match pat?
func prefixMatch(pat, segs []string) bool {
	for i, s := range segs {
		if i >= len(pat) {
			return false
		}
		if pat[i] == "**" {
			return true
		}
		if ok, _ := path.Match(pat[i], s); !ok {
			return false
		}
	}
	return true
}

// maxChangedPaths is how many changed paths a result names.
const maxChangedPaths = 5

// Times is one walk of a scope: the change time (the later of mtime
// and ctime) of every file and folder in it changed at or after the walk's
// "since" (freshness.StampedSince), latest first.
type Times struct {
	entries  []scopeEntry
	complete bool
	// left are the files of the scope the walk did not stat (WalkLeaving),
	// for Fill; walk is what Fill stats them with.
	left []leftFile
	walk *scopeWalk
}

// leftFile is a file of the scope WalkLeaving listed and did not stat.
type leftFile struct {
	path string
	link bool
}

type scopeEntry struct {
	path string
	at   time.Time
	dir  bool
}

// name is how a changed entry is shown: a folder (whose entries changed)
// with a trailing slash, the root as "./".
func (e scopeEntry) name() string {
	switch {
	case e.dir && e.path == ".":
		return "./"
	case e.dir:
		return e.path + "/"
	}
	return e.path
}

// Walk stats every file and folder of scope under root and keeps
// those changed at or after since (the oldest record asking): in a large tree
// almost every file is older, and neither its path nor its place in the
// order is needed. Folders are read side by side, walkers at a time:
// the walk is a stat per file, and a stat is a system call.
func Walk(root string, scope []string, since time.Time) Times {
	return WalkLeaving(root, scope, since, nil)
}

// WalkLeaving is Walk but for the files leave (nil: none) says another
// stat judges: a record's check stats the files it names, and a file it
// finds fresh counts as unchanged whatever its times say (ChangedSince's
// same), so the walk need not stat it too. They are listed (Left), and
// Fill stats those that must be judged by their times after all. leave is
// called from several goroutines at once.
func WalkLeaving(root string, scope []string, since time.Time, leave func(rel string) bool) Times {
	w := &scopeWalk{scope: scope, root: root, since: since, leave: leave, sem: make(chan struct{}, walkers)}
	w.complete.Store(true)
	if real, err := filepath.EvalSymlinks(root); err == nil {
		w.realRoot = real
	} else {
		w.realRoot = root
	}
	if info, err := os.Lstat(root); err != nil {
		return Times{}
	} else if at := freshness.ChangeTime(info); freshness.StampedSince(at, since) {
		w.entries = append(w.entries, scopeEntry{path: ".", at: at, dir: true})
	}
	w.wg.Add(1)
	w.dir(root, "")
	w.wg.Wait()
	slices.SortFunc(w.entries, func(a, b scopeEntry) int { return b.at.Compare(a.at) })
	slices.SortFunc(w.left, func(a, b leftFile) int { return strings.Compare(a.path, b.path) })
	return Times{entries: w.entries, complete: w.complete.Load(), left: w.left, walk: w}
}

// Left are the files of the scope the walk listed and left to another
// stat (WalkLeaving), in path order.
func (st Times) Left() []string {
	out := make([]string, len(st.left))
	for i, f := range st.left {
		out[i] = f.path
	}
	return out
}

// Fill stats each of the files the walk left that judge says must be
// judged by its times (one the check did not find fresh), as the walk
// would have, and keeps it if it changed since the walk's since. A file
// gone since the folder was read is passed over, as the walk passes it.
func (st *Times) Fill(judge func(rel string) bool) {
	if st.walk == nil {
		return
	}
	w := st.walk
	added := false
	for _, f := range st.left {
		if !judge(f.path) {
			continue
		}
		abs := filepath.Join(w.root, filepath.FromSlash(f.path))
		info, err := os.Lstat(abs)
		if err != nil {
			continue
		}
		at := freshness.ChangeTime(info)
		if f.link {
			at = w.throughLink(abs, at)
		}
		if freshness.StampedSince(at, w.since) {
			st.entries = append(st.entries, scopeEntry{path: f.path, at: at})
			added = true
		}
	}
	st.complete = st.complete && w.complete.Load()
	if added {
		slices.SortFunc(st.entries, func(a, b scopeEntry) int { return b.at.Compare(a.at) })
	}
}

// walkers is how many folders are read at once.
const walkers = 4

type scopeWalk struct {
	scope    []string
	root     string
	realRoot string // the root with its symlinks resolved
	since    time.Time
	leave    func(rel string) bool // files another stat judges (WalkLeaving)
	sem      chan struct{}
	wg       sync.WaitGroup
	seen     atomic.Int64
	complete atomic.Bool

	mu      sync.Mutex
	entries []scopeEntry
	left    []leftFile
}

// dir reads one folder (rel "" is the root), stats what is in scope and
// walks its sub-folders in goroutines of their own.
func (w *scopeWalk) dir(abs, rel string) {
	defer w.wg.Done()
	w.sem <- struct{}{}
	list, folder, err := readFolder(abs)
	if err != nil {
		w.complete.Store(false)
	}
	if folder != nil {
		defer folder.Close()
	}
	var found []scopeEntry
	var left []leftFile
	var subs []string
	for _, d := range list {
		r := d.Name()
		if rel != "" {
			r = rel + "/" + r
		}
		if d.IsDir() {
			if SkipDirs[d.Name()] || !scopeDirMatch(w.scope, r) {
				continue
			}
			subs = append(subs, r)
		} else if !matchScope(w.scope, r) {
			continue
		}
		if w.seen.Add(1) > MaxFiles {
			w.complete.Store(false)
			subs = nil
			break
		}
		if !d.IsDir() && w.leave != nil && w.leave(r) {
			left = append(left, leftFile{path: r, link: d.Type()&fs.ModeSymlink != 0})
			continue
		}
		info, err := freshness.LstatIn(folder, d.Name())
		if err != nil {
			continue // gone since the folder was read
		}
		at := info.Changed()
		if d.Type()&fs.ModeSymlink != 0 {
			at = w.throughLink(filepath.Join(abs, d.Name()), at)
		}
		if freshness.StampedSince(at, w.since) {
			found = append(found, scopeEntry{path: r, at: at, dir: d.IsDir()})
		}
	}
	<-w.sem
	if len(found) > 0 || len(left) > 0 {
		w.mu.Lock()
		w.entries = append(w.entries, found...)
		w.left = append(w.left, left...)
		w.mu.Unlock()
	}
	for _, r := range subs {
		w.wg.Add(1)
		go w.dir(filepath.Join(abs, filepath.Base(r)), r)
	}
}

// readFolder lists the folder at abs, sorted by name as os.ReadDir does,
// and keeps it open for its entries' stats (freshness.LstatIn). What it
// could list before an error is returned with it.
func readFolder(abs string) ([]fs.DirEntry, *os.File, error) {
	f, err := freshness.OpenFolder(abs)
	if err != nil {
		return nil, nil, err
	}
	list, err := f.ReadDir(-1)
	slices.SortFunc(list, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return list, f, err
}

// throughLink is the change time of a symlink of the scope: the later of
// the link's (at) and its target's, whose bytes are what a command reading
// the link reads. A target the walk does not reach on its own makes the
// answer incomplete: one outside the root or not found (the link may
// resolve later), or a folder outside the scope, whose files go unseen.
func (w *scopeWalk) throughLink(abs string, at time.Time) time.Time {
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		w.complete.Store(false)
		return at
	}
	if info, err := os.Stat(real); err == nil {
		if t := freshness.ChangeTime(info); t.After(at) {
			at = t
		}
		rel, err := filepath.Rel(w.realRoot, real)
		inside := err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
		if !inside || (info.IsDir() && !w.walks(filepath.ToSlash(rel))) {
			w.complete.Store(false)
		}
	} else {
		w.complete.Store(false)
	}
	return at
}

// walks reports whether the walk reads the root-relative folder dir: it
// may hold files of the scope and no folder on its way is skipped.
func (w *scopeWalk) walks(dir string) bool {
	if dir == "." {
		return true
	}
	for _, seg := range strings.Split(dir, "/") {
		if SkipDirs[seg] {
			return false
		}
	}
	return scopeDirMatch(w.scope, dir)
}

// ChangedSince counts the scope's files changed at or after start, by the
// file clock (a change in start's timer tick may be the command's), and
// its folders whose entries changed after end (the run itself may add
// __pycache__ and the like while it runs), naming the latest changed
// first. A file in same
// is not counted: the record's check found its bytes the ones stamped as
// the command ended (touched, or changed and changed back), which a time
// cannot tell.
//
// A folder whose entries changed while the command ran may have lost an
// input then (a file deleted or renamed away, which leaves nothing to find
// by its time): the answer is not complete. The root is the exception:
// freshctx makes its store there as a first run starts, so a change of its
// entries while a command ran is not told from that.
func (st Times) ChangedSince(start, end time.Time, same map[string]bool) *freshness.InputsChanged {
	out := &freshness.InputsChanged{Complete: st.complete, Paths: []string{}}
	if !st.complete {
		out.Unchecked = "the search of the scope stopped at its bound or at a folder or link it could not follow"
	}
	for _, e := range st.entries {
		if !freshness.StampedSince(e.at, start) {
			continue
		}
		if e.dir && !e.at.After(end) {
			// The root's entries change when freshctx makes its store there
			// as the first run starts: that change is its own.
			if out.Unchecked == "" && e.path != "." {
				out.Complete = false
				out.Unchecked = fmt.Sprintf("%s changed while the command ran: an input may have been removed then", e.name())
			}
			continue
		}
		if !e.dir && same[e.path] {
			continue
		}
		out.Count++
		if len(out.Paths) < maxChangedPaths {
			out.Paths = append(out.Paths, e.name())
		}
	}
	return out
}

// Dirs are the folders a scope names before any wildcard (args for
// "args/*"), where a tool may print paths relative to.
func Dirs(scope []string) []string {
	var out []string
	for _, g := range scope {
		segs := strings.Split(g, "/")
		n := 0
		for n < len(segs)-1 && !strings.ContainsAny(segs[n], "*?[") {
			n++
		}
		if n == 0 {
			continue
		}
		if d := strings.Join(segs[:n], "/"); !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// ErrTooManyFiles stops TreeFiles at MaxFiles.
var ErrTooManyFiles = errors.New("more files than a walk reads")

// TreeFiles lists the regular files under root, root-relative, as the
// input scope's walk sees them (SkipDirs are left out), up to
// MaxFiles; past it, or where a folder cannot be read, it fails.
func TreeFiles(root string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && SkipDirs[d.Name()] {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if len(out) >= MaxFiles {
			return ErrTooManyFiles
		}
		rel, err := filepath.Rel(root, p)
		out = append(out, filepath.ToSlash(rel))
		return err
	})
	return out, err
}

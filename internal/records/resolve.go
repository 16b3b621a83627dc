package records

import (
	"context"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/freshctx/freshctx/internal/freshness"
	"github.com/freshctx/freshctx/internal/refs"
	"github.com/freshctx/freshctx/internal/scope"
	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/workspace"
)

// maxStamped bounds the files one record stamps; the ones past it are kept
// with NoteNotStamped, so the record says it cannot vouch for them.
const maxStamped = 5000

// candidates turns references into root-relative paths to consider, in
// order of appearance: relative paths against the command's directory and
// then the root, Java frames against the usual source roots. Paths outside
// the root are dropped.
//
// printed is, beside each, the path as the output printed it, for a
// reference that names a file by a relative path (elsewhere); "" for
// others.
func candidates(ws *workspace.Workspace, cwd string, rs []refs.Ref, dirsOf func(i int) []string) (out [][]string, printed []string) {
	out = make([][]string, 0, len(rs))
	for i, r := range rs {
		var alts []string
		name := ""
		if r.JavaClass != "" {
			alts = refs.JavaCandidates(r)
		} else {
			dirs := dirsOf(i)
			if r.Alt != "" { // the wider reading first (refs.Ref)
				alts = pathCandidates(ws, cwd, r.Alt, dirs)
			}
			alts = append(alts, pathCandidates(ws, cwd, r.Path, dirs)...)
			if !filepath.IsAbs(r.Path) {
				name = r.Path
			}
		}
		if len(alts) > 0 {
			out, printed = append(out, alts), append(printed, name)
		}
	}
	return out, printed
}

// pathCandidates are the root-relative paths a path in output may name.
func pathCandidates(ws *workspace.Workspace, cwd, p string, dirs []string) []string {
	if filepath.IsAbs(p) {
		if rel, err := ws.Rel(p, "/"); err == nil {
			return []string{rel}
		}
		return nil
	}
	var alts []string
	if rel, err := ws.Rel(p, cwd); err == nil {
		alts = append(alts, rel)
	}
	if rel, err := ws.Rel(p, ws.Root); err == nil {
		alts = append(alts, rel)
	}
	// The folders are root-relative already: joining is enough (a path
	// that climbs out of the root is dropped), and cheap, since a big
	// build can ask it for every path in every folder.
	for _, d := range dirs {
		if rel, err := workspace.Clean(path.Join(d, filepath.ToSlash(p))); err == nil {
			alts = append(alts, rel)
		}
	}
	return alts
}

// pick keeps, for each reference, every alternative that is a regular
// file: a path in output that more than one file could be (calc_test.go of
// `go test ./a ./b`, where both packages have one) stamps them all, since
// stamping one guess would vouch for the other unseen. With none, it keeps
// the first one git reports deleted. Deduplicated. freshctx's own store
// (own) is never one: it changes with every command, the record's own
// saving included, so naming it would make every record stale at once.
//
// unplaced are the indexes of the references none of whose alternatives
// is a file or a deleted one.
func pick(look *listings, alts [][]string, deleted, own func(string) bool) (out []string, unplaced []int) {
	seen := map[string]bool{}
	keep := func(rel string) {
		if !seen[rel] {
			seen[rel] = true
			out = append(out, rel)
		}
	}
	for i, as := range alts {
		as = slices.DeleteFunc(slices.Clone(as), func(rel string) bool { return rel == "." || own(rel) })
		found := false
		for _, rel := range as {
			if look.regular(rel) {
				keep(rel)
				found = true
			}
		}
		if found {
			continue
		}
		for _, rel := range as {
			if !look.exists(rel) && deleted(rel) {
				keep(rel)
				found = true
				break
			}
		}
		if !found && len(as) > 0 {
			unplaced = append(unplaced, i)
		}
	}
	return out, unplaced
}

// mayBeUnplaced are the printed names (printed) of the references none
// of whose alternatives is a regular file: the names pick may leave
// unplaced, once git's status has said which of them are deleted.
func mayBeUnplaced(look *listings, alts [][]string, printed []string) []string {
	var names []string
	for i, as := range alts {
		if printed[i] != "" && !slices.ContainsFunc(as, look.regular) {
			names = append(names, printed[i])
		}
	}
	return names
}

// maxElsewhere bounds the files one unplaced reference is stamped as; a
// name more files end with is kept unstamped (the record is then at best
// unknown).
const maxElsewhere = 20

// elsewhere places references no folder freshctx looks in holds: the
// output named y.go, which is deep/x/y.go. Each is stamped as every file of
// the work tree (tracked, or untracked and not ignored) whose path ends
// with the printed one, as pick stamps every folder's: guessing one would
// vouch for the others unseen. A name no file ends with names no file of
// the work tree. One that more than maxElsewhere files end with is
// returned in over, to be kept unstamped. Outside git the files are those
// a walk of the tree finds (treeFiles). Where the list cannot be had (git
// failed, the walk stopped at its bound), every name is returned in over.
//
// The list is one git process of a few milliseconds and more in a large
// tree: keep starts it (startElsewhere) when the references are known,
// beside the status its snapshot waits for, rather than after it; place
// waits for it only when names are left unplaced.
type elsewhere struct {
	cancel context.CancelFunc
	done   chan struct{}
	files  []string
	err    error
}

// startElsewhere lists the work tree's files on a goroutine of its own
// when any of maybe may be left unplaced; else it lists nothing until
// place is asked.
func (s *Service) startElsewhere(ctx context.Context, maybe []string) *elsewhere {
	e := &elsewhere{cancel: func() {}}
	if len(maybe) == 0 {
		return e
	}
	ctx, e.cancel = context.WithCancel(ctx)
	e.done = make(chan struct{})
	go func() {
		defer close(e.done)
		e.files, e.err = s.workFiles(ctx)
	}()
	return e
}

// stop ends a listing no name is left to place with, and waits for it.
func (e *elsewhere) stop() {
	e.cancel()
	if e.done != nil {
		<-e.done
	}
}

// place returns the files each of names is placed at, and the names more
// than maxElsewhere files end with (or all of them, where the list could
// not be had). A name not among those the listing was started for is
// placed all the same: the listing is made then.
func (s *Service) place(ctx context.Context, e *elsewhere, names []string) (found, over []string) {
	if len(names) == 0 {
		e.stop()
		return nil, nil
	}
	if e.done == nil {
		e.files, e.err = s.workFiles(ctx)
	} else {
		<-e.done
		e.cancel()
	}
	if e.err != nil {
		// Not all could be searched: none is placed for sure, and the
		// record is still kept, not failed for it.
		return nil, names
	}
	// The work tree's files by base name, of the names asked for alone: a
	// tree has thousands of files and a run names a few.
	byBase := make(map[string][]string, len(names))
	for _, name := range names {
		byBase[path.Base(path.Clean(filepath.ToSlash(name)))] = nil
	}
	for _, f := range e.files {
		if list, ok := byBase[path.Base(f)]; ok {
			byBase[path.Base(f)] = append(list, f)
		}
	}
	for _, name := range names {
		name = path.Clean(filepath.ToSlash(name))
		if name == "." || name == ".." || strings.HasPrefix(name, "../") {
			continue
		}
		var matches []string
		for _, f := range byBase[path.Base(name)] {
			if f == name || strings.HasSuffix(f, "/"+name) {
				matches = append(matches, strings.Clone(f)) // not the whole listing's string, which it is cut from
			}
		}
		if len(matches) > maxElsewhere {
			over = append(over, name)
			continue
		}
		found = append(found, matches...)
	}
	return found, over
}

// workFiles lists the work tree's files: git's tracked and untracked but
// not ignored ones, or outside git those a walk of the tree finds.
func (s *Service) workFiles(ctx context.Context) ([]string, error) {
	if s.WS.Git != nil {
		return s.WS.Git.LsFiles(ctx)
	}
	return scope.TreeFiles(s.WS.Root)
}

// listings answers whether paths exist from one listing of each folder
// asked about: pick asks of every path in every folder a build named, and
// a stat each cost seconds for thousands of paths in hundreds of folders.
// A folder that cannot be listed is answered by stat.
type listings struct {
	ws      *workspace.Workspace
	folders map[string]map[string]fs.FileMode // nil: could not be listed
}

func newListings(ws *workspace.Workspace) *listings {
	return &listings{ws: ws, folders: map[string]map[string]fs.FileMode{}}
}

// entry returns what lstat would say of rel's type, and whether the
// listing could answer at all.
func (l *listings) entry(rel string) (mode fs.FileMode, found, answered bool) {
	dir, name := path.Split(rel)
	dir = strings.TrimSuffix(dir, "/")
	names, ok := l.folders[dir]
	if !ok {
		names = l.list(dir)
		l.folders[dir] = names
	}
	if names == nil {
		return 0, false, false
	}
	mode, found = names[name]
	return mode, found, true
}

func (l *listings) list(dir string) map[string]fs.FileMode {
	if dir == "" {
		dir = "."
	}
	entries, err := os.ReadDir(l.ws.Abs(dir))
	if freshness.Absent(err) {
		return map[string]fs.FileMode{} // no such folder: nothing in it
	}
	if err != nil {
		return nil
	}
	names := make(map[string]fs.FileMode, len(entries))
	for _, e := range entries {
		names[e.Name()] = e.Type()
	}
	return names
}

// regular reports whether rel is a regular file, through a symlink too.
func (l *listings) regular(rel string) bool {
	mode, found, answered := l.entry(rel)
	if answered && (!found || mode.IsDir()) {
		return false
	}
	if answered && mode.IsRegular() {
		return true
	}
	fi, err := os.Stat(l.ws.Abs(rel)) // a link, something else, or not listed
	return err == nil && fi.Mode().IsRegular()
}

// exists reports whether anything is at rel, a dangling link included.
func (l *listings) exists(rel string) bool {
	if _, found, answered := l.entry(rel); answered {
		return found
	}
	_, err := os.Lstat(l.ws.Abs(rel))
	return err == nil
}

// ownFiles reports the paths of freshctx's own store: its default folder,
// or a store given inside the work tree with its companions (-wal, -shm,
// -blobs/).
func (s *Service) ownFiles() func(rel string) bool {
	db := ""
	if s.Store != nil {
		if rel, err := s.WS.Rel(s.Store.Path(), "/"); err == nil {
			db = rel
		}
	}
	return func(rel string) bool {
		return rel == store.DirName || strings.HasPrefix(rel, store.DirName+"/") ||
			(db != "" && (rel == db || strings.HasPrefix(rel, db+"-")))
	}
}

func flatten(alts [][]string) []string {
	var out []string
	for _, as := range alts {
		out = append(out, as...)
	}
	return out
}

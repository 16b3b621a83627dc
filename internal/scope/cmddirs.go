package scope

import (
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// A command line moves too: `cd sub && gcc -c util.c` prints util.c:1
// relative to sub. CommandDirs are the folders a command line names as
// where its commands run: after cd or pushd, the value of -C (make, go,
// git, ninja, pnpm), --directory, --prefix and --workspace (npm; a name
// that is no folder finds nothing there) and --cwd (yarn), and the folder
// of cargo's --manifest-path. A chain of cd is followed (cd a && cd b is
// a/b). A word that expands ($VAR, ~, a command's output) names no folder
// that is known, and cd - neither; paths under them are looked for as
// usual. A shell line is read with a shell parser; one it cannot read names
// no folder.
func CommandDirs(argv []string) []string {
	var calls [][]string
	if len(argv) == 3 && shells[path.Base(argv[0])] && argv[1] == "-c" {
		calls = shellCalls(argv[2])
	} else {
		calls = [][]string{argv}
	}
	var out []string
	cur := "."
	add := func(d string) {
		if d != "" && !strings.HasPrefix(d, "~") && d != "-" {
			out = AddDir(out, d)
		}
	}
	for _, words := range calls {
		for i, w := range words {
			next := ""
			if i+1 < len(words) {
				next = words[i+1]
			}
			switch {
			case i == 0 && (w == "cd" || w == "pushd"):
				if next != "" && !strings.HasPrefix(next, "~") && next != "-" {
					if path.IsAbs(next) {
						cur = next
					} else {
						cur = path.Join(cur, next)
					}
					add(cur)
				}
			case next != "" && (w == "-C" || w == "--directory" || w == "--prefix" || w == "--cwd" || w == "--workspace"):
				add(path.Join(cur, next))
			case next != "" && w == "--manifest-path": // cargo: the package's folder
				add(path.Dir(path.Join(cur, next)))
			default:
				for _, flag := range []string{"--directory=", "--prefix=", "--cwd=", "--workspace="} {
					if v, ok := strings.CutPrefix(w, flag); ok && v != "" {
						add(path.Join(cur, v))
					}
				}
				if v, ok := strings.CutPrefix(w, "--manifest-path="); ok && v != "" {
					add(path.Dir(path.Join(cur, v)))
				}
			}
		}
	}
	return out
}

// shellCalls parses a shell line and returns the words of every simple
// command in it, in order; a word that expands is "" (unknown).
func shellCalls(line string) [][]string {
	calls, _ := parseShell(line)
	return calls
}

// parseShell returns the words of every command of a shell line (none if
// it does not parse) and whether a command's input is redirected from a
// file (< FILE, <> FILE), which reads a file its words do not show.
func parseShell(line string) (calls [][]string, readsRedirect bool) {
	f, err := syntax.NewParser().Parse(strings.NewReader(line), "")
	if err != nil {
		return nil, false
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CallExpr:
			if len(n.Args) > 0 {
				words := make([]string, len(n.Args))
				for i, w := range n.Args {
					words[i] = literal(w)
				}
				calls = append(calls, words)
			}
		case *syntax.Redirect:
			readsRedirect = readsRedirect || n.Op == syntax.RdrIn || n.Op == syntax.RdrInOut
		}
		return true
	})
	return calls, readsRedirect
}

// literal is a word's value when nothing in it expands (quotes removed),
// else "".
func literal(w *syntax.Word) string {
	var b strings.Builder
	var parts func(ps []syntax.WordPart) bool
	parts = func(ps []syntax.WordPart) bool {
		for _, p := range ps {
			switch p := p.(type) {
			case *syntax.Lit:
				b.WriteString(p.Value)
			case *syntax.SglQuoted:
				b.WriteString(p.Value)
			case *syntax.DblQuoted:
				if !parts(p.Parts) {
					return false
				}
			default:
				return false
			}
		}
		return true
	}
	if !parts(w.Parts) {
		return ""
	}
	return b.String()
}

// MaxDirs bounds the folders taken from one command line or output, of
// each kind.
const MaxDirs = 1000

// AddDir adds a folder, once, up to MaxDirs; it keeps a copy of d, which
// may be cut from a longer line.
func AddDir(dirs []string, d string) []string {
	if len(dirs) >= MaxDirs || slices.Contains(dirs, d) {
		return dirs
	}
	return append(dirs, strings.Clone(d))
}

// Package corpus reads the compressor corpus: real outputs of real tools,
// each with the facts a digest of it must keep. It lives in
// internal/compress/testdata/corpus (Dir, from the module root), made by
// its generate.sh; the compressor's tests, the recall evaluation and the
// benchmark report read it through Load.
//
// An entry NAME is three files. NAME.cmd: the command line that produced
// the output, then optional "# root DIR" lines (the workspace root it ran
// in). NAME.out: the output, byte for byte. NAME.facts: one fact per line,
// text that must appear verbatim in the summary digest; "!text" must not
// appear (noise that has to go); "@compressor NAME" names the compressor
// that must be chosen; "@diag HEAD | LINE" says a digest keeping LINE
// keeps the headline HEAD; lines starting with '#' and blank lines are
// ignored.
package corpus

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Dir is the corpus, relative to the module root.
const Dir = "internal/compress/testdata/corpus"

// Entry is one output with what its digest must and must not keep.
type Entry struct {
	Name, Cmd, Root, Out string
	Must, MustNot        []string
	Compressor           string
	Diags                []Diag
}

// Diag is a diagnostic's headline and a line under it.
type Diag struct{ Head, Line string }

// Load reads every entry in dir, in name order.
func Load(dir string) ([]Entry, error) {
	cmds, err := filepath.Glob(filepath.Join(dir, "*.cmd"))
	if err != nil {
		return nil, err
	}
	if len(cmds) == 0 {
		return nil, fmt.Errorf("no corpus in %s", dir)
	}
	out := make([]Entry, 0, len(cmds))
	for _, c := range cmds {
		e, err := load(strings.TrimSuffix(c, ".cmd"))
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

func load(base string) (Entry, error) {
	e := Entry{Name: filepath.Base(base)}
	head, err := readLines(base + ".cmd")
	if err != nil {
		return e, err
	}
	if len(head) == 0 {
		return e, fmt.Errorf("corpus entry %s: empty .cmd", e.Name)
	}
	e.Cmd = head[0]
	for _, l := range head[1:] {
		if r, ok := strings.CutPrefix(l, "# root "); ok {
			e.Root = r
		}
	}
	b, err := os.ReadFile(base + ".out")
	if err != nil {
		return e, fmt.Errorf("corpus entry %s: %w", e.Name, err)
	}
	e.Out = string(b)
	facts, err := readLines(base + ".facts")
	if err != nil {
		return e, err
	}
	for _, l := range facts {
		switch {
		case l == "" || strings.HasPrefix(l, "#"):
		case strings.HasPrefix(l, "@compressor "):
			e.Compressor = strings.TrimPrefix(l, "@compressor ")
		case strings.HasPrefix(l, "@diag "):
			head, line, ok := strings.Cut(strings.TrimPrefix(l, "@diag "), " | ")
			if !ok {
				return e, fmt.Errorf("corpus entry %s: @diag wants HEAD | LINE: %q", e.Name, l)
			}
			e.Diags = append(e.Diags, Diag{head, line})
		case strings.HasPrefix(l, "!"):
			e.MustNot = append(e.MustNot, l[1:])
		default:
			e.Must = append(e.Must, l)
		}
	}
	return e, nil
}

func readLines(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("corpus entry: %w", err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines, sc.Err()
}

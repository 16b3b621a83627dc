// Package refs finds file references in tool output of any language:
// `path:line[:col]`, Python's `File "x", line N`, JS/Go/Rust stack frames and
// `--> path:line:col`, tsc's `path(line,col)`, PHP's `in x on line N`,
// C#'s `in x:line N` and Java frames `at pkg.Class.m(Class.java:42)`.
//
// Extraction is purely lexical and cheap; whether a reference names a real
// file is decided by the caller, which knows the workspace.
package refs

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/freshctx/freshctx/internal/rx"
)

// Ref is one reference as written in the output.
type Ref struct {
	Path string
	Line int
	Col  int
	// JavaClass is set for Java frames, whose Path is only a file name:
	// the fully qualified class, e.g. "com.acme.Foo$Inner".
	JavaClass string
	// Alt, when set, is the path read with the non-ASCII bytes written
	// right before Path as part of it: a folder named with accents or in
	// another script (Alt "café/main.go", Path "/main.go"), or a decoration
	// drawn against the path (Alt "│main.go", Path "main.go"). Which one
	// names a file only the workspace can tell: the caller tries Alt first.
	Alt string
}

const pathChars = `[\w.@+~/\\-]`

var (
	python = rx.MustCompile(`File "([^"]+)", line (\d+)`)
	php    = rx.MustCompile(`in (` + pathChars + `+) on line (\d+)`)
	csharp = rx.MustCompile(`in (` + pathChars + `+):line (\d+)`)
	java   = rx.MustCompile(`at ([\w$.]+)\.[\w$<>]+\((\w+\.(?:java|kt|scala|groovy)):(\d+)\)`)
	bare   = rx.MustCompile(`^\s*(` + pathChars + `+\.\w+)\s*$`)
)

// Line returns the references in one line of output.
func Line(line string) []Ref {
	if hasFileURL(line) {
		line = strings.ReplaceAll(line, "file://", "")
	}
	if !maybe(line) {
		return nil
	}
	return find(line)
}

// hasFileURL reports whether line holds "file://", looking at its colons:
// rarer in output and source than the 'f' strings.Contains would start at.
func hasFileURL(line string) bool {
	for from := 0; ; {
		i := strings.IndexByte(line[from:], ':')
		if i < 0 {
			return false
		}
		i += from
		if i >= len("file") && line[i-len("file"):i] == "file" && strings.HasPrefix(line[i:], "://") {
			return true
		}
		from = i + 1
	}
}

// find is Line without its pre-filter, for a line without "file://".
func find(line string) []Ref {
	var out []Ref
	var seen map[refKey]bool // past seenFrom references; before, out is searched
	add := func(r Ref) {
		r.Path, r.Alt = clean(r.Path), clean(r.Alt)
		if r.Path == "" || r.Path == r.Alt {
			r.Path, r.Alt = r.Alt, ""
		}
		if r.Path == "" {
			return
		}
		k := refKey{r.Alt, r.Path, r.Line}
		switch {
		case seen != nil:
			if seen[k] {
				return
			}
			seen[k] = true
		case slices.ContainsFunc(out, func(o Ref) bool { return refKey{o.Alt, o.Path, o.Line} == k }):
			return
		case len(out) == seenFrom:
			seen = make(map[refKey]bool, 2*seenFrom)
			for _, o := range out {
				seen[refKey{o.Alt, o.Path, o.Line}] = true
			}
			seen[k] = true
		}
		out = append(out, r)
	}
	for _, m := range java.FindAllStringSubmatch(line, -1) {
		add(Ref{Path: m[2], Line: atoi(m[3]), JavaClass: m[1]})
	}
	if len(out) > 0 {
		return out
	}
	for _, re := range []*rx.Regexp{python, php, csharp} {
		for _, m := range re.FindAllStringSubmatch(line, -1) {
			add(Ref{Path: m[1], Line: atoi(m[2])})
		}
	}
	generic(line, func(r Ref, start, end int) {
		if !isURL(line, start, end) {
			add(r)
		}
	})
	if len(out) == 0 {
		if m := bare.FindStringSubmatch(line); m != nil && strings.ContainsAny(m[1], "/\\") {
			add(Ref{Path: m[1]})
		}
	}
	return out
}

// refKey is what makes two references of a line the same one.
type refKey struct {
	alt, path string
	line      int
}

// seenFrom is how many references a line holds before find remembers them
// in a map: a line holds one or two, where searching them costs less than
// building a key.
const seenFrom = 16

// generic finds the `path:line[:col]` and `path(line,col)` references in
// line, in one pass, as the expression
//
//	((?:[A-Za-z]:[\\/])?[\w.@+~/\\-]+)(?::(\d+)(?::(\d+))?|\((\d+),(\d+)\))
//
// would find them: leftmost first, none overlapping the one before. (The
// expression ran at a tenth of the speed; it stays in the tests as the
// oracle.) found gets each reference and where its path starts and ends.
// The expression's path is ASCII, as regexp's \w is; a path with non-ASCII
// bytes right before it gets the wider reading in Ref.Alt.
func generic(line string, found func(r Ref, start, end int)) {
	from := 0 // no match starts before the end of the one before
	for i := 0; i+1 < len(line); i++ {
		c := line[i]
		if c != ':' && c != '(' || !isDigit(line[i+1]) {
			continue
		}
		start := i
		for start > from && isExprPathChar(line[start-1]) {
			start--
		}
		if start == i {
			continue
		}
		wide := start // the path with the non-ASCII bytes before it (Ref.Alt)
		for wide > from && (isExprPathChar(line[wide-1]) || line[wide-1] >= utf8.RuneSelf) {
			wide--
		}
		// A drive, "C:\", before a path of at least one more byte.
		if start-2 >= from && (line[start] == '\\' || line[start] == '/') && start+1 < i &&
			line[start-1] == ':' && isLetter(line[start-2]) {
			start -= 2
		}
		r := Ref{Path: line[start:i]}
		if wide < start && line[start-1] >= utf8.RuneSelf {
			r.Alt = line[wide:i]
		}
		n, end := digits(line, i+1)
		if c == ':' {
			r.Line = atoi(n)
			if end+1 < len(line) && line[end] == ':' && isDigit(line[end+1]) {
				var col string
				col, end = digits(line, end+1)
				r.Col = atoi(col)
			}
		} else {
			if end+1 >= len(line) || line[end] != ',' || !isDigit(line[end+1]) {
				continue
			}
			col, after := digits(line, end+1)
			if after >= len(line) || line[after] != ')' {
				continue
			}
			r.Line, r.Col, end = atoi(n), atoi(col), after+1
		}
		found(r, start, i)
		from, i = end, end-1
	}
}

// digits returns the run of digits at line[i:] and where it ends.
func digits(line string, i int) (string, int) {
	j := i
	for j < len(line) && isDigit(line[j]) {
		j++
	}
	return line[i:j], j
}

func isDigit(c byte) bool  { return '0' <= c && c <= '9' }
func isLetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

// isExprPathChar is the path class of generic's expression: ASCII letters,
// digits and `_.@+~/\-`.
func isExprPathChar(c byte) bool { return exprPathChar[c] }

var exprPathChar = func() (t [256]bool) {
	for c := range t {
		b := byte(c)
		t[c] = isLetter(b) || isDigit(b) || strings.IndexByte("_.@+~/\\-", b) >= 0
	}
	return t
}()

// maybe is a cheap pre-filter: a reference needs a digit after ':' or '('
// following a path-like word (one with '.', '/' or '\\', or a known file
// name), or one of the keyword forms, or a line that is only a path. Each
// test is a byte search (most lines hold no ':' followed by a digit, no
// "line " and a space), not a loop over every byte.
func maybe(line string) bool {
	return numberAfter(line, ':') || numberAfter(line, '(') || lineKeyword(line) || onlyPath(line)
}

// numberAfter reports a c followed by a digit after a word that may be a
// path.
func numberAfter(line string, c byte) bool {
	for from := 0; ; {
		i := strings.IndexByte(line[from:], c)
		if i < 0 {
			return false
		}
		i += from
		if i+1 < len(line) && isDigit(line[i+1]) && mayEndInPath(wordBefore(line, i)) {
			return true
		}
		from = i + 1
	}
}

// lineKeyword reports the forms that name a line in words: `", line N`,
// `in x on line N`, `in x:line N`.
func lineKeyword(line string) bool {
	for from := 0; ; {
		i := strings.Index(line[from:], "line ")
		if i < 0 {
			return false
		}
		i += from
		before := line[:i]
		if strings.HasSuffix(before, "\", ") || strings.HasSuffix(before, " on ") || strings.HasSuffix(before, ":") {
			return true
		}
		from = i + 1
	}
}

// onlyPath reports a line that may be only a path, as bare reads one: path
// characters, a directory separator among them, ending in an extension
// ("x/y.go"). A line of base64 is one word holding '/' too, but it has no
// extension: turned away here, it never meets the expressions, which cost
// a capture of base64 more than everything else it does.
func onlyPath(line string) bool {
	return !endsInNoExtension(line) && trimmedOnlyPath(strings.TrimSpace(line))
}

// trimmedOnlyPath is onlyPath of a line trimmed of white space, read
// whole.
func trimmedOnlyPath(t string) bool {
	ext := len(t) // the extension first: most lines fail there, at their end
	for ext > 0 && rx.IsWordByte(t[ext-1]) {
		ext--
	}
	if ext <= 1 || ext == len(t) || t[ext-1] != '.' {
		return false
	}
	sep := false
	for i := 0; i < len(t); i++ {
		c := t[i]
		if !isExprPathChar(c) {
			return false
		}
		sep = sep || c == '/' || c == '\\'
	}
	return sep
}

// endsInNoExtension is onlyPath's first no, read from the line's end
// alone (trimming every line first was a tenth of the search of source):
// less its trailing ASCII white space, the line ends in ASCII that is not
// a word byte, or in word bytes after anything but '.'. A line that ends
// in a byte past ASCII (maybe Unicode white space) is left to onlyPath.
func endsInNoExtension(line string) bool {
	end := len(line)
	for end > 0 && isASCIISpace(line[end-1]) {
		end--
	}
	ext := end
	for ext > 0 && rx.IsWordByte(line[ext-1]) {
		ext--
	}
	if ext == end { // no word byte at the end: an ASCII one ends the trimmed line too
		return end > 0 && line[end-1] < utf8.RuneSelf // a longer one may be white space
	}
	// Word bytes at the start, or after white space or any byte but '.',
	// are no extension, whatever the trimming leaves of the line.
	return ext == 0 || line[ext-1] != '.'
}

func isASCIISpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// isWordChar is regexp's \w: ASCII letters, digits and '_'.

func isURL(line string, start, end int) bool {
	return strings.Contains(line[start:end], "://") || strings.HasPrefix(line[start:], "//")
}

// wordBefore returns the run of path characters ending at i.
func wordBefore(line string, i int) string {
	j := i
	for j > 0 && isPathChar(line[j-1]) {
		j--
	}
	return line[j:i]
}

func isPathChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		strings.IndexByte("_.@+~/\\-", c) >= 0 || c >= 0x80
}

// knownNames are file names without an extension that tools cite.
var knownNames = map[string]bool{"Makefile": true, "makefile": true, "GNUmakefile": true, "Dockerfile": true,
	"Containerfile": true, "Jenkinsfile": true, "Vagrantfile": true, "Rakefile": true, "Gemfile": true,
	"BUILD": true, "WORKSPACE": true, "CMakeLists.txt": true, "Justfile": true, "justfile": true}

// pathLike reports whether a word could be a file path: it has a directory
// separator, an extension after its first character, or is a known name.
func pathLike(w string) bool {
	if w == "" {
		return false
	}
	base := w
	if i := strings.LastIndexAny(w, "/\\"); i >= 0 {
		if i < len(w)-1 {
			return true
		}
		base = w[:i]
	}
	if base == "" {
		return false // "/" alone
	}
	return strings.IndexByte(base[1:], '.') >= 0 || knownNames[base]
}

// mayEndInPath reports whether a word, or a part of it a reference could
// start from, could be a file path: the reference before it in the line
// may have ended inside the word ("x:12Makefile:3"). Every test of pathLike
// but the known names holds for a word when it holds for any end of it.
func mayEndInPath(w string) bool {
	if w == "" {
		return false
	}
	if pathLike(w) {
		return true
	}
	for _, name := range knownNameList {
		if name[len(name)-1] == w[len(w)-1] && strings.HasSuffix(w, name) {
			return true
		}
	}
	return false
}

// knownNameList is knownNames as a list, for mayEndInPath.
var knownNameList = slices.Collect(maps.Keys(knownNames))

// clean strips decorations output puts around paths.
func clean(p string) string {

	p = strings.TrimRight(p, ".,;")
	if p == "" || strings.Trim(p, "./\\-~") == "" {
		return ""
	}
	if !pathLike(p) {
		return "" // a word such as a host name or a time stamp
	}
	return p
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// JavaCandidates returns the root-relative paths a Java frame may name:
// the class's package as folders under the usual source roots.
func JavaCandidates(r Ref) []string {
	if r.JavaClass == "" {
		return nil
	}
	pkg := r.JavaClass
	if i := strings.IndexByte(pkg, '$'); i >= 0 {
		pkg = pkg[:i]
	}
	dir := ""
	if i := strings.LastIndexByte(pkg, '.'); i >= 0 {
		dir = strings.ReplaceAll(pkg[:i], ".", "/") + "/"
	}
	var out []string
	for _, root := range []string{"src/main/java/", "src/test/java/", "src/main/kotlin/", "src/test/kotlin/", "src/", ""} {
		out = append(out, root+dir+r.Path)
	}
	return out
}

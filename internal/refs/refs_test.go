package refs

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

func TestLine(t *testing.T) {
	tests := []struct {
		line string
		want []Ref
	}{
		{"internal/x/y.go:12:5: undefined: foo", []Ref{{Path: "internal/x/y.go", Line: 12, Col: 5}}},
		{"    foo_test.go:44: want 3, got 4", []Ref{{Path: "foo_test.go", Line: 44}}},
		{`  File "/repo/app/models.py", line 88, in save`, []Ref{{Path: "/repo/app/models.py", Line: 88}}},
		{"    at Object.<anonymous> (src/app.test.js:10:15)", []Ref{{Path: "src/app.test.js", Line: 10, Col: 15}}},
		{"    at file:///repo/src/a.mjs:3:9", []Ref{{Path: "/repo/src/a.mjs", Line: 3, Col: 9}}},
		{"  --> src/main.rs:4:13", []Ref{{Path: "src/main.rs", Line: 4, Col: 13}}},
		{"src/a.ts(12,5): error TS2322: Type 'string'", []Ref{{Path: "src/a.ts", Line: 12, Col: 5}}},
		{"main.c:3:1: error: expected ';'", []Ref{{Path: "main.c", Line: 3, Col: 1}}},
		{"\t/home/u/p/main.go:21 +0x1d", []Ref{{Path: "/home/u/p/main.go", Line: 21}}},
		{"PHP Fatal error: x in /srv/app/index.php on line 7", []Ref{{Path: "/srv/app/index.php", Line: 7}}},
		{"   at App.Run() in /src/App.cs:line 42", []Ref{{Path: "/src/App.cs", Line: 42}}},
		{"\tat com.acme.shop.Cart.add(Cart.java:31)", []Ref{{Path: "Cart.java", Line: 31, JavaClass: "com.acme.shop.Cart"}}},
		{"/repo/src/lint-me.js", []Ref{{Path: "/repo/src/lint-me.js"}}},
		{"Makefile:12: recipe for target 'all' failed", []Ref{{Path: "Makefile", Line: 12}}},
		{"listening on http://localhost:8080/x", nil},
		{"ok  \tgithub.com/a/b\t0.012s", nil},
		{"started at 12:30:45", nil},
		{"PASS", nil},
		// Non-ASCII before a path: both readings, the wider one as Alt.
		{"café/main.go:3: boom", []Ref{{Path: "/main.go", Line: 3, Alt: "café/main.go"}}},
		{"\t/home/josé/p/main.go:21 +0x1d", []Ref{{Path: "/p/main.go", Line: 21, Alt: "/home/josé/p/main.go"}}},
		{"│main.go:3│", []Ref{{Path: "main.go", Line: 3, Alt: "│main.go"}}},
		{"ü.txt:1: bad", []Ref{{Path: "ü.txt", Line: 1}}},
		{"プロジェクト/app.py:9", []Ref{{Path: "/app.py", Line: 9, Alt: "プロジェクト/app.py"}}},
		{"x: é main.go:4", []Ref{{Path: "main.go", Line: 4}}},
	}
	for _, tt := range tests {
		got := Line(tt.line)
		if !slices.Equal(got, tt.want) {
			t.Errorf("Line(%q)\n got %+v\nwant %+v", tt.line, got, tt.want)
		}
	}
}

func TestJavaCandidates(t *testing.T) {
	got := JavaCandidates(Ref{Path: "Cart.java", JavaClass: "com.acme.Cart$Item"})
	if !slices.Contains(got, "src/main/java/com/acme/Cart.java") || !slices.Contains(got, "com/acme/Cart.java") {
		t.Fatalf("candidates = %v", got)
	}
}

func FuzzLine(f *testing.F) {
	for _, s := range []string{"a.go:1:2", `File "x", line 3`, "at a.b(C.java:4)", "x(1,2)", "in y.php on line 5",
		"x = (lo + hi)/(2 * step)", "/:1", "//(3", "a/:9"} {
		f.Add(s)
	}
	f.Add("0OA3AgLtWJn6zYxFsDNhyPTaMCS+wScp5/iWBQ8qMSq6uwfs0RhkWNii")
	f.Add(" src/a.go\t")
	f.Add("a/b.go-x")
	f.Fuzz(func(t *testing.T, line string) {
		for _, r := range Line(line) {
			if r.Path == "" || r.Line < 0 {
				t.Fatalf("bad ref %+v from %q", r, line)
			}
		}
		if line = strings.ReplaceAll(line, "file://", ""); len(find(line)) > 0 && !maybe(line) {
			t.Fatalf("%q holds %+v, but the pre-filter turned it away", line, find(line))
		}
	})
}

// TestOnlyPathAdmitsWhatBareMatches holds the pre-filter of lines that are
// only a path to the expression it stands in front of: every line bare
// reads as a path with a separator gets through.
func TestOnlyPathAdmitsWhatBareMatches(t *testing.T) {
	alphabet := []string{"a", "Z", "0", "_", ".", "/", "\\", "-", "@", "+", "~", " ", "\t", "\v", "=", ":", "é", "go", "."}
	rapid.Check(t, func(t *rapid.T) {
		line := strings.Join(rapid.SliceOfN(rapid.SampledFrom(alphabet), 0, 12).Draw(t, "line"), "")
		m := bare.FindStringSubmatch(line)
		if m != nil && strings.ContainsAny(m[1], "/\\") && !onlyPath(line) {
			t.Fatalf("bare reads %q as the path %q, but onlyPath turns it away", line, m[1])
		}
	})
}

// TestBase64IsNotAPath: a line of base64 is one word holding '/', which
// the pre-filter once let through to every expression, the most of what a
// capture of base64 cost.
func TestBase64IsNotAPath(t *testing.T) {
	for _, l := range []string{"0OA3AgLtWJn6zYxFsDNhyPTaMCS+wScp5/iWBQ8qMSq6uwfs0RhkWNii",
		"4r/9BAbc+Zx1", "a/b.", "a/b.go-x", "dir/"} {
		if maybe(l) {
			t.Errorf("maybe(%q) = true, want the line turned away", l)
		}
	}
	for _, l := range []string{"src/a.go", "  src\\m.cs ", "/abs/p.py", "x/.env"} {
		if !maybe(l) || len(Line(l)) != 1 {
			t.Errorf("%q: maybe %v, refs %v; want one reference", l, maybe(l), Line(l))
		}
	}
}

// TestSlashBeforeDigit: a lone "/" before ":1" or "(2" once indexed past
// the end of the word (a panic that cost the user the command's output).
func TestSlashBeforeDigit(t *testing.T) {
	for _, l := range []string{"x = (lo + hi)/(2 * step)", "/:1", "a / (3)"} {
		_ = Line(l)
	}
}

// TestMaybeLetsEveryReferenceThrough: the pre-filter may let a line through
// that holds no reference, never turn one away that holds some. A line is
// one reference of each form, with a random path and numbers, between
// random pieces of the bytes that surround references.
func TestMaybeLetsEveryReferenceThrough(t *testing.T) {
	noise := []string{"", "a", "x.y", "dir/", "x\\", "C:", "12", "7", ":", "(", ")", ",", " ", "\t", "\"", "in ", "at ",
		"file://", ".", "/", "-", "@", "Makefile", "12:30:45", "f(1)", "│", "é"}
	forms := []string{"%s:%d", "%s:%d:%d", "%s(%d,%d)", "File \"%s\", line %d", "in %s on line %d", "in %s:line %d",
		"at com.acme.Foo.run(%s:%d)", "file://%s:%d", "%s"}
	paths := []string{"a.go", "dir/b.rs", "x\\y.cs", "C:\\src\\m.go", "Makefile", "Foo.java", "lib/", "/abs/p.py", "12", "host",
		"café/m.go", "ü.txt"}
	rapid.Check(t, func(t *rapid.T) {
		piece := func(label string) string {
			return strings.Join(rapid.SliceOfN(rapid.SampledFrom(noise), 0, 3).Draw(t, label), "")
		}
		form := rapid.SampledFrom(forms).Draw(t, "form")
		args := []any{rapid.SampledFrom(paths).Draw(t, "path"), rapid.IntRange(0, 999).Draw(t, "line"), rapid.IntRange(0, 99).Draw(t, "col")}
		ref := fmt.Sprintf(form, args[:strings.Count(form, "%")]...)
		line := piece("before") + ref + piece("after")
		line = strings.ReplaceAll(line, "file://", "") // as Line does first
		if refs := find(line); len(refs) > 0 && !maybe(line) {
			t.Fatalf("%q holds %+v, but the pre-filter turned it away", line, refs)
		}
	})
}

// TestHasFileURLIsContains holds the colon-led search for "file://" to
// strings.Contains.
func TestHasFileURLIsContains(t *testing.T) {
	parts := []string{"file", "://", ":", "/", "fil", "e:", "x", " ", "file:/", "é"}
	rapid.Check(t, func(rt *rapid.T) {
		line := strings.Join(rapid.SliceOfN(rapid.SampledFrom(parts), 0, 10).Draw(rt, "parts"), "")
		if got, want := hasFileURL(line), strings.Contains(line, "file://"); got != want {
			rt.Fatalf("hasFileURL(%q) = %v, want %v", line, got, want)
		}
	})
}

// TestOnlyPathReadsTheEndFirst: onlyPath, which turns most lines away by
// their end alone (endsInNoExtension), answers as reading the trimmed line
// whole does, for lines of path bytes, ASCII and Unicode white space and
// other bytes.
func TestOnlyPathReadsTheEndFirst(t *testing.T) {
	space := rapid.SampledFrom([]string{" ", "\t", "\v", "\u00a0", "\u0085", "\u2003"})
	path := rapid.SampledFrom([]string{"a", "go", "x_1", ".", "/", "/", "\\", "-", "é", ")", "\xc2", " "})
	rapid.Check(t, func(t *rapid.T) {
		part := func(g *rapid.Generator[string], most int, label string) string {
			return strings.Join(rapid.SliceOfN(g, 0, most).Draw(t, label), "")
		}
		line := part(space, 2, "lead") + part(path, 5, "path") + rapid.SampledFrom([]string{".go", ".go", "", ".", "go"}).Draw(t, "ext") +
			part(space, 2, "tail")
		if got, want := onlyPath(line), trimmedOnlyPath(strings.TrimSpace(line)); got != want {
			t.Fatalf("onlyPath(%q) = %v, want %v", line, got, want)
		}
	})
}

// TestLineKeepsEachReferenceOnce: a reference written twice on a line is
// kept once, in the order first written, whether the line holds a few
// (searched) or more than seenFrom (remembered in a map); the same path
// at another line, or read with another Alt, is another reference.
func TestLineKeepsEachReferenceOnce(t *testing.T) {
	for _, n := range []int{1, 2, seenFrom - 1, seenFrom, seenFrom + 1, 3 * seenFrom} {
		var parts []string
		var want []Ref
		for i := range n {
			p := fmt.Sprintf("pkg/f%d.go", i)
			parts = append(parts, fmt.Sprintf("%s:%d", p, i+1), fmt.Sprintf("%s:%d", p, i+1))
			want = append(want, Ref{Path: p, Line: i + 1})
		}
		parts = append(parts, "pkg/f0.go:99", "café/x.go:1", "/x.go:1")
		want = append(want, Ref{Path: "pkg/f0.go", Line: 99}, Ref{Path: "/x.go", Line: 1, Alt: "café/x.go"}, Ref{Path: "/x.go", Line: 1})
		if got := Line(strings.Join(parts, " ")); !slices.Equal(got, want) {
			t.Fatalf("%d references written twice:\n got %+v\nwant %+v", n, got, want)
		}
	}
}

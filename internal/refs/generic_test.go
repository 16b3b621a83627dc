package refs

import (
	"regexp"
	"slices"
	"strconv"
	"testing"

	"pgregory.net/rapid"
)

// genericExpr is the expression generic stands in for: its oracle.
var genericExpr = regexp.MustCompile(`((?:[A-Za-z]:[\\/])?[\w.@+~/\\-]+)(?::(\d+)(?::(\d+))?|\((\d+),(\d+)\))`)

type genericFind struct {
	Ref
	start, end int
}

func oracle(line string) []genericFind {
	var out []genericFind
	for _, m := range genericExpr.FindAllStringSubmatchIndex(line, -1) {
		f := genericFind{Ref: Ref{Path: line[m[2]:m[3]]}, start: m[2], end: m[3]}
		num := func(i int) int {
			if m[i] < 0 {
				return 0
			}
			n, _ := strconv.Atoi(line[m[i]:m[i+1]])
			return n
		}
		if m[4] >= 0 {
			f.Line, f.Col = num(4), num(6)
		} else {
			f.Line, f.Col = num(8), num(10)
		}
		out = append(out, f)
	}
	return out
}

// lexed is what generic finds, without the wider reading (Ref.Alt) the
// expression has no part for: TestLine holds that one.
func lexed(line string) []genericFind {
	var out []genericFind
	generic(line, func(r Ref, start, end int) {
		r.Alt = ""
		out = append(out, genericFind{r, start, end})
	})
	return out
}

func TestGenericIsTheExpression(t *testing.T) {
	alphabet := []byte("ab.C/\\:(),0123 9_-@~+x\té")
	rapid.Check(t, func(t *rapid.T) {
		line := string(rapid.SliceOfN(rapid.SampledFrom(alphabet), 0, 30).Draw(t, "line"))
		if want, got := oracle(line), lexed(line); !slices.Equal(want, got) {
			t.Fatalf("%q: expression found %+v, lexer %+v", line, want, got)
		}
	})
}

func FuzzGeneric(f *testing.F) {
	for _, s := range []string{"a.go:1:2", "C:\\x\\y.cs(3,4)", "p://h:80", "a:1b:2", "C:/:1", "x(1,2", "12:30:45"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if want, got := oracle(line), lexed(line); !slices.Equal(want, got) {
			t.Fatalf("%q: expression found %+v, lexer %+v", line, want, got)
		}
	})
}

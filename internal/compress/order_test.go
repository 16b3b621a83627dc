package compress

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// byName classifies the test lines below by their first letter.
var byName = map[byte]Class{'E': Error, 'N': Noise, 'P': Plain, 'W': Warning, 'R': Ref, 'S': SummaryLine, 'D': Detail}

// TestDigestKeepsTheOutputsOrder: a digest is the output with gaps. Its
// lines are the output's lines in their order, and each marker stands
// where the lines it counts were and counts them exactly (blank lines may
// go without one), whatever the context kept before and after.
func TestDigestKeepsTheOutputsOrder(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		var lines []string
		for i := range rapid.IntRange(3, 120).Draw(rt, "lines") {
			if rapid.IntRange(0, 9).Draw(rt, "blank") == 0 {
				lines = append(lines, "")
			}
			kind := rapid.SampledFrom([]byte("EPPPPNNNNWRSD")).Draw(rt, "kind") // mostly context and noise
			line := fmt.Sprintf("%c%d", kind, i)
			for range 1 + rapid.IntRange(0, 6).Draw(rt, "repeats")/4 { // repeats collapse into one
				lines = append(lines, line)
			}
		}
		rules := Rules{
			Judge: func(l string) Class {
				if l == "" {
					return Plain
				}
				return byName[l[0]]
			},
			Before: rapid.IntRange(0, 3).Draw(rt, "before"), After: rapid.IntRange(0, 3).Draw(rt, "after"),
			NoContext: rapid.Bool().Draw(rt, "no context"),
		}
		intent := rapid.SampledFrom([]Intent{Summary, Raw}).Draw(rt, "intent")
		c := NewEngine(intent, rules)
		for _, l := range lines {
			c.Line(l)
		}
		out := c.Finish()
		if err := isOutputWithGaps(lines, out); err != nil {
			var got []string
			for _, k := range out {
				got = append(got, k.Text)
			}
			rt.Fatalf("%v\noutput: %q\ndigest: %q", err, lines, got)
		}
	})
}

// isOutputWithGaps checks a digest against the lines it was made from.
func isOutputWithGaps(lines []string, out []Kept) error {
	i := 0
	skipBlanks := func() {
		for i < len(lines) && lines[i] == "" {
			i++
		}
	}
	for j, k := range out {
		if n, ok := markerCount(k.Text); ok {
			for range n {
				skipBlanks()
				if i == len(lines) {
					return fmt.Errorf("digest line %d: the marker counts more lines than are left", j)
				}
				i++
			}
			continue
		}
		if k.Text != "" {
			skipBlanks()
		}
		text, times := repeated(k.Text)
		for range times {
			if i == len(lines) || lines[i] != text {
				return fmt.Errorf("digest line %d is %q where the output has %q", j, k.Text, lines[min(i, len(lines)-1)])
			}
			i++
		}
	}
	if skipBlanks(); i != len(lines) {
		return fmt.Errorf("the digest stops at output line %d of %d", i, len(lines))
	}
	return nil
}

// repeated reads a line that stands for repeats ("x [×3]").
func repeated(s string) (string, int) {
	if i := strings.LastIndex(s, " [×"); i >= 0 && strings.HasSuffix(s, "]") {
		if n, err := strconv.Atoi(s[i+len(" [×") : len(s)-1]); err == nil {
			return s[:i], n
		}
	}
	return s, 1
}

// markerCount reads an omitted-lines marker.
func markerCount(s string) (int, bool) {
	rest, ok := strings.CutPrefix(s, "… [")
	if !ok {
		return 0, false
	}
	num, _, ok := strings.Cut(rest, " line")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(num)
	return n, err == nil
}

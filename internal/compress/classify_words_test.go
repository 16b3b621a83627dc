package compress

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// The expressions the word lists stand in for: their oracles. (The error
// expression's `^E\s` was case-insensitive by accident of its (?i); pytest's
// error lines start with a capital E, and only that is kept.)
var (
	errorOracle   = regexp.MustCompile(`(?i)\b(error|errors|fail|failed|failure|failures|failing|panic|panicked|fatal|exception|traceback|segmentation fault|undefined reference|assertion|cannot|could not|not found|denied|aborted)\b|✗|✖|^[×✕]\s|(?-i)^E\s`)
	warningOracle = regexp.MustCompile(`(?i)\b(warning|warn|deprecated)\b`)
	noErrorOracle = regexp.MustCompile(`(?i)\b(0 errors?|no errors?|0 failed|0 failures?|error[-_ ]?free|without errors?)\b`)
)

func TestWordListsAreTheExpressions(t *testing.T) {
	pieces := []string{"error", "Errors", "FAIL", "failed", "not", " found", "could", "segmentation", "fault",
		"undefined", "reference", "warn", "Warning", "deprecated", "x", "_", "-", " ", "  ", ":", "E", "e", "\t",
		"✗", "✖", "×", "✕", "é", "0", "panicked", "s", "no", "without", "free", "failure", "failures", "1", "_"}
	rapid.Check(t, func(t *rapid.T) {
		parts := rapid.SliceOfN(rapid.SampledFrom(pieces), 0, 8).Draw(t, "parts")
		line := strings.TrimSpace(strings.Join(parts, ""))
		w := scanWords(line)
		if got, want := w.err || errorMark(line), errorOracle.MatchString(line); got != want {
			t.Fatalf("error words in %q: got %v, the expression says %v", line, got, want)
		}
		if got, want := w.none, noErrorOracle.MatchString(line); got != want {
			t.Fatalf("no-error phrase in %q: got %v, the expression says %v", line, got, want)
		}
		if got, want := w.warn, warningOracle.MatchString(line); got != want {
			t.Fatalf("warning words in %q: got %v, the expression says %v", line, got, want)
		}
	})
}

func TestGoLineReadersAreTheExpressions(t *testing.T) {
	marker := regexp.MustCompile(`^=== (RUN|CONT|NAME|PAUSE)\s+(\S+)`)
	result := regexp.MustCompile(`^\s*--- (PASS|FAIL|SKIP): (\S+)`)
	pieces := []string{"=== ", "--- ", "RUN", "PAUSE", "PASS", "FAIL", ":", " ", "\t", "TestA", "/b", "x", "é", "=", "-"}
	rapid.Check(t, func(t *rapid.T) {
		line := strings.Join(rapid.SliceOfN(rapid.SampledFrom(pieces), 0, 7).Draw(t, "parts"), "")
		for _, c := range []struct {
			re   *regexp.Regexp
			read func(string) (string, string, bool)
		}{{marker, goMarker}, {result, goResult}} {
			verb, name, ok := c.read(line)
			m := c.re.FindStringSubmatch(line)
			if ok != (m != nil) || ok && (verb != m[1] || name != m[2]) {
				t.Fatalf("%q: read %q %q %v, the expression %q", line, verb, name, ok, m)
			}
		}
	})
}

// exceptionName is its definition: some word of the line (a run of word
// bytes) starts with a capital letter and ends in Error or Exception, with
// more before the ending.
func TestExceptionNameIsItsDefinition(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		parts := rapid.SliceOf(rapid.SampledFrom([]string{"Error", "Exception", "Type", "json.", "handle", "X", "_", " ", ":", "e", "9", "é"})).Draw(rt, "parts")
		line := strings.Join(parts, "")
		want := false
		for i, j := nextWord(line, 0); i < len(line); i, j = nextWord(line, j) {
			w := line[i:j]
			for _, suffix := range []string{"Error", "Exception"} {
				if len(w) > len(suffix) && strings.HasSuffix(w, suffix) && w[0] >= 'A' && w[0] <= 'Z' {
					want = true
				}
			}
		}
		if got := exceptionName(line); got != want {
			rt.Fatalf("exceptionName(%q) = %v, want %v", line, got, want)
		}
	})
}

// TestEveryListedWordIsFound reads each word and phrase of the lists, and
// each phrase saying there were no errors, alone, in a sentence and as
// part of a longer word: found by scanWords as a whole word only, whatever
// its length and first byte.
func TestEveryListedWordIsFound(t *testing.T) {
	var phrases []string
	for _, l := range []*wordList{errorWords, warningWords} {
		for _, ws := range l.byLen {
			for _, w := range ws {
				phrases = append(phrases, w.word+w.then)
			}
		}
	}
	none := []string{"0 error", "0 errors", "0 failed", "0 failure", "0 failures", "no error", "no errors",
		"without error", "without errors", "error-free", "error free", "errorfree", "error_free"}
	for _, text := range append(phrases, none...) {
		word, rest, _ := strings.Cut(text, " ")
		if rest != "" {
			rest = " " + rest
		}
		for line, want := range map[string]bool{
			text:                                 true,
			"a " + text + " b":                   true,
			"x" + text:                           false,
			text + "x":                           false,
			"(" + text + "x)":                    false,
			word + "x" + rest:                    false,
			"(" + text + ")":                     true,
			strings.ToUpper(text[:1]) + text[1:]: true,
		} {
			w := scanWords(line)
			got := w.none
			if !slices.Contains(none, text) {
				got = w.err || w.warn
			}
			if got != want {
				t.Errorf("%q in %q: found %v, want %v", text, line, got, want)
			}
		}
	}
}

// TestClassNamesAreExceptionName: the word scan finds a class name in the
// lines exceptionName finds one in, and in no other.
func TestClassNamesAreExceptionName(t *testing.T) {
	pieces := []string{"Error", "Exception", "Type", "json.", "handle", "X", "x", "_", " ", ":", "e", "9", "é", "Errorf", "XException", "(", "Err", "or"}
	rapid.Check(t, func(t *rapid.T) {
		line := strings.Join(rapid.SliceOfN(rapid.SampledFrom(pieces), 0, 8).Draw(t, "parts"), "")
		if got, want := scanWords(line).class, exceptionName(line); got != want {
			t.Fatalf("%q: the word scan found a class name %v, exceptionName %v", line, got, want)
		}
	})
}

// TestErrorMarks: the crosses anywhere, the multiplication signs at the
// start and followed by white space, pytest's "E ".
func TestErrorMarks(t *testing.T) {
	for line, want := range map[string]bool{
		"× 2 tests failed": true, "✕ renders the page": true, "a ✗ b": true, "done ✖": true, "E   assert 1 == 2": true,
		"×2": false, "a × b": false, "a ✕ b": false, "Error": false, "é": false, "E": false, "x": false,
	} {
		if got := errorMark(line); got != want {
			t.Errorf("errorMark(%q) = %v, want %v", line, got, want)
		}
	}
}

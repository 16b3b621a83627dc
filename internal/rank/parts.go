package rank

import (
	"strings"
	"unicode"
)

// IdentParts splits identifiers and paths into the words they are made of:
// "fish_completions_test.go" → fish, completions, test, go;
// "TestFailGenFishCompletionFile" → Test, Fail, Gen, Fish, Completion, File;
// "HTTPServer2" → HTTP, Server2. Recall indexes and searches these parts so
// that part of a name finds the whole.
func IdentParts(s string) []string {
	var parts []string
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		parts = append(parts, camelParts(w)...)
	}
	return parts
}

// camelParts splits one alphanumeric word at its case changes.
func camelParts(w string) []string {
	rs := []rune(w)
	var parts []string
	start := 0
	for i := 1; i < len(rs); i++ {
		lowerToUpper := unicode.IsLower(rs[i-1]) && unicode.IsUpper(rs[i])
		acronymEnd := unicode.IsUpper(rs[i-1]) && unicode.IsUpper(rs[i]) && i+1 < len(rs) && unicode.IsLower(rs[i+1])
		if lowerToUpper || acronymEnd {
			parts = append(parts, string(rs[start:i]))
			start = i
		}
	}
	return append(parts, string(rs[start:]))
}

// PartsText lists, once each, the parts of the compound words of texts.
func PartsText(texts ...string) string {
	seen := map[string]bool{}
	var b strings.Builder
	for _, t := range texts {
		for _, w := range IndexWords(t) {
			parts := IdentParts(w)
			if len(parts) < 2 {
				continue
			}
			for _, p := range parts {
				lp := strings.ToLower(p)
				if !seen[lp] {
					seen[lp] = true
					b.WriteString(lp)
					b.WriteByte(' ')
				}
			}
		}
	}
	return b.String()
}

// IndexWords splits text into the words the full-text index holds: runs of
// letters, digits and '_' (the tokenizer's tokenchars).
func IndexWords(text string) []string {
	return strings.FieldsFunc(text, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_'
	})
}

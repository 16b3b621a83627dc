package summarize

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// MaxSummaryBytes bounds a summary, whatever the file's size.
const MaxSummaryBytes = 3000

// thinking is the reasoning some models write before their answer; made
// on first use, as every process (a hook too) would pay for it at start.
var thinking = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)^\s*<think>.*?</think>`) })

// Judge turns an answer into a summary, or says why it is none. text is
// what was sent of the file.
func Judge(a Answer, path, text string) (summary, refused string) {
	s := strings.TrimSpace(thinking().ReplaceAllString(a.Text, ""))
	switch {
	case a.Finish == "length":
		return "", fmt.Sprintf("the answer was cut off at %d tokens", AnswerTokens)
	case s == "":
		return "", "the answer is empty"
	case !utf8.ValidString(s) || strings.ContainsFunc(s, isControl):
		return "", "the answer is not text (control characters or invalid UTF-8)"
	case len(s) > MaxSummaryBytes:
		return "", fmt.Sprintf("the answer is %d bytes, more than a summary's %d", len(s), MaxSummaryBytes)
	case len(s) > 400 && len(s) > 2*len(text):
		return "", fmt.Sprintf("the answer (%d bytes) is far longer than the file (%d bytes)", len(s), len(text))
	}
	if why := notProse(s); why != "" {
		return "", why
	}
	if repeatsPrompt(s, path) {
		return "", "the answer repeats the prompt"
	}
	if quotesFile(s, text) {
		return "", "the answer quotes the file instead of summarizing it"
	}
	return s, ""
}

func isControl(r rune) bool {
	return unicode.IsControl(r) && r != '\n' && r != '\t' && r != '\r'
}

// notProse says why s is not sentences: too few letters, or a few words
// over and over.
func notProse(s string) string {
	letters, others := 0, 0
	for _, r := range s {
		switch {
		case unicode.IsLetter(r):
			letters++
		case !unicode.IsSpace(r):
			others++
		}
	}
	if letters < 2*others || letters < 8 {
		return "the answer is not prose (too few letters)"
	}
	words := strings.Fields(strings.ToLower(s))
	if len(words) >= 20 {
		distinct := map[string]bool{}
		for _, w := range words {
			distinct[w] = true
		}
		if 4*len(distinct) < len(words) {
			return "the answer repeats a few words over and over"
		}
	}
	return ""
}

// repeatsPrompt: the answer holds six words in a row of the
// instructions, or the header the file was sent under.
func repeatsPrompt(s, path string) bool {
	if strings.Contains(s, "File: "+path) {
		return true
	}
	for _, sh := range shingles(s) {
		if instructionShingles()[sh] {
			return true
		}
	}
	return false
}

// shingleWords is how many words in a row make a repeat.
const shingleWords = 6

var instructionShingles = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, sh := range shingles(instructions) {
		m[sh] = true
	}
	return m
})

// shingles are the runs of shingleWords words of s, in lower case,
// punctuation dropped.
func shingles(s string) []string {
	words := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	var out []string
	for i := 0; i+shingleWords <= len(words); i++ {
		out = append(out, strings.Join(words[i:i+shingleWords], " "))
	}
	return out
}

// quotesFile: three or more of the answer's lines, and half of them, are
// lines of the file.
func quotesFile(s, text string) bool {
	fileLines := map[string]bool{}
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); len(l) >= 12 {
			fileLines[l] = true
		}
	}
	quoted, lines := 0, 0
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l == "" {
			continue
		}
		lines++
		if fileLines[l] {
			quoted++
		}
	}
	return quoted >= 3 && 2*quoted >= lines
}

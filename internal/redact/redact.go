// Package redact removes secrets from output before freshctx stores any of
// it: private key blocks, cloud and VCS tokens, API keys, JWTs, bearer and
// basic authorization headers, credentials in URLs, and `password=` /
// `token: …` style assignments.
//
// A Redactor works line by line and keeps state across lines (a private key
// block spans many); it is used by one goroutine. Each replaced secret
// counts once in Count. What replaces a secret says what kind it was, so a
// reader knows something was there.
package redact

import (
	"bytes"
	"regexp"
)

// Mark is what a redacted value is replaced with.
const Mark = "[REDACTED]"

type rule struct {
	kind string
	re   *regexp.Regexp
	// group is the submatch replaced (0: the whole match).
	group int
}

var rules = []rule{
	{kind: "aws-access-key", re: regexp.MustCompile(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`)},
	{kind: "github-token", re: regexp.MustCompile(`\bgh[pousr]_[A-Za-z0-9]{36,}\b|\bgithub_pat_[A-Za-z0-9_]{22,}`)},
	{kind: "gitlab-token", re: regexp.MustCompile(`\bglpat-[A-Za-z0-9_-]{20,}`)},
	{kind: "slack-token", re: regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9-]{10,}`)},
	{kind: "google-api-key", re: regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}`)},
	{kind: "stripe-key", re: regexp.MustCompile(`\b[sr]k_(?:live|test)_[0-9A-Za-z]{20,}`)},
	{kind: "api-key", re: regexp.MustCompile(`\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}`)},
	{kind: "jwt", re: regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`)},
	{kind: "authorization", re: regexp.MustCompile(`(?i)\b(?:authorization|proxy-authorization)\s*[:=]\s*(?:bearer|basic|token|digest)?\s*([^\s"',;]+)`), group: 1},
	{kind: "bearer", re: regexp.MustCompile(`(?i)\bbearer\s+([A-Za-z0-9._~+/-]{16,}=*)`), group: 1},
	{kind: "url-credentials", re: regexp.MustCompile(`[a-zA-Z][a-zA-Z0-9+.-]*://[^\s:/@]+:([^\s@/]+)@`), group: 1},
	{kind: "assignment", re: regexp.MustCompile(`(?i)\b[\w.-]*(?:password|passwd|passphrase|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|client[_-]?secret|credentials?)[\w.-]*["']?\s*(?:=|:)\s*("[^"]*"|'[^']*'|[^\s,;&"']+)`), group: 1},
}

// hints are lowercase substrings one of which every secret above contains;
// lines without any are not searched.
var hints = [][]byte{
	[]byte("akia"), []byte("asia"), []byte("gh"), []byte("glpat-"), []byte("xox"), []byte("aiza"),
	[]byte("k_live_"), []byte("k_test_"), []byte("sk-"), []byte("eyj"), []byte("auth"), []byte("bearer"),
	[]byte("://"), []byte("pass"), []byte("pwd"), []byte("secret"), []byte("token"), []byte("key"), []byte("credential"),
}

var (
	keyBegin = regexp.MustCompile(`-----BEGIN[A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----`)
	keyEnd   = regexp.MustCompile(`-----END[A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----`)
)

// Redactor redacts a stream of lines.
type Redactor struct {
	inKey bool
	count int
}

// Count is the number of secrets redacted so far.
func (r *Redactor) Count() int { return r.count }

// Line returns line with its secrets replaced; line must not contain its
// newline. The result may share memory with line.
func (r *Redactor) Line(line []byte) []byte {
	if r.inKey {
		if loc := keyEnd.FindIndex(line); loc != nil {
			r.inKey = false
			return line[loc[0]:]
		}
		return nil // a line of key material: dropped
	}
	if loc := keyBegin.FindIndex(line); loc != nil {
		r.count++
		if end := keyEnd.FindIndex(line[loc[1]:]); end != nil {
			out := append([]byte{}, line[:loc[1]]...)
			out = append(out, " "+Mark+" "...)
			return append(out, line[loc[1]+end[0]:]...)
		}
		r.inKey = true
		return append(append([]byte{}, line[:loc[1]]...), " "+Mark...)
	}
	if !hinted(line) {
		return line
	}
	for _, ru := range rules {
		line = r.apply(ru, line)
	}
	return line
}

// InKey reports whether the stream is inside a private key block.
func (r *Redactor) InKey() bool { return r.inKey }

func (r *Redactor) apply(ru rule, line []byte) []byte {
	locs := ru.re.FindAllSubmatchIndex(line, -1)
	if locs == nil {
		return line
	}
	var out []byte
	last := 0
	for _, loc := range locs {
		s, e := loc[2*ru.group], loc[2*ru.group+1]
		if s < 0 || e <= s {
			continue
		}
		val := line[s:e]
		if bytes.Contains(val, []byte(Mark)) || isPlaceholder(val) {
			continue
		}
		out = append(out, line[last:s]...)
		out = append(out, Mark...)
		last = e
		r.count++
	}
	if out == nil {
		return line
	}
	return append(out, line[last:]...)
}

// isPlaceholder skips values that are clearly not secrets: empty quotes,
// references to variables, or a second '=' of an '==' comparison.
func isPlaceholder(v []byte) bool {
	t := bytes.Trim(v, `"'`)
	return len(t) == 0 || t[0] == '=' || t[0] == '$' || bytes.Equal(t, []byte("null")) ||
		bytes.Equal(t, []byte("none")) || bytes.Equal(t, []byte("None")) || bytes.HasPrefix(t, []byte("<"))
}

func hinted(line []byte) bool {
	lower := line
	for i, c := range line {
		if c >= 'A' && c <= 'Z' {
			lower = bytes.ToLower(line[i:])
			lower = append(bytes.Clone(line[:i]), lower...)
			break
		}
	}
	for _, h := range hints {
		if bytes.Contains(lower, h) {
			return true
		}
	}
	return false
}

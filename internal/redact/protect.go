package redact

import "github.com/freshctx/freshctx/internal/rx"

// span is a half-open byte range of a line.
type span struct{ start, end int }

// fileRefRe matches what is never redacted: a file reference with a line
// (`auth/token.go:12:5`, `secret_test.py:40`), a path whose last element
// has an extension (`config/api_key.yaml`), and a path that starts like
// one (`/etc/ssl/private`, `./secrets`, `~/.aws`). Elements hold no `+`,
// `=` or `:` and `@` only first (`@types/node`), so neither base64 nor the
// `user:password@host` of a URL is mistaken for a path.
var fileRefRe = rx.MustCompile(
	`(?:@?[\w.~-]*/)*@?[\w.~-]*\.[A-Za-z][A-Za-z0-9]{0,11}:\d+(?::\d+)?` +
		`|/?(?:@?[\w.~-]+/)+[\w~-][\w.~-]*\.[A-Za-z][A-Za-z0-9]{0,11}\b` +
		`|(?:^|[\s"'(=:,])((?:\.{1,2}|~)?(?:/@?[\w.~-]+)+/?)`)

// fileRefs lists the spans of line that are file references.
func fileRefs(line []byte) []span {
	if !mayHoldPath(line) {
		return nil
	}
	var out []span
	for _, loc := range fileRefRe.Std().FindAllSubmatchIndex(line, -1) {
		s, e := loc[0], loc[1]
		if loc[2] >= 0 {
			s, e = loc[2], loc[3]
		}
		out = append(out, span{s, e})
	}
	return out
}

func mayHoldPath(line []byte) bool {
	for _, c := range line {
		if c == '/' || c == '.' {
			return true
		}
	}
	return false
}

// isFileRef reports whether all of v is one file reference.
func isFileRef(v []byte) bool {
	for _, s := range fileRefs(v) {
		if s.start == 0 && s.end == len(v) {
			return true
		}
	}
	return false
}

// within reports whether [s, e) lies inside one of spans.
func within(spans []span, s, e int) bool {
	for _, p := range spans {
		if p.start <= s && e <= p.end {
			return true
		}
	}
	return false
}

// refCovers reports whether line[s:e] lies inside a file reference of
// line, as within(fileRefs(line), s, e) does, looking only at the stretch
// that can hold one: a file reference is made of path bytes (`\w.~/@-:`)
// and may start with one byte more before them, so the run of path bytes
// around line[s:e] and the byte before it hold every reference that can
// cover it. On a long line that holds many finds this costs the runs, not
// the whole line once per line.
func refCovers(line []byte, s, e int) bool {
	for _, c := range line[s:e] {
		if !isRefByte(c) {
			return false
		}
	}
	a, b := s, e
	for a > 0 && isRefByte(line[a-1]) {
		a--
	}
	for b < len(line) && isRefByte(line[b]) {
		b++
	}
	a = max(0, a-1)
	return within(fileRefs(line[a:b]), s-a, e-a)
}

func isRefByte(c byte) bool {
	return rx.IsWordByte(c) || c == '.' || c == '~' || c == '/' || c == '@' || c == '-' || c == ':'
}

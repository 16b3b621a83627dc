package redact

// Coloured output (grep --color, a test runner's) puts terminal escape
// sequences inside the words the rules look for: DB_PASSWORD printed as
// "\x1b[01;31m\x1b[KDB_PASSWORD\x1b[m\x1b[K=…" holds no "password". A line
// with escapes is looked at as a terminal shows it — the sequences taken
// out — and what is found there is redacted at the same bytes of the line
// as it came.

// withoutEscapes returns line without its escape sequences (CSI, OSC and
// two-byte ones) and, for each byte of the result, its offset in line,
// with len(line) after the last.
func withoutEscapes(line []byte) (shown []byte, at []int) {
	shown, at = make([]byte, 0, len(line)), make([]int, 0, len(line)+1)
	for i := 0; i < len(line); {
		if line[i] != 0x1b {
			shown, at = append(shown, line[i]), append(at, i)
			i++
			continue
		}
		i = escapeEnd(line, i)
	}
	return shown, append(at, len(line))
}

// escapeEnd is the offset after the escape sequence that starts at i.
func escapeEnd(line []byte, i int) int {
	if i+1 >= len(line) {
		return len(line)
	}
	switch line[i+1] {
	case '[': // CSI: parameters, intermediates, a final byte
		j := i + 2
		for j < len(line) && line[j] >= 0x20 && line[j] <= 0x3f {
			j++
		}
		if j < len(line) && line[j] >= 0x40 && line[j] <= 0x7e {
			j++
		}
		return j
	case ']': // OSC: to BEL or ESC \
		for j := i + 2; j < len(line); j++ {
			if line[j] == 0x07 {
				return j + 1
			}
			if line[j] == 0x1b && j+1 < len(line) && line[j+1] == '\\' {
				return j + 2
			}
		}
		return len(line)
	}
	return i + 2
}

// escapedFinds finds the secrets of a line that holds escape sequences as
// if it held none, at the line's own offsets; ok is false for a line
// without any.
func (r *Redactor) escapedFinds(line []byte) (fs []find, ok bool) {
	shown, at := withoutEscapes(line)
	if len(shown) == len(line) {
		return nil, false
	}
	for _, f := range r.finds(shown) {
		f.start, f.end = at[f.start], at[f.end-1]+1
		fs = append(fs, f)
	}
	return fs, true
}

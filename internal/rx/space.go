package rx

// The helpers below stand for strings.TrimLeft and strings.IndexAny with
// regexp's \s as the cut set, for code that reads every line of an output
// by hand instead of with an expression: those functions build a set of
// the cut set's bytes on every call, which cost more than the reading.

// IsSpace reports whether c is in regexp's \s: space, \t, \n, \f or \r.
func IsSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// TrimLeftSpace returns s without the \s bytes it starts with.
func TrimLeftSpace(s string) string {
	i := 0
	for i < len(s) && IsSpace(s[i]) {
		i++
	}
	return s[i:]
}

// IndexSpace returns the index of the first \s byte in s, or -1.
func IndexSpace(s string) int {
	for i := 0; i < len(s); i++ {
		if IsSpace(s[i]) {
			return i
		}
	}
	return -1
}

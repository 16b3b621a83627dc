// Package broken does not compile, for the build-error corpus.
package broken

import "strconv"

// Parse converts s.
func Parse(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return Fallback(s)
	}
	var total string = n
	return total
}

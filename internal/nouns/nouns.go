// Package nouns writes a count of things as a reader expects it: "1 file",
// "2 files", "0 files". Every message that counts something, from the
// digest's markers to doctor's findings, says it this one way.
package nouns

import "strconv"

// Count is n and a noun in its number: one when n is 1, many otherwise.
func Count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

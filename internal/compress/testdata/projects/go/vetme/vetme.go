// Package vetme compiles but go vet objects to it.
package vetme

import "fmt"

// Describe formats a count with the wrong verb.
func Describe(name string, n int) string {
	return fmt.Sprintf("%s has %s items", name, n)
}

// Unreachable has dead code after its return.
func Unreachable() int {
	return 1
	fmt.Println("never")
	return 2
}

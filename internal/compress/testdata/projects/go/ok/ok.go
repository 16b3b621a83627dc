// Package ok passes its tests.
package ok

// Double returns 2n.
func Double(n int) int { return 2 * n }

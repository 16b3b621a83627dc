// Package calc has a deliberate bug in Add for the failing-test corpus.
package calc

// Add returns a+b (but subtracts).
func Add(a, b int) int { return a - b }

// Mul returns a*b.
func Mul(a, b int) int { return a * b }

// Clamp limits v to [lo, hi].
func Clamp(v, lo, hi int) int {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

// Package race has a data race for the -race corpus.
package race

// Counter is not safe for concurrent use.
type Counter struct{ n int }

// Inc increments without a lock.
func (c *Counter) Inc() { c.n++ }

// Value reads without a lock.
func (c *Counter) Value() int { return c.n }

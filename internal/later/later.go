// Package later starts work whose result is needed further on, so that it
// runs beside what comes first instead of after it.
package later

// Start runs f on a goroutine of its own and returns a function that waits
// for its result; every call of that function returns the same result.
func Start[T any](f func() (T, error)) func() (T, error) {
	var v T
	var err error
	done := make(chan struct{})
	go func() {
		defer close(done)
		v, err = f()
	}()
	return func() (T, error) {
		<-done
		return v, err
	}
}

package later

import (
	"errors"
	"sync/atomic"
	"testing"
)

func TestStartRunsOnceAndWaits(t *testing.T) {
	var runs atomic.Int32
	release := make(chan struct{})
	wait := Start(func() (int, error) {
		runs.Add(1)
		<-release // still running when the caller first asks
		return 42, errors.New("kept")
	})
	got := make(chan int)
	go func() {
		v, _ := wait()
		got <- v
	}()
	select {
	case v := <-got:
		t.Fatalf("wait returned %d before f finished", v)
	default:
	}
	close(release)
	if v := <-got; v != 42 {
		t.Fatalf("first wait = %d, want 42", v)
	}
	for range 3 {
		if v, err := wait(); v != 42 || err == nil || err.Error() != "kept" {
			t.Fatalf("wait again = %d, %v", v, err)
		}
	}
	if n := runs.Load(); n != 1 {
		t.Fatalf("f ran %d times", n)
	}
}

package race

import (
	"sync"
	"testing"
)

func TestCounterRace(t *testing.T) {
	var c Counter
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.Inc()
		}()
	}
	wg.Wait()
	if c.Value() > 4 {
		t.Fatal("impossible")
	}
}

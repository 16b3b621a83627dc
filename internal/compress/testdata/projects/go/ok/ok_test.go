package ok

import (
	"fmt"
	"testing"
)

func TestDouble(t *testing.T) {
	for i := range 40 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			if Double(i) != i+i {
				t.Fatal("wrong")
			}
		})
	}
}

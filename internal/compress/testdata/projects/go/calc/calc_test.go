package calc

import (
	"fmt"
	"testing"
)

func TestAdd(t *testing.T) {
	if got := Add(1, 2); got != 3 {
		t.Errorf("Add(1, 2) = %d, want 3", got)
	}
}

func TestMulTable(t *testing.T) {
	for i := range 150 {
		t.Run(fmt.Sprintf("times_%02d", i), func(t *testing.T) {
			if got := Mul(i, 2); got != i*2 {
				t.Fatalf("Mul(%d, 2) = %d", i, got)
			}
		})
	}
}

func TestClamp(t *testing.T) {
	cases := []struct{ v, lo, hi, want int }{{5, 0, 10, 5}, {-1, 0, 10, 0}, {11, 0, 10, 10}, {3, 4, 9, 5}}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%d_in_%d_%d", c.v, c.lo, c.hi), func(t *testing.T) {
			t.Logf("clamping %d", c.v)
			if got := Clamp(c.v, c.lo, c.hi); got != c.want {
				t.Errorf("Clamp(%d, %d, %d) = %d, want %d", c.v, c.lo, c.hi, got, c.want)
			}
		})
	}
}

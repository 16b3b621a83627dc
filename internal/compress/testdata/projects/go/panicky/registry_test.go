package panicky

import "testing"

func TestRegister(t *testing.T) {
	var r Registry
	r.Register("alpha", 1)
}

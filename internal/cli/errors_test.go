package cli

import (
	"errors"
	"fmt"
	"testing"

	"github.com/freshctx/freshctx/internal/readcache"
	"github.com/freshctx/freshctx/internal/records"
)

func TestExitCodeAndErrorCode(t *testing.T) {
	rangeErr := &readcache.RangeError{Given: "a.go:9-3", Want: "PATH:N-M with 1 ≤ N ≤ M"}
	for _, tc := range []struct {
		name string
		err  error
		exit int
		code string
	}{
		{"none", nil, 0, ""},
		{"usage", usagef("read takes one PATH[:N-M]"), 2, "usage"},
		{"bad range", rangeErr, 2, "usage"},
		{"bad range, wrapped", fmt.Errorf("read: %w", rangeErr), 2, "usage"},
		{"not found", &records.StartError{Command: "x", Code: 127, Err: errors.New("no")}, 127, "command_not_found"},
		{"command's status", exitStatus{42}, 42, "error"},
		{"other failure", errors.New("disk on fire"), 1, "error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := exitCode(tc.err); got != tc.exit {
				t.Errorf("exitCode = %d, want %d", got, tc.exit)
			}
			if tc.err == nil {
				return
			}
			if got := errorCode(tc.err); got != tc.code {
				t.Errorf("errorCode = %q, want %q", got, tc.code)
			}
		})
	}
}

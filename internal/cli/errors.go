package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/freshctx/freshctx/internal/readcache"
	"github.com/freshctx/freshctx/internal/records"
	"github.com/freshctx/freshctx/internal/registry"
	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/termsafe"
	"github.com/freshctx/freshctx/internal/workspace"
)

// usageError marks a mistake in how freshctx was called (exit 2).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// exitStatus carries a status to exit with that is not a failure of
// freshctx itself: `run` passing on its command's status.
type exitStatus struct{ code int }

func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// exitCode maps an error to the process status; the one place that does.
func exitCode(err error) int {
	var es exitStatus
	var se *records.StartError
	var ue usageError
	var re *readcache.RangeError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &es):
		return es.code
	case errors.As(err, &se):
		return se.Code
	case errors.As(err, &ue), errors.As(err, &re):
		return 2
	}
	return 1
}

// errorCode names an error for the JSON error object.
func errorCode(err error) string {
	var se *records.StartError
	var ue usageError
	var re *readcache.RangeError
	switch {
	case errors.As(err, &se):
		if se.Code == 127 {
			return "command_not_found"
		}
		return "command_not_executable"
	case errors.As(err, &ue), errors.As(err, &re):
		return "usage"
	case errors.Is(err, workspace.ErrOutsideRoot):
		return "outside_root"
	case errors.Is(err, records.ErrNotFound), errors.Is(err, store.ErrNotFound), errors.Is(err, registry.ErrNotFound):
		return "not_found"
	case errors.Is(err, readcache.ErrNoSession), errors.Is(err, readcache.ErrNoEntry):
		return "not_found"
	case errors.Is(err, registry.ErrNotGit):
		return "not_a_git_repository"
	case errors.Is(err, store.ErrCorrupt):
		return "store_corrupt"
	case errors.Is(err, store.ErrLocked):
		return "store_locked"
	case errors.Is(err, store.ErrNewerSchema):
		return "store_newer_schema"
	case errors.Is(err, store.ErrReadOnly):
		return "store_read_only"
	case errors.Is(err, store.ErrFull):
		return "disk_full"
	}
	return "error"
}

// reportError prints the one-line message on stderr and, with --json, the
// error object on stdout.
func reportError(streams IO, asJSON bool, err error) {
	fmt.Fprintf(streams.Err, "freshctx: %s\n", termsafe.Line(err.Error()))
	if asJSON {
		writeJSON(streams.Out, map[string]any{"error": map[string]string{
			"code": errorCode(err), "message": err.Error(),
		}})
	}
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

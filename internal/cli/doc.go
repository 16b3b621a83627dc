// Package cli is freshctx's command line: cobra commands that parse flags,
// call the feature services and render their results as text or, with
// --json, exactly one JSON object. It holds no feature logic.
//
// Exit codes are decided in one place (exitCode): 0 success, 1 failure,
// 2 usage error; `run` exits with its command's status (127 when the command
// cannot be found, 126 when it cannot be executed).
package cli

package integrate

import (
	"strings"

	"github.com/freshctx/freshctx/internal/config"
)

// Codex starts its PreToolUse hook for every shell line the model runs
// (its hooks filter by tool name alone, with no "if" as Claude Code's
// have), and most lines (ls, cat, grep, git) are ones freshctx does not
// route: each started a freshctx process, the whole cost of a call for no
// answer. Codex runs a hook's command with `bash -c`, so init gives the Bash
// group codexBashCommand: a few lines of bash, builtins only, that answer
// such a line themselves and hand every other input to `freshctx hook
// codex` byte for byte.
//
// It decides as the hook's own early answer does (bashNotRouted), and
// only where it can see everything that answer rests on; anywhere else it
// runs freshctx:
//   - the input is whole (under 4096 characters, read to its end), a
//     PreToolUse of Bash holding "tool_input":{"command":"…", with an
//     absolute cwd free of escapes, and neither FRESHCTX_STORE nor
//     FRESHCTX_ROOT is set;
//   - the root is freshctx's: the folder holding .git at or above cwd;
//     with none, cwd, and where cwd holds no store either the hook answers
//     nothing (hookProject), so neither does the prefilter;
//   - the run commands are the mirror beside the store, with its header
//     (config.MirrorHeader); without one the store decides.
//
// A line is answered here when no first word of the run commands appears
// in the command where a word starts (not after a letter, a digit or _),
// JSON's \n, \t and \r read as spaces: wider than the routing (`gofmt`,
// `cat go.mod` and `echo go` reach freshctx, which declines them), never
// narrower, as with pi's prefilter (TestCodexPrefilterCoversEveryRoutedLine).
// Missing a line would cost its routing, never an answer: the line runs as
// written.
//
// bash reads a pipe a byte at a time, so the input is read only up to
// 4096 characters: a longer one goes to freshctx with the rest, a few
// milliseconds later than without the prefilter.
var codexBashCommand = `# freshctx: a shell line no run command starts is answered here; freshctx hook codex answers the rest
if IFS= read -r -d '' -n 4096 j; then { printf %s "$j"; exec cat; } | exec freshctx hook codex; fi
c=${j#*'"cwd":"'} t=${j#*'"tool_input":{"command":"'} H=$'` + strings.ReplaceAll(config.MirrorHeader, "\n", `\n`) + `'
c=${c%%'"'*}
case $c in /*\\*|[!/]*|'') exec freshctx hook codex <<<"$j";; esac
case $j in *'"hook_event_name":"PreToolUse"'*'"tool_name":"Bash"'*) ;; *) exec freshctx hook codex <<<"$j";; esac
[ -z "$FRESHCTX_STORE$FRESHCTX_ROOT" ] && [ "$t" != "$j" ] && [ -d "$c" ] || exec freshctx hook codex <<<"$j"
d=$c
until [ -e "$d/.git" ] || [ -L "$d/.git" ]; do
  if [ -z "$d" ]; then [ -e "$c/.freshctx/freshctx.db" ] || exit 0; d=$c; break; fi
  d=${d%/*}
done
{ IFS= read -r -d '' v <"$d/.freshctx/freshctx.db-run-commands"; } 2>/dev/null
[ "${v#"$H"}" != "$v" ] || exec freshctx hook codex <<<"$j"
v=${v#"$H"}, t=" ${t//\\[ntr]/ }"
while [ -n "$v" ]; do
  w=${v%%,*} v=${v#*,}
  w=${w#"${w%%[![:space:]]*}"}
  w=${w%%[[:space:]]*}
  case $t in *[!A-Za-z0-9_]"$w"*) [ -n "$w" ] && exec freshctx hook codex <<<"$j";; esac
done
`

package artifact

import (
	"fmt"

	"slices"
	"time"

	"github.com/freshctx/freshctx/internal/config"
)

// Spec is what an artifact type depends on by default.
type Spec struct {
	Name string
	// TTL is the default lifetime; 0 is none.
	TTL time.Duration
	// PathSet: the artifact depends on the set of files in the tree
	// (added, removed or moved files make it stale).
	PathSet bool
	// KeyIsFile: the key names the one file the artifact depends on.
	KeyIsFile bool
	// CommitPrimary: a new commit makes it stale in every mode.
	CommitPrimary bool
	Doc           string
}

// Types are the documented artifact types; any other name is allowed and
// has no defaults.
var Types = []Spec{
	{Name: "repo_map", PathSet: true, Doc: "depends on the tree's path set (and any --dep)"},
	{Name: "file_summary", KeyIsFile: true, Doc: "the key is the file it summarizes"},
	{Name: "dependency_graph", Doc: "depends on the files whose imports it read (--dep)"},
	{Name: "recent_change_summary", TTL: 7 * 24 * time.Hour, CommitPrimary: true,
		Doc: "a commit range: stale on a new commit, rolling TTL 7 days"},
	{Name: "known_failure_fingerprint", Doc: "depends on the files of the failure (--dep)"},
	{Name: "tool_result", Doc: "input files (--dep) and the tool's version (--agent-version)"},
	{Name: "agent_intermediate", Doc: "source files (--dep) and the agent's version (--agent-version)"},
}

// SpecOf returns the spec of a type; unknown types get an empty one.
func SpecOf(name string) Spec {
	if i := slices.IndexFunc(Types, func(s Spec) bool { return s.Name == name }); i >= 0 {
		return Types[i]
	}
	return Spec{Name: name}
}

// ParseTTL reads a TTL as a put takes it: "" keeps the type's default
// (0), "0" means none at all (negative), else a duration like 12h or 7d.
func ParseTTL(s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	d, err := config.ParseAge(s)
	if err != nil {
		return 0, err
	}
	if d == 0 {
		return -1, nil
	}
	return d, nil
}

// Mode is how strictly a lookup judges an artifact.
type Mode string

// The modes.
const (
	Default Mode = "default"
	Strict  Mode = "strict"
	Relaxed Mode = "relaxed"
)

// ParseMode validates a mode; "" is Default.
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case "":
		return Default, nil
	case Default, Strict, Relaxed:
		return Mode(s), nil
	}
	return "", fmt.Errorf("unknown mode %q: want strict, default or relaxed", s)
}

// Outcomes of a lookup.
const (
	Hit   = "hit"
	Stale = "stale"
	Cold  = "cold"
)

// Dimensions a lookup may find changed.
const (
	DimCommit      = "commit"
	DimTree        = "tree"
	DimPathSet     = "path_set"
	DimFile        = "file_digest"
	DimAgent       = "agent_version"
	DimConfig      = "config_digest"
	DimPolicy      = "policy_digest"
	DimEntitlement = "entitlement_digest"
	DimTTL         = "ttl"
	DimInvalidated = "invalidated"
)

// Digests are the version and digests a caller vouches for.
type Digests struct {
	AgentVersion      string
	ConfigDigest      string
	PolicyDigest      string
	EntitlementDigest string
}

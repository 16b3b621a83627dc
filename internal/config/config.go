// Package config holds the settings a user can change per store, with their
// defaults and validation: `freshctx config KEY [VALUE]`. Values live in the
// store's meta table under "config.KEY"; a key never set has its default.
package config

import (
	"context"
	"encoding/hex"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/freshctx/freshctx/internal/store"
)

// Key describes one setting.
type Key struct {
	Name    string
	Default string
	Help    string
	check   func(string) error
}

// Keys are the settings, in the order `config` lists them.
var Keys = []Key{
	{Name: "retention", Default: "30d", check: checkAge,
		Help: "records older than this are deleted with the output only they used (0 keeps everything)"},
	{Name: "registry.max_file_size", Default: "1MiB", check: checkSize,
		Help: "the registry skips files larger than this"},
	{Name: "hooks.run_commands", Default: defaultRunCommands, check: checkCommands,
		Help: "comma-separated command prefixes an agent's Bash runs through freshctx run (\"\" for none)"},
	{Name: "team.url", Default: "", check: checkTeamURL,
		Help: "the team store (postgres://…; its password from ~/.pgpass or PGPASSWORD, never here); FRESHCTX_TEAM overrides it"},
	{Name: "team.publish", Default: "failures", check: oneOf("all", "failures", "none"),
		Help: "which records run and capture publish to the team store: all, failures or none"},
	{Name: "team.verify_key", Default: "", check: checkKey,
		Help: "the team's public key (hex Ed25519): team records signed by its private half are marked signed"},
	{Name: "team.require_signed", Default: "false", check: oneOf("true", "false"),
		Help: "ignore team records not signed by team.verify_key's private half (and count them in team status)"},
	{Name: "summarize.endpoint", Default: "", check: checkEndpoint,
		Help: "the OpenAI-compatible chat endpoint registry summarize --auto sends files to (http://127.0.0.1:11434/v1); nothing is sent while unset"},
	{Name: "summarize.model", Default: "", check: checkModel,
		Help: "the model registry summarize --auto asks (qwen2.5-coder:7b)"},
	{Name: "summarize.key_env", Default: "FRESHCTX_SUMMARIZE_KEY", check: checkEnvName,
		Help: "the environment variable holding the endpoint's API key, if it wants one (the key is never stored)"},
	{Name: "summarize.max_file_size", Default: "64KiB", check: checkSize,
		Help: "registry summarize --auto never sends a file larger than this"},
	{Name: "summarize.stream", Default: "true", check: oneOf("true", "false"),
		Help: "ask for answers as a stream (a slow model is then timed by its silences, not its whole answer)"},
}

func checkEndpoint(v string) error {
	if v == "" {
		return nil
	}
	_, err := ParseEndpoint(v)
	return err
}

// ParseEndpoint checks the address of a summarize endpoint: http or https,
// a host, and no credentials (a key comes from the environment, never
// from the settings).
func ParseEndpoint(v string) (*url.URL, error) {
	u, err := url.Parse(v)
	switch {
	case err != nil:
		return nil, fmt.Errorf("not a URL: %w", err)
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("want an http:// or https:// URL, like http://127.0.0.1:11434/v1")
	case u.Host == "":
		return nil, fmt.Errorf("%q names no host", v)
	case u.User != nil:
		return nil, fmt.Errorf("a key is never stored: take it out of the URL and put it in the environment (summarize.key_env names the variable)")
	}
	return u, nil
}

func checkModel(v string) error {
	if strings.ContainsAny(v, "\n\r\t") {
		return fmt.Errorf("a model name is one line")
	}
	return nil
}

func checkEnvName(v string) error {
	for i, r := range v {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9') {
			return fmt.Errorf("%q is not an environment variable's name", v)
		}
	}
	return nil
}

func oneOf(values ...string) func(string) error {
	return func(v string) error {
		if slices.Contains(values, v) {
			return nil
		}
		return fmt.Errorf("want one of %s", strings.Join(values, ", "))
	}
}

func checkTeamURL(v string) error {
	if v == "" {
		return nil
	}
	if !strings.HasPrefix(v, "postgres://") && !strings.HasPrefix(v, "postgresql://") {
		return fmt.Errorf("want a postgres:// URL")
	}
	if u, err := url.Parse(v); err != nil {
		return fmt.Errorf("not a URL: %w", err)
	} else if _, has := u.User.Password(); has || u.Query().Has("password") {
		return fmt.Errorf("a password is never stored: take it out of the URL and put it in ~/.pgpass (or PGPASSWORD)")
	}
	return nil
}

func checkKey(v string) error {
	if v == "" {
		return nil
	}
	if b, err := hex.DecodeString(v); err != nil || len(b) != 32 {
		return fmt.Errorf("want 64 hex digits (an Ed25519 public key)")
	}
	return nil
}

// defaultRunCommands: tests, builds, linters and type checkers, whose output
// is long and whose failures are what the model needs.
const defaultRunCommands = "go test,go build,go vet,cargo test,cargo build,cargo check,cargo clippy," +
	"npm test,npm run test,npm run build,npm run lint,pnpm test,pnpm run test,pnpm build,pnpm lint," +
	"yarn test,yarn build,yarn lint,pytest,python -m pytest,python3 -m pytest,jest,npx jest,vitest,npx vitest," +
	"tsc,npx tsc,eslint,npx eslint,make,mvn,gradle,./gradlew"

// DefaultRunCommands is hooks.run_commands as a list, where a store has
// not set it.
func DefaultRunCommands() []string { return splitCommands(defaultRunCommands) }

func splitCommands(v string) []string {
	var out []string
	for _, c := range strings.Split(v, ",") {
		if c = strings.Join(strings.Fields(c), " "); c != "" {
			out = append(out, c)
		}
	}
	return out
}

func checkCommands(v string) error {
	if strings.ContainsAny(v, "\n;|&") {
		return fmt.Errorf("%q: command prefixes are plain words separated by commas", v)
	}
	return nil
}

func lookup(name string) (Key, error) {
	i := slices.IndexFunc(Keys, func(k Key) bool { return k.Name == name })
	if i < 0 {
		names := make([]string, len(Keys))
		for j, k := range Keys {
			names[j] = k.Name
		}
		return Key{}, fmt.Errorf("unknown setting %q: known are %s", name, strings.Join(names, ", "))
	}
	return Keys[i], nil
}

// Setting is a key with its current value.
type Setting struct {
	Key     string `json:"key"`
	Value   string `json:"value"`
	Default bool   `json:"default"`
	Help    string `json:"help"`
}

// Get returns one setting.
func Get(ctx context.Context, s *store.Store, name string) (Setting, error) {
	k, err := lookup(name)
	if err != nil {
		return Setting{}, err
	}
	out := Setting{Key: k.Name, Value: k.Default, Default: true, Help: k.Help}
	err = s.View(ctx, func(tx *store.Tx) error {
		v, ok, err := tx.Meta("config." + k.Name)
		if ok {
			out.Value, out.Default = v, false
		}
		return err
	})
	return out, err
}

// All returns every setting.
func All(ctx context.Context, s *store.Store) ([]Setting, error) {
	var out []Setting
	for _, k := range Keys {
		v, err := Get(ctx, s, k.Name)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// Set validates and stores a value.
func Set(ctx context.Context, s *store.Store, name, value string) (Setting, error) {
	k, err := lookup(name)
	if err != nil {
		return Setting{}, err
	}
	if err := k.check(value); err != nil {
		return Setting{}, fmt.Errorf("%s: %w", name, err)
	}
	if k.Name == "hooks.run_commands" {
		// A hook must not go by the old list once the new one is set.
		if err := forgetMirror(s.Path()); err != nil {
			return Setting{}, fmt.Errorf("%s: %w", name, err)
		}
	}
	err = s.Update(ctx, func(tx *store.Tx) error { return tx.SetMeta("config."+k.Name, value) })
	if err != nil {
		return Setting{}, err
	}
	if k.Name == "hooks.run_commands" {
		keepMirror(s.Path(), value)
	}
	return Setting{Key: k.Name, Value: value, Help: k.Help}, nil
}

// Retention is the retention setting as a duration; 0 keeps everything.
func Retention(ctx context.Context, s *store.Store) (time.Duration, error) {
	v, err := Get(ctx, s, "retention")
	if err != nil {
		return 0, err
	}
	return ParseAge(v.Value)
}

// MaxFileSize is the registry's size limit in bytes.
func MaxFileSize(ctx context.Context, s *store.Store) (int64, error) {
	v, err := Get(ctx, s, "registry.max_file_size")
	if err != nil {
		return 0, err
	}
	return ParseSize(v.Value)
}

func checkSize(v string) error {
	_, err := ParseSize(v)
	return err
}

// ParseSize reads a byte count with an optional unit: 500000, 512KiB, 1MiB,
// 2MB, 1GiB.
func ParseSize(s string) (int64, error) {
	units := []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1000}, {"MB", 1000 * 1000}, {"GB", 1000 * 1000 * 1000}, {"B", 1}}
	num, mult := s, int64(1)
	for _, u := range units {
		if n, ok := strings.CutSuffix(s, u.suffix); ok {
			num, mult = strings.TrimSpace(n), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%q is not a size like 1MiB or 500000", s)
	}
	return n * mult, nil
}

func checkAge(v string) error {
	_, err := ParseAge(v)
	return err
}

// ParseAge reads a Go duration or a whole number of days ("30d"); "0" is 0.
func ParseAge(s string) (time.Duration, error) {
	if s == "0" {
		return 0, nil
	}
	if days, ok := strings.CutSuffix(s, "d"); ok {
		if n, err := strconv.Atoi(days); err == nil && n >= 0 {
			return time.Duration(n) * 24 * time.Hour, nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q is not a duration like 36h or 30d", s)
	}
	return d, nil
}

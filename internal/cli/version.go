package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"

	"github.com/spf13/cobra"
)

// version is freshctx's version, reported by `freshctx version` and to MCP
// clients: the module version it was built as (go install …@vX), else the
// commit it was built from ("dev-<commit>", "-dirty" with local changes),
// else "dev". It is read when asked: a hook or a read never needs it.
var version = sync.OnceValue(func() string { return buildVersion(debug.ReadBuildInfo()) })

func buildVersion(bi *debug.BuildInfo, ok bool) string {
	if !ok {
		return "dev"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	rev, modified := buildSetting(bi, "vcs.revision"), buildSetting(bi, "vcs.modified")
	if rev == "" {
		return "dev"
	}
	v := "dev-" + rev[:min(12, len(rev))]
	if modified == "true" {
		v += "-dirty"
	}
	return v
}

func buildSetting(bi *debug.BuildInfo, key string) string {
	for _, s := range bi.Settings {
		if s.Key == key {
			return s.Value
		}
	}
	return ""
}

func newVersionCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print freshctx's version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			v := runVersion()
			return a.render(v, func() error {
				_, err := fmt.Fprintln(a.io.Out, v.line())
				return err
			})
		},
	}
}

// versionInfo is what `freshctx version` reports.
type versionInfo struct {
	Version  string `json:"version"`
	Go       string `json:"go"`
	Platform string `json:"platform"` // GOOS/GOARCH
}

func runVersion() versionInfo {
	return versionInfo{Version: version(), Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
}

// line is the version as `freshctx version` and --version print it.
func (v versionInfo) line() string {
	return fmt.Sprintf("freshctx %s (%s %s)", v.Version, v.Go, v.Platform)
}

// versionLine is this binary's version line.
func versionLine() string { return runVersion().line() }

// addVersionFlag gives root the --version (-v) people try first, printing
// what `freshctx version` prints. cobra's own (Command.Version) prints any
// other line only through SetVersionTemplate, a text/template, and
// executing a template reaches reflect's MethodByName: the linker then
// keeps every exported method of every linked type, and every process
// starts slower for it, the hooks and reads too
// (TestDeadCodeEliminationStaysOn). root runs nothing itself, so cobra
// answers its flags with its help: that is where --version is answered,
// when --help is not asked too.
func addVersionFlag(root *cobra.Command) {
	root.Flags().BoolP("version", "v", false, "version for "+root.Name())
	// Marked as cobra marks its own, which completion then leaves alone.
	if err := root.Flags().SetAnnotation("version", cobra.FlagSetByCobraAnnotation, []string{"true"}); err != nil {
		panic(err) // the flag was defined on the line above
	}
	help := root.HelpFunc()
	root.SetHelpFunc(func(c *cobra.Command, args []string) {
		if c != root || !flagOn(c, "version") || flagOn(c, "help") {
			help(c, args)
			return
		}
		if _, err := fmt.Fprintln(c.OutOrStdout(), versionLine()); err != nil {
			c.PrintErrln(err)
		}
	})
}

// flagOn reports whether c's boolean flag name was given true.
func flagOn(c *cobra.Command, name string) bool {
	on, err := c.Flags().GetBool(name)
	return err == nil && on
}

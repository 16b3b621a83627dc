package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Version is freshctx's version, reported by `freshctx version` and to MCP
// clients: the module version it was built as (go install …@vX), else the
// commit it was built from ("dev-<commit>", "-dirty" with local changes),
// else "dev".
var Version = buildVersion(debug.ReadBuildInfo())

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
			out := map[string]any{"version": Version, "go": runtime.Version(), "platform": runtime.GOOS + "/" + runtime.GOARCH}
			return a.render(out, func() error {
				_, err := fmt.Fprintln(a.io.Out, versionLine())
				return err
			})
		},
	}
}

// versionLine is the version as `freshctx version` and --version print it.
func versionLine() string {
	return fmt.Sprintf("freshctx %s (%s %s/%s)", Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

package cli

import (
	"runtime/debug"
	"testing"
)

func TestBuildVersion(t *testing.T) {
	info := func(version string, settings ...string) *debug.BuildInfo {
		bi := &debug.BuildInfo{Main: debug.Module{Version: version}}
		for i := 0; i+1 < len(settings); i += 2 {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
		}
		return bi
	}
	for _, tc := range []struct {
		name string
		bi   *debug.BuildInfo
		ok   bool
		want string
	}{
		{"no build info", nil, false, "dev"},
		{"go install @version", info("v0.3.1"), true, "v0.3.1"},
		{"a clone, with vcs", info("(devel)", "vcs.revision", "659b30e62f3a819700151061e52e2f5c9f414567", "vcs.modified", "false"), true, "dev-659b30e62f3a"},
		{"a clone with changes", info("(devel)", "vcs.revision", "659b30e62f3a819700151061e52e2f5c9f414567", "vcs.modified", "true"), true, "dev-659b30e62f3a-dirty"},
		{"-buildvcs=false", info("(devel)"), true, "dev"},
	} {
		if got := buildVersion(tc.bi, tc.ok); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

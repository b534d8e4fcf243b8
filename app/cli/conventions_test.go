package cli

import (
	"runtime/debug"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/orchestrate-dev/orchestrate/app/cli/cmdutil"
	"github.com/orchestrate-dev/orchestrate/templates"
)

func TestVersionFrom(t *testing.T) {
	setting := func(kv ...string) []debug.BuildSetting {
		var out []debug.BuildSetting
		for i := 0; i+1 < len(kv); i += 2 {
			out = append(out, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return out
	}
	tests := []struct {
		name string
		bi   *debug.BuildInfo
		want string
	}{
		{name: "no build info", want: "dev"},
		{name: "go install @version", bi: &debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}}, want: "v1.4.0"},
		{name: "a clean checkout", bi: &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: setting("vcs.revision", "0123456789abcdef0123", "vcs.modified", "false")}, want: "dev (0123456789ab)"},
		{name: "a modified checkout", bi: &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: setting("vcs.revision", "0123456789abcdef0123", "vcs.modified", "true")}, want: "dev (0123456789ab, modified)"},
		{name: "nothing recorded", bi: &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, want: "dev"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := versionFrom(func() (*debug.BuildInfo, bool) { return tt.bi, tt.bi != nil })
			if got != tt.want {
				t.Errorf("versionFrom = %q, want %q", got, tt.want)
			}
		})
	}
}

// Every command's help has an Examples section, from the table.
func TestEveryCommandHasExamples(t *testing.T) {
	a := &app{sys: System{}, v: newSettings()}
	root := a.newRootCmd()
	seen := map[string]bool{}
	cmdutil.Walk(root, func(c *cobra.Command) {
		seen[c.CommandPath()] = true
		if strings.TrimSpace(c.Example) == "" {
			t.Errorf("%s has no examples", c.CommandPath())
		}
	})
	for path := range templates.Examples {
		if !seen[path] {
			t.Errorf("examples has %q, which is no command", path)
		}
	}
}

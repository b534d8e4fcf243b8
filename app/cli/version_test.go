package cli

import (
	"runtime/debug"
	"testing"
)

func TestVersionFromBuilds(t *testing.T) {
	bi := func(main string, settings ...string) func() (*debug.BuildInfo, bool) {
		return func() (*debug.BuildInfo, bool) {
			b := &debug.BuildInfo{Main: debug.Module{Path: "github.com/orchestrate-dev/orchestrate", Version: main}}
			for i := 0; i+1 < len(settings); i += 2 {
				b.Settings = append(b.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
			}
			return b, true
		}
	}
	for _, tc := range []struct {
		name string
		read func() (*debug.BuildInfo, bool)
		want string
	}{
		{"go install module@version", bi("v1.4.0"), "v1.4.0"},
		{"go install module@latest, prerelease", bi("v1.5.0-rc.1"), "v1.5.0-rc.1"},
		// Go 1.24+: go build / go install ./cmd/orchestrate in a clone stamps a pseudo-version
		{"go build in a clone after a tag (pseudo-version)", bi("v1.4.1-0.20261120110000-0123456789ab", "vcs.revision", "0123456789abcdef0123456789abcdef01234567"), "v1.4.1-0.20261120110000-0123456789ab"},
		{"go build in a dirty clone after a tag", bi("v1.4.1-0.20261120110000-0123456789ab+dirty", "vcs.revision", "0123456789abcdef", "vcs.modified", "true"), "v1.4.1-0.20261120110000-0123456789ab+dirty"},
		{"go build in a clone without tags", bi("v0.0.0-20261127062741-255228c398a1", "vcs.revision", "255228c398a1ed29c2e08624abb5b23552c6dff7", "vcs.modified", "false"), "dev (255228c398a1)"},
		{"go build in a dirty clone without tags", bi("v0.0.0-20261127062741-255228c398a1+dirty", "vcs.revision", "255228c398a1ed29c2e08624abb5b23552c6dff7", "vcs.modified", "true"), "dev (255228c398a1, modified)"},
		{"a v0.0.0 pseudo-version without a revision", bi("v0.0.0-20261127062741-255228c398a1"), "v0.0.0-20261127062741-255228c398a1"},
		{"(devel) with a revision", bi("(devel)", "vcs.revision", "0123456789abcdef0123456789abcdef01234567", "vcs.modified", "false"), "dev (0123456789ab)"},
		{"(devel), modified", bi("(devel)", "vcs.revision", "0123456789abcdef0123456789abcdef01234567", "vcs.modified", "true"), "dev (0123456789ab, modified)"},
		{"short revision", bi("", "vcs.revision", "abc123"), "dev (abc123)"},
		{"no version, no vcs (-buildvcs=false, a git worktree)", bi("(devel)"), "dev"},
		{"no build information", func() (*debug.BuildInfo, bool) { return nil, false }, "dev"},
		{"nil build information", func() (*debug.BuildInfo, bool) { return nil, true }, "dev"},
	} {
		if got := versionFrom(tc.read); got != tc.want {
			t.Errorf("%s: versionFrom = %q, want %q", tc.name, got, tc.want)
		}
	}
}

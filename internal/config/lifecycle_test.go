package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// lifecycle.remote pushes to a git remote: from the repository's own file
// it is honoured only once trusted (an untrusted one is ignored with a
// warning naming orchestrate trust); the user's config and the environment
// (ORCHESTRATE_REMOTE, ORCHESTRATE_LIFECYCLE_REMOTE) always set it.
// lifecycle.lease is a plain duration.
func TestLifecycleRemote(t *testing.T) {
	tests := []struct {
		name, repo, user string
		env              map[string]string
		remote           string
		lease            time.Duration
		warn             string
	}{
		{name: "default off"},
		{name: "untrusted repo: ignored with a warning", repo: "lifecycle:\n  remote: origin\n  lease: 30m\n", lease: 30 * time.Minute, warn: "ignoring lifecycle.remote"},
		{name: "repo trusted for the run", repo: "lifecycle:\n  remote: origin\n", env: map[string]string{EnvTrustRepoConfig: "1"}, remote: "origin"},
		{name: "user config", user: "lifecycle:\n  remote: upstream\n", remote: "upstream"},
		{name: "ORCHESTRATE_REMOTE", env: map[string]string{"ORCHESTRATE_REMOTE": "origin"}, remote: "origin"},
		{name: "ORCHESTRATE_REMOTE wins over the long name", env: map[string]string{"ORCHESTRATE_REMOTE": "a", "ORCHESTRATE_LIFECYCLE_REMOTE": "b"}, remote: "a"},
		{name: "long name", env: map[string]string{"ORCHESTRATE_LIFECYCLE_REMOTE": "b"}, remote: "b"},
		{name: "lease from env", env: map[string]string{"ORCHESTRATE_LIFECYCLE_LEASE": "90s"}, lease: 90 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			root := filepath.Join(dir, "repo")
			xdg := filepath.Join(dir, "xdg")
			if err := os.MkdirAll(filepath.Join(xdg, "orchestrate"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(root, 0o755); err != nil {
				t.Fatal(err)
			}
			if tt.repo != "" {
				_ = os.WriteFile(filepath.Join(root, RepoFileName), []byte(tt.repo), 0o644)
			}
			if tt.user != "" {
				_ = os.WriteFile(filepath.Join(xdg, "orchestrate", "config.yaml"), []byte(tt.user), 0o644)
			}
			env := map[string]string{"XDG_CONFIG_HOME": xdg, "HOME": dir}
			for k, v := range tt.env {
				env[k] = v
			}
			cl, err := Load(LoadOptions{Root: root, Getenv: func(k string) string { return env[k] }})
			if err != nil {
				t.Fatal(err)
			}
			if cl.Config.Lifecycle.Remote != tt.remote || cl.Config.Lifecycle.Lease != tt.lease {
				t.Errorf("lifecycle = %+v, want remote %q lease %v", cl.Config.Lifecycle, tt.remote, tt.lease)
			}
			joined := strings.Join(cl.Warnings, "\n")
			if (tt.warn == "") != (joined == "") || !strings.Contains(joined, tt.warn) || (tt.warn != "" && !strings.Contains(joined, "orchestrate trust")) {
				t.Errorf("warnings %q, want one containing %q", joined, tt.warn)
			}
		})
	}
}

// Package configtest builds the files and the injected environment that
// configuration tests need: a repository root with its .orchestrate.yaml, a
// home with the user's config, and a getenv that reads only what the test
// gave it. It imports nothing of orchestrate, so internal/config's own tests
// can use it.
package configtest

import (
	"os"
	"path/filepath"
	"testing"
)

// RepoFile is the repository's configuration file name (config.RepoFileName).
const RepoFile = ".orchestrate.yaml"

// Env returns a fresh repository root and home, writes repo to the root's
// .orchestrate.yaml and user to the home's .config/orchestrate/config.yaml
// when they are not empty, and returns a getenv over env plus HOME.
func Env(t *testing.T, repo, user string, env map[string]string) (root, home string, getenv func(string) string) {
	t.Helper()
	root, home = t.TempDir(), t.TempDir()
	all := map[string]string{"HOME": home}
	for k, v := range env {
		all[k] = v
	}
	if repo != "" {
		WriteFile(t, filepath.Join(root, RepoFile), repo)
	}
	if user != "" {
		WriteFile(t, filepath.Join(home, ".config", "orchestrate", "config.yaml"), user)
	}
	return root, home, func(k string) string { return all[k] }
}

// WriteFile writes content to path, making its folders.
func WriteFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

package cli

import (
	"os"
	"path/filepath"
	"testing"
)

func TestCacheForRefusesAFolderInsideTheRepository(t *testing.T) {
	tmp := t.TempDir()
	repo := filepath.Join(tmp, "repo")
	if err := os.MkdirAll(filepath.Join(repo, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	// the folder above a cache folder is there (a missing one is not made)
	if err := os.Mkdir(filepath.Join(tmp, "repo-cache"), 0o700); err != nil {
		t.Fatal(err)
	}
	// a link outside the repository that points into it
	link := filepath.Join(tmp, "link")
	if err := os.Symlink(filepath.Join(repo, "sub"), link); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, dir string
		on        bool
	}{
		{"outside", filepath.Join(tmp, "cache"), true},
		{"a sibling named like the repository", filepath.Join(tmp, "repo-cache", "orchestrate"), true},
		{"the repository itself", repo, false},
		{"inside, not yet created", filepath.Join(repo, ".cache", "orchestrate"), false},
		{"inside, existing", filepath.Join(repo, "sub"), false},
		{"through a link into it", filepath.Join(link, "orchestrate"), false},
		{"off", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			getenv := func(k string) string {
				return map[string]string{"HOME": tmp, "ORCHESTRATE_CACHE_DIR": tt.dir}[k]
			}
			if tt.dir == "" {
				getenv = func(k string) string { return map[string]string{"ORCHESTRATE_CACHE_DIR": "off", "HOME": tmp}[k] }
			}
			if got, _ := cacheFor(repo, getenv); (got != nil) != tt.on {
				t.Fatalf("cacheFor(%s) on = %v, want %v", tt.dir, got != nil, tt.on)
			}
		})
	}
}

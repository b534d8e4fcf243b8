package handoff

import (
	"os"
	"path/filepath"
	"testing"
)

func TestEnsureGitignore(t *testing.T) {
	tests := []struct {
		name      string
		setup     func(t *testing.T, root string)
		wantWrote bool
		want      string // the file's content after; "" to skip
	}{
		{name: "absent: written", wantWrote: true, want: GitignoreContent},
		{name: "no .orchestrate yet: written", setup: func(t *testing.T, root string) {}, wantWrote: true, want: GitignoreContent},
		{name: "present: kept", setup: func(t *testing.T, root string) {
			if err := os.MkdirAll(filepath.Join(root, ".orchestrate"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(root, GitignoreRel), []byte("mine\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, want: "mine\n"},
		{name: "a symlink: left alone, nothing written through it", setup: func(t *testing.T, root string) {
			if err := os.MkdirAll(filepath.Join(root, ".orchestrate"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Join(root, "outside"), filepath.Join(root, ".orchestrate", ".gitignore")); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			if tc.setup != nil {
				tc.setup(t, root)
			}
			wrote, err := EnsureGitignore(root)
			if err != nil || wrote != tc.wantWrote {
				t.Fatalf("EnsureGitignore = %v, %v; want %v", wrote, err, tc.wantWrote)
			}
			if tc.want != "" {
				data, _ := os.ReadFile(filepath.Join(root, GitignoreRel))
				if string(data) != tc.want {
					t.Errorf("content %q, want %q", data, tc.want)
				}
			}
			if _, err := os.Stat(filepath.Join(root, "outside")); err == nil {
				t.Error("wrote through a symlink")
			}
			if again, err := EnsureGitignore(root); again || err != nil {
				t.Errorf("second EnsureGitignore = %v, %v; want false, nil", again, err)
			}
		})
	}
}

func TestEnsureGitignoreSymlinkedFolder(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	if err := os.Symlink(outside, filepath.Join(root, ".orchestrate")); err != nil {
		t.Fatal(err)
	}
	if _, err := EnsureGitignore(root); err == nil {
		t.Error("a symlinked .orchestrate was accepted")
	}
	if _, err := os.Stat(filepath.Join(outside, ".gitignore")); err == nil {
		t.Error("wrote outside the repository")
	}
}

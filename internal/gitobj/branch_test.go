package gitobj

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestReadBranch: the branch HEAD names, in a work tree and in a linked
// worktree (its git folder inside the work tree or outside it), and no
// branch for a detached HEAD, a HEAD naming no branch, or no HEAD.
func TestReadBranch(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	must(t, os.WriteFile(filepath.Join(outside, "HEAD"), []byte("ref: refs/heads/far\n"), 0o644))
	tests := []struct {
		name       string
		files      map[string]string
		wantBranch string
		wantGit    bool
	}{
		{"no .git", map[string]string{}, "", false},
		{"branch", map[string]string{".git": "", ".git/HEAD": "ref: refs/heads/001-feature\n"}, "001-feature", true},
		{"detached", map[string]string{".git": "", ".git/HEAD": "0123456789abcdef0123456789abcdef01234567\n"}, "", true},
		{"not a branch", map[string]string{".git": "", ".git/HEAD": "ref: refs/tags/v1\n"}, "", true},
		{"a NUL in the name", map[string]string{".git": "", ".git/HEAD": "ref: refs/heads/a\x00b\n"}, "", true},
		{"no HEAD", map[string]string{".git": ""}, "", true},
		{"worktree inside", map[string]string{".git": "gitdir: wt/git\n", "wt/git/HEAD": "ref: refs/heads/near\n"}, "near", true},
		{"worktree outside", map[string]string{".git": "gitdir: " + outside + "\n"}, "far", true},
		{"worktree escaping", map[string]string{".git": "gitdir: ../../x\n", "x/HEAD": "ref: refs/heads/x\n"}, "", true},
		{"not a git file", map[string]string{".git": "nonsense\n"}, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			exists := func(rel string) bool { _, ok := tt.files[rel]; return ok }
			read := func(rel string) ([]byte, error) {
				if c, ok := tt.files[rel]; ok && (rel != ".git" || c != "") {
					return []byte(c), nil
				}
				return nil, &fs.PathError{Op: "read", Path: rel, Err: errors.New("not readable")}
			}
			b, git := ReadBranch(exists, read)
			if b != tt.wantBranch || git != tt.wantGit {
				t.Errorf("ReadBranch = %q %v, want %q %v", b, git, tt.wantBranch, tt.wantGit)
			}
		})
	}
}

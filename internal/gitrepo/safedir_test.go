package gitrepo

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenRefusesOtherOwner chowns a repository to another user: Open
// refuses it with git's advice until the global config lists it.
func TestOpenRefusesOtherOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a folder to another user")
	}
	dir := gitRepoOneCommit(t)
	must(t, os.Chown(dir, 4242, 4242))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("SUDO_UID", "")
	global := filepath.Join(t.TempDir(), "gitconfig")
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	_, err := Open(filepath.Join(dir))
	if !errors.Is(err, ErrDubiousOwnership) {
		t.Fatalf("err = %v, want %v", err, ErrDubiousOwnership)
	}
	real := realPath(t, dir)
	if want := fmt.Sprintf("git config --global --add safe.directory %s", real); !strings.Contains(err.Error(), want) {
		t.Errorf("%q does not advise %q", err, want)
	}
	must(t, os.WriteFile(global, []byte("[safe]\n\tdirectory = "+real+"\n"), 0o644))
	r, err := Open(dir)
	if err != nil {
		t.Fatalf("allowed by safe.directory: %v", err)
	}
	_ = r.Close()
}

package gitobj

import (
	"path"
	"path/filepath"
	"strings"

	"github.com/orchestrate-dev/orchestrate/internal/refpath"
)

// maxBranchFile bounds the .git files ReadBranch reads outside the work
// tree.
const maxBranchFile = 4096

// ReadBranch returns the branch HEAD is on in a work tree whose files
// exists and read give (relative slash paths: the caller's own confined
// reader), from .git/HEAD, or, in a linked worktree, from the HEAD of the
// folder its .git file names (read as every .git file is, ReadGitFile,
// when that folder is outside the work tree). hasGit reports a .git entry;
// the branch is "" on a detached HEAD, or when HEAD cannot be read or names
// no branch this reader takes.
func ReadBranch(exists func(rel string) bool, read func(rel string) ([]byte, error)) (branch string, hasGit bool) {
	if !exists(".git") {
		return "", false
	}
	data, err := read(".git/HEAD")
	if err != nil {
		gitfile, err := read(".git")
		if err != nil {
			return "", true
		}
		dir, ok := strings.CutPrefix(strings.TrimSpace(string(gitfile)), "gitdir:")
		if !ok {
			return "", true
		}
		dir = strings.TrimSpace(dir)
		if filepath.IsAbs(dir) {
			data, err = ReadGitFile(filepath.Join(dir, "HEAD"), maxBranchFile)
		} else {
			data, err = read(path.Join(refpath.CleanPath(dir), "HEAD"))
		}
		if err != nil {
			return "", true
		}
	}
	ref, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "ref:")
	if !ok {
		return "", true // detached HEAD
	}
	name, ok := strings.CutPrefix(strings.TrimSpace(ref), "refs/heads/")
	if !ok || len(name) > 255 || strings.ContainsAny(name, "\x00\n\r") {
		return "", true
	}
	return name, true
}

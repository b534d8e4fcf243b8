package gitfixture

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
)

// TestCloneWorktreeShallow: a clone and a linked worktree hold HEAD's files
// and HEAD; a shallow clone records its boundary and loses older objects.
func TestCloneWorktreeShallow(t *testing.T) {
	src := t.TempDir()
	must(t, Init(src))
	var commits []string
	for i, content := range []string{"one\n", "two\n", "three\n"} {
		must(t, WriteFile(src, "a.txt", content))
		must(t, WriteFile(src, "docs/b.md", strings.Repeat(content, 2)))
		c, err := Commit(src, "c", "Ann", "ann@example.com", t0.Add(time.Duration(i)*time.Hour))
		must(t, err)
		commits = append(commits, c)
	}
	must(t, WriteFile(src, "a.txt", "uncommitted\n"))
	head := commits[2]

	for _, tc := range []struct {
		name  string
		make  func(dst string) error
		depth int
	}{
		{"clone", func(dst string) error { return Clone(src, dst) }, 0},
		{"worktree", func(dst string) error { return AddWorktree(src, dst, "wt") }, 0},
		{"shallow", func(dst string) error {
			if err := Clone(src, dst); err != nil {
				return err
			}
			return Shallow(dst, 2)
		}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dst := filepath.Join(t.TempDir(), tc.name)
			must(t, tc.make(dst))
			for rel, want := range map[string]string{"a.txt": "three\n", "docs/b.md": "three\nthree\n"} {
				got, err := os.ReadFile(filepath.Join(dst, filepath.FromSlash(rel)))
				if err != nil || string(got) != want {
					t.Errorf("%s = %q, %v; want %q", rel, got, err, want)
				}
			}
			repo, err := git.PlainOpenWithOptions(dst, &git.PlainOpenOptions{EnableDotGitCommonDir: true})
			must(t, err)
			ref, err := repo.Head()
			must(t, err)
			if ref.Hash().String() != head {
				t.Errorf("HEAD = %s, want %s", ref.Hash(), head)
			}
			bounds, err := repo.Storer.Shallow()
			must(t, err)
			if tc.depth == 0 {
				if len(bounds) != 0 {
					t.Errorf("shallow boundary in a full checkout: %v", bounds)
				}
				return
			}
			if len(bounds) != 1 || bounds[0].String() != commits[1] {
				t.Errorf("boundary = %v, want %s", bounds, commits[1])
			}
			if _, err := repo.CommitObject(plumbing.NewHash(commits[0])); err == nil {
				t.Error("the commit beyond the boundary was not pruned")
			}
		})
	}
	if err := Shallow(src, 0); err == nil {
		t.Error("Shallow depth 0 accepted")
	}
}

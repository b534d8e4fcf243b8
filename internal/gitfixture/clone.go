package gitfixture

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Clone makes dst a fresh clone of the repository in src without a git
// binary: it copies src's .git folder and checks HEAD's tree out into dst,
// so every file in dst has a new modification time — what a CI checkout or a
// colleague's clone sees. Uncommitted changes in src are not copied.
func Clone(src, dst string) error {
	if err := clone(src, dst); err != nil {
		return fmt.Errorf("gitfixture: clone %s: %w", src, err)
	}
	return nil
}

// clone is Clone without the error's context.
func clone(src, dst string) error {
	if err := copyTree(filepath.Join(src, ".git"), filepath.Join(dst, ".git")); err != nil {
		return err
	}
	repo, head, err := openHead(dst)
	if err != nil {
		return err
	}
	return checkout(repo, head, dst)
}

// openHead opens the repository in dir and resolves its HEAD.
func openHead(dir string) (*git.Repository, plumbing.Hash, error) {
	repo, err := git.PlainOpen(dir)
	if err != nil {
		return nil, plumbing.ZeroHash, err
	}
	head, err := repo.Head()
	if err != nil {
		return nil, plumbing.ZeroHash, err
	}
	return repo, head.Hash(), nil
}

// AddWorktree adds a linked worktree of the repository in src at dst, named
// name, checked out at src's HEAD (detached), as `git worktree add --detach`
// does: dst/.git is a file pointing at src/.git/worktrees/NAME, which holds
// HEAD, commondir and gitdir.
func AddWorktree(src, dst, name string) error {
	repo, head, err := openHead(src)
	if err != nil {
		return fmt.Errorf("gitfixture: worktree of %s: %w", src, err)
	}
	absDst, err := filepath.Abs(dst)
	if err != nil {
		return fmt.Errorf("gitfixture: worktree %s: %w", dst, err)
	}
	admin := filepath.Join(src, ".git", "worktrees", name)
	if absAdmin, err := filepath.Abs(admin); err == nil {
		admin = absAdmin
	}
	if err := os.MkdirAll(admin, 0o755); err != nil {
		return fmt.Errorf("gitfixture: worktree %s: %w", name, err)
	}
	files := map[string]string{
		"HEAD":      head.String() + "\n",
		"commondir": "../..\n",
		"gitdir":    filepath.Join(absDst, ".git") + "\n",
	}
	for n, c := range files {
		if err := os.WriteFile(filepath.Join(admin, n), []byte(c), 0o644); err != nil {
			return fmt.Errorf("gitfixture: worktree %s: %w", name, err)
		}
	}
	if err := os.MkdirAll(absDst, 0o755); err != nil {
		return fmt.Errorf("gitfixture: worktree %s: %w", dst, err)
	}
	if err := checkout(repo, head, absDst); err != nil {
		return fmt.Errorf("gitfixture: worktree %s: %w", dst, err)
	}
	if err := os.WriteFile(filepath.Join(absDst, ".git"), []byte("gitdir: "+admin+"\n"), 0o644); err != nil {
		return fmt.Errorf("gitfixture: worktree %s: %w", dst, err)
	}
	return nil
}

// Shallow makes the repository in dir a shallow clone of depth commits (at
// least 1), as `git clone --depth N` leaves it: the commit depth-1 steps down
// HEAD's first-parent chain becomes the shallow boundary (.git/shallow), and
// the loose objects only older commits reach are deleted. Objects in packs
// are kept (their history still ends at the boundary for any reader that
// honours .git/shallow).
func Shallow(dir string, depth int) error {
	if depth < 1 {
		return fmt.Errorf("gitfixture: shallow depth %d: must be at least 1", depth)
	}
	repo, head, err := openHead(dir)
	if err != nil {
		return fmt.Errorf("gitfixture: shallow %s: %w", dir, err)
	}
	keep := map[plumbing.Hash]bool{}
	c, err := repo.CommitObject(head)
	if err != nil {
		return fmt.Errorf("gitfixture: shallow %s: %w", dir, err)
	}
	for i := 1; ; i++ {
		keep[c.Hash] = true
		if err := markTree(repo, c.TreeHash, keep); err != nil {
			return fmt.Errorf("gitfixture: shallow %s: %w", dir, err)
		}
		if i == depth || len(c.ParentHashes) == 0 {
			break
		}
		if c, err = repo.CommitObject(c.ParentHashes[0]); err != nil {
			return fmt.Errorf("gitfixture: shallow %s: %w", dir, err)
		}
	}
	if len(c.ParentHashes) > 0 {
		if err := os.WriteFile(filepath.Join(dir, ".git", "shallow"), []byte(c.Hash.String()+"\n"), 0o644); err != nil {
			return fmt.Errorf("gitfixture: shallow %s: %w", dir, err)
		}
	}
	objects := filepath.Join(dir, ".git", "objects")
	dirs, err := os.ReadDir(objects)
	if err != nil {
		return fmt.Errorf("gitfixture: shallow %s: %w", dir, err)
	}
	for _, d := range dirs {
		if !d.IsDir() || len(d.Name()) != 2 {
			continue
		}
		entries, err := os.ReadDir(filepath.Join(objects, d.Name()))
		if err != nil {
			return fmt.Errorf("gitfixture: shallow %s: %w", dir, err)
		}
		for _, e := range entries {
			name := d.Name() + e.Name()
			if !plumbing.IsHash(name) || keep[plumbing.NewHash(name)] {
				continue
			}
			if err := os.Remove(filepath.Join(objects, d.Name(), e.Name())); err != nil {
				return fmt.Errorf("gitfixture: shallow %s: %w", dir, err)
			}
		}
	}
	return nil
}

// markTree marks the tree h and everything under it.
func markTree(repo *git.Repository, h plumbing.Hash, keep map[plumbing.Hash]bool) error {
	if keep[h] {
		return nil
	}
	keep[h] = true
	t, err := repo.TreeObject(h)
	if err != nil {
		return err
	}
	for _, e := range t.Entries {
		switch e.Mode {
		case filemode.Dir:
			if err := markTree(repo, e.Hash, keep); err != nil {
				return err
			}
		case filemode.Submodule:
		default:
			keep[e.Hash] = true
		}
	}
	return nil
}

// checkout writes the files of commit h into dir (symbolic links as links,
// executables with mode 0755).
func checkout(repo *git.Repository, h plumbing.Hash, dir string) error {
	c, err := repo.CommitObject(h)
	if err != nil {
		return err
	}
	t, err := c.Tree()
	if err != nil {
		return err
	}
	return t.Files().ForEach(func(f *object.File) error {
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		content, err := f.Contents()
		if err != nil {
			return err
		}
		switch f.Mode {
		case filemode.Symlink:
			return os.Symlink(content, p)
		case filemode.Executable:
			return os.WriteFile(p, []byte(content), 0o755)
		default:
			return os.WriteFile(p, []byte(content), 0o644)
		}
	})
}

// copyTree copies the folder src to dst (regular files and folders only).
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if strings.HasPrefix(rel, "worktrees") {
			return nil // another checkout's admin files
		}
		out := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		return copyFile(p, out)
	})
}

func copyFile(src, dst string) (err error) {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := out.Close(); err == nil {
			err = cerr
		}
	}()
	if _, err = io.Copy(out, in); err != nil {
		return err
	}
	return nil
}

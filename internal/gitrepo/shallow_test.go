package gitrepo

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-git/go-billy/v5/osfs"
	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/orchestrate-dev/orchestrate/internal/gitfixture"
	"github.com/orchestrate-dev/orchestrate/internal/gitobj"
)

// cloneOf clones h into a new folder and returns it.
func cloneOf(t *testing.T, h *history) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "clone")
	must(t, gitfixture.Clone(h.dir, dir))
	return dir
}

// removeLoose deletes the loose object h of the repository in dir.
func removeLoose(t *testing.T, dir string, h string) {
	t.Helper()
	must(t, os.Remove(filepath.Join(dir, ".git", "objects", h[:2], h[2:])))
}

// TestHistoryCut: a shallow boundary, a commit whose parent is missing and
// one whose parent's tree is missing are cuts; the first commit, a commit
// inside the history, and unknown or malformed revs are not. A path dated
// at a cut (LastChange) is dated there because the history ends, and the
// walks of CommitsTouching to a base beyond the cut say ErrHistoryMissing.
func TestHistoryCut(t *testing.T) {
	t.Parallel()
	h := newHistory(t)
	full := open(t, h.dir)
	for _, rev := range []string{h.c1, h.c2, h.c3, h.c4, h.c3[:7], "", "zz", "0000000", h.c3 + "0"} {
		if full.HistoryCut(rev) {
			t.Errorf("full history: HistoryCut(%q)", rev)
		}
	}

	shallow := cloneOf(t, h)
	must(t, os.WriteFile(filepath.Join(shallow, ".git", "shallow"), []byte(h.c3+"\n"), 0o644))
	r := open(t, shallow)
	for rev, want := range map[string]bool{h.c3: true, h.c3[:7]: true, h.c4: false, h.c4[:7]: false} {
		if got := r.HistoryCut(rev); got != want {
			t.Errorf("shallow at c3: HistoryCut(%.7s) = %v", rev, got)
		}
	}
	got := r.LastChange([]string{"src/app/main.go", "src/lib/deep/x/y.go"}, 0)
	if got["src/app/main.go"].Hash != h.c4 || r.HistoryCut(got["src/app/main.go"].Hash) {
		t.Errorf("main.go changed after the boundary: %v", got["src/app/main.go"])
	}
	if c := got["src/lib/deep/x/y.go"]; c.Hash != h.c3 || !r.HistoryCut(c.Short) {
		t.Errorf("y.go is dated at the boundary, at or before it: %v", c)
	}
	for _, tc := range []struct {
		base, path string
		missing    bool
	}{
		{h.c1, "src/app/main.go", true},  // beyond the boundary, main.go still differs
		{h.c2, "src/app/util.go", true},  // util.go differs from c2 down to the boundary
		{h.c2, "src/app/main.go", false}, // main.go is as in c2 again at c3
		{h.c3, "src/app/util.go", false}, // the boundary itself is the base
		{h.c4, "src/app/util.go", false},
	} {
		_, err := r.CommitsTouching(Commit{Hash: tc.base}, []string{tc.path}, 0)
		if errors.Is(err, ErrHistoryMissing) != tc.missing || (err != nil && !tc.missing) || !MissingHistory(err) && tc.missing {
			t.Errorf("CommitsTouching(%.7s, %s): %v", tc.base, tc.path, err)
		}
	}

	// a partial clone without c2: c3's parent is missing
	partial := cloneOf(t, h)
	removeLoose(t, partial, h.c2)
	if r := open(t, partial); !r.HistoryCut(h.c3) || r.HistoryCut(h.c4) {
		t.Error("c3 without its parent is a cut, c4 is not")
	}

	// a partial clone without c2's trees (git clone --filter=tree:0): the
	// walk dates at c3 what it cannot compare further, and says c3 is a cut
	trees := cloneOf(t, h)
	rt := open(t, trees)
	l2, err := rt.readLinks(plumbing.NewHash(h.c2))
	must(t, err)
	removeLoose(t, trees, l2.tree.String())
	rt = open(t, trees)
	if !rt.HistoryCut(h.c3) {
		t.Error("c3 whose parent's tree is missing is not a cut")
	}
	if c := rt.LastChange([]string{"src/lib/deep/x/y.go"}, 0)["src/lib/deep/x/y.go"]; c.Hash != h.c3 {
		t.Errorf("y.go in a tree-less partial clone: %v (want the cut c3)", c)
	}
}

// TestReadAtMissingBlob: a blob a partial clone does not hold is an error
// wrapping ErrHistoryMissing (never fetched); a path absent from the commit
// is os.ErrNotExist, not missing history.
func TestReadAtMissingBlob(t *testing.T) {
	t.Parallel()
	h := newHistory(t)
	dir := cloneOf(t, h)
	removeLoose(t, dir, plumbing.ComputeHash(plumbing.BlobObject, []byte("package main // v2\n")).String())
	r := open(t, dir)
	c2 := Commit{Hash: h.c2, Short: h.c2[:7]}
	if _, err := r.ReadAt(c2, "src/app/main.go"); !errors.Is(err, ErrHistoryMissing) || !MissingHistory(err) {
		t.Errorf("missing blob: %v", err)
	}
	if _, err := r.ReadAt(c2, "nope.md"); !errors.Is(err, os.ErrNotExist) || MissingHistory(err) {
		t.Errorf("absent path: %v", err)
	}
	if data, err := r.ReadAt(Commit{Hash: h.c4, Short: h.c4[:7]}, "src/app/main.go"); err != nil || string(data) != "package main // v3\n" {
		t.Errorf("present blob: %q, %v", data, err)
	}
}

// TestPromisor: the remote a partial clone's configuration names
// (remote.<name>.promisor, or extensions.partialclone), "" otherwise.
func TestPromisor(t *testing.T) {
	t.Parallel()
	h := newHistory(t)
	for _, tc := range []struct {
		name, config, want string
	}{
		{"plain", "", ""},
		{"remote", "[remote \"upstream\"]\n\turl = file:///x\n\tpromisor = true\n\tpartialclonefilter = blob:none\n", "upstream"},
		{"not-promisor", "[remote \"origin\"]\n\turl = file:///x\n\tpromisor = false\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := cloneOf(t, h)
			cfg := filepath.Join(dir, ".git", "config")
			old, err := os.ReadFile(cfg)
			must(t, err)
			must(t, os.WriteFile(cfg, append(old, tc.config...), 0o644))
			if got := open(t, dir).Promisor(); got != tc.want {
				t.Errorf("Promisor() = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestExtensionTolerant: go-git refuses a repository whose configuration
// sets extensions.worktreeConfig (git sparse-checkout), partialClone or
// preciousObjects; through extensionTolerant it opens (objects, HEAD and
// Promisor read as usual), while an extension that changes how objects are
// read (objectFormat) is still refused.
func TestExtensionTolerant(t *testing.T) {
	t.Parallel()
	h := newHistory(t)
	for _, tc := range []struct {
		name, config string
		opens        bool
		promisor     string
	}{
		{"worktree-config-v0", "[extensions]\n\tworktreeConfig = true\n", true, ""},
		{"worktree-config-v1", "[core]\n\trepositoryformatversion = 1\n[extensions]\n\tworktreeConfig = true\n", true, ""},
		{"partial-clone", "[core]\n\trepositoryformatversion = 1\n[extensions]\n\tpartialClone = upstream\n", true, "upstream"},
		{"precious", "[extensions]\n\tpreciousObjects = true\n", true, ""},
		{"object-format", "[core]\n\trepositoryformatversion = 1\n[extensions]\n\tobjectFormat = sha256\n\tworktreeConfig = true\n", false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := cloneOf(t, h)
			cfg := filepath.Join(dir, ".git", "config")
			old, err := os.ReadFile(cfg)
			must(t, err)
			must(t, os.WriteFile(cfg, append(old, tc.config...), 0o644))
			st := func() *filesystem.Storage {
				return filesystem.NewStorage(osfs.New(filepath.Join(dir, ".git")), cache.NewObjectLRUDefault())
			}
			if _, err := git.Open(st(), osfs.New(dir)); err == nil {
				t.Fatal("go-git opens it as it is: extensionTolerant is not needed for it")
			}
			repo, err := git.Open(extensionTolerant{st()}, osfs.New(dir))
			if (err == nil) != tc.opens {
				t.Fatalf("open: %v", err)
			}
			if !tc.opens {
				return
			}
			r := &Repo{repo: repo, objects: repo.Storer, root: dir, shallow: map[plumbing.Hash]bool{}}
			r.trees = gitobj.NewTreeIndexCache(r.objects, gitobj.TreeIndexBudget)
			if head, err := r.Head(); err != nil || head.Hash != h.c4 {
				t.Errorf("HEAD %v, %v", head.Short, err)
			}
			if got := r.Promisor(); got != tc.promisor {
				t.Errorf("Promisor() = %q, want %q", got, tc.promisor)
			}
		})
	}
}

package gitrepo

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/orchestrate-dev/orchestrate/internal/gitobj"
)

// headEntsPaths are the paths asked of HEAD in TestHeadEntriesFromIndex:
// files at the root and deep, a symbolic link, a submodule, folders, and
// paths absent under a folder that exists, under one that does not, and
// under a file.
var headEntsPaths = []string{
	"top.txt", "a/e.txt", "a/b/c.txt", "a/b/d.txt", "a/b/deep/x.txt", "z/y.txt", "link", "mod",
	"a", "a/b", "a/b/deep", "z",
	"a/missing.txt", "a/b/missing.txt", "nope/x.txt", "nope", "top.txt/x", "a/b/c.txt/y",
}

// headEntsRepo is a repository whose HEAD holds headEntsPaths' files, a
// symbolic link and a submodule, committed by git (the index's cache-tree
// then holds HEAD's tree), its files an hour old.
func headEntsRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	runGit(t, dir, "init", "-q")
	old := time.Now().Add(-time.Hour)
	for _, p := range []string{"top.txt", "a/e.txt", "a/b/c.txt", "a/b/d.txt", "a/b/deep/x.txt", "z/y.txt", "other/w.txt"} {
		abs := filepath.Join(dir, p)
		must(t, os.MkdirAll(filepath.Dir(abs), 0o755))
		must(t, os.WriteFile(abs, []byte("content of "+p+"\n"), 0o644))
		must(t, os.Chtimes(abs, old, old))
	}
	must(t, os.Symlink("top.txt", filepath.Join(dir, "link")))
	runGit(t, dir, "add", "-A")
	runGit(t, dir, "update-index", "--add", "--cacheinfo", "160000,1111111111111111111111111111111111111111,mod")
	commit(t, dir, "one")
	return dir
}

func commit(t *testing.T, dir, msg string) {
	t.Helper()
	runGit(t, dir, "-c", "user.name=A", "-c", "user.email=a@x", "commit", "-q", "-m", msg)
}

// TestHeadEntriesFromIndex: HistoryFor's HEAD entries taken from the index
// (headEntries) are the trees' (entriesOf) whatever the index holds: the
// index is used only when its cache-tree holds HEAD's tree (wantIndex), and
// where it is not, an answer from it may be wrong (wrongFromIndex: the
// index holds another file than HEAD; the guard is what keeps the answers
// identical).
func TestHeadEntriesFromIndex(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	write := func(dir, p, s string) {
		must(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755))
		must(t, os.WriteFile(filepath.Join(dir, p), []byte(s), 0o644))
	}
	for _, tc := range []struct {
		name           string
		change         func(t *testing.T, dir string)
		wantIndex      bool // the index's cache-tree holds HEAD's tree
		wrongFromIndex bool // the index's own entries differ from HEAD's
	}{
		{"clean", func(*testing.T, string) {}, true, false},
		{"deleted but tracked", func(t *testing.T, dir string) {
			must(t, os.Remove(filepath.Join(dir, "a/b/c.txt")))
			must(t, os.RemoveAll(filepath.Join(dir, "z")))
		}, true, false},
		{"edited not staged", func(t *testing.T, dir string) { write(dir, "a/e.txt", "edited\n") }, true, false},
		{"assume unchanged", func(t *testing.T, dir string) {
			runGit(t, dir, "update-index", "--assume-unchanged", "a/e.txt") // git drops the cache-tree's folders
		}, false, false},
		{"staged edit", func(t *testing.T, dir string) {
			write(dir, "a/b/c.txt", "staged\n")
			runGit(t, dir, "add", "a/b/c.txt")
		}, false, true},
		{"staged edit, cache-tree rewritten", func(t *testing.T, dir string) {
			write(dir, "a/b/c.txt", "staged\n")
			runGit(t, dir, "add", "a/b/c.txt")
			runGit(t, dir, "write-tree") // the cache-tree valid again, for the staged tree
		}, false, true},
		{"staged deletion", func(t *testing.T, dir string) { runGit(t, dir, "rm", "-q", "--cached", "a/b/d.txt") }, false, false},
		{"staged new file", func(t *testing.T, dir string) {
			write(dir, "a/missing.txt", "new\n")
			runGit(t, dir, "add", "a/missing.txt")
		}, false, true},
		{"index of a later commit", func(t *testing.T, dir string) {
			write(dir, "top.txt", "later\n")
			runGit(t, dir, "add", "top.txt")
			commit(t, dir, "two")
			runGit(t, dir, "reset", "-q", "--soft", "HEAD~1") // HEAD back, the index (valid cache-tree) kept
		}, false, true},
		{"unmerged entry", func(t *testing.T, dir string) {
			blob := gitOut(t, dir, "rev-parse", "HEAD:a/e.txt")
			runGit(t, dir, "update-index", "--force-remove", "a/b/c.txt")
			in := "100644 " + blob + " 1\ta/b/c.txt\n100644 " + blob + " 2\ta/b/c.txt\n100644 " + blob + " 3\ta/b/c.txt\n"
			cmd := exec.Command("git", "update-index", "--index-info")
			cmd.Dir, cmd.Stdin = dir, strings.NewReader(in)
			cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir())
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("index-info: %v\n%s", err, out)
			}
		}, false, false},
		{"skip-worktree", func(t *testing.T, dir string) {
			runGit(t, dir, "update-index", "--skip-worktree", "a/b/d.txt")
		}, false, false},
		{"intent to add", func(t *testing.T, dir string) {
			write(dir, "a/b/missing.txt", "new\n")
			runGit(t, dir, "add", "-N", "a/b/missing.txt")
		}, false, false},
		{"sparse checkout", func(t *testing.T, dir string) {
			runGit(t, dir, "sparse-checkout", "set", "--no-cone", "/a/")
		}, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := headEntsRepo(t)
			tc.change(t, dir)
			r := open(t, dir)
			head, err := r.headLinks()
			must(t, err)
			want, err := r.entriesOf(head.tree, headEntsPaths)
			must(t, err)
			got, err := r.headEntries(head.tree, headEntsPaths, nil)
			must(t, err)
			if d := entriesDiff(got, want); d != "" {
				t.Fatalf("headEntries differs from the trees: %s", d)
			}
			blobs := map[string]plumbing.Hash{}
			known, root, dirs := gitobj.ReadIndex(r.storage.Filesystem(), headEntsPaths, len(headEntsPaths)*indexWeight, blobs)
			if known == nil {
				t.Fatal("the index was not read")
			}
			if used := root == head.tree; used != tc.wantIndex {
				t.Fatalf("index used %v, want %v (cache-tree %v, HEAD's tree %v)", used, tc.wantIndex, root, head.tree)
			}
			// the index's answer taken without the guard
			forced, err := r.indexedEntries(head.tree, headEntsPaths, blobs, dirs)
			must(t, err)
			if d := entriesDiff(forced, want); (d != "") != tc.wrongFromIndex {
				t.Fatalf("the index's own answer differs from HEAD's: %q, want a difference %v", d, tc.wrongFromIndex)
			}
			// HistoryFor's HEAD entries are the same
			h := r.HistoryFor([]Commit{{Hash: head.hash.String()}}, headEntsPaths, 0)
			if h == nil {
				t.Fatal("no History")
			}
			hist := map[string]gitobj.RawEntry{}
			for p, ph := range h.paths {
				if ph.head != (gitobj.RawEntry{}) {
					hist[p] = ph.head
				}
			}
			if d := entriesDiff(hist, want); d != "" {
				t.Fatalf("HistoryFor's HEAD entries differ from the trees: %s", d)
			}
		})
	}
}

// entriesDiff describes where a and b differ as History tells entries
// apart (their blob and their folder tree); "" when they do not.
func entriesDiff(a, b map[string]gitobj.RawEntry) string {
	var out []string
	for _, p := range headEntsPaths {
		ea, oka := a[p]
		eb, okb := b[p]
		if oka != okb || !sameEntry(ea, eb) || ea.Mode.IsFile() != eb.Mode.IsFile() {
			out = append(out, p+": "+ea.Mode.String()+" "+ea.Hash.String()[:7]+" / "+eb.Mode.String()+" "+eb.Hash.String()[:7])
		}
	}
	return strings.Join(out, "; ")
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir())
	out, err := cmd.Output()
	must(t, err)
	return strings.TrimSpace(string(out))
}

// TestHeadEntriesFromIndexLater: headEntries takes HEAD's entries from the
// index read IndexLater's read made (for every path asked, holding HEAD's
// tree by its cache-tree), and from nothing else: not a read for fewer
// paths, not a read of another HEAD's tree (a commit since), not a read
// that found no cache-tree of HEAD's tree (staged changes).
func TestHeadEntriesFromIndexLater(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	lie := plumbing.NewHash("00000000000000000000000000000000000000aa")
	for _, tc := range []struct {
		name     string
		readFor  []string                       // the paths IndexLater's read is asked for
		before   func(t *testing.T, dir string) // before the read
		after    func(t *testing.T, dir string) // after it
		wantUsed bool
	}{
		{"every path, HEAD's tree", headEntsPaths, nil, nil, true},
		{"more paths", append([]string{"other/w.txt"}, headEntsPaths...), nil, nil, true},
		{"fewer paths", headEntsPaths[1:], nil, nil, false},
		{"a commit since", headEntsPaths, nil, func(t *testing.T, dir string) {
			must(t, os.WriteFile(filepath.Join(dir, "top.txt"), []byte("later\n"), 0o644))
			runGit(t, dir, "add", "top.txt")
			commit(t, dir, "two")
		}, false},
		{"staged change", headEntsPaths, func(t *testing.T, dir string) {
			must(t, os.WriteFile(filepath.Join(dir, "top.txt"), []byte("staged\n"), 0o644))
			runGit(t, dir, "add", "top.txt")
		}, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := headEntsRepo(t)
			if tc.before != nil {
				tc.before(t, dir)
			}
			r := open(t, dir)
			read := r.IndexLater()
			idx := read(tc.readFor, 10_000)
			if idx == nil {
				t.Fatal("the index was not read")
			}
			if tc.after != nil {
				tc.after(t, dir)
				r = reopenSharing(t, dir, r)
			}
			head, err := r.headLinks()
			must(t, err)
			want, err := r.entriesOf(head.tree, headEntsPaths)
			must(t, err)
			got, err := r.headEntries(head.tree, headEntsPaths, nil)
			must(t, err)
			if d := entriesDiff(got, want); d != "" {
				t.Fatalf("headEntries differs from the trees: %s", d)
			}
			// a read's heads that lie show whether headEntries took them
			if idx.heads != nil {
				idx.heads["top.txt"] = lie
			}
			got, err = r.headEntries(head.tree, headEntsPaths, nil)
			must(t, err)
			if used := got["top.txt"].Hash == lie; used != tc.wantUsed {
				t.Fatalf("IndexLater's read used %v, want %v", used, tc.wantUsed)
			}
		})
	}
}

// reopenSharing is a new Repo on dir (HEAD read afresh) that keeps r's last
// index read, as a Repo that outlived a commit would.
func reopenSharing(t *testing.T, dir string, r *Repo) *Repo {
	t.Helper()
	n := open(t, dir)
	n.lastIndex.Store(r.lastIndex.Load())
	return n
}

// TestHeadEntriesIndexLaterNeverRead: an IndexLater whose read is never
// called does not hold headEntries up past giveUp (HistoryFor's walk), nor
// change its answer.
func TestHeadEntriesIndexLaterNeverRead(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	r := open(t, headEntsRepo(t))
	_ = r.IndexLater() // never read
	head, err := r.headLinks()
	must(t, err)
	want, err := r.entriesOf(head.tree, headEntsPaths)
	must(t, err)
	giveUp := make(chan struct{})
	close(giveUp)
	got, err := r.headEntries(head.tree, headEntsPaths, giveUp)
	must(t, err)
	if d := entriesDiff(got, want); d != "" {
		t.Fatalf("headEntries differs from the trees: %s", d)
	}
	if h := r.HistoryFor([]Commit{{Hash: head.hash.String()}}, headEntsPaths, 0); h == nil {
		t.Fatal("no History")
	}
}

// TestHeadEntriesIndexLaterUnderWay: an IndexLater read started before
// giveUp is closed (a warm run's walk that ended first) is waited for and
// taken, not read a second time beside it; one not started is not waited
// for (TestHeadEntriesIndexLaterNeverRead).
func TestHeadEntriesIndexLaterUnderWay(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	lie := plumbing.NewHash("00000000000000000000000000000000000000aa")
	r := open(t, headEntsRepo(t))
	idx := r.IndexFor(headEntsPaths, 10_000)
	if idx == nil || idx.heads == nil {
		t.Fatal("the index was not read, or holds no HEAD's tree")
	}
	idx.heads["top.txt"] = lie // shows whether headEntries took this read
	_ = r.IndexLater()
	rd := r.lastIndex.Load()
	rd.claimed.Store(true) // the read under way ends after giveUp
	go func() {
		time.Sleep(50 * time.Millisecond)
		rd.idx = idx
		close(rd.done)
	}()
	giveUp := make(chan struct{})
	close(giveUp)
	head, err := r.headLinks()
	must(t, err)
	got, err := r.headEntries(head.tree, headEntsPaths, giveUp)
	must(t, err)
	if got["top.txt"].Hash != lie {
		t.Fatalf("headEntries read the index again (top.txt %s) instead of taking the read under way", got["top.txt"].Hash)
	}
}

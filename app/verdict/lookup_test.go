package verdict

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
	"github.com/orchestrate-dev/orchestrate/internal/gitfixture"
	"github.com/orchestrate-dev/orchestrate/internal/gitrepo"
	"github.com/orchestrate-dev/orchestrate/validate"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

type fakeGit struct{}

func (fakeGit) Head() (gitrepo.Commit, error) { return gitrepo.Commit{Hash: "0123456789"}, nil }
func (fakeGit) Shallow() bool                 { return false }
func (fakeGit) Promisor() string              { return "" }

// lookupRepo is a work tree whose candidates share files and folders, and
// a cache holding their memos (keep).
type lookupRepo struct {
	t     *testing.T
	root  string
	disk  *diskcache.Cache
	cands []workflow.Candidate
	now   time.Time
}

func newLookupRepo(t *testing.T) *lookupRepo {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := gitfixture.Init(root); err != nil {
		t.Fatal(err)
	}
	r := &lookupRepo{t: t, root: root, disk: diskcache.New(t.TempDir()), now: time.Now()}
	for i := range 4 {
		c := workflow.Candidate{ID: fmt.Sprintf("w%d", i), Resumable: true, Status: "interrupted",
			Source: workflow.SourceRef{Kind: "workflow-state", Path: fmt.Sprintf(".orchestrate/workflows/w%d.yaml", i)}}
		r.write(c.Source.Path)
		// own files in an own folder; w0 and w1 share src/a/s.go, w2 and
		// w3 src/b/s.go; each names a path twice
		for f := range 4 {
			p := fmt.Sprintf("src/w%d/f%d.go", i, f)
			r.write(p)
			c.Files = append(c.Files, workflow.RefFile{Path: p, Phase: "implement"})
		}
		shared := "src/" + "ab"[i/2:i/2+1] + "/s.go"
		r.write(shared)
		c.Files = append(c.Files, workflow.RefFile{Path: shared}, c.Files[0], workflow.RefFile{Path: "src/missing.go"})
		r.cands = append(r.cands, c)
	}
	return r
}

func (r *lookupRepo) write(rel string) {
	r.t.Helper()
	if err := gitfixture.WriteFile(r.root, rel, "package p // "+rel+"\n"); err != nil {
		r.t.Fatal(err)
	}
}

func (r *lookupRepo) abs(rel string) string { return filepath.Join(r.root, filepath.FromSlash(rel)) }

// open is a run's memo; the racy window counts from a clock ahead of the
// files just written.
func (r *lookupRepo) open() *Memo {
	r.t.Helper()
	m := Open(r.disk, Facts{Root: r.root, Git: fakeGit{}, Verified: func() bool { return true }, Candidates: r.cands,
		Config: config.Config{}, Clock: func() time.Time { return time.Now().Add(10 * time.Second) }})
	if m == nil {
		r.t.Fatal("no memo")
	}
	return m
}

func (r *lookupRepo) report(c *workflow.Candidate) validate.Report {
	return validate.Report{Status: validate.StatusConflicts, GitMode: validate.GitModeGit,
		Findings: []workflow.Finding{{Check: "conflict", Severity: workflow.Blocking, Code: "file-changed", Path: c.Files[0].Path}}}
}

// keep runs the seeding run and the run that keeps every candidate's memo.
func (r *lookupRepo) keep() {
	r.t.Helper()
	if err := r.open().Save(); err != nil {
		r.t.Fatal(err)
	}
	m := r.open()
	for i := range r.cands {
		c := &r.cands[i]
		if _, k, ok := m.Get(c, r.now, false); ok {
			r.t.Fatal("a memo before any was kept")
		} else {
			m.Put(k, c, r.report(c), r.now)
		}
	}
	if m.Pending() != len(r.cands) {
		r.t.Fatalf("%d memos kept, want %d", m.Pending(), len(r.cands))
	}
	if err := m.Save(); err != nil {
		r.t.Fatal(err)
	}
}

// hits reports which candidates m has a memo for, in order.
func (r *lookupRepo) hits(m *Memo) []bool {
	out := make([]bool, len(r.cands))
	for i := range r.cands {
		_, _, out[i] = m.Get(&r.cands[i], r.now, false)
	}
	return out
}

func countLstats(t *testing.T) map[string]int {
	var mu sync.Mutex
	n := map[string]int{}
	old := lstatPath
	lstatPath = func(r *rootDir, p string) stat {
		mu.Lock()
		n[p]++
		mu.Unlock()
		return old(r, p)
	}
	t.Cleanup(func() { lstatPath = old })
	return n
}

// TestLookupLstatsEachPathOnce: a run's look-ups, from many goroutines at
// once, lstat each path once (a path two candidates share, or one names
// twice, included), and every memo is used.
func TestLookupLstatsEachPathOnce(t *testing.T) {
	r := newLookupRepo(t)
	r.keep()
	n := countLstats(t)
	m := r.open()
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range r.cands {
				if _, _, ok := m.Get(&r.cands[i], r.now, false); !ok {
					t.Errorf("%s: no memo", r.cands[i].ID)
				}
			}
		}()
	}
	wg.Wait()
	if len(n) == 0 {
		t.Fatal("nothing lstat'ed")
	}
	for p, k := range n {
		if k != 1 {
			t.Errorf("%s lstat'ed %d times", p, k)
		}
	}
	if m.Hits() != 8*len(r.cands) {
		t.Errorf("%d memos used, want %d", m.Hits(), 8*len(r.cands))
	}
}

// TestLookupSeesAChangeAfterOpen: a file changed after the run's memo
// was opened (same size and modification time, a new change time) is
// seen by the look-ups: the stat data is taken at the look-up, not
// before; the candidates that do not read it keep their memos.
func TestLookupSeesAChangeAfterOpen(t *testing.T) {
	r := newLookupRepo(t)
	r.keep()
	m := r.open()
	p := r.abs("src/w0/f0.go") // w0's alone
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("package q // src/w0/f0.go\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if got := r.hits(m); fmt.Sprint(got) != "[false true true true]" {
		t.Fatalf("memos used: %v, want all but w0's", got)
	}
}

// TestLookupSymlinkSwappedIn: a referenced file, or its folder, replaced
// by a symlink to itself renamed (the same inode, size and times behind
// it), and a folder swapped so with its parent's modification time put
// back, are each seen: the memos of the candidates that read them are
// not used, the others' are.
func TestLookupSymlinkSwappedIn(t *testing.T) {
	swap := func(t *testing.T, r *lookupRepo, rel string) {
		t.Helper()
		p := r.abs(rel)
		if err := os.Rename(p, p+".old"); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Base(p)+".old", p); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name string
		swap func(t *testing.T, r *lookupRepo)
		want string
	}{
		{"a file", func(t *testing.T, r *lookupRepo) { swap(t, r, "src/w1/f3.go") }, "[true false true true]"},
		{"a shared file", func(t *testing.T, r *lookupRepo) { swap(t, r, "src/b/s.go") }, "[true true false false]"},
		{"its folder", func(t *testing.T, r *lookupRepo) { swap(t, r, "src/w2") }, "[false false false false]"}, // src changed too
		{"its folder, the parent's times put back", func(t *testing.T, r *lookupRepo) {
			fi, err := os.Stat(r.abs("src"))
			if err != nil {
				t.Fatal(err)
			}
			swap(t, r, "src/a")
			if err := os.Chtimes(r.abs("src"), fi.ModTime(), fi.ModTime()); err != nil {
				t.Fatal(err)
			}
		}, "[false false false false]"}, // src's change time too
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newLookupRepo(t)
			r.keep()
			if got := r.hits(r.open()); fmt.Sprint(got) != "[true true true true]" {
				t.Fatalf("before: memos used %v", got)
			}
			tc.swap(t, r)
			if got := r.hits(r.open()); fmt.Sprint(got) != tc.want {
				t.Fatalf("memos used %v, want %v", got, tc.want)
			}
		})
	}
}

// TestLookupAChangeBetweenCandidates: a path two candidates share,
// changed after the first one's look-up, makes the second one's memo
// unused in the next run (a run's look-ups share one lstat of a path,
// taken at its first look-up: within the run the second candidate is
// answered for the tree as that lstat saw it, as before).
func TestLookupAChangeBetweenCandidates(t *testing.T) {
	r := newLookupRepo(t)
	r.keep()
	m := r.open()
	if _, _, ok := m.Get(&r.cands[2], r.now, false); !ok { // reads src/b/s.go, as w3 does
		t.Fatal("w2: no memo")
	}
	if err := os.WriteFile(r.abs("src/b/s.go"), []byte("package q\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := r.hits(r.open()); fmt.Sprint(got) != "[true true false false]" {
		t.Fatalf("next run: memos used %v, want w0's and w1's", got)
	}
}

// openWith is open with a preloaded table.
func (r *lookupRepo) openWith(p *Preload) *Memo {
	r.t.Helper()
	m := Open(r.disk, Facts{Root: r.root, Git: fakeGit{}, Verified: func() bool { return true }, Candidates: r.cands,
		Config: config.Config{}, Clock: func() time.Time { return time.Now().Add(10 * time.Second) }, Preload: p})
	if m == nil {
		r.t.Fatal("no memo")
	}
	return m
}

// TestPreloadIsTheTableOpenReads: a table read ahead (StartPreload) gives
// the memos Open reads itself, a change after the preload included (the
// read set is checked at the look-up); a preload of another root or
// cache is not used; a preload of a table not yet written finds none (a
// seeding run).
func TestPreloadIsTheTableOpenReads(t *testing.T) {
	r := newLookupRepo(t)
	if p := StartPreload(nil, r.root); p != nil {
		t.Fatal("a preload with the cache off")
	}
	if m := r.openWith(StartPreload(r.disk, r.root)); !m.seed {
		t.Fatal("a preload before any table was written found one")
	}
	r.keep()
	p := StartPreload(r.disk, r.root)
	m := r.openWith(p)
	if m.tab != p.tab {
		t.Fatal("the preloaded table was not used")
	}
	if got := r.hits(m); fmt.Sprint(got) != "[true true true true]" {
		t.Fatalf("hits with a preload %v, want all", got)
	}
	p = StartPreload(r.disk, r.root)
	// the preload may have read the table or not yet: either way
	if err := os.WriteFile(r.abs("src/w2/f1.go"), []byte("changed"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := r.hits(r.openWith(p)); fmt.Sprint(got) != "[true true false true]" {
		t.Fatalf("hits after a change %v, want w2's gone", got)
	}
	other := StartPreload(diskcache.New(t.TempDir()), r.root)
	if m := r.openWith(other); m.tab == other.tab {
		t.Fatal("a preload of another cache was used")
	}
	elsewhere := StartPreload(r.disk, t.TempDir())
	if m := r.openWith(elsewhere); m.tab == elsewhere.tab {
		t.Fatal("a preload of another root was used")
	}
}

// TestRootDirLstatIsTheAbsoluteLstat: a path lstat'ed relative to the
// opened root has the stat data of root + "/" + path, for every path a
// decoded value may name (the root, a file, a folder, a missing path, a
// symlink not followed, an empty path, one starting with a slash).
func TestRootDirLstatIsTheAbsoluteLstat(t *testing.T) {
	r := newLookupRepo(t)
	if err := os.Symlink("src", r.abs("link")); err != nil {
		t.Fatal(err)
	}
	d := openRoot(r.root)
	if d.fd < 0 {
		t.Fatal("the root was not opened")
	}
	for _, p := range []string{".", "src", "src/w0/f0.go", "src/missing.go", "link", "link/w0", "", "/src", "//src/w0", "src/w0/f0.go/x"} {
		if got, want := d.lstat(p), lstat(r.root+"/"+p); got != want {
			t.Errorf("%q: %+v relative to the root, %+v by its absolute path", p, got, want)
		}
	}
	if got := openRoot(filepath.Join(r.root, "missing")); got.fd >= 0 {
		t.Error("a missing root was opened")
	}
}

// TestLookupLeafFolders: a folder that holds only files of the read sets
// (src/w0) is not lstat'ed, the folders above another folder are (the
// root, src, .orchestrate); a file added there that no memo reads leaves
// every memo used; that folder replaced (by a symlink to itself renamed,
// as TestLookupSymlinkSwappedIn, or by another folder with the same
// files' names) is seen through its parent's lstat.
func TestLookupLeafFolders(t *testing.T) {
	r := newLookupRepo(t)
	r.keep()
	n := countLstats(t)
	if got := r.hits(r.open()); fmt.Sprint(got) != "[true true true true]" {
		t.Fatalf("memos used %v", got)
	}
	for _, p := range []string{".", "src", ".orchestrate"} {
		if n[p] != 1 {
			t.Errorf("%s lstat'ed %d times, want 1", p, n[p])
		}
	}
	for _, p := range []string{"src/w0", "src/a", ".orchestrate/workflows"} {
		if n[p] != 0 {
			t.Errorf("%s (holding files only) lstat'ed %d times", p, n[p])
		}
	}
	r.write("src/w0/new.go")
	if got := r.hits(r.open()); fmt.Sprint(got) != "[true true true true]" {
		t.Fatalf("a file no memo reads added: memos used %v", got)
	}
	// src/w1 replaced by a copy of itself (the same names, new files)
	old, tmp := r.abs("src/w1"), r.abs("src/w1.new")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	for f := range 4 {
		data, err := os.ReadFile(filepath.Join(old, fmt.Sprintf("f%d.go", f)))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(tmp, fmt.Sprintf("f%d.go", f)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Rename(old, r.abs("src/w1.old")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, old); err != nil {
		t.Fatal(err)
	}
	if got := r.hits(r.open()); fmt.Sprint(got) != "[false false false false]" { // src changed
		t.Fatalf("a folder replaced: memos used %v", got)
	}
}

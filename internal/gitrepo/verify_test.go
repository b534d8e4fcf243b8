package gitrepo

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
	"github.com/orchestrate-dev/orchestrate/internal/gitfixture"
)

// buildLyingHistory makes, in dir, three commits: c1 adds a.txt and b.txt,
// c2 changes a.txt, c3 changes b.txt (the same hashes every time). It
// returns the commits and c1's and c2's trees.
func buildLyingHistory(t *testing.T, dir string) (c1, c2, c3 string, tree1, tree2 plumbing.Hash) {
	t.Helper()
	must(t, gitfixture.Init(dir))
	step := func(path, content string, at time.Duration) string {
		must(t, gitfixture.WriteFile(dir, path, content))
		h, err := gitfixture.Commit(dir, "change "+path, "A", "a@x", t0.Add(at))
		must(t, err)
		return h
	}
	must(t, gitfixture.WriteFile(dir, "b.txt", "b1\n"))
	c1 = step("a.txt", "a1\n", 0)
	c2 = step("a.txt", "a2\n", time.Hour)
	c3 = step("b.txt", "b2\n", 2*time.Hour)
	r := open(t, dir)
	l1, err := r.readLinksUncached(plumbing.NewHash(c1))
	must(t, err)
	l2, err := r.readLinksUncached(plumbing.NewHash(c2))
	must(t, err)
	return c1, c2, c3, l1.tree, l2.tree
}

// looseObject is the file of loose object h in the repository at dir.
func looseObject(dir string, h plumbing.Hash) string {
	s := h.String()
	return filepath.Join(dir, ".git", "objects", s[:2], s[2:])
}

// tamper makes the repository at dir lie: the loose object of c2's tree
// holds c1's tree (a tree whose content is not its name). `git fsck`
// reports it; a walk that does not check hashes reads it.
func tamper(t *testing.T, dir string, tree1, tree2 plumbing.Hash) {
	t.Helper()
	data, err := os.ReadFile(looseObject(dir, tree1))
	must(t, err)
	p := looseObject(dir, tree2)
	must(t, os.Chmod(p, 0o644))
	must(t, os.WriteFile(p, data, 0o444))
}

// answers are what the walks the caches keep say about a.txt and b.txt.
func answers(t *testing.T, r *Repo, base string) string {
	t.Helper()
	var b strings.Builder
	for p, c := range r.LastChange([]string{"a.txt", "b.txt"}, 0) {
		b.WriteString("last " + p + " " + c.Hash + "\n")
	}
	bc, err := r.commitByHash(base)
	must(t, err)
	got, err := r.CommitsTouching(toCommit(bc), []string{"a.txt", "b.txt"}, 0)
	must(t, err)
	for _, p := range []string{"a.txt", "b.txt"} {
		for _, c := range got[p] {
			b.WriteString("touching " + p + " " + c.Hash + "\n")
		}
	}
	for _, p := range []string{"a.txt", "b.txt"} {
		e, err := r.ReadAt(toCommit(bc), p)
		b.WriteString("at base " + p + " " + string(e) + " " + errString(err) + "\n")
	}
	// the changed-paths table (gitcache's changed.go): every commit touching, and the base
	for _, c := range append(append([]Commit{toCommit(bc)}, got["a.txt"]...), got["b.txt"]...) {
		paths, more, err := r.ChangedPaths(c, 0)
		b.WriteString(fmt.Sprintf("changed %s %q %v %s\n", c.Hash, paths, more, errString(err)))
	}
	return sortLines(b.String())
}

func errString(err error) string {
	if err == nil {
		return "-"
	}
	return err.Error()
}

func sortLines(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i := range lines {
		for j := i + 1; j < len(lines); j++ {
			if lines[j] < lines[i] {
				lines[i], lines[j] = lines[j], lines[i]
			}
		}
	}
	return strings.Join(lines, "\n")
}

// run opens the repository at dir with cache c (nil: off), answers, and
// saves the cache; it returns the answers and SaveCache's error.
func run(t *testing.T, dir string, c *diskcache.Cache, base string) (string, error) {
	t.Helper()
	r, err := Open(dir)
	must(t, err)
	defer r.Close()
	r.UseCache(c)
	got := answers(t, r, base)
	return got, r.SaveCache()
}

// gitTables lists the per-repository tables in c's folder.
func gitTables(t *testing.T, c *diskcache.Cache) []string {
	names, err := filepath.Glob(filepath.Join(c.Dir(), "git-*"))
	must(t, err)
	return names
}

// TestALyingRepositoryLeavesNothingInTheCache is the attack: a repository
// whose objects lie (a tree's content is not its name) is read with a
// cache; it is removed and a genuine repository is made at the same path
// (same commits; on ext4 the .git folder most often gets the same inode).
// The genuine repository must answer as with the cache off — cold and
// warm — and the lying one must have left no table at all, so that no
// identity of the repository, however shared, could read one.
func TestALyingRepositoryLeavesNothingInTheCache(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "repo")
	c1, _, _, tree1, tree2 := buildLyingHistory(t, dir)
	genuineOff, err := run(t, dir, nil, c1)
	must(t, err)

	tamper(t, dir, tree1, tree2)
	lyingOff, err := run(t, dir, nil, c1)
	must(t, err)
	if lyingOff == genuineOff {
		t.Fatalf("the tampering changed no answer:\n%s", lyingOff)
	}
	c := diskcache.New(filepath.Join(t.TempDir(), "cache"))
	lyingOn, err := run(t, dir, c, c1)
	if !errors.Is(err, errUnverified) {
		t.Fatalf("SaveCache of a lying repository: %v, want errUnverified", err)
	}
	if lyingOn != lyingOff {
		t.Fatalf("the lying repository answers otherwise with the cache:\n%s\nwithout:\n%s", lyingOn, lyingOff)
	}
	if names := gitTables(t, c); len(names) != 0 {
		t.Fatalf("a lying repository left tables: %v", names)
	}

	must(t, os.RemoveAll(dir))
	buildLyingHistory(t, dir) // genuine, the same commits
	for _, pass := range []string{"cold", "warm"} {
		got, err := run(t, dir, c, c1)
		must(t, err)
		if got != genuineOff {
			t.Fatalf("%s: the genuine repository answers\n%s\nwith the cache, and\n%s\nwithout", pass, got, genuineOff)
		}
	}
	if len(gitTables(t, c)) == 0 {
		t.Fatal("the genuine repository wrote no table (the test proves nothing)")
	}
}

// TestATableOfAnotherRepositoryIsNotRead copies every table of repository
// A over the names of repository B's (what a restored cache folder, or one
// repository planting entries for another, does): B reads none of them,
// and answers as with the cache off.
func TestATableOfAnotherRepositoryIsNotRead(t *testing.T) {
	t.Parallel()
	a := filepath.Join(t.TempDir(), "a")
	b := filepath.Join(t.TempDir(), "b")
	c1, _, _, tree1, tree2 := buildLyingHistory(t, a)
	buildLyingHistory(t, b)
	c := diskcache.New(filepath.Join(t.TempDir(), "cache"))
	// B's tables, then A's written as if A lied and was not checked: the
	// entries of a lying repository, under A's names
	_, err := run(t, b, c, c1)
	must(t, err)
	bNames := gitTables(t, c)
	if len(bNames) == 0 {
		t.Fatal("no tables")
	}
	tamper(t, a, tree1, tree2)
	ra := open(t, a)
	ra.UseCache(c)
	lying := answers(t, ra, c1)
	ra.verify.On.Store(false) // as if nothing were checked
	ra.verify.Bad.Store(false)
	must(t, ra.SaveCache())
	var aNames []string
	for _, n := range gitTables(t, c) {
		if !contains(bNames, n) {
			aNames = append(aNames, n)
		}
	}
	if len(aNames) == 0 {
		t.Fatal("A wrote no tables")
	}
	want, err := run(t, b, nil, c1)
	must(t, err)
	if want == lying {
		t.Fatal("the lie changes no answer (the test proves nothing)")
	}
	for _, bn := range bNames {
		prefix := bn[:strings.LastIndex(bn, "-")+1]
		for _, an := range aNames {
			if strings.HasPrefix(an, prefix) {
				data, err := os.ReadFile(an)
				must(t, err)
				must(t, os.WriteFile(bn, data, 0o600))
			}
		}
	}
	rb := open(t, b)
	rb.UseCache(c)
	if got := answers(t, rb, c1); got != want {
		t.Fatalf("B answers\n%s\nwith A's tables under its names, and\n%s\nwithout the cache", got, want)
	}
	if h := rb.hist(); h == nil || h.linkHits != 0 || h.linkMisses == 0 {
		t.Fatalf("B used entries of A's tables: %d link hits", h.linkHits)
	}
	if rb.wmemo.Stats().Hits != 0 || rb.memo.Stats().Hits != 0 || rb.cmemo.Stats().Hits != 0 {
		t.Fatalf("B used entries of A's tables: walks %d, paths %d hits", rb.wmemo.Stats().Hits, rb.memo.Stats().Hits)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestAFlippedTableIsAMiss flips one byte in each table a run wrote: the
// next run reads none of them (no hit) and answers the same.
func TestAFlippedTableIsAMiss(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "repo")
	c1, _, _, _, _ := buildLyingHistory(t, dir)
	want, err := run(t, dir, nil, c1)
	must(t, err)
	c := diskcache.New(filepath.Join(t.TempDir(), "cache"))
	_, err = run(t, dir, c, c1)
	must(t, err)
	names := gitTables(t, c)
	if len(names) == 0 {
		t.Fatal("no tables")
	}
	for _, n := range names {
		data, err := os.ReadFile(n)
		must(t, err)
		data[len(data)/2] ^= 1
		must(t, os.WriteFile(n, data, 0o600))
	}
	r := open(t, dir)
	r.UseCache(c)
	if got := answers(t, r, c1); got != want {
		t.Fatalf("with flipped tables:\n%s\nwant\n%s", got, want)
	}
	if h := r.hist(); h == nil || h.linkHits != 0 {
		t.Fatalf("a flipped table was read: %+v", h)
	}
	if r.wmemo.Stats().Hits != 0 || r.memo.Stats().Hits != 0 || r.cmemo.Stats().Hits != 0 {
		t.Fatalf("a flipped table was read: walks %d, paths %d hits", r.wmemo.Stats().Hits, r.memo.Stats().Hits)
	}
}

// TestVerifyLinks: links that are not the commit's (a commit-graph that
// lies) mark the Repo unverified; the commit's own do not.
func TestVerifyLinks(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "repo")
	_, c2, _, tree1, _ := buildLyingHistory(t, dir)
	r := open(t, dir)
	r.UseCache(diskcache.New(t.TempDir()))
	l, err := r.readLinksUncached(plumbing.NewHash(c2))
	must(t, err)
	r.verifyLinks(l)
	if r.verify.Failed() {
		t.Fatal("a commit's own links failed")
	}
	lie := l
	lie.tree = tree1
	r.verifyLinks(lie)
	if !r.verify.Failed() {
		t.Fatal("links that are not the commit's passed")
	}
	// off, nothing is checked
	r2 := open(t, dir)
	r2.verifyLinks(lie)
	if r2.verify.Failed() {
		t.Fatal("a Repo without a cache checked links")
	}
}

// TestALyingCommitGraphLeavesNothingInTheCache: a commit-graph whose
// trees are not the commits' (two swapped) is read as without the cache
// (the same answers), and the run keeps nothing.
func TestALyingCommitGraphLeavesNothingInTheCache(t *testing.T) {
	t.Parallel()
	dir, all := graphRepo(t)
	path := filepath.Join(dir, ".git", "objects", "info", "commit-graph")
	b, err := os.ReadFile(path)
	must(t, err)
	_, cdat := graphChunks(t, b)
	if len(cdat) < 2*graphRecordLen {
		t.Fatal("no graph")
	}
	// two records whose trees differ: a merge made with --no-ff of a
	// branch main had not moved past has the branch's own tree, and
	// swapping those two (the first records in ~1 of 50 runs, as the
	// hashes fall) would not be a lie
	j := graphRecordLen
	for j+20 <= len(cdat) && bytes.Equal(cdat[j:j+20], cdat[0:20]) {
		j += graphRecordLen
	}
	if j+20 > len(cdat) {
		t.Fatal("every commit has the same tree")
	}
	var t0, t1 [20]byte
	copy(t0[:], cdat[0:20])
	copy(t1[:], cdat[j:j+20])
	copy(cdat[0:20], t1[:])
	copy(cdat[j:j+20], t0[:])
	must(t, os.WriteFile(path, b, 0o644))

	paths := []string{"src/a/f0.go", "src/a/f1.go", "src/x/g.go"}
	ask := func(c *diskcache.Cache) (string, error) {
		r, err := Open(dir)
		must(t, err)
		defer r.Close()
		r.UseCache(c)
		var out strings.Builder
		for _, h := range all {
			l, err := r.readLinks(h)
			out.WriteString(h.String() + " " + l.tree.String() + " " + errString(err) + "\n")
		}
		for p, c := range r.LastChange(paths, 0) {
			out.WriteString(p + " " + c.Hash + "\n")
		}
		return sortLines(out.String()), r.SaveCache()
	}
	off, err := ask(nil)
	must(t, err)
	c := diskcache.New(filepath.Join(t.TempDir(), "cache"))
	on, err := ask(c)
	if !errors.Is(err, errUnverified) {
		t.Fatalf("SaveCache with a lying commit-graph: %v", err)
	}
	if on != off {
		t.Fatalf("with the cache:\n%s\nwithout:\n%s", on, off)
	}
	if names := gitTables(t, c); len(names) != 0 {
		t.Fatalf("a lying commit-graph left tables: %v", names)
	}
}

// TestReadLinksVerifiedIsReadLinks: on a genuine repository (with a
// commit-graph and without) the links read with the cache on are those
// read without, and nothing is marked.
func TestReadLinksVerifiedIsReadLinks(t *testing.T) {
	t.Parallel()
	dir, all := graphRepo(t)
	must(t, os.Remove(filepath.Join(dir, ".git", "objects", "info", "commit-graph")))
	withGraph, allG := graphRepo(t)
	for _, tc := range []struct {
		dir string
		all []plumbing.Hash
	}{{dir, all}, {withGraph, allG}} {
		r := open(t, tc.dir)
		r.UseCache(diskcache.New(t.TempDir()))
		for _, h := range tc.all {
			want, err := r.readLinksUncached(h)
			must(t, err)
			got, err := r.readLinksVerified(h)
			if err != nil || got != want {
				t.Fatalf("%s: %+v %v, want %+v", h, got, err, want)
			}
		}
		if r.verify.Failed() {
			t.Fatal("a genuine repository failed")
		}
	}
}

// TestVerifiedSeesALyingBlob: a blob read by ReadAt is checked too, so a
// run that read a blob whose content is not its name is not Verified (what
// it derived from the blob — an old story's sections — may not be kept); a
// genuine run is, and a run without the cache never is (nothing is checked).
func TestVerifiedSeesALyingBlob(t *testing.T) {
	dir := t.TempDir()
	_, c2, _, _, _ := buildLyingHistory(t, dir)
	verified := func(cache *diskcache.Cache) (bool, string) {
		r, err := Open(dir)
		must(t, err)
		defer r.Close()
		r.UseCache(cache)
		bc, err := r.commitByHash(c2)
		must(t, err)
		data, err := r.ReadAt(toCommit(bc), "a.txt")
		must(t, err)
		return r.Verified(), string(data)
	}
	if ok, data := verified(diskcache.New(t.TempDir())); !ok || data != "a2\n" {
		t.Fatalf("genuine: Verified %v, a.txt %q; want true, a2", ok, data)
	}
	if ok, _ := verified(nil); ok {
		t.Fatal("cache off: Verified is true, but nothing was checked")
	}
	// the blob "a2\n" now holds "a1\n"
	a1 := plumbing.ComputeHash(plumbing.BlobObject, []byte("a1\n"))
	a2 := plumbing.ComputeHash(plumbing.BlobObject, []byte("a2\n"))
	data, err := os.ReadFile(looseObject(dir, a1))
	must(t, err)
	p := looseObject(dir, a2)
	must(t, os.Chmod(p, 0o644))
	must(t, os.WriteFile(p, data, 0o444))
	if ok, data := verified(diskcache.New(t.TempDir())); ok || data != "a1\n" {
		t.Fatalf("lying blob: Verified %v, a.txt %q; want false, a1 (read as the repository holds it)", ok, data)
	}
}

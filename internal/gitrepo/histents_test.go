package gitrepo

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
	"github.com/orchestrate-dev/orchestrate/internal/gitfixture"
	"github.com/orchestrate-dev/orchestrate/internal/gitobj"
)

// entsHistory is a random history for the parent entries the walk hands
// over (see treeCache.parents): edits, deletions, renames, executable bits
// flipped, files turned into symlinks and back, a path that becomes a
// folder and a file again, and side branches merged off the first-parent
// chain.
type entsHistory struct {
	dir         string
	chain, side []string // oldest first
	asked       []string
}

// buildEntsHistory commits an entsHistory of seed in folder dir.
func buildEntsHistory(t testing.TB, dir string, seed int64) entsHistory {
	t.Helper()
	var files []string
	for i := 0; i < 18; i++ {
		files = append(files, fmt.Sprintf("d%d/s%d/f%d", i%3, i%3, i))
	}
	asked := append([]string{"never/there", "d0", "d1/s1", "d2/s2/f2/under", "x", "x/p", "x/p/in", "x/q"}, files...)
	rng := rand.New(rand.NewSource(seed))
	must(t, gitfixture.Init(dir))
	when := t0
	tick := func() time.Time { when = when.Add(time.Minute); return when }
	abs := func(p string) string { return filepath.Join(dir, filepath.FromSlash(p)) }
	exists := func(p string) bool { _, err := os.Lstat(abs(p)); return err == nil }
	for _, f := range files {
		must(t, gitfixture.WriteFile(dir, f, "0"))
	}
	must(t, gitfixture.WriteFile(dir, "x/p", "file"))
	first, err := gitfixture.Commit(dir, "import", "A", "a@x", tick())
	must(t, err)
	h := entsHistory{dir: dir, chain: []string{first}, asked: asked}
	var touched []string
	edit := func(n int) {
		for ; n > 0; n-- {
			f := files[rng.Intn(len(files))]
			touched = append(touched, f)
			switch op := rng.Intn(7); {
			case op == 0 && exists(f): // deleted
				must(t, gitfixture.Remove(dir, f))
			case op == 1 && exists(f): // the executable bit flipped
				info, err := os.Lstat(abs(f))
				must(t, err)
				if info.Mode().IsRegular() {
					must(t, os.Chmod(abs(f), info.Mode().Perm()^0o111))
				}
			case op == 2: // a symlink, or a file again
				if exists(f) {
					must(t, os.Remove(abs(f)))
				}
				must(t, os.MkdirAll(filepath.Dir(abs(f)), 0o755))
				must(t, os.Symlink(fmt.Sprint("t", rng.Intn(2)), abs(f)))
			case op == 3 && exists(f): // renamed
				to := files[rng.Intn(len(files))]
				if to == f {
					continue
				}
				if exists(to) {
					must(t, os.Remove(abs(to)))
				}
				must(t, os.MkdirAll(filepath.Dir(abs(to)), 0o755))
				must(t, os.Rename(abs(f), abs(to)))
				touched = append(touched, to)
			case op == 4: // x/p a folder, or a file again
				if exists("x/p") {
					must(t, os.RemoveAll(abs("x/p")))
				}
				if rng.Intn(2) == 0 {
					must(t, gitfixture.WriteFile(dir, "x/p/in", fmt.Sprint(rng.Intn(2))))
				} else {
					must(t, gitfixture.WriteFile(dir, "x/p", fmt.Sprint(rng.Intn(2))))
				}
				touched = append(touched, "x/p")
			default:
				if info, err := os.Lstat(abs(f)); err == nil && !info.Mode().IsRegular() {
					must(t, os.Remove(abs(f)))
				}
				must(t, gitfixture.WriteFile(dir, f, fmt.Sprint(rng.Intn(3))))
			}
		}
	}
	for i := 1; i <= 36; i++ {
		if rng.Intn(5) != 0 {
			edit(1 + rng.Intn(4))
			if rng.Intn(6) == 0 { // a commit that changes none of the asked paths
				must(t, gitfixture.WriteFile(dir, "other", fmt.Sprint(i)))
				touched = append(touched, "other")
			}
			c, err := gitfixture.Commit(dir, fmt.Sprint("step ", i), "A", "a@x", tick(), touched...)
			touched = touched[:0]
			if err == nil {
				h.chain = append(h.chain, c)
			}
			continue
		}
		// a side branch off the chain's head, merged back with what the
		// work tree holds then (the side's files)
		head := h.chain[len(h.chain)-1]
		var sideHead string
		var all []string
		for k := 1 + rng.Intn(3); k > 0; k-- {
			edit(1 + rng.Intn(3))
			all = append(all, touched...)
			c, err := gitfixture.Commit(dir, fmt.Sprint("side ", i, k), "B", "b@x", tick(), touched...)
			touched = touched[:0]
			if err == nil {
				sideHead = c
				h.side = append(h.side, c)
			}
		}
		if sideHead == "" {
			continue
		}
		must(t, gitfixture.ResetBranch(dir, head))
		m, err := gitfixture.Merge(dir, fmt.Sprint("merge ", i), "A", "a@x", tick(), sideHead, all...)
		must(t, err)
		h.chain = append(h.chain, m)
	}
	return h
}

// historyForReference is HistoryFor as it was before the walk handed the
// parents' entries over: each changed path's entry in the parent of the
// commit that changed it, and each path's in HEAD, read from the trees
// (entriesOf). It is the reference the walk's answers are checked against.
func (r *Repo) historyForReference(bases []Commit, paths []string, maxCommits int) *History {
	if maxCommits <= 0 || maxCommits > maxBatchChain {
		maxCommits = maxBatchChain
	}
	want := map[plumbing.Hash]bool{}
	for _, b := range bases {
		if h, ok := fullHash(b.Hash); ok {
			want[h] = true
		}
	}
	var union []string
	for _, p := range paths {
		if cleanRel(p) {
			union = append(union, p)
		}
	}
	sort.Strings(union)
	union = compactStrings(union)
	if len(want) == 0 || len(union) == 0 {
		return nil
	}
	c, err := r.walkHead()
	if err != nil {
		return nil
	}
	h := &History{r: r, pos: map[plumbing.Hash]int{}, paths: make(map[string]*pathHistory, len(union))}
	var chain []links
	oldest := -1
	for len(chain) < maxCommits {
		chain = append(chain, c)
		if want[c.hash] {
			h.pos[c.hash] = len(chain) - 1
			oldest = len(chain) - 1
			if len(h.pos) == len(want) {
				break
			}
		}
		p, ok, err := r.parentLinks(c)
		if err != nil || !ok {
			break
		}
		c = p
	}
	if oldest < 0 {
		return nil
	}
	for _, p := range union {
		h.paths[p] = &pathHistory{}
	}
	trie := gitobj.NewTrie(union)
	cut := -1
	for k := 0; k < oldest; k++ {
		// a cache of its own for each commit, without a pair cache or a
		// history cache: the trees alone
		changed, err := newTreeCache(r.trees).changedAt(chain[k], chain[k+1].tree, true, trie)
		var pe map[string]gitobj.RawEntry
		if err == nil {
			pe, err = r.entriesOf(chain[k+1].tree, changed)
		}
		if err != nil {
			cut = k
			break
		}
		for _, path := range changed {
			h.paths[path].changes = append(h.paths[path].changes, pathChange{k: k, commit: chain[k].hash, parent: pe[path]})
		}
	}
	for b, at := range h.pos {
		if cut >= 0 && at > cut {
			delete(h.pos, b)
		}
	}
	heads, err := r.entriesOf(chain[0].tree, union)
	if err != nil || len(h.pos) == 0 {
		return nil
	}
	for p, ph := range h.paths {
		ph.head = heads[p]
	}
	return h
}

// sameHistory fails t when got does not answer as want: the same bases
// covered, and for each path the same entry in HEAD and the same changes
// with the same parent entries.
func sameHistory(t *testing.T, what string, got, want *History) {
	t.Helper()
	if (got == nil) != (want == nil) {
		t.Fatalf("%s: History %v, the reference's %v", what, got != nil, want != nil)
	}
	if got == nil {
		return
	}
	if !reflect.DeepEqual(got.pos, want.pos) {
		t.Fatalf("%s: bases covered %v, the reference's %v", what, got.pos, want.pos)
	}
	if len(got.paths) != len(want.paths) {
		t.Fatalf("%s: %d paths, the reference's %d", what, len(got.paths), len(want.paths))
	}
	for p, w := range want.paths {
		g := got.paths[p]
		if g == nil || g.head != w.head || !reflect.DeepEqual(g.changes, w.changes) {
			t.Fatalf("%s: %s:\ngot  %+v\nwant %+v", what, p, g, w)
		}
	}
}

// TestHistoryEntriesMatchReference: the History built from the entries the
// walk hands over answers exactly as the one read from the trees
// (historyForReference), for random histories and bases, with the cache
// off (the first walk, a second one, and a third that the pair cache
// describes), with a history cache empty then filled (its descriptions
// keep no folder hash: describedDirs), with the walk cut by its bound, and
// with a tree of the chain missing (the walk cut by an error).
func TestHistoryEntriesMatchReference(t *testing.T) {
	t.Parallel()
	for seed := int64(1); seed <= 3; seed++ {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			t.Parallel()
			h := buildEntsHistory(t, t.TempDir(), seed)
			rng := rand.New(rand.NewSource(seed * 7))
			pick := func() []Commit {
				var bases []Commit
				for n := 1 + rng.Intn(4); n > 0; n-- {
					c := h.chain[rng.Intn(len(h.chain))]
					bases = append(bases, Commit{Hash: c, Short: c[:7]})
				}
				if len(h.side) > 0 {
					c := h.side[rng.Intn(len(h.side))]
					bases = append(bases, Commit{Hash: c, Short: c[:7]})
				}
				return append(bases, Commit{Hash: h.chain[0], Short: h.chain[0][:7]})
			}
			cacheDir := t.TempDir()
			for round := 0; round < 3; round++ {
				bases := pick()
				for _, bound := range []int{0, 1 + rng.Intn(len(h.chain))} {
					want := open(t, h.dir).historyForReference(bases, h.asked, bound)
					off := open(t, h.dir)
					for walk := 1; walk <= 3; walk++ { // plain, seen, described by the pair cache
						sameHistory(t, fmt.Sprintf("round %d bound %d off walk %d", round, bound, walk), off.HistoryFor(bases, h.asked, bound), want)
					}
					for run := 1; run <= 2; run++ { // the history cache empty, then filled
						r := open(t, h.dir)
						r.UseCache(diskcache.New(cacheDir))
						sameHistory(t, fmt.Sprintf("round %d bound %d cache run %d", round, bound, run), r.HistoryFor(bases, h.asked, bound), want)
						must(t, r.SaveCache())
					}
				}
			}
			// a tree of the chain missing: the walk is cut where it needs it
			for _, c := range h.chain[1 : len(h.chain)-1] {
				l, err := open(t, h.dir).readLinks(plumbing.NewHash(c))
				must(t, err)
				dir := t.TempDir()
				must(t, os.Mkdir(filepath.Join(dir, ".git"), 0o755))
				must(t, copyTree(filepath.Join(h.dir, ".git"), filepath.Join(dir, ".git")))
				loose := filepath.Join(dir, ".git", "objects", l.tree.String()[:2], l.tree.String()[2:])
				if os.Remove(loose) != nil {
					continue // packed: not removable alone
				}
				bases := []Commit{{Hash: h.chain[0]}, {Hash: h.chain[len(h.chain)-1]}, {Hash: c}}
				sameHistory(t, "a tree missing", open(t, dir).HistoryFor(bases, h.asked, 0), open(t, dir).historyForReference(bases, h.asked, 0))
				return
			}
			t.Fatal("no loose tree to remove")
		})
	}
}

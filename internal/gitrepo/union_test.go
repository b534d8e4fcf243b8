package gitrepo

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
	"github.com/orchestrate-dev/orchestrate/internal/gitfixture"
)

// mergeHistory is a random history with merges: the first-parent chain
// (oldest first) and the commits of the side branches merged into it.
type mergeHistory struct {
	dir         string
	chain, side []string
	asked       []string
}

// buildMergeHistory commits a random history of seed in folder dir:
// commits on the first-parent chain that edit, restore and delete files,
// and side branches (commits off a chain commit that edit files) merged
// back, the merge taking the side's files, or some of them, or none (a
// merge that changes nothing on the first-parent chain). Tests take it
// through sharedMergeHistory.
func buildMergeHistory(t testing.TB, dir string, seed int64) mergeHistory {
	t.Helper()
	var files []string
	for i := 0; i < 24; i++ {
		files = append(files, fmt.Sprintf("d%d/s%d/f%d", i%3, i%4, i))
	}
	asked := append([]string{"never/there", "d0", "d1/s1", "d2/s3/f23/under"}, files...)
	rng := rand.New(rand.NewSource(seed))
	must(t, gitfixture.Init(dir))
	when := t0
	tick := func() time.Time { when = when.Add(time.Minute); return when }
	for _, f := range files {
		must(t, gitfixture.WriteFile(dir, f, "0"))
	}
	first, err := gitfixture.Commit(dir, "import", "A", "a@x", tick())
	must(t, err)
	h := mergeHistory{dir: dir, chain: []string{first}, asked: asked}
	var touched []string // the paths to stage: the rest of the tree is as committed
	edit := func(n int) {
		for ; n > 0; n-- {
			f := files[rng.Intn(len(files))]
			touched = append(touched, f)
			if rng.Intn(6) == 0 {
				if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(f))); err == nil {
					must(t, gitfixture.Remove(dir, f))
				}
				continue
			}
			must(t, gitfixture.WriteFile(dir, f, fmt.Sprint(rng.Intn(3))))
		}
	}
	for i := 1; i <= 40; i++ {
		if rng.Intn(4) != 0 {
			edit(1 + rng.Intn(4))
			c, err := gitfixture.Commit(dir, fmt.Sprint("step ", i), "A", "a@x", tick(), touched...)
			touched = touched[:0]
			if err == nil {
				h.chain = append(h.chain, c)
			}
			continue
		}
		// a side branch off the chain's head, merged back
		head := h.chain[len(h.chain)-1]
		var sideHead string
		for k := 1 + rng.Intn(3); k > 0; k-- {
			edit(1 + rng.Intn(3))
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
		if rng.Intn(3) == 0 {
			// the merge keeps the chain's files: restore them in the work tree
			touched = append(touched, files...)
			for _, f := range files {
				if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(f))); err == nil {
					must(t, gitfixture.Remove(dir, f))
				}
			}
			r := open(t, dir)
			for _, f := range files {
				if data, err := r.ReadAt(Commit{Hash: head, Short: head[:7]}, f); err == nil {
					must(t, gitfixture.WriteFile(dir, f, string(data)))
				}
			}
		}
		m, err := gitfixture.Merge(dir, fmt.Sprint("merge ", i), "A", "a@x", tick(), sideHead, touched...)
		must(t, err)
		touched = touched[:0]
		h.chain = append(h.chain, m)
	}
	return h
}

// TestHistoryMatchesWalks builds random histories with merges and checks
// every answer of one History (for every base at once) against what
// CommitsTouching and the base tree's look-up give alone, with the cache
// off, empty and filled; and Compare with the History against Compare
// without. Side-branch commits and unknown hashes are not covered; paths
// not clean are not known.
func TestHistoryMatchesWalks(t *testing.T) {
	t.Parallel()
	for seed := int64(1); seed <= 4; seed++ {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			t.Parallel()
			h := sharedMergeHistory(t, seed)
			cache := diskcache.New(t.TempDir())
			opens := map[string]func() *Repo{
				"off": func() *Repo { return open(t, h.dir) },
				"cache": func() *Repo {
					r := open(t, h.dir)
					r.UseCache(cache)
					return r
				},
			}
			rng := rand.New(rand.NewSource(seed * 31))
			ref := opens["off"]() // the answers asked alone
			for round := 0; round < 4; round++ {
				var bases []Commit
				for n := 2 + rng.Intn(6); n > 0; n-- {
					c := h.chain[rng.Intn(len(h.chain))]
					bases = append(bases, Commit{Hash: c, Short: c[:7]})
				}
				if len(h.side) > 0 {
					c := h.side[rng.Intn(len(h.side))]
					bases = append(bases, Commit{Hash: c, Short: c[:7]})
				}
				bases = append(bases, Commit{Hash: "0123456789012345678901234567890123456789"}, Commit{Hash: "HEAD"})
				paths := append([]string{"./" + h.asked[5], "d0/../d1"}, h.asked...)
				// the answers asked alone, once for both Repos
				wants := make([]historyWant, len(bases))
				for i, b := range bases {
					wants[i] = h.want(t, ref, b, rng)
				}
				for _, name := range []string{"off", "cache"} {
					r := opens[name]()
					hist := r.HistoryFor(bases, paths, 0)
					if hist == nil {
						t.Fatalf("%s round %d: no History", name, round)
					}
					for _, p := range []string{"./" + h.asked[5], "d0/../d1"} {
						if hist.Has(p) {
							t.Fatalf("%s: %q is known", name, p)
						}
					}
					for i, b := range bases {
						want := wants[i]
						if hist.Covers(b) != want.onChain {
							t.Fatalf("%s round %d: Covers(%.7s) = %v, on the chain %v", name, round, b.Hash, !want.onChain, want.onChain)
						}
						if !want.onChain {
							if _, ok := hist.CommitsTouching(b, h.asked[:2], 0); ok {
								t.Fatalf("%s: answered for %.7s", name, b.Hash)
							}
							if _, ok, _ := hist.ReadAt(b, h.asked[5]); ok {
								t.Fatalf("%s: read at %.7s", name, b.Hash)
							}
							continue
						}
						for k, p := range h.asked {
							data, ok, err := hist.ReadAt(b, p)
							if got := (readWant{string(data), err != nil, MissingHistory(err)}); !ok || got != want.reads[k] {
								t.Fatalf("%s round %d: ReadAt(%.7s, %s) = %+v %v, want %+v", name, round, b.Hash, p, got, ok, want.reads[k])
							}
						}
						if _, ok, _ := hist.ReadAt(b, "d0/../d1"); ok {
							t.Fatalf("%s: read a path the History was not walked for", name)
						}
						blobs := hist.blobsAt(b.Hash)
						for k, p := range h.asked {
							if got, ok := blobs.blob(p); !ok || got != want.blobs[k] {
								t.Fatalf("%s round %d: blob of %s at %.7s = %v %v, want %v", name, round, p, b.Hash, got, ok, want.blobs[k])
							}
						}
						for _, w := range want.touching {
							got, ok := hist.CommitsTouching(b, w.asked, w.limit)
							if !ok || !reflect.DeepEqual(got, w.commits) {
								t.Fatalf("%s round %d base %.7s limit %d %v:\ngot  %v %v\nwant %v", name, round, b.Hash, w.limit, w.asked, ok, got, w.commits)
							}
						}
						got, err := r.CompareWith(b, h.asked, CompareOptions{History: hist})
						must(t, err)
						if !reflect.DeepEqual(got, want.compare) {
							t.Fatalf("%s round %d: Compare at %.7s with the History:\ngot  %v\nwant %v", name, round, b.Hash, got, want.compare)
						}
					}
					if name == "cache" {
						must(t, r.SaveCache())
					}
				}
			}
		})
	}
}

// historyWant is what a History must answer for one base: whether the
// base is on the first-parent chain and, when it is, the blob of each
// asked path there, CommitsTouching for random subsets of the paths and
// limits 0, 1, 2 and 20, and Compare, each asked of ref alone.
type historyWant struct {
	onChain  bool
	blobs    []plumbing.Hash
	touching []touchingWant
	compare  []PathState
	reads    []readWant // ReadAt of each asked path
}

// readWant is a ReadAt answer: the content, whether there was an error,
// and whether it was one of missing history.
type readWant struct {
	data         string
	err, missing bool
}

// touchingWant is one CommitsTouching question and its answer.
type touchingWant struct {
	asked   []string
	limit   int
	commits map[string][]Commit
}

// want is what a History must answer for base b, asked of ref alone.
func (h mergeHistory) want(t *testing.T, ref *Repo, b Commit, rng *rand.Rand) historyWant {
	t.Helper()
	var w historyWant
	for _, c := range h.chain {
		w.onChain = w.onChain || c == b.Hash
	}
	if !w.onChain {
		return w
	}
	tree, err := ref.treeOf(b.Hash)
	must(t, err)
	for _, p := range h.asked {
		blob, err := tree.blob(p)
		must(t, err)
		w.blobs = append(w.blobs, blob)
	}
	for _, limit := range []int{0, 1, 2, 20} {
		var asked []string
		for _, p := range h.asked {
			if rng.Intn(2) == 0 {
				asked = append(asked, p)
			}
		}
		commits, err := ref.CommitsTouching(b, asked, limit)
		must(t, err)
		w.touching = append(w.touching, touchingWant{asked, limit, commits})
	}
	for _, p := range h.asked {
		data, err := ref.ReadAt(b, p)
		w.reads = append(w.reads, readWant{string(data), err != nil, MissingHistory(err)})
	}
	w.compare, err = ref.Compare(b, h.asked)
	must(t, err)
	return w
}

// TestHistoryForNothing: no base on the chain, no path, a nil History.
func TestHistoryForNothing(t *testing.T) {
	t.Parallel()
	h := sharedMergeHistory(t, 1)
	r := open(t, h.dir)
	if r.HistoryFor(nil, h.asked, 0) != nil || r.HistoryFor([]Commit{{Hash: h.chain[0]}}, nil, 0) != nil ||
		r.HistoryFor([]Commit{{Hash: "0123456789012345678901234567890123456789"}}, h.asked, 0) != nil ||
		r.HistoryFor([]Commit{{Hash: h.chain[0]}}, []string{"../x", "/abs", "."}, 0) != nil {
		t.Fatal("a History for nothing")
	}
	// the bound: HEAD is the chain's first commit, the root its last
	head, root := Commit{Hash: h.chain[len(h.chain)-1]}, Commit{Hash: h.chain[0]}
	if b := r.HistoryFor([]Commit{head, root}, h.asked, 3); b == nil || !b.Covers(head) || b.Covers(root) {
		t.Fatal("a History of 3 commits: HEAD not covered, or the root covered")
	}
	if r.HistoryFor([]Commit{root}, h.asked, 3) != nil {
		t.Fatal("a History past its bound")
	}
	if b := r.HistoryFor([]Commit{head, root}, h.asked, 0); b == nil || !b.Covers(root) {
		t.Fatal("no bound: the root not covered")
	}
	var nilHist *History
	if nilHist.Covers(Commit{Hash: h.chain[0]}) || nilHist.Has(h.asked[0]) {
		t.Fatal("a nil History answers")
	}
	if _, ok := nilHist.CommitsTouching(Commit{Hash: h.chain[0]}, h.asked, 0); ok {
		t.Fatal("a nil History answers")
	}
	if _, ok := nilHist.blobsAt(h.chain[0]).blob(h.asked[0]); ok {
		t.Fatal("a nil History answers")
	}
}

package gitrepo

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/orchestrate-dev/orchestrate/internal/gitfixture"
	"github.com/orchestrate-dev/orchestrate/internal/gitobj"
)

// changedReference is treeCache.changed as it was before diff skipped the
// wanted names whose entries are equal and ScanIndex merged: every wanted
// name of every compared folder visited, its child found by name, each
// entry found by a look-up in the tree's index (Find). It is the answer
// the walk's comparison must give (TestTreeDiffAsReference).
func changedReference(s *gitobj.TreeIndexCache, a, b plumbing.Hash, n *gitobj.TrieNode, out *[]string) error {
	if a == b {
		return nil
	}
	ents := func(h plumbing.Hash) ([]gitobj.RawEntry, error) {
		if h.IsZero() {
			return nil, nil
		}
		idx, raw, err := s.Lookup(h)
		if err != nil {
			return nil, err
		}
		if idx == nil {
			idx = gitobj.NewTreeIndex(raw)
		}
		e := make([]gitobj.RawEntry, len(n.Names))
		for i, name := range n.Names {
			e[i], _ = idx.Find(name)
		}
		return e, nil
	}
	ta, err := ents(a)
	if err != nil {
		return err
	}
	tb, err := ents(b)
	if err != nil {
		return err
	}
	for i, name := range n.Names {
		child := n.Children[name]
		var ea, eb gitobj.RawEntry
		if i < len(ta) {
			ea = ta[i]
		}
		if i < len(tb) {
			eb = tb[i]
		}
		if child.Leaf && (ea.Blob() != eb.Blob() || ea.Dir() != eb.Dir()) {
			*out = append(*out, child.Path)
		}
		if len(child.Names) > 0 {
			if err := changedReference(s, ea.Dir(), eb.Dir(), child, out); err != nil {
				return err
			}
		}
	}
	return nil
}

// treeDiffHistory writes a random first-parent history (packed) whose
// folders hold names sorting around '.', '-' and '/', files made folders
// and back, deleted subtrees, links, executables and one folder of many
// files; it returns the folder and every path written or asked about.
func treeDiffHistory(t *testing.T, rng *rand.Rand, n int) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	must(t, gitfixture.Init(dir))
	var paths []string
	for _, d := range []string{"x", "x.y", "x-y", "x0"} {
		for _, f := range []string{"a", "a.b", "a-b", "a0", "a/f", "a/g", "a.b/f", "b-c/f", "b.c", "b"} {
			paths = append(paths, d+"/"+f)
		}
	}
	for i := 0; i < 70; i++ {
		paths = append(paths, fmt.Sprintf("s/f%02d", i))
	}
	paths = append(paths, "top", "top/inner", "top/inner/deep", "t-p", "t.p")
	var in strings.Builder
	live := map[string]bool{}
	for mark := 1; mark <= n; mark++ {
		fmt.Fprintf(&in, "commit refs/heads/master\nmark :%d\ncommitter A <a@x> %d +0000\ndata 3\nc%d\n", mark, t0.Unix()+int64(60*mark), mark%10)
		if mark > 1 {
			fmt.Fprintf(&in, "from :%d\n", mark-1)
		}
		for k := 1 + rng.IntN(4); k > 0; k-- {
			p := paths[rng.IntN(len(paths))]
			if rng.IntN(5) == 0 {
				// a folder or file deleted whole: a missing subtree
				if i := strings.LastIndexByte(p, '/'); i > 0 && rng.IntN(2) == 0 {
					p = p[:i]
				}
				fmt.Fprintf(&in, "D %s\n", p)
				for q := range live {
					if q == p || strings.HasPrefix(q, p+"/") {
						delete(live, q)
					}
				}
				continue
			}
			// a file where a folder was (or in one where a file was) replaces it
			for q := range live {
				if strings.HasPrefix(q, p+"/") || strings.HasPrefix(p, q+"/") {
					fmt.Fprintf(&in, "D %s\n", q)
					delete(live, q)
				}
			}
			mode := []string{"100644", "100644", "100755", "120000"}[rng.IntN(4)]
			body := fmt.Sprint(mark, p, rng.IntN(3))
			fmt.Fprintf(&in, "M %s inline %s\ndata %d\n%s\n", mode, p, len(body), body)
			live[p] = true
		}
	}
	gitIn(t, dir, in.String(), "fast-import", "--quiet")
	gitIn(t, dir, "", "symbolic-ref", "HEAD", "refs/heads/master")
	must(t, repack(dir))
	return dir, append(paths, "x/zz", "s/none", "x/a.b/c", "top/inner/deep/er", "nowhere/at/all")
}

// TestTreeDiffAsReference: along random histories, walked twice over one
// tree cache (the second time from indexed trees), a walk's comparison of
// each commit's tree with its parent's gives the reference's paths, in
// its order, for all the paths and for random subsets of them.
func TestTreeDiffAsReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 13))
	compared, changed := 0, 0
	for h := 0; h < 4; h++ {
		dir, paths := treeDiffHistory(t, rng, 60)
		r, err := Open(dir)
		must(t, err)
		c, err := r.walkHead()
		must(t, err)
		var trees []plumbing.Hash
		for {
			trees = append(trees, c.tree)
			p, ok, err := r.parentLinks(c)
			must(t, err)
			if !ok {
				break
			}
			c = p
		}
		trees = append(trees, plumbing.ZeroHash) // the first commit against no tree
		for pass := 0; pass < 3; pass++ {
			want := paths
			if pass > 0 {
				want = nil
				for _, p := range paths {
					if rng.IntN(3) == 0 {
						want = append(want, p)
					}
				}
			}
			trie := gitobj.NewTrie(want)
			tc := newTreeCache(r.trees)
			for k := 0; k+1 < len(trees); k++ {
				tc.next()
				got, err := tc.changed(trees[k], trees[k+1], trie)
				must(t, err)
				var ref []string
				must(t, changedReference(r.trees, trees[k], trees[k+1], trie.Root, &ref))
				if !slices.Equal(got, ref) {
					t.Fatalf("history %d pass %d commit %d: changed %q, the reference %q", h, pass, k, got, ref)
				}
				compared++
				changed += len(got)
			}
		}
		r.Close()
	}
	if changed < 300 {
		t.Errorf("%d comparisons found %d changed paths: too few to tell", compared, changed)
	}
}

package gitrepo

import (
	"slices"
	"sort"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/orchestrate-dev/orchestrate/internal/gitobj"
)

// maxBatchChain bounds the commits of HEAD's first-parent chain
// LastChangesAt reads to place its questions' commits on it: a question
// whose commit is further back (or not on the chain) is left to
// LastChangeAt.
const maxBatchChain = 1 << 13

// LastChangeQuestion is one LastChangeAt question of a batch: the paths
// (clean slash paths) whose last change at or before At is asked.
type LastChangeQuestion struct {
	At    Commit
	Paths []string
}

// lastQuestion is a question of LastChangesAt being answered: its index,
// its commit's position on the chain (-1 until placed), its paths (sorted,
// each once) and how many of them have no commit yet (-1: finished).
type lastQuestion struct {
	i, pos int
	paths  []string
	left   int
}

// LastChangesAt answers many LastChangeAt questions (status asks one per
// workflow: who last wrote its record files at its interruption commit) in
// one walk of HEAD's first-parent chain, comparing each commit with its
// parent once for the union of the questions' paths, instead of one walk per
// question. answers[i] is what LastChangeAt(qs[i].At, qs[i].Paths,
// maxCommits) gives when known[i]; a question not known must be asked
// through LastChangeAt: its commit is not on HEAD's first-parent chain
// within maxBatchChain commits, a path is not clean, or the walk stopped
// (an error, an object missing) before the question was answered. The
// answer of a path at a commit depends on that path only (see
// treeCache.diff), so a path's answer does not change with the paths asked
// beside it.
func (r *Repo) LastChangesAt(qs []LastChangeQuestion, maxCommits int) (answers []map[string]Commit, known []bool) {
	return r.lastChangesAt(qs, maxCommits, nil)
}

// LastChangesWith is LastChangesAt taking the changes History h (walked by
// r, see HistoryFor; nil: none) knows in the chain's newest commits: there
// a path it knows is answered from them, and the walk compares the other
// paths only; past them, every path still asked. The answers are
// LastChangesAt's: a path's does not depend on the paths beside it.
func (r *Repo) LastChangesWith(qs []LastChangeQuestion, maxCommits int, h *History) (answers []map[string]Commit, known []bool) {
	if h == nil || h.r != r {
		h = nil
	}
	return r.lastChangesAt(qs, maxCommits, h)
}

// lastChangesAt is LastChangesWith (h nil: LastChangesAt).
func (r *Repo) lastChangesAt(qs []LastChangeQuestion, maxCommits int, h *History) (answers []map[string]Commit, known []bool) {
	answers, known = make([]map[string]Commit, len(qs)), make([]bool, len(qs))
	var pending []*lastQuestion
	byHash := map[plumbing.Hash][]*lastQuestion{}
	for i, q := range qs {
		h, ok := fullHash(q.At.Hash)
		if !ok || len(q.Paths) == 0 {
			continue
		}
		if slices.ContainsFunc(q.Paths, func(p string) bool { return !cleanRel(p) }) {
			continue
		}
		paths := append([]string(nil), q.Paths...)
		sort.Strings(paths)
		paths = slices.Compact(paths)
		byHash[h] = append(byHash[h], &lastQuestion{i: i, pos: -1, paths: paths, left: len(paths)})
	}
	if len(byHash) == 0 {
		return answers, known
	}
	// place the questions' commits on HEAD's first-parent chain
	c, err := r.walkHead()
	if err != nil {
		return answers, known
	}
	var chain []links
	found := 0
	for len(chain) < maxBatchChain {
		chain = append(chain, c)
		if ws, ok := byHash[c.hash]; ok {
			for _, q := range ws {
				if q.pos < 0 {
					q.pos = len(chain) - 1
					pending = append(pending, q)
				}
			}
			if found++; found == len(byHash) {
				break
			}
		}
		p, ok, err := r.parentLinks(c)
		if err != nil || !ok {
			break
		}
		c = p
	}
	if len(pending) == 0 {
		return answers, known
	}
	for _, q := range pending {
		answers[q.i] = map[string]Commit{}
	}
	// the questions asking each path, and the union of the paths
	asking := map[string][]*lastQuestion{}
	for _, q := range pending {
		for _, p := range q.paths {
			asking[p] = append(asking[p], q)
		}
	}
	union := make([]string, 0, len(asking))
	for p := range asking {
		union = append(union, p)
	}
	sort.Strings(union)
	start := pending[0].pos
	for _, q := range pending {
		start = min(start, q.pos)
	}
	// the History's commits: its paths' answers there are its changes,
	// and the walk compares them only for the other paths (rest)
	hk := 0
	var rest []string
	if h != nil {
		hk = min(h.known, len(chain)-1) // the walk goes on from chain[hk]
	}
	if hk > start {
		ok := true
		if rest, ok = r.lastFromHistory(h, hk, pending, answers, union, maxCommits); !ok {
			return r.lastChangesAt(qs, maxCommits, nil) // a commit that cannot be read: the walk's own way
		}
	} else {
		hk = 0
	}
	trie := gitobj.NewTrie(union)
	if hk > 0 {
		trie = gitobj.NewTrie(rest)
	}
	// open: the questions not finished (some path without its commit, and
	// within the bound)
	open := len(pending)
	finish := func(q *lastQuestion) {
		if q.left >= 0 {
			q.left = -1
			known[q.i] = true
			open--
		}
	}
	inRange := func(q *lastQuestion, k int) bool {
		return k >= q.pos && (maxCommits <= 0 || k-q.pos < maxCommits)
	}
	for _, q := range pending {
		if q.left == 0 { // every path answered from the History
			finish(q)
		}
	}
	cache := r.walkCache()
	for k := start; open > 0; k++ {
		// the questions whose bound ended before k are finished
		for _, q := range pending {
			if q.left >= 0 && k > q.pos && !inRange(q, k) {
				finish(q)
			}
		}
		if open == 0 {
			break
		}
		if k == hk && hk > 0 {
			// past the History's commits: every path still asked
			trie, cache = gitobj.NewTrie(union), r.walkCache()
		}
		if k < hk && len(rest) == 0 {
			continue // the History answered every path there
		}
		cur := chain[k] // the placing walk's, else appended below
		p, ok, err := r.parentLinks(cur)
		if err != nil {
			break
		}
		parentTree := plumbing.ZeroHash
		if ok {
			parentTree = p.tree
		}
		changed, err := cache.changedAt(cur, parentTree, ok, trie)
		if err != nil {
			break // LastChangeAt treats some of these (a cut history) its own way
		}
		if len(changed) > 0 {
			var info Commit
			for _, path := range changed {
				for _, q := range asking[path] {
					if q.left < 0 || !inRange(q, k) {
						continue
					}
					if _, done := answers[q.i][path]; done {
						continue
					}
					if info.IsZero() {
						if info, err = r.commitInfo(cur.hash); err != nil {
							break
						}
					}
					answers[q.i][path] = info
					if q.left--; q.left == 0 {
						finish(q)
					}
				}
				if err != nil {
					break
				}
			}
			if err != nil {
				break
			}
		}
		if !ok {
			if !cur.parent.IsZero() {
				break // a boundary or a missing parent: LastChangeAt's walk ends there too, but leave it to it
			}
			// a root: every question that reached it is finished
			for _, q := range pending {
				if q.left >= 0 && q.pos <= k {
					finish(q)
				}
			}
			break
		}
		cache.next()
		if k+1 == len(chain) {
			chain = append(chain, p) // past the placing walk: follow the chain on
		}
	}
	for _, q := range pending {
		if !known[q.i] {
			answers[q.i] = nil
		}
	}
	return answers, known
}

// lastFromHistory answers from h the pending questions' paths h knows in
// the chain's first hk commits: the newest change at or after the
// question's commit, within its bound (none: the walk goes on past hk).
// rest is the paths of union h does not know; ok false: a commit cannot be
// read.
func (r *Repo) lastFromHistory(h *History, hk int, pending []*lastQuestion, answers []map[string]Commit, union []string, maxCommits int) (rest []string, ok bool) {
	for _, p := range union {
		if !h.Has(p) {
			rest = append(rest, p)
		}
	}
	for _, q := range pending {
		if q.pos >= hk {
			continue
		}
		for _, p := range q.paths {
			ph := h.paths[p]
			if ph == nil {
				continue
			}
			for _, ch := range ph.changes { // newest first
				if ch.k < q.pos {
					continue
				}
				if ch.k < hk && (maxCommits <= 0 || ch.k-q.pos < maxCommits) {
					info, err := r.commitInfo(ch.commit)
					if err != nil {
						return nil, false
					}
					answers[q.i][p] = info
					q.left--
				}
				break
			}
		}
	}
	return rest, true
}

// compactStrings drops the repeats of sorted s.
func compactStrings(s []string) []string { return slices.Compact(s) }

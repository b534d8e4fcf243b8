package gitrepo

import (
	"fmt"
	"os"
	"path"
	"runtime"
	"slices"
	"sort"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/orchestrate-dev/orchestrate/internal/gitobj"
	"github.com/orchestrate-dev/orchestrate/internal/par"
)

// History is what one walk of HEAD's first-parent chain found for a set of
// paths, back to the oldest of a set of base commits (see HistoryFor): each
// path's entry in HEAD's tree and, for every commit of the chain that
// changed it, the commit and the path's entry in its first parent. From it
// the path's entry in any commit of the chain walked is known (the entry
// in the parent of the oldest change newer than that commit, else HEAD's),
// so Compare's base look-ups and CommitsTouching's walks for many
// workflows, each with its own base commit, are answered without reading a
// tree of a base or walking the chain again. Its memory follows the
// distinct paths and the changes to them, not the workflows × paths.
//
// A nil *History answers nothing (every method reports it cannot).
//
// A History is read only once HistoryFor returns it, except for what
// CompareWith keeps in it of the work tree (see disks), which mu guards:
// several CompareWith calls may use one History at once.
type History struct {
	r     *Repo
	pos   map[plumbing.Hash]int // the bases reached, by their position on the chain (0: HEAD)
	paths map[string]*pathHistory
	// known is how many commits of the chain, from HEAD, the walk
	// compared with their first parent: every change to the paths in
	// those commits is in paths (see LastChangesWith)
	known int
	mu    sync.Mutex // guards each pathHistory's disk and diskSeen
}

// diskState is what CompareWith found in the work tree at a path.
type diskState struct {
	hash   string // the file's git blob hash; "" when there is no file
	onDisk bool
}

// pathHistory is one path's entry in HEAD and the changes to it, newest
// first.
type pathHistory struct {
	head    gitobj.RawEntry
	changes []pathChange
	// disk is the path in the work tree, as the run's first Compare of
	// it found it (disk.onDisk or disk.hash set), kept for the Compare
	// calls of the other workflows: the work tree does not depend on the
	// base, and a run assumes it does not change while it runs. Guarded
	// by History.mu.
	disk     diskState
	diskSeen bool
}

// pathChange is a commit of the chain (at position k) that changed a path,
// and the path's entry in that commit's first parent.
type pathChange struct {
	k      int
	commit plumbing.Hash
	parent gitobj.RawEntry
}

// HistoryFor walks HEAD's first-parent chain once, from HEAD back to the
// oldest of bases that is on the chain within maxCommits commits of HEAD
// (maxCommits <= 0 or over maxBatchChain: maxBatchChain),
// comparing each commit with its first parent for the union of paths (see
// treeCache.diff: a path changes when its file or its folder tree does, so
// a path's answer does not depend on the paths asked beside it), and keeps
// what History needs to answer for each of those bases. A base not on the
// chain (on a merged side branch, or past a shallow boundary or a missing
// parent), a path that is not clean, or a walk stopped by an error before
// a base is reached is simply not covered: the caller asks Compare's own
// look-ups and CommitsTouching's own walk then. It returns nil when no
// base can be covered.
//
// maxCommits is the caller's bound on what the walk may cost: a walk for
// paths that did not change since an old base reads commits that the
// look-ups it replaces did not, so the caller sizes it by those (status:
// by the workflows' references).
//
// The walk stays on the caller's goroutine and gives each changed path's
// entry in the parent as it finds the change; the look-ups that do not
// steer it — the paths' trie and their entries in HEAD — run beside it on
// goroutines of their own, which only read objects (the tree index cache,
// the pack reader, the path table: each safe for concurrent use) and are
// done when HistoryFor returns. An error of the walk cuts the History.
func (r *Repo) HistoryFor(bases []Commit, paths []string, maxCommits int) *History {
	if maxCommits <= 0 || maxCommits > maxBatchChain {
		maxCommits = maxBatchChain
	}
	want := map[plumbing.Hash]bool{}
	for _, b := range bases {
		if h, ok := fullHash(b.Hash); ok {
			want[h] = true
		}
	}
	union := make([]string, 0, len(paths))
	for _, p := range paths {
		if cleanRel(p) {
			union = append(union, p)
		}
	}
	sort.Strings(union)
	union = slices.Compact(union)
	if len(want) == 0 || len(union) == 0 {
		return nil
	}
	triec := make(chan *gitobj.Trie, 1) // built while the bases are placed
	go func() { triec <- gitobj.NewTrie(union) }()
	// place the bases on HEAD's first-parent chain
	c, err := r.walkHead()
	if err != nil {
		return nil
	}
	h := &History{r: r, pos: map[plumbing.Hash]int{}, paths: make(map[string]*pathHistory, len(union))}
	chain := []links{}
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
	// HEAD's entries, which the walk does not need, are looked up beside
	// it: a cold look-up of 4,000 paths in a 100,000-file tree is a third
	// of the walk's cost
	var heads map[string]gitobj.RawEntry
	var headsErr error
	headsDone := make(chan struct{})
	walkDone := make(chan struct{}) // the heads stop waiting for IndexLater's read (see headEntries)
	go func() { heads, headsErr = r.headEntries(chain[0].tree, union, walkDone); close(headsDone) }()
	for _, p := range union {
		h.paths[p] = &pathHistory{}
	}
	// the walk gives each changed path's entry in the parent (see
	// treeCache.parents): only a folder a description keeps no hash of is read
	trie := <-triec
	cache := r.walkCache()
	segs := 1 // nothing learnt in chain order unless pairs are kept: 4 segments (32+ commits) a processor
	if cache.pairs == nil {
		segs = max(1, min(4*runtime.GOMAXPROCS(0), oldest/32))
	}
	h.known = oldest
	for k, st := range r.walkSegments(cache, chain[:oldest+1], trie, segs) {
		err := st.err
		for i := 0; err == nil && i < len(st.changed) && i < len(st.parents); i++ {
			if e := st.parents[i]; e.Mode == filemode.Dir && e.Hash.IsZero() {
				var pe map[string]gitobj.RawEntry
				pe, err = r.entriesOf(chain[k+1].tree, st.changed[i:i+1])
				st.parents[i] = pe[st.changed[i]]
			}
		}
		if err != nil || len(st.parents) != len(st.changed) { // (in step by construction)
			h.known = k
			break
		}
		for i, path := range st.changed {
			if ph := h.paths[path]; ph != nil { // the trie's paths are the union's
				ph.changes = append(ph.changes, pathChange{k: k, commit: chain[k].hash, parent: st.parents[i]})
			}
		}
	}
	for b, at := range h.pos { // the bases past a cut are not covered: their answers are not all known
		if at > h.known {
			delete(h.pos, b)
		}
	}
	close(walkDone)
	<-headsDone
	if headsErr != nil || len(h.pos) == 0 {
		return nil
	}
	for p, ph := range h.paths {
		ph.head = heads[p]
	}
	return h
}

// walkStep is a commit of the chain compared with its first parent: the
// trie's paths changed, each one's entry in the parent; or the walk's cut.
type walkStep struct {
	changed []string
	parents []gitobj.RawEntry
	err     error
}

// walkSegments compares each commit of chain but the last with the next one
// (its first parent), the chain cut into segs segments taken in turn by a
// goroutine a processor, the first with cache, each other with a tree cache
// of its own over the Repo's tree index cache and history table (each safe
// for concurrent use): a pair's answer, and description, depends on its two
// trees only. A segment stops at its first error.
func (r *Repo) walkSegments(cache *treeCache, chain []links, trie *gitobj.Trie, segs int) []walkStep {
	steps, hists := make([]walkStep, len(chain)-1), make([]histCache, segs)
	par.For(segs, par.Options{Workers: runtime.GOMAXPROCS(0), Chunk: 1, Min: 2}, func(s int) {
		c := cache
		if s > 0 {
			c = newTreeCache(r.trees)
			if cache.hist != nil {
				hists[s].t, c.hist = cache.hist.t, &hists[s]
			}
		}
		for k := s * len(steps) / segs; k < (s+1)*len(steps)/segs; k++ {
			st := &steps[k]
			c.parents = &st.parents
			if st.changed, st.err = c.changedAt(chain[k], chain[k+1].tree, true, trie); st.err != nil {
				return
			}
			c.next()
		}
	})
	for i := 1; cache.hist != nil && i < segs; i++ {
		cache.hist.pairHits, cache.hist.pairMisses = cache.hist.pairHits+hists[i].pairHits, cache.hist.pairMisses+hists[i].pairMisses
	}
	return steps
}

// cleanRel reports whether p is a clean relative slash path inside the
// repository (what a tree look-up and the walk's trie take as they are).
func cleanRel(p string) bool {
	c := path.Clean(p)
	return c == p && c != "." && c != ".." && !path.IsAbs(c) && !(len(c) > 2 && c[:3] == "../")
}

// position returns base's position on the chain walked, ok false when the
// walk did not cover it.
func (h *History) position(base string) (int, bool) {
	if h == nil {
		return 0, false
	}
	b, ok := fullHash(base)
	if !ok {
		return 0, false
	}
	k, ok := h.pos[b]
	return k, ok
}

// entryAt returns the path's entry in the commit at position k of the
// chain.
func (ph *pathHistory) entryAt(k int) gitobj.RawEntry {
	e := ph.head
	for _, ch := range ph.changes {
		if ch.k >= k {
			break
		}
		e = ch.parent
	}
	return e
}

// Covers reports whether the History answers for base: it is on the chain
// walked.
func (h *History) Covers(base Commit) bool {
	_, ok := h.position(base.Hash)
	return ok
}

// baseBlobs is what CompareWith takes from a History for one base: the
// blob of a path in the base's tree (zero when it holds no file there),
// ok false for a path the History was not walked for.
type baseBlobs struct {
	h *History
	k int
}

// blobsAt returns the base blob look-up of base; nil when h does not cover
// it.
func (h *History) blobsAt(base string) *baseBlobs {
	k, ok := h.position(base)
	if !ok {
		return nil
	}
	return &baseBlobs{h: h, k: k}
}

// blob returns p's blob in the base (pathTree.blob's answer), ok false
// when the History does not know p.
func (b *baseBlobs) blob(p string) (plumbing.Hash, bool) {
	if b == nil {
		return plumbing.ZeroHash, false
	}
	ph, ok := b.h.paths[p]
	if !ok {
		return plumbing.ZeroHash, false
	}
	return ph.entryAt(b.k).Blob(), true
}

// CommitsTouching is Repo.CommitsTouching(base, paths, limit) answered
// from the History: ok false when it does not cover base or one of paths
// (or a commit cannot be read): the caller walks then. The answer is the
// walk's: for each path, walking back from HEAD, the commits that changed
// it, newest first, until its entry is as in base (the same file, or the
// same folder tree, or absent in both) or it has limit commits (limit <=
// 0: no limit); a path without commits is absent.
func (h *History) CommitsTouching(base Commit, paths []string, limit int) (map[string][]Commit, bool) {
	kb, ok := h.position(base.Hash)
	if !ok {
		return nil, false
	}
	for _, p := range paths {
		if _, ok := h.paths[p]; !ok {
			return nil, false
		}
	}
	out := make(map[string][]Commit)
	for _, p := range paths {
		if _, done := out[p]; done {
			continue
		}
		ph := h.paths[p]
		want := ph.entryAt(kb)
		if sameEntry(ph.head, want) {
			continue
		}
		var got []Commit
		for _, ch := range ph.changes {
			if ch.k >= kb {
				break
			}
			info, err := h.r.commitInfo(ch.commit)
			if err != nil {
				return nil, false
			}
			got = append(got, info)
			if sameEntry(ch.parent, want) || (limit > 0 && len(got) >= limit) {
				break
			}
		}
		if len(got) > 0 {
			out[p] = got
		}
	}
	return out, true
}

// ReadAt is Repo.ReadAt(c, p), the same answer, taking p's entry in c
// from the History instead of a look-up by path in c's tree (the folders
// of a story read at each workflow's base are not read again); ok false
// when it does not cover c or p (h may be nil): ask Repo.ReadAt.
func (h *History) ReadAt(c Commit, p string) (data []byte, ok bool, err error) {
	k, covered := h.position(c.Hash)
	if !covered {
		return nil, false, nil
	}
	ph, walked := h.paths[p]
	if !walked {
		return nil, false, nil
	}
	data, err = h.r.readEntry(c, p, ph.entryAt(k))
	return data, true, err
}

// readEntry is the end of Repo.ReadAt for the entry e found at p in c's
// tree (the zero entry: none).
func (r *Repo) readEntry(c Commit, p string, e gitobj.RawEntry) ([]byte, error) {
	if e == (gitobj.RawEntry{}) {
		return nil, fmt.Errorf("read %s at %s: %w", p, c.Short, os.ErrNotExist)
	}
	return r.readFileEntry(c, p, e.Mode, e.Hash)
}

// Has reports whether the History was walked for p (h may be nil).
func (h *History) Has(p string) bool {
	if h == nil {
		return false
	}
	_, ok := h.paths[p]
	return ok
}

// diskView is what the run's Compares found on disk at the paths of one
// CompareWith call, by the call's path index (see History.disks).
type diskView struct {
	phs  []*pathHistory // nil: the History was not walked for the path
	seen []diskState    // valid where ok
	ok   []bool
}

// diskFound is what a CompareWith call found on disk at a path, to be kept
// in the History for the run's other Compares.
type diskFound struct {
	ph *pathHistory
	d  diskState
}

// disks returns what the run's Compares found on disk at paths, taken
// under h's lock once for the call (h may be nil: nothing is known).
func (h *History) disks(paths []string) diskView {
	if h == nil {
		return diskView{}
	}
	v := diskView{phs: make([]*pathHistory, len(paths)), seen: make([]diskState, len(paths)), ok: make([]bool, len(paths))}
	for i, p := range paths {
		v.phs[i] = h.paths[p] // read only: not under the lock
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for i, ph := range v.phs {
		if ph != nil && ph.diskSeen {
			v.seen[i], v.ok[i] = ph.disk, true
		}
	}
	return v
}

// at returns what a Compare of the run found on disk at the call's path i,
// ok false when none did or the History was not walked for it.
func (v diskView) at(i int) (diskState, bool) {
	if v.ok == nil || !v.ok[i] {
		return diskState{}, false
	}
	return v.seen[i], true
}

// found appends to to what the call found on disk at its path i, when the
// History was walked for it.
func (v diskView) found(to []diskFound, i int, hash string, onDisk bool) []diskFound {
	if v.phs == nil || v.phs[i] == nil {
		return to
	}
	return append(to, diskFound{v.phs[i], diskState{hash: hash, onDisk: onDisk}})
}

// keepDisks keeps what a CompareWith call found on disk, under h's lock
// (h may be nil). A path another call kept meanwhile keeps that answer:
// the work tree does not change while a run uses it, so both are the
// same.
func (h *History) keepDisks(found []diskFound) {
	if h == nil || len(found) == 0 {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, f := range found {
		if !f.ph.diskSeen {
			f.ph.disk, f.ph.diskSeen = f.d, true
		}
	}
}

// Package verdict is the per-workflow verdict memo: a validation's report
// before its age step (validate.Unaged), kept in the user's cache under a
// key holding every input it was computed from, and used by a later run
// only while each of those inputs is unchanged. It is an optimisation
// only: a memo that is missing, corrupt, foreign or no longer true is a
// miss, and the workflow is validated afresh (DESIGN §13: cached data can
// never change an answer).
//
// The key has two parts. The run's (Open): the build, the repository
// root, HEAD's hash, the stat data of the git files that shape an answer
// (the index, with its trailing checksum; the shallow file, the
// alternates, the configuration, the commit-graph, the pack folder), the
// configuration orchestrate read (thresholds, limits, statuses: its
// canonical encoding), what validation reads of every discovered
// candidate (conflict (a) reads the others' ids, sources, stories and
// times; their statuses too), and the canonical encoding of every parsed
// story. The candidate's (Get, Put): its own canonical encoding, and its
// read set: each working-tree path validation may read for it (its
// referenced files, its state files, its stories' files) and the folders
// above them that hold another folder of the set (the root always), with
// their lstat data (device, inode, mode, size, modification and change
// times in ns), checked again on every use. A memo names its read set's
// paths by their indexes in one path table kept in the same table
// (pathtable.go), each path kept once.
//
// Which folders: a path is looked up through its folders, following a
// folder that became a symlink. A folder replaced (renamed away, a
// symlink or another folder put in its place) changes its parent's
// entries, so its parent's modification and change times (the change
// time cannot be put back): the parent's lstat tells it. A folder that
// holds only files of the set (src/pkg031/sub07 above file06379.go) has
// nothing of its own validation reads: its files are looked up and read
// by their paths, each lstat'ed itself (a file added, removed, replaced
// or changed there is its own lstat's change; a folder no longer
// searchable makes its files' lstat fail: no memo is used), and
// validation never lists it. Its lstat is not taken (version 4: 2,600 of
// the 9,100 lstats a warm status of 1,000 workflows made). Its parent,
// which holds a folder of the set, is.
//
// Nothing is kept of a run whose git objects were not all verified, of a
// repository without git, shallow or partial, of a run where a lock file
// exists, of a report whose time was kept from passing the clock, that
// judged by modification times or could not read git, or whose read set
// holds a symlink or a path changed within StatCacheRacy of the run's
// start. The clock is never part of a memo: Aged runs the age step on every
// use.
//
// A repository's first run with a cache folder opens no memo at all
// (app/loaded/seed.go: it only marks the folder). The next run, which
// fills git's and the stories' tables, finds no memo table yet and keeps
// no memo either: it writes only a marker entry, and the run after it
// keeps the memos. Filling the memo costs about a seventh of a run (each
// path's lstat, the read sets, the encoding, +10 MB held to the table's
// write), which a fresh clone's only run should not pay (issue 25: a first
// run costs at most 10 % over the cache off), and which on the run that
// fills the other tables took its peak over 100 MiB (111 MiB on 200 × 300).
package verdict

import (
	"crypto/sha256"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/cachetable"
	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
	"github.com/orchestrate-dev/orchestrate/internal/gitobj"
	"github.com/orchestrate-dev/orchestrate/internal/gitrepo"
	"github.com/orchestrate-dev/orchestrate/internal/storyid"
	"github.com/orchestrate-dev/orchestrate/validate"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// version salts every key: bump it on any change of what a memo holds or
// of what validation reports for the same inputs outside a build change.
const version = 5 // 2: a read set's sum is of its paths' slot sums; 3: a read set is indexes into the path table; 4: findings' strings written once (codec.go); 5: reports with their lists (lists.go)

// Prefix starts the memo table's name (cachetable: the work tree's digest
// follows).
const Prefix = "verdict-"

// Bounds: the entries one run adds, their bytes, and the table file.
const (
	maxNew   = 20000
	maxBytes = 16 << 20
	bound    = 24 << 20
)

// Git is what the memo asks of git; *gitrepo.Repo satisfies it.
type Git interface {
	Head() (gitrepo.Commit, error)
	Shallow() bool
	Promisor() string
}

// Facts is what a run's memo is keyed by and may keep.
type Facts struct {
	// Root is the repository root (absolute).
	Root string
	// Git is the repository's git; nil (no git) keeps no memo.
	Git Git
	// Verified reports, at Save, whether every git object the run read
	// was what its hash names; nil keeps nothing.
	Verified func() bool
	// Candidates are every discovered candidate; Stories every parsed
	// story (kept, read by Put: the caller does not change it while the
	// memo is used).
	Candidates []workflow.Candidate
	Stories    map[string]*workflow.Story
	// Config is the configuration the run validates with.
	Config config.Config
	// Clock is the wall clock the racy window counts from (nil: time.Now).
	Clock func() time.Time
	// Preload is the table StartPreload began reading for the same cache
	// and root, if any (else Open reads it).
	Preload *Preload
}

// Memo is one run's use of the verdict table. It is safe for concurrent
// use; a nil Memo is off (every Get misses, Put keeps nothing).
type Memo struct {
	tab   *cachetable.Table[[32]byte, []byte]
	root  string
	run   [32]byte
	start time.Time
	store bool // the run's facts may be kept (none racy)
	// seed: no memo table was saved yet; this run keeps only the marker
	// (see the package comment) and looks nothing up
	seed     bool
	verified func() bool
	// storyPaths are the parsed stories' paths by loose id
	// (storyid.Loose), made by the first Put (a run that only uses memos
	// never needs them)
	stories     map[string]*workflow.Story
	storyPathsO sync.Once
	storyPaths  map[string][]string

	pt  pathTable // the path table, with this run's lstat of each path looked up (pathtable.go)
	dir *rootDir  // the root they are lstat'ed in

	mu         sync.Mutex
	hits       int
	added      int // memos Put added, and their bytes (the bounds of maxNew, maxBytes)
	addedBytes int
}

// Open returns the memo of a run described by f in disk, or nil when the
// memo is off: no cache, no git, few references to validate (worth), a
// shallow or partial clone, a lock file present, or a fact that cannot be
// read or encoded.
func Open(disk *diskcache.Cache, f Facts) *Memo {
	if !disk.Enabled() || f.Git == nil || !worth(f.Candidates, len(f.Stories)) || f.Git.Shallow() || f.Git.Promisor() != "" {
		return nil
	}
	clock := f.Clock
	if clock == nil {
		clock = time.Now
	}
	m := &Memo{root: f.Root, start: clock(), verified: f.Verified, store: true}
	if locked(f.Root) {
		return nil
	}
	// the stories' digest (2,000 stories' sections: the most of Open) made
	// beside the rest of the run's key, which waits for it
	type storiesSum struct {
		d  [32]byte
		ok bool
	}
	dsc := make(chan storiesSum, 1)
	go func() {
		d, ok := storiesDigest(f.Stories)
		dsc <- storiesSum{d, ok}
	}()
	head, err := f.Git.Head()
	if err != nil || head.Hash == "" {
		return nil
	}
	salt := source.StatCacheSalt("orchestrate verdict memo", version)
	b := append([]byte(nil), salt[:]...)
	b = appendStr(b, f.Root)
	b = appendStr(b, head.Hash)
	var ok bool
	if b, ok = m.gitFacts(b); !ok {
		return nil
	}
	dc, okc := digest(f.Config)
	if !okc {
		return nil
	}
	b = append(b, dc[:]...)
	m.stories = f.Stories
	// what validation reads of the other candidates (conflict (a), see
	// validate's rivalsOf and otherWorkflows), with their statuses; a
	// candidate's own key holds all of it (see key)
	others := make([]otherFacts, len(f.Candidates))
	for i := range f.Candidates {
		c := &f.Candidates[i]
		others[i] = otherFacts{ID: c.ID, Status: c.Status, Resumable: c.Resumable, Source: c.Source,
			Stories: c.Stories, StoryRefs: c.StoryRefs, UpdatedAt: c.UpdatedAt}
	}
	d, ok := othersDigest(others)
	if !ok {
		return nil
	}
	b = append(b, d[:]...)
	ds := <-dsc
	if !ds.ok {
		return nil
	}
	b = append(b, ds.d[:]...) // after the others' digest now: the key's order is version 3's
	m.run = sha256.Sum256(b)
	if p := f.Preload; p != nil && p.disk == disk && p.root == f.Root {
		m.tab = p.tab // read, or being read (Open waits for it)
	} else {
		m.tab = newTable(disk, f.Root)
	}
	if !m.tab.Open() {
		return nil
	}
	m.seed = m.tab.Len() == 0
	m.dir = openRoot(f.Root)
	return m
}

// newTable is the verdict table of the repository at root in disk, not
// read yet.
func newTable(disk *diskcache.Cache, root string) *cachetable.Table[[32]byte, []byte] {
	return cachetable.New(disk, root, cachetable.Spec[[32]byte, []byte]{
		Prefix:  Prefix,
		KeySize: 32,
		Key:     func(k *[32]byte) []byte { return k[:] },
		Encode:  func(dst []byte, v []byte) []byte { return append(dst, v...) },
		Decode:  func(v []byte) ([]byte, bool) { return v, true },
		// the memos' bounds (Put) and room for the path table
		MaxNew: maxNew + 1, MaxBytes: maxBytes + maxPathBytes + 32, Size: func(v []byte) int { return len(v) + 32 },
		Bound: bound, Grow: func(n, valueBytes int) int64 { return int64(valueBytes) + int64(n)*16 },
	})
}

// Preload is a verdict table being read ahead of Open (StartPreload).
type Preload struct {
	disk *diskcache.Cache
	root string
	tab  *cachetable.Table[[32]byte, []byte]
}

// StartPreload starts reading and checking the verdict table of the
// repository at root in disk on a goroutine of its own, for a command that
// will validate every workflow (status): the table is read while the
// scan runs, not after it, and Open given it in Facts.Preload waits for it
// (a run's wall time: the read and check of 1,000 memos, about 15 ms,
// on a processor the scan leaves idle). The table read is the one Open
// would read: nothing of the run's key is needed to read it, and every
// memo is still checked against the run's key and read set. nil when the
// cache is off.
func StartPreload(disk *diskcache.Cache, root string) *Preload {
	if !disk.Enabled() {
		return nil
	}
	p := &Preload{disk: disk, root: root, tab: newTable(disk, root)}
	go p.tab.Open()
	return p
}

// marker is the key of the entry a seeding run writes (a SHA-256 no key
// is), so that the next run finds a table and keeps its memos.
var marker [32]byte

// worth reports whether a memo may pay for its key: the resumable
// candidates reference at least a quarter as many files as there are
// candidates and stories to digest (20,000 stories and a few workflows:
// validating costs less than the key).
func worth(cs []workflow.Candidate, stories int) bool {
	n := 0
	for i := range cs {
		if cs[i].Resumable {
			n += len(cs[i].Files)
		}
	}
	return n > 0 && 4*n >= len(cs)+stories
}

// locked reports whether the locks folder holds anything (or cannot be
// read): a lock's liveness is never part of a memo.
func locked(root string) bool {
	ents, err := os.ReadDir(filepath.Join(root, ".orchestrate", "locks"))
	if errors.Is(err, fs.ErrNotExist) {
		return false
	}
	return err != nil || len(ents) > 0
}

// gitFiles are the git folder's files (relative to it, or to the common
// folder of a linked worktree) whose stat data is part of the run's key.
var gitFiles = []string{"index", "shallow", "config", "commondir", "info/grafts",
	"objects/info/alternates", "objects/info/commit-graph", "objects/info/commit-graphs",
	"objects/info/commit-graphs/commit-graph-chain", "objects/pack", "HEAD"}

// gitFacts appends the git files' stat data and the index's trailing
// checksum to b; false when one cannot be told (or, through m.store, is racy).
func (m *Memo) gitFacts(b []byte) ([]byte, bool) {
	dg, err := gitobj.FindDotGit(m.root)
	if err != nil {
		return b, false
	}
	dirs := []string{dg.GitDir}
	if dg.Common != "" {
		dirs = append(dirs, dg.Common)
	}
	for _, d := range dirs {
		b = appendStr(b, d)
		for _, name := range gitFiles {
			st := lstat(filepath.Join(d, filepath.FromSlash(name)))
			if st.err {
				return b, false
			}
			m.noteRacy(st)
			b = st.append(b)
		}
	}
	sum, ok := indexChecksum(filepath.Join(dg.GitDir, "index"))
	if !ok {
		return b, false
	}
	return append(b, sum...), true
}

// indexChecksum is the index file's trailing checksum (its last 32
// bytes: the SHA-1's 20 and what precedes them), or nothing when there is
// no index.
func indexChecksum(p string) ([]byte, bool) {
	f, fi, err := gitobj.OpenGitFile(p, 1<<40)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, true
	}
	if err != nil {
		return nil, false
	}
	defer f.Close()
	n := min(fi.Size(), 32)
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, fi.Size()-n); err != nil {
		return nil, false
	}
	return buf, true
}

// key is the memo key of candidate c: the run's part and c's digest.
func (m *Memo) key(c *workflow.Candidate, lists bool) ([32]byte, bool) {
	d, ok := candidateDigest(c)
	if !ok {
		return [32]byte{}, false
	}
	b := append(append(make([]byte, 0, 65), m.run[:]...), d[:]...)
	if lists {
		b = append(b, 'L') // a report with its lists is another memo
	}
	return sha256.Sum256(b), true
}

// Key is a candidate's memo key, from Get for Put.
type Key struct {
	k     [32]byte
	ok    bool
	lists bool
}

// otherFacts is what validation reads of another candidate.
type otherFacts struct {
	ID, Status string
	Resumable  bool
	Source     workflow.SourceRef
	Stories    []string
	StoryRefs  []workflow.StoryRef
	UpdatedAt  time.Time
}

// Get returns the memo of candidate c's unaged report (validate.Unaged,
// with its file and story lists when lists is set, else without) when one
// is kept under the run's and c's key and every path of its read set has
// the stat data it had, and the report's own activity is not after now.
// On a miss, k is the key Put keeps the report made instead under.
func (m *Memo) Get(c *workflow.Candidate, now time.Time, lists bool) (_ validate.Report, k Key, _ bool) {
	if m == nil || m.seed {
		return validate.Report{}, k, false
	}
	k.lists = lists
	if k.k, k.ok = m.key(c, lists); !k.ok {
		return validate.Report{}, k, false
	}
	raw, _, ok := m.tab.Get(k.k)
	if !ok {
		return validate.Report{}, k, false
	}
	e, ok := decode(raw)
	if !ok || e.lists != lists || !e.sameNow(now) || e.gen != m.load().gen {
		m.tab.Unhit()
		return validate.Report{}, k, false
	}
	sc := scratchPool.Get().(*scratch)
	sc.idx = e.indexes(sc.idx[:0])
	sum, ok := m.readSetSum(sc.idx, sc)
	sc.release()
	if !ok || sum != e.sum {
		m.tab.Refuse()
		return validate.Report{}, k, false
	}
	m.mu.Lock()
	m.hits++
	m.mu.Unlock()
	return e.rep, k, true
}

// Put keeps u, candidate c's unaged report made at now, under k (Get's),
// when it may be kept (see the package comment), with its lists when k
// is a key for them.
func (m *Memo) Put(k Key, c *workflow.Candidate, u validate.Report, now time.Time) {
	if m == nil || !k.ok || !m.store || !keepable(u, now) {
		return
	}
	paths, dirs, ok := m.readSet(c, u)
	if !ok {
		return
	}
	pt := m.load()
	if pt.gen == ([genSize]byte{}) {
		return
	}
	sc := scratchPool.Get().(*scratch)
	defer sc.release()
	if sc.idx, ok = pt.indexes(sc.idx[:0], paths); !ok {
		return
	}
	sum, ok := m.readSetSum(sc.idx, sc)
	if !ok {
		return
	}
	for _, s := range sc.slots {
		if s.st.racy(m.start) || s.st.mode&unix.S_IFMT == unix.S_IFLNK {
			return
		}
	}
	var e entry
	e.rep, e.lists = u, k.lists
	if u.Activity.After(now) {
		e.clamped = now // the report holds now: it is true at now only
	}
	if !k.lists {
		e.rep.Files, e.rep.Stories = []validate.FileReport{}, []validate.StoryReport{}
	}
	e.sum, e.gen = sum, pt.gen
	e.idx, e.dirs = sc.idx, dirs
	v, ok := encode(e)
	if !ok {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.added >= maxNew || m.addedBytes+len(v)+32 > maxBytes {
		return
	}
	if m.tab.Add(k.k, v) {
		m.added++
		m.addedBytes += len(v) + 32
		pt.mu.Lock()
		pt.used = true
		pt.mu.Unlock()
	}
}

// keepable reports whether an unaged report may be kept: git judged it
// (or nothing needed comparing), it read git without error, its history
// was whole, it was made with a clock, and its findings were not capped
// (Aged then sorts them with the age's as Validate does).
func keepable(u validate.Report, now time.Time) bool {
	if u.GitMode != validate.GitModeGit && u.GitMode != validate.GitModeNone {
		return false
	}
	if u.TimeCut != "" || now.IsZero() {
		return false
	}
	for _, f := range u.Findings {
		switch f.Code {
		case workflow.CodeMoreFindings, "git-error", "history-missing", "no-git", "git-fallback":
			return false
		}
	}
	return true
}

// readSet is every working-tree path validation may read for candidate
// c, and the folders above them whose stat can tell a change (the root,
// and each folder above another folder of the set): the folders first
// (dirs of them, sorted), then the paths in the candidate's order: its referenced files
// (all of them, as the integrity check cleans them), its state files, and
// its stories' files (recorded, and those of every parsed story whose id
// matches loosely: a superset of the one validation picks). False when
// one cannot be named exactly (absolute, leaving the repository, holding
// a control character) or the report found a path unsafe.
func (m *Memo) readSet(c *workflow.Candidate, u validate.Report) (paths []string, dirs int, ok bool) {
	for _, f := range u.Findings {
		if f.Code == "unsafe-path" {
			return nil, 0, false
		}
	}
	files := make([]string, 0, len(c.Files)+8)
	folders := map[string]bool{".": true}
	ok = true
	add := func(p string) {
		if p == "" || !ok {
			return
		}
		if filepath.IsAbs(p) {
			rel, err := filepath.Rel(m.root, p)
			if err != nil {
				ok = false
				return
			}
			p = rel
		}
		for i := 0; i < len(p); i++ {
			if b := p[i]; b < 0x20 || b == 0x7f {
				ok = false
				return
			}
		}
		cl := path.Clean(filepath.ToSlash(p))
		if path.IsAbs(cl) || cl == ".." || strings.HasPrefix(cl, "../") {
			ok = false
			return
		}
		files = append(files, cl)
		for d := path.Dir(cl); d != "." && !folders[d]; d = path.Dir(d) {
			folders[d] = true
		}
	}
	for i := range c.Files {
		add(c.Files[i].Path)
	}
	add(c.Source.Path)
	for _, e := range c.Evidence {
		add(e.Path)
	}
	add(c.BackupPath)
	m.storyPathsO.Do(func() {
		m.storyPaths = make(map[string][]string, len(m.stories))
		for id, st := range m.stories {
			if st != nil {
				k := storyid.Loose(id)
				m.storyPaths[k] = append(m.storyPaths[k], st.Path)
			}
		}
	})
	storyPaths := m.storyPaths
	story := func(id string) {
		for _, p := range storyPaths[storyid.Loose(strings.TrimSpace(id))] {
			add(p)
		}
	}
	for _, r := range c.StoryRefs {
		add(r.Path)
		story(r.ID)
	}
	for _, id := range c.Stories {
		story(id)
	}
	if !ok {
		return nil, 0, false
	}
	// the folders: the root and each folder holding another folder of the
	// set (a folder holding only files of the set is not lstat'ed: see
	// the package comment); then the files in the candidate's order (a
	// memo keeps its order: no sort)
	parents := make(map[string]bool, len(folders))
	parents["."] = true
	for d := range folders {
		if d != "." {
			parents[path.Dir(d)] = true
		}
	}
	paths = slices.Sorted(maps.Keys(parents))
	dirs = len(paths)
	return append(paths, files...), dirs, true
}

// Save writes the memos this run added, when every git object the run
// read was verified; else it drops them.
func (m *Memo) Save() error {
	if m == nil {
		return nil
	}
	if m.verified == nil || !m.verified() {
		m.tab.Drop()
		return nil
	}
	if m.seed {
		m.tab.Add(marker, []byte{})
	}
	// the memos kept name paths by their index in the path table: it is
	// written with them, or none of them is
	if v, used, fits := m.pt.value(); used && (!fits || !m.tab.Put(pathsKey, v)) {
		m.tab.Drop()
		return nil
	}
	return m.tab.Save()
}

// Hits is how many memos this run used.
func (m *Memo) Hits() int {
	if m == nil {
		return 0
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.hits
}

// Pending is how many memos this run added for Save.
func (m *Memo) Pending() int {
	if m == nil {
		return 0
	}
	return m.tab.Pending()
}

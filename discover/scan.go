package discover

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/orchestrate-dev/orchestrate/discover/bmad6"
	"github.com/orchestrate-dev/orchestrate/discover/epic"
	"github.com/orchestrate-dev/orchestrate/discover/gsd"
	"github.com/orchestrate-dev/orchestrate/discover/kiro"
	"github.com/orchestrate-dev/orchestrate/discover/openspec"
	"github.com/orchestrate-dev/orchestrate/discover/progress"
	"github.com/orchestrate-dev/orchestrate/discover/qaloop"
	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/discover/spec"
	"github.com/orchestrate-dev/orchestrate/discover/speckit"
	"github.com/orchestrate-dev/orchestrate/discover/story"
	"github.com/orchestrate-dev/orchestrate/discover/taskmaster"
	"github.com/orchestrate-dev/orchestrate/discover/wfstate"
	"github.com/orchestrate-dev/orchestrate/discover/worksession"
	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// MaxFileCandidates is the most workflows one file contributes to a scan
// (a tasks file's tasks in flight, a loops index's entries, a ledger's
// stories): a hostile file of twenty thousand tasks in progress would
// otherwise make as many candidates to date, validate and print. Past it,
// the file's first ones in the source's order are kept, with a warning
// saying how many there were.
const MaxFileCandidates = 1_000

// capFileCandidates keeps at most MaxFileCandidates of cs per source file,
// adding to fs a warning for each file cut.
func capFileCandidates(cs []workflow.Candidate, fs []workflow.Finding) ([]workflow.Candidate, []workflow.Finding) {
	if len(cs) <= MaxFileCandidates || distinctSorted(cs) {
		return cs, fs
	}
	perFile := map[string]int{}
	over := false
	for _, c := range cs {
		perFile[c.Source.Path]++
		over = over || perFile[c.Source.Path] > MaxFileCandidates
	}
	if !over {
		return cs, fs
	}
	seen := map[string]int{}
	out := cs[:0:0]
	for _, c := range cs {
		p := c.Source.Path
		seen[p]++
		if seen[p] <= MaxFileCandidates {
			out = append(out, c)
			continue
		}
		if seen[p] == MaxFileCandidates+1 {
			fs = append(fs, workflow.Finding{
				Check: workflow.CheckDiscover, Severity: workflow.Warning, Code: "too-many-workflows", Path: p,
				Message: fmt.Sprintf("%s holds %s workflows, more than the %s orchestrate lists from one file; only the first %s are listed",
					p, workflow.Thousands(perFile[p]), workflow.Thousands(MaxFileCandidates), workflow.Thousands(MaxFileCandidates)),
			})
		}
	}
	return out, fs
}

// distinctSorted reports whether the candidates' source paths are in
// strictly increasing order, so each file gives one candidate: the story
// source's 20,000 candidates, one per story file in path order, are then
// not counted in a map of 20,000 paths.
func distinctSorted(cs []workflow.Candidate) bool {
	for i := 1; i < len(cs); i++ {
		if cs[i-1].Source.Path >= cs[i].Source.Path {
			return false
		}
	}
	return true
}

// Stamp is when a file last changed according to git.
type Stamp = source.Stamp

// Options tune a Scan.
type Options struct {
	// Times, when set, returns the last-commit time of files that are
	// unchanged since HEAD; story candidates use it instead of the file
	// modification time (which a fresh clone resets).
	Times func(paths []string) map[string]Stamp
	// Sources replaces the default source list (tests).
	Sources []source.Source
	// Cache, when not nil, is the on-disk cache formats may keep parse
	// results in (source.Repo.Cache).
	Cache *diskcache.Cache
	// MaxElements is the scan's element budget over all the files of all
	// the sources (tolerant.MaxScanReadElements when 0; tests set less).
	MaxElements int
}

// Result is everything Scan found.
type Result struct {
	// Candidates are ordered (newest first, then priority, then id) and
	// include those that are not resumable; callers filter.
	Candidates []workflow.Candidate
	// Stories are the parsed story files by id.
	Stories map[string]*workflow.Story
	// Definitions in force (framework files over built-ins).
	Definitions map[string]workflow.Definition
	// Findings that belong to no candidate (bad workflow definitions, …).
	Findings []workflow.Finding
}

// DefaultSources returns every source in priority order. The story source
// comes first in the list because the state-file sources look stories up.
func DefaultSources() []source.Source {
	return []source.Source{
		story.StorySource,
		epic.EpicSource,
		qaloop.QALoopSource,
		wfstate.WorkflowStateSource,
		progress.ProgressSource,
		worksession.WorkSessionSource,
		spec.SpecSource,
		gsd.GSDSource,
		speckit.SpecKitSource,
		taskmaster.TaskmasterSource,
		bmad6.LedgerSource,
		openspec.OpenSpecSource,
		kiro.KiroSource,
	}
}

// Scan runs every source over r, merges candidates that describe the same
// work, and orders them deterministically.
func Scan(r *source.Repo, opts Options) Result {
	sources := opts.Sources
	if sources == nil {
		sources = DefaultSources()
	}
	parts := make([][]workflow.Candidate, 0, len(sources))
	var findings []workflow.Finding
	var prefetch chan map[string]Stamp
	var deferred chan deferredPart    // the story source's candidates, being built
	deferredAt := 0                   // their place in parts
	opts.Times = dateOnce(opts.Times) // the formats and the prefetch share it: each path asked once
	r.Times = opts.Times
	r.Cache = opts.Cache
	r.PrefetchGlobs() // the state-file folders are listed while the stories are read
	defer r.EndPrefetch()
	// one budget of elements read for every source: past it, the files
	// are refused (too-many), each by its source, and one warning says where
	// it ran out (see docs/SECURITY.md, "Counts")
	r.BeginBudget(opts.MaxElements)
	r.BeginLater() // each source's cache save runs beside what follows it
	defer r.EndLater()
	for _, s := range sources {
		w := 1
		if ws, ok := s.(interface{ Weight() int }); ok {
			w = ws.Weight()
		}
		r.SetWeight(w)
		if d, ok := s.(deferredSource); ok && deferred == nil {
			// the story source: its files are read now, its candidates
			// (20,000 of them on the bench's stories shape) built beside
			// the other sources' scans, into its place in parts
			paths, build := d.ScanDeferred(r)
			deferred, deferredAt = make(chan deferredPart, 1), len(parts)
			go func() {
				cs, fs := build()
				deferred <- deferredPart{cs, fs}
			}()
			parts = append(parts, nil)
			if opts.Times != nil {
				prefetch = make(chan map[string]Stamp, 1)
				go func() { prefetch <- opts.Times(paths) }()
			}
			continue
		}
		cs, fs := s.Scan(r)
		cs, fs = finishPart(cs, fs)
		parts = append(parts, cs)
		findings = append(findings, fs...)
		if s.Kind() == workflow.KindStory && opts.Times != nil && prefetch == nil {
			// date the resumable stories from git while the other sources
			// scan: the history walk and the state-file parsing overlap
			paths := mtimePaths(cs, true)
			prefetch = make(chan map[string]Stamp, 1)
			go func() { prefetch <- opts.Times(paths) }()
		}
	}
	if deferred != nil {
		p := <-deferred
		cs, fs := finishPart(p.cs, p.fs)
		parts[deferredAt] = cs
		findings = append(findings, fs...)
	}
	if f, spent := r.EndBudget(); spent {
		findings = append(findings, f)
	}
	all := concatCandidates(parts)
	// date the state files first (Merge compares their times), then only the
	// story candidates Merge left standing
	// the prefetch ends before the state files are dated (its answers are
	// then dateOnce's: the stories' refinement asks only what it lacks)
	if prefetch != nil {
		<-prefetch
	}
	if opts.Times != nil {
		refineTimes(all, opts.Times, false)
	}
	all = Merge(all)
	if opts.Times != nil {
		refineTimes(all, opts.Times, true)
	}
	Order(all)
	defs := map[string]workflow.Definition{}
	for id, d := range source.BuiltinDefinitions() {
		defs[id] = d
	}
	for id, d := range r.Definitions {
		defs[id] = d
	}
	for i := range all {
		all[i].Findings = workflow.CapFindings(all[i].Findings) // Merge joins lists
	}
	findings = workflow.CapFindings(findings)
	workflow.SortFindings(findings)
	return Result{Candidates: all, Stories: r.Stories, Definitions: defs, Findings: findings}
}

// deferredSource is a source whose candidates Scan builds beside the
// other sources' scans (the story source, story.StorySource): ScanDeferred
// reads its files and fills what the other sources look up (Repo.Stories),
// and returns the paths of its candidates to date from git (the resumable
// stories, in order) and build, which makes its candidates and findings
// without reading r.
type deferredSource interface {
	ScanDeferred(r *source.Repo) (dated []string, build func() ([]workflow.Candidate, []workflow.Finding))
}

// deferredPart is what a deferredSource's build gave.
type deferredPart struct {
	cs []workflow.Candidate
	fs []workflow.Finding
}

// finishPart bounds one source's candidates and findings
// (capFileCandidates, workflow.CapFindings).
func finishPart(cs []workflow.Candidate, fs []workflow.Finding) ([]workflow.Candidate, []workflow.Finding) {
	cs, fs = capFileCandidates(cs, fs)
	for i := range cs {
		cs[i].Findings = workflow.CapFindings(cs[i].Findings)
	}
	return cs, workflow.CapFindings(fs)
}

// concatCandidates joins the sources' lists in order. The first list (the
// story source's, often all but a few of them) takes the others in its
// spare capacity when they fit, without a copy; otherwise the result is
// allocated once, at its exact size, rather than grown by append.
func concatCandidates(parts [][]workflow.Candidate) []workflow.Candidate {
	total := 0
	for _, p := range parts {
		total += len(p)
	}
	if total == 0 {
		for _, p := range parts {
			if p != nil {
				return p // empty, not nil, as the sources gave it
			}
		}
		return nil
	}
	var all []workflow.Candidate
	rest := parts
	if len(parts) > 0 && cap(parts[0]) >= total {
		all, rest = parts[0], parts[1:]
	} else {
		all = make([]workflow.Candidate, 0, total)
	}
	for _, p := range rest {
		all = append(all, p...)
	}
	return all
}

// dateOnce wraps a Times function for one scan: calls from several
// goroutines take turns (the git reader behind it is not safe for
// concurrent use: the story prefetch runs beside the formats' scans), and
// each path is asked of times at most once. A path asked again (a story
// the prefetch found with an uncommitted edit, asked again by the stories'
// refinement after Merge) takes the first answer, or its absence, without
// a second stat, hash or history walk: one scan takes one view of each
// file's time, as it takes one view of its content. Nil stays nil.
func dateOnce(times func(paths []string) map[string]Stamp) func(paths []string) map[string]Stamp {
	if times == nil {
		return nil
	}
	var mu sync.Mutex
	asked := map[string]Stamp{} // every path asked; the zero Stamp: no answer
	return func(paths []string) map[string]Stamp {
		mu.Lock()
		defer mu.Unlock()
		var missing []string
		for _, p := range paths {
			if _, ok := asked[p]; !ok {
				asked[p] = Stamp{}
				missing = append(missing, p)
			}
		}
		if len(missing) > 0 {
			for p, st := range times(missing) {
				if _, ok := asked[p]; ok { // only what was asked
					asked[p] = st
				}
			}
		}
		out := make(map[string]Stamp, len(paths))
		for _, p := range paths {
			if st := asked[p]; !st.When.IsZero() || st.From != "" {
				out[p] = st
			}
		}
		return out
	}
}

// refineTimes replaces the file modification time of candidates (stories,
// state files without a time field, spec pipeline folders) with the time of
// the last commit that changed their file or folder, when it is as committed:
// a fresh clone or a new worktree resets every mtime, the history does not.
// A candidate left on "mtime" has an uncommitted edit (or no git).
func refineTimes(cs []workflow.Candidate, times func([]string) map[string]Stamp, stories bool) {
	paths := mtimePaths(cs, stories)
	if len(paths) == 0 {
		return
	}
	stamps := times(paths)
	for i := range cs {
		c := &cs[i]
		if c.UpdatedFrom != "mtime" || (c.Source.Kind == workflow.KindStory) != stories {
			continue
		}
		if st, ok := stamps[c.Source.Path]; ok && !st.When.IsZero() {
			c.UpdatedAt = st.When.UTC()
			c.UpdatedFrom = st.From
		}
	}
}

// mtimePaths lists the files (or folders: a spec pipeline without a state
// file) of candidates dated by mtime: the resumable story candidates (stories
// true), or every other candidate — finished ones too, so that `status --all`
// shows the same ages in a fresh clone as in the original checkout.
func mtimePaths(cs []workflow.Candidate, stories bool) []string {
	var paths []string
	for i := range cs {
		c := &cs[i]
		if (c.Resumable || !stories) && c.UpdatedFrom == "mtime" && (c.Source.Kind == workflow.KindStory) == stories {
			paths = append(paths, c.Source.Path)
		}
	}
	return paths
}

// Merge folds story candidates (a story InProgress or InReview) into the
// state-file candidate that names the story — the most specific one: the
// one naming the fewest stories, then the lowest priority number, then the
// newest — which keeps the story as evidence. Candidates with the same id
// (one workflow seen in two files) are merged into the first.
//
// Merge indexes the state-file candidates by story id once, so its cost
// follows the number of candidates and the stories they name, not their
// product. It works in cs's array: use the result, not cs, afterwards.
func Merge(cs []workflow.Candidate) []workflow.Candidate {
	// same id: keep the more specific source, the other as evidence
	byID := make(map[string]int, len(cs))
	out := cs[:0] // in place: out never passes the candidate being read
	for k := range cs {
		c := &cs[k] // read in place (a candidate is large): out has passed it
		if i, ok := byID[c.ID]; ok {
			keep := &out[i]
			if c.Source.Priority < keep.Source.Priority || (c.Source.Priority == keep.Source.Priority && moreSpecificKind(c.Source.Kind, keep.Source.Kind)) {
				c.Evidence = append(c.Evidence, keep.Source)
				c.Evidence = append(c.Evidence, keep.Evidence...)
				c.Findings = append(c.Findings, keep.Findings...)
				out[i] = *c
			} else {
				keep.Evidence = append(keep.Evidence, c.Source)
				keep.Findings = append(keep.Findings, c.Findings...)
			}
			continue
		}
		byID[c.ID] = len(out)
		if len(out) == k {
			out = out[:k+1] // already in its place
		} else {
			out = append(out, *c)
		}
	}
	clear(cs[len(out):])
	cs = foldLedgerStories(out)

	// resumable state-file candidates (the ones that absorb stories) by the
	// story ids they name, each listed once per id
	byStory := map[string][]int{}
	for j := range cs {
		if cs[j].Source.Kind == workflow.KindStory || !cs[j].Resumable {
			continue
		}
		for _, id := range cs[j].Stories {
			if l := byStory[id]; len(l) == 0 || l[len(l)-1] != j {
				byStory[id] = append(l, j)
			}
		}
	}
	// the files of the stories each absorbing candidate takes, added after
	// its own in the stories' order, each path once: the absorbing
	// candidates' own files (300 for each of 200 workflows) are only
	// looked up in a set of the few story files, never put in a set
	var absorbedBy map[int][]int // absorbing candidate -> the stories it takes, in order
	absorbed := make([]bool, len(cs))
	for i := range cs {
		s := &cs[i]
		if s.Source.Kind != workflow.KindStory || (s.Type != workflow.TypeSDC && s.Type != workflow.TypeQAReview) || len(s.Stories) == 0 {
			continue
		}
		best := -1
		for _, j := range byStory[s.Stories[0]] {
			if best < 0 || moreSpecific(&cs[j], &cs[best]) {
				best = j
			}
		}
		if best < 0 {
			continue
		}
		b := &cs[best]
		b.Evidence = append(b.Evidence, s.Source)
		b.Findings = append(b.Findings, s.Findings...)
		if absorbedBy == nil {
			absorbedBy = map[int][]int{}
		}
		absorbedBy[best] = append(absorbedBy[best], i)
		absorbed[i] = true
	}
	for best, stories := range absorbedBy {
		addStoryFiles(&cs[best], cs, stories)
	}
	// keep the others, in place
	out = cs[:0]
	for i := range cs {
		if absorbed[i] {
			continue
		}
		if len(cs[i].Evidence) > 1 {
			source.SortEvidence(cs[i].Evidence)
		}
		if len(out) == i {
			out = out[:i+1] // already in its place
		} else {
			out = append(out, cs[i])
		}
	}
	clear(cs[len(out):]) // drop the references the absorbed ones held
	return out
}

// addStoryFiles appends to b's files those of the candidates cs[i] for i
// in stories, in that order, that b does not list yet (by path; the first
// of a path wins).
func addStoryFiles(b *workflow.Candidate, cs []workflow.Candidate, stories []int) {
	has := map[string]bool{} // the stories' paths: whether b lists them
	for _, i := range stories {
		for _, f := range cs[i].Files {
			has[f.Path] = false
		}
	}
	for _, f := range b.Files {
		if _, ok := has[f.Path]; ok {
			has[f.Path] = true
		}
	}
	for _, i := range stories {
		for _, f := range cs[i].Files {
			if !has[f.Path] {
				has[f.Path] = true
				b.Files = append(b.Files, f)
			}
		}
	}
}

// moreSpecificKind reports whether a candidate of kind a describes the same
// work better than one of kind b at the same priority: a framework ledger
// (which names the story file) over the story file alone.
func moreSpecificKind(a, b string) bool {
	return a == workflow.KindBMADLedger && b == workflow.KindStory
}

// foldLedgerStories folds the story source's candidates for a story a BMAD
// v6 ledger candidate also describes (a v6 story file in docs/stories, read
// by both) into the ledger candidate, whatever status each gives it: the
// ledger is authoritative.
func foldLedgerStories(cs []workflow.Candidate) []workflow.Candidate {
	ledger := map[string]int{}
	for i := range cs {
		c := &cs[i]
		if c.Source.Kind == workflow.KindBMADLedger && len(c.Stories) == 1 {
			if _, ok := ledger[c.Stories[0]]; !ok {
				ledger[c.Stories[0]] = i
			}
		}
	}
	if len(ledger) == 0 {
		return cs
	}
	drop := make([]bool, len(cs))
	for i := range cs {
		c := &cs[i]
		if c.Source.Kind != workflow.KindStory || len(c.Stories) != 1 {
			continue
		}
		j, ok := ledger[c.Stories[0]]
		if !ok {
			continue
		}
		b := &cs[j]
		if !source.HasRef(b.Files, c.Source.Path) {
			continue // another file with the same story id: not the same story
		}
		b.Evidence = append(b.Evidence, c.Source)
		drop[i] = true
	}
	out := cs[:0:0]
	for i, c := range cs {
		if !drop[i] {
			out = append(out, c)
		}
	}
	return out
}

func moreSpecific(a, b *workflow.Candidate) bool {
	if len(a.Stories) != len(b.Stories) {
		return len(a.Stories) < len(b.Stories)
	}
	if a.Source.Priority != b.Source.Priority {
		return a.Source.Priority < b.Source.Priority
	}
	if !a.UpdatedAt.Equal(b.UpdatedAt) {
		return a.UpdatedAt.After(b.UpdatedAt)
	}
	return a.ID < b.ID
}

// Order sorts candidates by last update (newest first), then source
// priority, then id: the same input always gives the same order.
//
// It sorts indexes, not the candidates: a stable sort moves its elements
// O(n log n) times, and a candidate is hundreds of bytes; each one is then
// moved once, to its place.
func Order(cs []workflow.Candidate) {
	// the sort keys side by side (a candidate is large): the instant as
	// seconds and nanoseconds (what Time.Equal and After compare), and the
	// index, which breaks full ties so that the order is the stable one
	type orderKey struct {
		sec        int64
		nsec, prio int
		id         string
		i          int
	}
	keys := make([]orderKey, len(cs))
	for i := range cs {
		t := cs[i].UpdatedAt
		keys[i] = orderKey{t.Unix(), t.Nanosecond(), cs[i].Source.Priority, cs[i].ID, i}
	}
	slices.SortFunc(keys, func(a, b orderKey) int {
		if a.sec != b.sec {
			return cmp.Compare(b.sec, a.sec) // newest first
		}
		if a.nsec != b.nsec {
			return cmp.Compare(b.nsec, a.nsec)
		}
		if a.prio != b.prio {
			return cmp.Compare(a.prio, b.prio)
		}
		if c := strings.Compare(a.id, b.id); c != 0 {
			return c
		}
		return cmp.Compare(a.i, b.i)
	})
	perm := make([]int, len(cs))
	for k := range keys {
		perm[k] = keys[k].i
	}
	permute(cs, perm)
}

// permute puts cs[perm[k]] at k for every k, following the permutation's
// cycles in place (perm is used up: -1 marks a place filled).
func permute[T any](cs []T, perm []int) {
	for start := range perm {
		if perm[start] < 0 {
			continue
		}
		tmp := cs[start]
		k := start
		for {
			from := perm[k]
			perm[k] = -1
			if from == start {
				cs[k] = tmp
				break
			}
			cs[k] = cs[from]
			k = from
		}
	}
}

// Lookup finds the candidate a user named: a full id, its key alone, a story
// id, or a unique prefix of an id or key. Several matches are returned when
// the name is ambiguous; none when nothing matches.
func Lookup(cs []workflow.Candidate, name string) []workflow.Candidate {
	var exact, byKey, byStory, prefix []workflow.Candidate
	for _, c := range cs {
		switch {
		case c.ID == name:
			exact = append(exact, c)
		case c.Key == name:
			byKey = append(byKey, c)
		case c.HasStory(name):
			byStory = append(byStory, c)
		case hasPrefix(c.ID, name) || hasPrefix(c.Key, name):
			prefix = append(prefix, c)
		}
	}
	for _, set := range [][]workflow.Candidate{exact, byKey, byStory, prefix} {
		if len(set) > 0 {
			return set
		}
	}
	return nil
}

func hasPrefix(s, p string) bool { return len(p) > 0 && len(s) >= len(p) && s[:len(p)] == p }

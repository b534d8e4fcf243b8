package story

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/internal/pathglob"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// StorySource finds stories (priorities 4 and 5): every story
// becomes a candidate — an "sdc" one when InProgress, a "qa-review" one when
// InReview, and a not resumable "story" one otherwise (listed by
// status --all). It also fills Repo.Stories for the state-file sources.
// discover's Scan takes its candidates in two steps (ScanDeferred).
var StorySource source.Source = storySource{source.Format{FormatKind: workflow.KindStory, FormatPriority: workflow.PriorityInProgress, ScanFunc: scanStories}}

// storySource is the story Format with ScanDeferred.
type storySource struct{ source.Format }

// Unwrap is the source without ScanDeferred: its candidates made at once
// (a test compares the two).
func (s storySource) Unwrap() source.Format { return s.Format }

// ScanDeferred reads the stories and fills Repo.Stories as Scan does, and
// returns the paths of the resumable stories (in the candidates' order) and
// build, which makes the candidates Scan would have returned. build reads
// nothing of r: it may run beside the other sources' scans (which only
// read the stories).
func (storySource) ScanDeferred(r *source.Repo) (resumable []string, build func() ([]workflow.Candidate, []workflow.Finding)) {
	read := readStories(r)
	return read.resumable(), read.build
}

// scanStories parses every story file matched by the configured globs (default
// docs/stories/**/*.md), in path order. Files in a "spec" folder below a
// story folder are spec pipeline artifacts, and files with neither a story
// id nor a status (README.md, index.md) are not stories: both are skipped
// without a finding. The first story with an id wins Repo.Stories[id]; a
// later one gets a "duplicate-story-id" warning and "@<path>" appended to
// its candidate id.
func scanStories(r *source.Repo) ([]workflow.Candidate, []workflow.Finding) {
	return readStories(r).build()
}

// storiesRead is what a scan read of the stories: the paths, each one's
// story (nil: not a story), and, for a story whose id an earlier one took,
// the earlier one's path (dupOf); and the builder of their candidates.
type storiesRead struct {
	paths  []string
	parsed []*workflow.Story
	dupOf  map[int]string
	b      storyBuilder
	// filled gives the candidates, filled in on another goroutine while
	// readStories fills Repo.Stories (fillAhead); build settles their
	// duplicates
	filled chan []workflow.Candidate
}

// readStories reads the stories (see scanStories) and fills r.Stories: the
// first story with an id is Repo.Stories[id] (when readable).
func readStories(r *source.Repo) *storiesRead {
	patterns := r.Config.Sources.Stories
	if len(patterns) == 0 {
		patterns = config.Default().Sources.Stories
	}
	// the story cache's table (9 MB for 20,000 stories: read, checksum,
	// key order) is opened on another goroutine while this one globs: the
	// glob walks the stories' own folder on one goroutine
	sc := make(chan *storyCache, 1)
	go func() { sc <- openStoryCache(r) }()
	var paths []string
	var parsed []*workflow.Story
	var readable []bool
	if base, name, ok := storyWalkPattern(patterns); ok {
		// the usual one pattern: folders listed and stories read in one
		// pass (walk.go)
		paths, parsed, readable = storyWalk(r, base, name, sc)
	} else {
		paths = storyGlob(r.Root, patterns)
		parsed, readable = storyReadAll(r, paths, <-sc)
	}
	n := 0
	for _, st := range parsed {
		if st != nil {
			n++
		}
	}
	// the path of each id's first story: Repo.Stories holds it when it was
	// empty before (the usual case: no second map of 20,000 ids), firstPath
	// the ones it does not (an unreadable first story; any id when
	// Repo.Stories came filled)
	fresh := len(r.Stories) == 0
	if fresh {
		r.Stories = make(map[string]*workflow.Story, n)
	}
	firstPath := map[string]string{}
	firstOf := func(id string) (string, bool) {
		if st, ok := r.Stories[id]; ok && fresh {
			return st.Path, true
		}
		p, ok := firstPath[id]
		return p, ok
	}
	read := &storiesRead{paths: paths, parsed: parsed, b: newStoryBuilder(r)}
	read.fillAhead()
	for i, p := range paths {
		st := parsed[i]
		if st == nil {
			continue // neither an id nor a status: not a story
		}
		if first, dup := firstOf(st.ID); dup {
			if read.dupOf == nil {
				read.dupOf = map[int]string{}
			}
			read.dupOf[i] = first
			continue
		}
		if readable[i] {
			r.Stories[st.ID] = st
		}
		if !fresh || !readable[i] {
			firstPath[st.ID] = p
		}
	}
	return read
}

// resumable lists the paths of the resumable stories (InProgress,
// InReview), in path order: the candidates discovery dates from git.
func (s *storiesRead) resumable() []string {
	var out []string
	for i, st := range s.parsed {
		if st != nil && (st.Status == workflow.StatusInProgress || st.Status == workflow.StatusInReview) {
			out = append(out, s.paths[i])
		}
	}
	return out
}

// fillAhead fills the stories' candidates (fill) on another goroutine,
// for build: they depend on the stories alone, not on which of them an
// earlier one's id took (dupOf, which build reads after), so they are
// made while readStories fills Repo.Stories, on the processor the walk's
// end left idle. Both only read the stories.
func (s *storiesRead) fillAhead() {
	s.filled = make(chan []workflow.Candidate, 1)
	go func() { s.filled <- s.fill() }()
}

// build makes the stories' candidates, in path order.
func (s *storiesRead) build() ([]workflow.Candidate, []workflow.Finding) {
	var cands []workflow.Candidate
	if s.filled != nil {
		cands = <-s.filled
		s.filled = nil
	} else {
		cands = s.fill()
	}
	paths, parsed := s.paths, s.parsed
	// compacted in place: cands[k] is written after cands[i] is read, k <=
	// i, and a candidate is only copied once a hole (a file that is not a
	// story) was passed: the usual 20,000 stories move nothing
	k := 0
	for i, p := range paths {
		st := parsed[i]
		if st == nil {
			continue // neither an id nor a status: not a story
		}
		c := &cands[i]
		if first, dup := s.dupOf[i]; dup {
			c.ID += "@" + p
			c.Findings = append(c.Findings, workflow.Finding{
				Check:    workflow.CheckDiscover,
				Severity: workflow.Warning,
				Code:     "duplicate-story-id",
				Message:  fmt.Sprintf("story id %s is used by both %s and %s; the first one is story %s, this one is listed as %s", st.ID, first, p, st.ID, c.ID),
				Path:     p,
			})
		}
		if k != i {
			cands[k] = *c
		}
		k++
	}
	clear(cands[k:]) // the moved candidates' old copies
	return cands[:k], nil
}

// fill makes the candidate of each story, at its index in the paths (the
// zero candidate for a file that is not a story): build's candidates
// before their duplicates are settled.
func (s *storiesRead) fill() []workflow.Candidate {
	paths, parsed, b := s.paths, s.parsed, s.b
	// the candidates are built into cands[i] on one goroutine: two workers
	// writing neighbouring candidates were 2-3 times slower than one (20,000
	// candidates: 40 ms against 13 on 2 cores)
	// (allocated only now: live during the reads, 20,000 candidates would
	// raise the garbage collector's target and the peak memory); the loop
	// below only settles duplicates and compacts. Room for the other
	// sources' few candidates too: Scan appends them here rather than
	// copying 20,000 story candidates (see discover.concatCandidates): a
	// copy holds both lists (11 MB each for 20,000 candidates) at once
	cands := make([]workflow.Candidate, len(paths), len(paths)+storyCandidateSlack(len(paths)))
	// every candidate's one story, in two arrays shared by all of them
	// rather than two one-element slices each (see storyBuilder.candidate);
	// only the stories in flight have StoryRefs (see storyBuilder.fill)
	ids := make([]string, len(paths))
	nfiles, idLen, nrefs := 0, 0, 0 // the candidates' files, their ids' bytes, their refs
	for _, st := range parsed {
		if st != nil {
			nfiles += storyFilesLen(st)
			idLen += len(storyCandidateType(st)) + 1 + len(st.ID)
			if storyInFlight(st) {
				nrefs++
			}
		}
	}
	refs := make([]workflow.StoryRef, nrefs)
	files := make([]workflow.RefFile, nfiles)
	// the candidates' ids ("story:1.1", …) in one string rather than one
	// allocation each
	var idb strings.Builder
	idb.Grow(idLen)
	for _, st := range parsed {
		if st != nil {
			idb.WriteString(string(storyCandidateType(st)))
			idb.WriteByte(':')
			idb.WriteString(st.ID)
		}
	}
	allIDs := idb.String()
	for i := range paths {
		st := parsed[i]
		if st == nil {
			continue
		}
		ids[i] = st.ID
		// cap 1 (and each candidate's own files): appending to one
		// candidate's stories or files never writes into the next one's
		var ref []workflow.StoryRef
		if storyInFlight(st) {
			refs[0] = workflow.StoryRef{ID: st.ID, Path: st.Path}
			ref, refs = refs[:1:1], refs[1:]
		}
		nf := storyFilesLen(st)
		il := len(storyCandidateType(st)) + 1 + len(st.ID)
		b.fill(&cands[i], st, ids[i:i+1:i+1], ref, files[:nf:nf], allIDs[:il])
		files, allIDs = files[nf:], allIDs[il:]
	}
	return cands
}

// storyCandidateSlack is the spare capacity of the story source's list of
// n candidates (see scanStories): a sixteenth of them, at least 256. A
// repository with 20,000 stories and 1,000 OpenSpec and Kiro specs (the
// bench's specs shape) then joins its lists without a copy, for 0.7 MB of
// spare room (an eighth was 1.5 MB, all of it live heap that raised the
// garbage collector's limit). More other candidates than that cost one
// copy of the list when Scan joins them (see discover.concatCandidates).
func storyCandidateSlack(n int) int { return max(256, n/16) }

// storyUnreadable is the story of a file that could not be read: its id
// from the file name, status Unknown, the read finding.
func storyUnreadable(p string, err error) *workflow.Story {
	id := StoryIDFromFileName(p)
	if id == "" {
		id = StoryIDFromBase(p)
	}
	return &workflow.Story{
		ID:       id,
		Path:     p,
		Status:   workflow.StatusUnknown,
		Findings: []workflow.Finding{source.ReadFinding(p, err)},
	}
}

// storyGlob expands the story globs, skipping files in a "spec" folder
// below the globs' fixed prefix, and returns the paths sorted.
func storyGlob(root string, patterns []string) []string {
	// one pattern's matches are unique and sorted already (pathglob.Expand):
	// no set, no sort
	var seen map[string]bool
	if len(patterns) > 1 {
		seen = map[string]bool{}
	}
	var out []string // the paths, in glob order until sorted
	for _, pat := range patterns {
		clean := strings.Trim(path.Clean("/"+strings.ReplaceAll(pat, "\\", "/")), "/")
		prefix := 0 // segments without wildcards at the start of the pattern
		for _, seg := range strings.Split(clean, "/") {
			if strings.ContainsAny(seg, `*?[\`) {
				break
			}
			prefix++
		}
		entries := pathglob.Expand(root, pat, false)
		if out == nil {
			out = make([]string, 0, len(entries))
		}
		for _, e := range entries {
			if seen[e.Path] {
				continue
			}
			if storyInSpecFolder(e.Path, prefix) {
				continue
			}
			if seen != nil {
				seen[e.Path] = true
			}
			out = append(out, e.Path)
		}
	}
	if seen != nil {
		sort.Strings(out)
	}
	return out
}

// storyInSpecFolder reports whether one of the folders of the slash path p
// after its first prefix segments is named "spec" (the file name itself
// never counts), without splitting p.
func storyInSpecFolder(p string, prefix int) bool {
	seg := 0
	for rest := p; ; seg++ {
		i := strings.IndexByte(rest, '/')
		if i < 0 {
			return false // the file name
		}
		if seg >= prefix && rest[:i] == "spec" {
			return true
		}
		rest = rest[i+1:]
	}
}

// PhaseIndex returns the index of the first of ids in def, or -1.
func PhaseIndex(def workflow.Definition, ids []string) int {
	for _, id := range ids {
		if i := def.Index(id); i >= 0 {
			return i
		}
	}
	return -1
}

// storyBuilder builds the story candidates of one scan: what every one of
// them needs of the story development cycle definition, found once. It is
// read-only once made: the scan's workers share it.
type storyBuilder struct {
	def       workflow.Definition
	implement string // the id of the implementation phase
}

// newStoryBuilder is the builder of r's story candidates.
func newStoryBuilder(r *source.Repo) storyBuilder {
	b := storyBuilder{def: r.Definition(workflow.DefSDC), implement: "implement"}
	if i := PhaseIndex(b.def, ImplementPhases); i >= 0 {
		b.implement = b.def.Phases[i].ID
	}
	return b
}

// candidate is the candidate a story yields (see StorySource); ids and
// refs are its Stories and StoryRefs: the story's id, and its id and path.
func (b storyBuilder) candidate(st *workflow.Story, ids []string, refs []workflow.StoryRef) workflow.Candidate {
	var c workflow.Candidate
	b.fill(&c, st, ids, refs, nil, "")
	return c
}

// storyCandidateType is the type of st's candidate (see candidate).
func storyCandidateType(st *workflow.Story) workflow.Type {
	switch st.Status {
	case workflow.StatusInProgress:
		return workflow.TypeSDC
	case workflow.StatusInReview:
		return workflow.TypeQAReview
	}
	return workflow.TypeStory
}

// storyFilesLen is how many files the candidate of st lists at most: the
// story itself (a story in flight only, see storyBuilder.fill) and its
// File List.
func storyFilesLen(st *workflow.Story) int {
	if storyInFlight(st) {
		return 1 + len(st.FileList)
	}
	return len(st.FileList)
}

// fill makes the zero candidate *c the candidate of st (see candidate),
// in place: no 552-byte candidate copied. files, when not nil, is where
// its Files go (capacity storyFilesLen(st), from an array shared by the
// scan's candidates: one allocation, not one per story); id, when not
// "", is its id, storyCandidateType(st)+":"+st.ID (from a string shared by
// the scan's candidates).
//
// A story not in flight (the candidate is not resumable: most of 20,000
// stories are Done) gets no StoryRefs and its Files list only its File
// List, not the story itself: no later stage reads them of a candidate
// that is not resumable (validate checks, dates and conflicts only the
// resumable ones; plan, resume and the hand-off refuse it; status and
// --json show neither), and the one stage that does read every
// candidate's files, cleanup's "which workflow reads this file", lists the
// candidate's source path (the story) beside them. Its File List stays: a
// cleanup refusal and a rebuild's hints read it. 20,000 stories: 2.8 MB.
func (b storyBuilder) fill(c *workflow.Candidate, st *workflow.Story, ids []string, refs []workflow.StoryRef, files []workflow.RefFile, id string) {
	if id == "" {
		id = string(storyCandidateType(st)) + ":" + st.ID
	}
	c.Key = st.ID
	c.Workflow = workflow.DefSDC
	c.Stories = ids
	if storyInFlight(st) {
		c.StoryRefs = refs
	}
	c.Status, c.StatusRaw = string(st.Status), st.StatusRaw
	c.UpdatedAt, c.UpdatedFrom = st.ModTime, "mtime"
	c.Findings = append([]workflow.Finding(nil), st.Findings...)
	def := b.def
	current := -1
	// resume makes c a resumable workflow of type typ, at the first phase of
	// def among phases (shown as label), run by agent.
	resume := func(typ workflow.Type, prio int, phases []string, label, agent string) {
		c.Type, c.ID, c.Resumable = typ, id, true
		c.Source = workflow.SourceRef{Kind: workflow.KindStory, Path: st.Path, Priority: prio}
		current = PhaseIndex(def, phases)
		c.Agent = agent
		c.Position = storyPosition(def, current, label)
	}
	switch st.Status {
	case workflow.StatusInProgress:
		resume(workflow.TypeSDC, workflow.PriorityInProgress, ImplementPhases, "Implementation", st.Executor)
	case workflow.StatusInReview:
		resume(workflow.TypeQAReview, workflow.PriorityInReview, ReviewPhases, "Review", st.QualityGate)
	default:
		c.Type, c.ID = workflow.TypeStory, id
		c.Source = workflow.SourceRef{Kind: workflow.KindStory, Path: st.Path, Priority: workflow.PriorityOtherStory}
	}
	phase := ""
	if c.Resumable {
		if len(def.Phases) > 0 {
			c.Phases = make([]workflow.Phase, 0, len(def.Phases))
		}
		for i, p := range def.Phases {
			status := workflow.PhasePending
			switch {
			case current >= 0 && i < current:
				status = workflow.PhaseCompleted
			case i == current:
				status = workflow.PhaseCurrent
			}
			c.Phases = append(c.Phases, workflow.Phase{ID: p.ID, Name: p.Name, Agent: p.Agent, Status: status})
		}
		if current >= 0 {
			phase = def.Phases[current].ID
			if c.Agent == "" {
				c.Agent = def.Phases[current].Agent
			}
		}
	}
	implement := b.implement
	if files == nil {
		files = make([]workflow.RefFile, storyFilesLen(st))
	}
	if storyFilesLen(st) == 0 {
		return // a story not in flight without a File List: no files
	}
	c.Files = files[:0:storyFilesLen(st)]
	if storyInFlight(st) {
		c.Files = append(c.Files, workflow.RefFile{Path: st.Path, Phase: phase, Critical: true, From: "story"})
	}
	for _, f := range st.FileList {
		if f == st.Path {
			continue
		}
		c.Files = append(c.Files, workflow.RefFile{Path: f, Phase: implement, Produced: true, From: "file-list"})
	}
}

// storyPosition is the phase position of index i in def (name when the
// definition has no such phase).
func storyPosition(def workflow.Definition, i int, name string) workflow.Position {
	if i >= 0 && i < len(def.Phases) {
		return workflow.PhasePosition(i+1, len(def.Phases), def.Phases[i].Name)
	}
	return workflow.PhasePosition(0, len(def.Phases), name)
}

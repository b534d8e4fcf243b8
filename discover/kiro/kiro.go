// Package kiro is the Kiro spec format: spec folders
// `.kiro/specs/<feature>/` with requirements.md (or bugfix.md), design.md and
// a tasks.md of checkbox tasks (`- [ ] 2.1 Create data models`,
// `- [ ]* 2.2 …` optional, `[-]` in progress, `[~]` queued) that the Kiro
// IDE, or cc-sdd's `/kiro:spec-impl` in other agents, ticks as it goes.
// KiroSource finds every spec (in cc-sdd's configured folder too), counts
// its required leaf tasks, and turns each spec in flight into a candidate
// whose resume point is the first open required leaf task.
//
// Kiro keeps no "where did I stop" of its own beyond the boxes: the time
// work stopped is the last commit touching the spec folder (an uncommitted
// file's modification time when newer), with tasks.meta.json's last run
// shown beside. The handoff never edits these files. The rules are those
// of ../shared/spec/FORMATS-openspec-kiro.md Part B, C and D.
package kiro

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/par"
	"github.com/orchestrate-dev/orchestrate/internal/pathglob"
	"github.com/orchestrate-dev/orchestrate/internal/safefile"
	"github.com/orchestrate-dev/orchestrate/internal/storyid"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// KiroSource finds Kiro and cc-sdd specs. The likely current spec has
// priority 4, the others the spec priority 6.
var KiroSource source.Source = source.Format{FormatKind: workflow.KindKiro, FormatPriority: workflow.PriorityInProgress, ScanFunc: scan}

// Workflow is the workflow id of a Kiro spec's implementation.
const Workflow = "kiro-spec"

// Agent is the agent a Kiro resume is handed to: the coding agent.
const Agent = "dev"

// The candidates' framework names.
const (
	FrameworkIDE   = "kiro"
	FrameworkCCSDD = "kiro-cc-sdd"
)

const (
	// maxExistsLookups bounds the file-system lookups one tasks.md's paths
	// cost (refpath.BoundedExists).
	maxExistsLookups = 1000
	// maxRoots bounds the cc-sdd folders honoured besides .kiro.
	maxRoots = 8
)

// maxSpecs bounds the spec folders read (a variable for the tests).
var maxSpecs = 2000

// specDocs are the files that make a folder a spec (Rule B1.1), in the
// order a task run reads them, then the other files of a spec folder.
var (
	specDocs  = []string{"requirements.md", "bugfix.md", "design.md", "tasks.md", "spec.json"}
	otherDocs = []string{".config.kiro", "config.kiro", "tasks.meta.json", "research.md", "gap-analysis.md", "brief.md"}
)

// spec is one spec folder.
type spec struct {
	Root      string // ".kiro", or cc-sdd's configured folder ("docs")
	Dir       string // .kiro/specs/user-auth
	Name      string // user-auth
	ID        string // the candidate id
	TasksPath string // "" without tasks.md
	Unread    bool   // tasks.md is there but cannot be read (a finding says why)
	// Tasks is the parse of tasks.md until settle has drawn from it all
	// the candidate needs (draft, marks) and dropped it: 500 specs do not
	// hold every task, nor every tasks.md's text, for the whole scan.
	Tasks  Tasks
	Counts Counts
	marks  marks
	// draft is the candidate's part that the tasks make (see settle), nil
	// before settle.
	draft    *workflow.Candidate
	Docs     []string
	Config   kiroConfig
	Meta     meta
	SpecJSON specJSON
	HasMeta  bool
	ModTime  time.Time
	From     string // "git:<hash>" or "mtime"
	Findings []workflow.Finding
}

// ccsdd reports whether cc-sdd wrote the spec: a spec.json and no IDE
// file, or a folder only cc-sdd can configure.
func (s *spec) ccsdd() bool {
	if s.Root != ".kiro" {
		return true
	}
	return s.SpecJSON.Present && !s.Config.Present && !s.HasMeta
}

// bugfix reports a bugfix spec (bugfix.md, or specType bugfix).
func (s *spec) bugfix() bool {
	if s.Config.SpecType == "bugfix" {
		return true
	}
	for _, d := range s.Docs {
		if path.Base(d) == "bugfix.md" {
			return true
		}
	}
	return false
}

// started reports evidence that work began with no box ticked: a [-] or
// [~] marker, or a run in tasks.meta.json (Part D.3).
func (s *spec) started() bool {
	return len(s.marks.inProgress) > 0 || len(s.marks.queued) > 0 || !s.Meta.LastAt.IsZero()
}

// marks are what the status, the current spec's pick and the note read of
// a spec's tasks once settle has dropped them: the labels of the tasks
// marked [-] and [~], and whether a leaf is marked [-].
type marks struct {
	inProgress, queued []string
	leafMarked         bool
}

// setTasks makes ts the spec's tasks, with their counts and marks.
func (s *spec) setTasks(ts Tasks) {
	s.Tasks = ts
	s.Counts = ts.Count()
	s.marks = marks{inProgress: ts.Marked(InProgress), queued: ts.Marked(Queued), leafMarked: ts.LeafMarked()}
}

// status is the spec's derived status: no tasks.md or no required task
// Draft; nothing started Ready; in flight InProgress; every required leaf
// done Done.
func (s *spec) status() (workflow.Status, string) {
	c := s.Counts
	switch {
	case s.TasksPath == "":
		raw := "no tasks.md"
		if s.SpecJSON.Phase != "" {
			raw += " (phase " + s.SpecJSON.Phase + ")"
		}
		return workflow.StatusDraft, raw
	case c.Total == 0:
		return workflow.StatusDraft, "no required tasks"
	case c.Done == c.Total:
		return workflow.StatusDone, "complete"
	case c.Done > 0 || s.started():
		return workflow.StatusInProgress, "in progress"
	}
	return workflow.StatusReady, "not started"
}

// scan finds every spec folder and builds its candidate.
func scan(r *source.Repo) ([]workflow.Candidate, []workflow.Finding) {
	exists := source.MemoExists(r.Exists)
	cmds := detectCommands(r)
	cache := openTasksCache(r, cmds)
	specs, findings := readSpecs(r, exists, cache, cmds)
	cache.save()
	if len(specs) == 0 {
		return nil, findings
	}
	date(r, specs)
	cur := current(specs)
	out := make([]workflow.Candidate, 0, len(specs))
	for _, s := range specs {
		out = append(out, build(s, cur))
	}
	return out, findings
}

// roots are the kiro folders: .kiro, and each folder cc-sdd was installed
// into with --kiro-dir (recognised by its settings/templates/specs/, Rule
// B1.1).
func roots(r *source.Repo) []string {
	out := []string{".kiro"}
	for _, d := range r.Glob([]string{"*/settings/templates/specs", "*/*/settings/templates/specs"}, true) {
		root := strings.TrimSuffix(d, "/settings/templates/specs")
		if root == ".kiro" || len(out) > maxRoots {
			continue
		}
		out = append(out, root)
	}
	return out
}

// readSpecs reads every spec folder (not below specs/<feature>/, Rule
// B1.2), giving each its id: kiro:<feature>; a feature named twice (in
// .kiro and a cc-sdd folder) keeps the folder in the second id. The
// folders are read on a few workers, in batches of at most the specs still
// allowed (maxSpecs): each is opened once (with the cache or without, inside
// its open parent without following a symlink: source.Folders), listed,
// and when a spec, read through the same descriptor and settled at once
// (see settle), or taken whole from the draft cache (draftcache.go): only
// the few being read hold their tasks.
func readSpecs(r *source.Repo, exists func(string) bool, cache *tasksCache, cmds commands) ([]*spec, []workflow.Finding) {
	var findings []workflow.Finding
	var specs []*spec
roots:
	for _, root := range roots(r) {
		dirs := r.Glob([]string{root + "/specs/*"}, true)
		for len(dirs) > 0 {
			if len(specs) >= maxSpecs {
				findings = append(findings, workflow.Finding{Check: workflow.CheckDiscover, Severity: workflow.Warning, Code: "kiro-too-many-specs", Path: root + "/specs",
					Message: fmt.Sprintf("more than %d spec folders; the rest are not read", maxSpecs)})
				break roots
			}
			batch := dirs[:min(len(dirs), maxSpecs-len(specs))]
			dirs = dirs[len(batch):]
			got := make([]*spec, len(batch))
			par.For(len(batch), par.Options{Workers: 4, Chunk: 8, Min: 16}, func(i int) {
				got[i] = readFolder(r, root, batch[i], exists, cache, cmds)
			})
			for _, s := range got {
				if s != nil {
					specs = append(specs, s)
				}
			}
		}
	}
	findings = append(findings, assignIDs(specs)...)
	return specs, findings
}

// readFolder reads the folder dir under root: nil when it is no spec (it
// holds none of specDocs), else the spec, read and settled. Its files are
// the regular files and symlinks its listing names; a tasks.md of another
// kind (a FIFO, a device, a folder), or any when the folder cannot be
// listed, is asked of r.Exists: the safe reader then refuses it with a
// finding, never a silent "no tasks.md".
func readFolder(r *source.Repo, root, dir string, exists func(string) bool, cache *tasksCache, cmds commands) *spec {
	folder := cache.openDir(dir)
	if folder != nil {
		defer folder.Close()
	}
	var ds source.DirStat // the folder's, once taken
	names, other, listed := listFolder(r, dir, folder, cache, &ds)
	if !names["tasks.md"] && (other || !listed) && r.Exists(dir+"/tasks.md") {
		names["tasks.md"] = true
	}
	if !isSpec(names) {
		return nil
	}
	s := &spec{Root: root, Dir: dir, Name: path.Base(dir)}
	// a spec whose folder was listed in full and whose documents are
	// regular files is taken whole from the draft cache when unchanged
	// (draftcache.go), else read, settled and stored
	k, keyed := draftKey{}, false
	if listed && !other {
		k, keyed = cache.draftKeyOf(folder, &ds, root, dir, names)
	}
	if keyed && cache.draftHit(s, k, names, exists) {
		return s
	}
	var asked *source.Asked
	if keyed {
		asked = source.NewAsked(exists)
		exists = asked.Func()
	}
	clean := readSpec(r, s, names, folder, exists, cache)
	ntasks := len(s.Tasks.Tasks)
	s.settle(exists, cmds)
	if keyed && clean {
		cache.storeDraft(s, k, asked, ntasks)
	}
	return s
}

// entryBufs are listFolder's getdents buffers (a spec folder holds a few
// names: one small buffer each, reused).
var entryBufs = sync.Pool{New: func() any { b := make([]byte, 4<<10); return &b }}

// listFolder lists spec folder dir as the pattern <dir>/* lists its files
// (r.Glob): the regular files and symlinks, never following one; through
// folder's descriptor when it is opened, else by its path. other reports
// a tasks.md of another kind; listed is false when the folder could not be
// listed (names is then empty).
func listFolder(r *source.Repo, dir string, folder *safefile.Dir, cache *tasksCache, ds *source.DirStat) (names map[string]bool, other, listed bool) {
	names = map[string]bool{}
	add := func(name string, typ fs.FileMode) {
		switch {
		case typ.IsRegular() || typ&fs.ModeSymlink != 0:
			names[name] = true
		case name == "tasks.md":
			other = true
		}
	}
	if folder != nil {
		ents, ok := listCached(cache.folderTable(), folder, dir, ds)
		if !ok {
			return map[string]bool{}, false, false
		}
		for _, e := range ents {
			add(e.Name, e.Type)
		}
		return names, other, true
	}
	ents, err := pathglob.ListNoFollow(filepath.Join(r.Root, filepath.FromSlash(dir)))
	if err != nil {
		return map[string]bool{}, false, false
	}
	for _, e := range ents {
		add(e.Name, e.Type)
	}
	return names, other, true
}

// assignIDs gives every spec its id, unique over the scan: kiro:<feature>.
// Sanitize folds the characters it does not keep into "-", so folders such
// as "my spec" and my-spec make the same id; one candidate would then
// absorb the other and a resume of kiro:my-spec could hand off a folder
// named to shadow it. Of the specs sharing an id, one whose folder name is
// the feature id itself keeps it (the first of them, .kiro before a cc-sdd
// folder); each other is listed with its folder in the id
// (kiro:<root>-<feature>), and with a short hash of its folder when that
// id is taken too; a warning names each.
func assignIDs(specs []*spec) []workflow.Finding {
	byID := map[string][]*spec{}
	var order []string
	for _, s := range specs {
		id := "kiro:" + storyid.Sanitize(s.Name)
		if _, ok := byID[id]; !ok {
			order = append(order, id)
		}
		byID[id] = append(byID[id], s)
	}
	taken := map[string]string{} // id -> folder
	var rest []*spec
	for _, id := range order {
		group := byID[id]
		keep := group[0]
		for _, s := range group {
			if storyid.Sanitize(s.Name) == s.Name {
				keep = s
				break
			}
		}
		keep.ID = id
		taken[id] = keep.Dir
		for _, s := range group {
			if s != keep {
				rest = append(rest, s)
			}
		}
	}
	var findings []workflow.Finding
	for _, s := range rest {
		first := "kiro:" + storyid.Sanitize(s.Name)
		id := "kiro:" + storyid.Sanitize(s.Root+"/"+s.Name)
		if _, dup := taken[id]; dup || id == first {
			sum := sha256.Sum256([]byte(s.Dir))
			id = fmt.Sprintf("%s-%x", first, sum[:4])
		}
		s.ID = id
		taken[id] = s.Dir
		findings = append(findings, workflow.Finding{Check: workflow.CheckDiscover, Severity: workflow.Warning, Code: "kiro-duplicate-spec", Path: s.Dir,
			Message: fmt.Sprintf("spec %q makes the id %s of %s; this one is listed as %s", s.Name, first, taken[first], s.ID)})
	}
	return findings
}

// isSpec reports whether a folder holding the files names is a spec: it
// holds one of the spec documents.
func isSpec(names map[string]bool) bool {
	for _, doc := range specDocs {
		if names[doc] {
			return true
		}
	}
	return false
}

// readSpec reads spec s's folder, whose files are names, through folder
// (nil when it could not be opened). Nothing in it is ever written. clean
// reports that every document read gave no error.
func readSpec(r *source.Repo, s *spec, names map[string]bool, folder *safefile.Dir, exists func(string) bool, cache *tasksCache) (clean bool) {
	clean = true
	dir := s.Dir
	for _, doc := range append(append([]string(nil), specDocs...), otherDocs...) {
		p := dir + "/" + doc
		if !names[doc] {
			continue
		}
		s.Docs = append(s.Docs, p)
		switch doc {
		case "tasks.md":
			s.TasksPath = p
			ts, mt, err := cache.parseTasks(r, p, folder, exists)
			s.ModTime = mt
			if err != nil {
				s.Unread, clean = true, false
				s.Findings = append(s.Findings, source.ReadFinding(p, err))
				continue
			}
			s.setTasks(ts)
		case ".config.kiro", "config.kiro":
			if c, err := readDoc(cache, r, p, folder, configCodec); err == nil {
				s.Config = c
			} else {
				s.Config.Present, clean = true, false
			}
		case "tasks.meta.json":
			s.HasMeta = true
			if m, err := readDoc(cache, r, p, folder, metaCodec); err == nil {
				s.Meta = m
			} else {
				clean = false
				s.Findings = append(s.Findings, source.ReadFinding(p, err))
			}
		case "spec.json":
			if j, err := readDoc(cache, r, p, folder, specJSONCodec); err == nil {
				s.SpecJSON = j
			} else {
				s.SpecJSON.Present, clean = true, false
			}
		}
	}
	return clean
}

// date dates every spec in flight by the last commit touching its folder's
// files (a file with uncommitted changes by its modification time, when
// newer): Part D.5. A spec not in flight is dated by its tasks.md (or its
// folder) alone: its time is only shown, and one path per spec keeps the
// history walk of a repository of hundreds of finished specs short.
func date(r *source.Repo, specs []*spec) {
	docs := func(s *spec) []string {
		if st, _ := s.status(); st == workflow.StatusInProgress {
			return s.Docs
		}
		if s.TasksPath != "" {
			return []string{s.TasksPath}
		}
		return []string{s.Dir}
	}
	var paths []string
	for _, s := range specs {
		paths = append(paths, docs(s)...)
	}
	stamps := r.CommitTimes(paths)
	for _, s := range specs {
		var at time.Time
		from := ""
		for _, p := range docs(s) {
			if st, ok := stamps[p]; ok {
				if st.When.UTC().After(at) {
					at, from = st.When.UTC(), st.From
				}
				continue
			}
			if mt := r.ModTime(p); mt.After(at) {
				at, from = mt, "mtime"
			}
		}
		if !at.IsZero() {
			s.ModTime, s.From = at, from
		}
	}
}

// current picks the likely current spec among those in flight (Part D.5):
// the newest folder time, then the newest tasks.meta.json run, then a [-]
// on a leaf, then the name; nil when none is in flight.
func current(specs []*spec) *spec {
	var best *spec
	for _, s := range specs {
		if st, _ := s.status(); st != workflow.StatusInProgress {
			continue
		}
		if best == nil || newer(s, best) {
			best = s
		}
	}
	return best
}

// newer reports whether a beats b for "current".
func newer(a, b *spec) bool {
	switch {
	case !a.ModTime.Equal(b.ModTime):
		return a.ModTime.After(b.ModTime)
	case !a.Meta.LastAt.Equal(b.Meta.LastAt):
		return a.Meta.LastAt.After(b.Meta.LastAt)
	case a.marks.leafMarked != b.marks.leafMarked:
		return a.marks.leafMarked
	}
	return a.ID < b.ID
}

// commands is how cc-sdd's implementation command is spelled in this
// repository: the skill (`/kiro-impl`, cc-sdd 3.x) or the command
// (`/kiro:spec-impl`).
type commands struct{ impl string }

// detectCommands looks for cc-sdd's installed skill.
func detectCommands(r *source.Repo) commands {
	if len(r.Glob([]string{".*/skills/kiro-impl/SKILL.md"}, false)) > 0 && !r.Exists(".claude/commands/kiro/spec-impl.md") {
		return commands{impl: "/kiro-impl"}
	}
	return commands{impl: "/kiro:spec-impl"}
}

// settle draws from spec s's tasks what its candidate needs, and drops
// them: the candidate's part that depends only on what the spec's folder
// holds (its phases, position, resume point but its note, files and
// findings) becomes s.draft, every string of it (and of s.marks) copied
// out of the tasks.md text into one allocation of the spec's own, and
// s.Tasks is emptied. What depends on the other specs (the time, the
// current spec, the note naming it) is build's.
func (s *spec) settle(exists func(string) bool, cmds commands) {
	st, _ := s.status()
	fw := FrameworkIDE
	if s.ccsdd() {
		fw = FrameworkCCSDD
	}
	c := &workflow.Candidate{Findings: append([]workflow.Finding(nil), s.Findings...)}
	c.Findings = append(c.Findings, findings(s, st)...)
	first := s.Tasks.FirstOpen()
	groups, groupOf := s.groups()
	c.Phases = phases(s, groups, groupOf, first)
	cnt := s.Counts
	c.Position = workflow.StepPosition(cnt.Done, cnt.Total, "")
	rp := &workflow.ResumePoint{Done: cnt.Done, Total: cnt.Total, Holes: s.Tasks.Holes()}
	if first != nil {
		i := s.index(first)
		rp.Item, rp.Title = s.Tasks.label(i), first.Title
		rp.Section = s.section(i)
		rp.Labels = labels(first)
		rp.Files = slices.Clone(first.Paths)
		c.Position.At = rp.Item
		c.Position.Name = groups[groupOf[i]].Name
	}
	nextFor(s, fw, cmds, first, rp)
	c.Resume = rp
	// at its length: a set's list grows by doubling, and the candidate
	// keeps it for the run
	c.Files = slices.Clone(files(exists, s, groups, groupOf))
	s.draft = c
	s.detach()
	s.Tasks = Tasks{}
}

// detach copies every string of s.draft and s.marks into one string of
// their own: a string left pointing into the tasks.md text (a title, an
// id, a path) would keep the whole text alive for the rest of the run.
func (s *spec) detach() {
	c, rp := s.draft, s.draft.Resume
	var ps []*string
	add := func(list []string) {
		for i := range list {
			ps = append(ps, &list[i])
		}
	}
	for i := range c.Phases {
		ps = append(ps, &c.Phases[i].ID, &c.Phases[i].Name)
	}
	ps = append(ps, &c.Position.At, &c.Position.Name, &c.Position.Last)
	for i := range c.Files {
		ps = append(ps, &c.Files[i].Path, &c.Files[i].Phase, &c.Files[i].From)
	}
	for i := range c.Findings {
		ps = append(ps, &c.Findings[i].Message)
	}
	ps = append(ps, &rp.Item, &rp.Title, &rp.Section, &rp.FrameworkCommand, &rp.FrameworkNext, &rp.DiffersWhy)
	add(rp.Labels)
	add(rp.Files)
	add(rp.Holes)
	add(s.marks.inProgress)
	add(s.marks.queued)
	source.Detach(ps)
}

// build turns a settled spec into its candidate: s.draft with what
// depends on the other specs (its time, whether it is the current spec
// cur, the note that says so).
func build(s *spec, cur *spec) workflow.Candidate {
	st, raw := s.status()
	key := strings.TrimPrefix(s.ID, "kiro:")
	srcPath := s.TasksPath
	if srcPath == "" {
		srcPath = s.Dir
	}
	isCur := cur == s
	prio := workflow.PrioritySpec
	if isCur {
		prio = workflow.PriorityInProgress
	}
	fw := FrameworkIDE
	if s.ccsdd() {
		fw = FrameworkCCSDD
	}
	d := s.draft
	c := workflow.Candidate{
		ID:          s.ID,
		Type:        workflow.TypeKiroSpec,
		Key:         key,
		Source:      workflow.SourceRef{Kind: workflow.KindKiro, Path: srcPath, Priority: prio},
		Workflow:    Workflow,
		Stories:     []string{},
		Status:      string(st),
		StatusRaw:   raw,
		UpdatedAt:   s.ModTime,
		UpdatedFrom: s.From,
		Agent:       Agent,
		Framework:   fw,
		Findings:    d.Findings,
		Resumable:   st == workflow.StatusInProgress,
		Phases:      d.Phases,
		Position:    d.Position,
		Files:       d.Files,
	}
	if c.UpdatedAt.IsZero() {
		c.UpdatedFrom = ""
	} else if c.UpdatedFrom == "" {
		c.UpdatedFrom = "mtime"
	}
	rp := d.Resume
	rp.Note = note(s, cur, isCur)
	c.Resume = rp
	return c
}

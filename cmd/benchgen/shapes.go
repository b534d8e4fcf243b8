package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/gitfixture"
)

// The shapes of issue 15: repositories where the work grows in a direction
// other than the number of files. Each is written with `git fast-import`
// (so it needs git), repacked as `git gc` would, and checked out.
//
//	commits    one workflow saved by commit 1, -commits commits after it
//	merges     one workflow saved by commit 1, then -merges merges of
//	           -side side commits each (a --no-ff feature-branch history)
//	stories    -stories stories (a few in progress), for `orchestrate status`
//	workflows  -workflows interrupted workflow states, for `orchestrate status`,
//	           each referencing -per-workflow files (200 x 300 of 4,000)
//	workflows1000  the same, 1,000 workflows x 50 files of 4,000
//	refs       one workflow referencing -refs files
//	specs      the stories shape plus the spec frameworks' own files: 500
//	           OpenSpec changes (genOpenSpec) and 500 Kiro specs (genKiro),
//	           for `orchestrate status`
//	huge       the refs layout at 1,000,000 files
//	specs-kiro the stories shape with 500 Kiro specs (kiro.go)
var shapePresets = map[string]Params{
	"commits":       {Files: 100000, Stories: 40, Commits: 20000, Refs: 300, Workflows: 1},
	"merges":        {Files: 100000, Stories: 40, Commits: 20, Refs: 300, Workflows: 1, Merges: 2000, Side: 10},
	"stories":       {Files: 100000, Stories: 20000, Commits: 300, Refs: 300, Workflows: 5},
	"workflows":     {Files: 100000, Stories: 2000, Commits: 300, Refs: 4000, Workflows: 200, PerWorkflow: 300},
	"workflows1000": {Files: 100000, Stories: 2000, Commits: 300, Refs: 4000, Workflows: 1000, PerWorkflow: 50},
	"refs":          {Files: 100000, Stories: 40, Commits: 300, Refs: 5000, Workflows: 1},
	"specs":         {Files: 100000, Stories: 20000, Commits: 300, Refs: 300, Workflows: 5},
	"huge":          {Files: 1000000, Stories: 2000, Commits: 300, Refs: 300, Workflows: 1},
	"specs-kiro":    {Files: 100000, Stories: 20000, Commits: 300, Refs: 300, Workflows: 5},
}

// historyShape tells whether the workflows are interrupted at the start of
// the history (so that the whole history follows the interruption).
func historyShape(shape string) bool { return shape == "commits" || shape == "merges" }

// shapeGen builds a shape repository.
type shapeGen struct {
	*gen
	im    *importer
	marks []int // current blob mark of each source file
	refOf map[int]*wf
	wfRef [][]int // referenced source files, per workflow
	wfSt  []*story
	wfAt  []int // commit index that saves each workflow's state
	// planted[i]: referenced files a later commit i changes
	tip   int              // mark of main's tip
	count int              // commits written
	total int              // commit slots of the main line
	kiro  map[int][]change // specs-kiro: the Kiro spec files each slot commits
}

func (g *gen) buildShape() (string, error) {
	t0 := time.Now()
	if _, err := os.Stat(filepath.Join(g.dir, ".git")); err == nil {
		return "", fmt.Errorf("%s already holds a repository", g.dir)
	}
	if err := gitRun(g.dir, "init", "-q", "-b", gitfixture.DefaultBranch); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(g.dir, StampFile), []byte("building\n"), 0o644); err != nil {
		return "", err
	}
	g.layoutFiles()
	g.layoutStories()
	s := &shapeGen{gen: g, marks: make([]int, len(g.files)), refOf: map[int]*wf{}}
	total := s.totalCommits()
	s.total = total
	s.planShapeWorkflows(total)

	im, err := startImport(g.dir)
	if err != nil {
		return "", err
	}
	s.im = im
	if err := s.writeHistory(total); err != nil {
		_ = im.finish()
		return "", err
	}
	if err := im.finish(); err != nil {
		return "", err
	}
	g.logf("%d commits imported (%.1fs)", s.count, time.Since(t0).Seconds())
	t1 := time.Now()
	if err := gitRun(g.dir, "repack", "-a", "-d", "-q"); err != nil {
		return "", err
	}
	g.logf("repacked (%.1fs)", time.Since(t1).Seconds())
	t2 := time.Now()
	if err := gitRun(g.dir, "reset", "-q", "--hard", gitfixture.DefaultBranch); err != nil {
		return "", err
	}
	g.logf("checked out (%.1fs)", time.Since(t2).Seconds())
	head, err := gitOutput(g.dir, "rev-parse", "HEAD")
	if err != nil {
		return "", err
	}
	g.hashes = []string{head}
	m, err := g.finishWorkTree()
	if err != nil {
		return "", err
	}
	m.Commits = s.count
	if err := writeManifest(g.dir, m); err != nil {
		return "", err
	}
	return fmt.Sprintf("shape %s: %d tracked source files, %d stories (%s), %d commits, %d interrupted workflows, %d referenced files (%d changed by later commits, %d edited on disk), HEAD %s",
		g.p.Shape, len(g.files), len(g.stories), strings.Join(m.Statuses, ", "), s.count, len(g.wfs), m.Refs, m.Conflicts, len(m.DiskEdits), m.Head[:7]), nil
}

// totalCommits is the number of commit slots of the main line (merges
// count one each).
func (s *shapeGen) totalCommits() int {
	switch {
	case s.p.Shape == "merges":
		return 2 + s.p.Merges
	case historyShape(s.p.Shape):
		return 2 + s.p.Commits
	}
	return s.p.Commits
}

// planShapeWorkflows shares the referenced files among the workflows, gives
// each a story and the commit that saves its state, and schedules the later
// commits that change conflictPercent of its files.
func (s *shapeGen) planShapeWorkflows(total int) {
	perm := s.rng.Perm(len(s.files))[:s.p.Refs]
	for _, f := range perm {
		s.isRef[f] = true
	}
	// stories of other roles than "epic": the first Workflows of a shuffle
	pool := append([]*story(nil), s.stories...)
	s.rng.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
	n := s.p.Workflows
	per := len(perm) / n
	for k := 0; k < n; k++ {
		refs := perm[k*per : (k+1)*per]
		if k == n-1 {
			refs = perm[k*per:]
		}
		if w := s.p.PerWorkflow; w > 0 {
			// a window of w files from k*per on, wrapping: neighbours share files
			refs = make([]int, w)
			for i := range refs {
				refs[i] = perm[(k*per+i)%len(perm)]
			}
		}
		at := 1
		if !historyShape(s.p.Shape) {
			// spread over 60 % … 97 % of the history
			frac := 0.60
			if n > 1 {
				frac += 0.37 * float64(k) / float64(n-1)
			}
			at = max(1, min(int(float64(total-1)*frac), total-2))
		}
		st := pool[k]
		st.role = "ours"
		st.initial, st.status, st.at = "Ready", "InProgress", at
		sr := append([]int(nil), refs[:min(5, len(refs))]...)
		st.files = s.pathsOf(sr)
		id := fmt.Sprintf("sdc-%s-%03d", s.slotTime(at, total).Format("20060102"), k+1)
		w := &wf{ID: "workflow:" + id, Kind: "workflow-state", State: ".orchestrate/workflows/" + id + ".yaml", Story: st.id, At: at,
			When: s.slotTime(at, total).Format(time.RFC3339), Refs: s.pathsOf(refs)}
		s.wfs = append(s.wfs, w)
		s.wfRef = append(s.wfRef, refs)
		s.wfSt = append(s.wfSt, st)
		s.wfAt = append(s.wfAt, at)
		// later commits that change some of the files
		c := max(1, int(math.Round(float64(len(refs)*conflictPercent)/100)))
		idx := append([]int(nil), refs...)
		sort.Ints(idx)
		s.rng.Shuffle(len(idx), func(a, b int) { idx[a], idx[b] = idx[b], idx[a] })
		for _, f := range idx[:c] {
			i := at + 1 + s.rng.IntN(total-1-at)
			s.planted[i] = append(s.planted[i], f)
			w.Conflicts = append(w.Conflicts, s.files[f])
		}
		sort.Strings(w.Conflicts)
	}
}

func (s *shapeGen) pathsOf(idx []int) []string {
	out := make([]string, len(idx))
	for i, f := range idx {
		out[i] = s.files[f]
	}
	sort.Strings(out)
	return out
}

// slotTime returns the time of commit slot i of total; the merges shape
// spreads its side commits between two slots.
func (s *shapeGen) slotTime(i, total int) time.Time {
	end := s.now.Add(-lastCommitAgo)
	start := s.now.Add(-historyDays * 24 * time.Hour)
	step := end.Sub(start) / time.Duration(total-1)
	return start.Add(time.Duration(i) * step).Truncate(time.Second)
}

// edit bumps source file f to its next revision and returns the change.
func (s *shapeGen) edit(f int) change {
	s.rev[f]++
	s.marks[f] = s.im.blob(s.content(f))
	return change{s.files[f], s.marks[f]}
}

// randomEdits edits 1…3 files no workflow references, and the files planted
// for slot i.
func (s *shapeGen) randomEdits(i int, planted bool) []change {
	var out []change
	if planted {
		for _, f := range s.planted[i] {
			out = append(out, s.edit(f))
		}
	}
	for n := 1 + s.rng.IntN(3); n > 0; {
		if f := s.rng.IntN(len(s.files)); !s.isRef[f] {
			out = append(out, s.edit(f))
			n--
		}
	}
	return out
}

func (s *shapeGen) writeHistory(total int) error {
	ref := "refs/heads/" + gitfixture.DefaultBranch
	// commit 0: everything
	var ch []change
	for f := range s.files {
		s.marks[f] = s.im.blob(s.content(f))
		ch = append(ch, change{s.files[f], s.marks[f]})
	}
	for _, st := range s.stories {
		ch = append(ch, change{st.path, s.im.blob(s.storyText(st, st.initial, 0))})
	}
	for rel, content := range projectFiles() {
		ch = append(ch, change{rel, s.im.blob(content)})
	}
	s.tip = s.im.commit(ref, 0, nil, authors[0].name, authors[0].email, s.slotTime(0, total), "Initial import\n", ch)
	s.count++
	s.logf("commit 1/%d: %d source files, %d stories", total, len(s.files), len(s.stories))
	saves := map[int][]int{} // commit slot → workflows whose state it saves
	for k, at := range s.wfAt {
		saves[at] = append(saves[at], k)
	}
	prev := s.tip
	for i := 1; i < total; i++ {
		a := authors[s.rng.IntN(len(authors))]
		when := s.slotTime(i, total)
		if s.p.Shape == "merges" && i >= 2 {
			if err := s.mergeRound(ref, i, total); err != nil {
				return err
			}
			continue
		}
		ch := s.randomEdits(i, true)
		ch = append(ch, s.kiroChanges(i, total)...)
		msg := fmt.Sprintf("src: %s %s\n", s.pick(verbs), s.pick(words))
		if s.p.Shape == "specs" && i == specsSlot(total) {
			ch = append(ch, s.specFiles()...)
			msg = "spec frameworks: changes and specs in flight\n"
		}
		if ks := saves[i]; len(ks) > 0 {
			base, err := s.im.hash(prev)
			if err != nil {
				return err
			}
			for _, k := range ks {
				ch = append(ch, s.saveWorkflow(k, base)...)
			}
			msg = "save workflow state\n"
		}
		prev = s.im.commit(ref, 0, nil, a.name, a.email, when, msg, ch)
		s.tip = prev
		s.count++
		if s.count%5000 == 0 {
			s.logf("commit %d", s.count)
		}
	}
	return nil
}

// saveWorkflow writes workflow k's story (now in progress) and state file,
// with base the commit before the one that saves it.
func (s *shapeGen) saveWorkflow(k int, base string) []change {
	w, st := s.wfs[k], s.wfSt[k]
	at := s.wfAt[k]
	id := strings.TrimPrefix(w.ID, "workflow:")
	var b strings.Builder
	fmt.Fprintf(&b, "# Workflow state kept by the orchestrate task.\nexecution_id: %s\nworkflow: story-development-cycle\nstory: %q\n", id, st.id)
	fmt.Fprintf(&b, "started_at: %s\nupdated_at: %s\ncurrent_phase: 3\ncurrent_agent: dev\nstatus: interrupted\nmode: autopilot\n",
		s.slotTime(at, s.total).Add(-5*time.Hour).Format(time.RFC3339), w.When)
	fmt.Fprintf(&b, "base_commit: %s\n", base)
	fmt.Fprintf(&b, "phases_completed:\n  - phase: create\n    agent: sm\n    output: %s\n  - phase: validate\n    agent: po\n    output: %s\n", st.path, st.path)
	b.WriteString("context:\n  request: \"implement the story\"\nfiles:\n")
	for _, p := range w.Refs {
		fmt.Fprintf(&b, "  - %s\n", p)
	}
	return []change{
		{st.path, s.im.blob(s.storyText(st, st.status, 0))},
		{w.State, s.im.blob(b.String())},
	}
}

// mergeRound writes Side commits on a feature branch forked from main's tip
// and merges it with --no-ff (slot i of the main line).
func (s *shapeGen) mergeRound(ref string, i, total int) error {
	side := "refs/heads/feature"
	from := s.tip
	lo, hi := s.slotTime(i-1, total), s.slotTime(i, total)
	step := hi.Sub(lo) / time.Duration(s.p.Side+1)
	changed := map[string]int{}
	var tip int
	for j := 0; j < s.p.Side; j++ {
		a := authors[s.rng.IntN(len(authors))]
		ch := s.randomEdits(i, j == s.p.Side-1)
		for _, c := range ch {
			changed[c.path] = c.mark
		}
		tip = s.im.commit(side, from, nil, a.name, a.email, lo.Add(time.Duration(j+1)*step).Truncate(time.Second),
			fmt.Sprintf("feature %d: %s %s\n", i-1, s.pick(verbs), s.pick(words)), ch)
		from = 0
		s.count++
	}
	var ch []change
	for p, m := range changed {
		ch = append(ch, change{p, m})
	}
	sort.Slice(ch, func(a, b int) bool { return ch[a].path < ch[b].path })
	s.tip = s.im.commit(ref, 0, []int{tip}, authors[0].name, authors[0].email, hi, fmt.Sprintf("Merge branch 'feature-%d'\n", i-1), ch)
	s.count++
	if (i-1)%500 == 0 {
		s.logf("merge %d/%d", i-1, s.p.Merges)
	}
	return nil
}

// specCount is how many OpenSpec changes (and Kiro specs) the specs shape
// adds.
const specCount = 500

// specsSlot is the commit slot that adds the spec frameworks' files: late
// in the history (at 90 %), before the workflows saved last.
func specsSlot(total int) int { return max(1, min(total*9/10, total-1)) }

// specFiles are the spec frameworks' files of the specs shape, as changes
// of one commit, in path order.
func (s *shapeGen) specFiles() []change {
	files := genOpenSpec("openspec", specCount)
	// (the specs shape's Kiro specs are spread over the history: kiroChanges)
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	out := make([]change, 0, len(paths))
	for _, p := range paths {
		out = append(out, change{p, s.im.blob(files[p])})
	}
	return out
}

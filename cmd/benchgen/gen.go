package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/gitfixture"
)

// Layout of the source tree: src/pkgNNN/subNN/fileNNNNN.go, filesPerDir
// files per leaf folder and subsPerPkg leaf folders per package.
const (
	filesPerDir     = 25
	subsPerPkg      = 8
	storiesPerEpic  = 20
	historyDays     = 30
	lastCommitAgo   = 30 * time.Minute
	maxEditsPerCmt  = 12
	conflictPercent = 5 // of each workflow's referenced files, changed by a later commit
	diskEditPercent = 1 // of all referenced files, edited on disk without committing
)

var authors = []struct{ name, email string }{
	{"Ana Lima", "ana@example.com"},
	{"Bruno Costa", "bruno@example.com"},
	{"Carla Souza", "carla@example.com"},
	{"Diego Alves", "diego@example.com"},
	{"dev-agent", "agent@example.com"},
}

var words = []string{
	"account", "audit", "billing", "cache", "catalog", "checkout", "config", "export",
	"feed", "import", "inventory", "invoice", "login", "metrics", "notify", "order",
	"payment", "profile", "queue", "refund", "report", "search", "session", "settings",
	"shipping", "signup", "storage", "sync", "tenant", "token", "upload", "webhook",
}

var verbs = []string{"fix", "refactor", "tidy", "speed up", "document", "extend", "simplify", "harden"}

// Done spellings seen in real story files (see discover/story).
var doneSpellings = []string{"Done", "Done", "Done", "Completed", "✅ **COMPLETED** - 2026-10-01", "Done - 100% Complete", "Complete (Backend Implementation)"}

// story is one story file.
type story struct {
	id, title, path string
	epic, num       int
	status          string   // as written
	heading         bool     // "## Status" layout instead of "**Status:**"
	files           []string // File List
	initial         string   // status in the first commit (when it changes later)
	at              int      // commit that moves it to status (0: the first commit)
	role            string
	logs            int // change log rows added by later commits
}

// wf is one interrupted workflow.
type wf struct {
	ID    string   `json:"id"`
	Kind  string   `json:"kind"`
	State string   `json:"state_file,omitempty"`
	Story string   `json:"story,omitempty"`
	At    int      `json:"interrupted_at_commit"`
	When  string   `json:"interrupted_at"`
	Refs  []string `json:"refs"`
	// planted
	Conflicts []string `json:"changed_by_later_commits"`
}

// Manifest is what benchgen planted, written to ManifestFile.
type Manifest struct {
	Params       Params   `json:"params"`
	Head         string   `json:"head"`
	TrackedFiles int      `json:"tracked_files"`
	Stories      int      `json:"stories"`
	Statuses     []string `json:"story_statuses"`
	Commits      int      `json:"commits"`
	Workflows    []*wf    `json:"workflows"`
	Refs         int      `json:"refs"`
	Conflicts    int      `json:"refs_changed_by_later_commits"`
	DiskEdits    []string `json:"refs_edited_on_disk"`
	OtherEdits   []string `json:"other_files_edited_on_disk"`
	Untracked    []string `json:"untracked_files"`
}

type gen struct {
	dir  string
	p    Params
	now  time.Time
	rng  *rand.Rand
	logf func(string, ...any)

	files   []string // tracked source files
	rev     []int    // revision of each source file
	isRef   []bool
	stories []*story
	byEpic  map[int][]*story
	wfs     []*wf
	hashes  []string // commit hashes, by index

	// per commit: extra work planted (index → paths of source files to edit)
	planted map[int][]int
	// per commit: state/story writes
	hooks map[int][]func() ([]string, error)
}

func newGen(dir string, p Params, now time.Time, logf func(string, ...any)) *gen {
	return &gen{
		dir: dir, p: p, now: now, logf: logf,
		rng:     rand.New(rand.NewPCG(p.Seed, 0x0be7c4)),
		byEpic:  map[int][]*story{},
		planted: map[int][]int{},
		hooks:   map[int][]func() ([]string, error){},
	}
}

func (g *gen) pick(xs []string) string { return xs[g.rng.IntN(len(xs))] }

// at returns the time of commit i: the history spans historyDays and ends
// lastCommitAgo before now.
func (g *gen) at(i int) time.Time {
	end := g.now.Add(-lastCommitAgo)
	start := g.now.Add(-historyDays * 24 * time.Hour)
	step := end.Sub(start) / time.Duration(g.p.Commits-1)
	return start.Add(time.Duration(i) * step).Truncate(time.Second)
}

// commitAt converts a fraction of the history into a commit index in
// [1, Commits-2], so that at least one commit follows.
func (g *gen) commitAt(frac float64) int {
	i := int(float64(g.p.Commits-1) * frac)
	return max(1, min(i, g.p.Commits-2))
}

func (g *gen) build() (string, error) {
	t0 := time.Now()
	if err := gitfixture.Init(g.dir); err != nil {
		return "", err
	}
	// marks the folder as ours before anything else is written, so a
	// half-built repository can be rebuilt
	if err := os.WriteFile(filepath.Join(g.dir, StampFile), []byte("building\n"), 0o644); err != nil {
		return "", err
	}
	g.layoutFiles()
	g.layoutStories()
	g.planWorkflows()

	// commit 0: every source file, every story, the project files
	for i := range g.files {
		if err := gitfixture.WriteFile(g.dir, g.files[i], g.content(i)); err != nil {
			return "", err
		}
	}
	for _, s := range g.stories {
		if err := g.writeStory(s, s.initial); err != nil {
			return "", err
		}
	}
	for rel, content := range projectFiles() {
		if err := gitfixture.WriteFile(g.dir, rel, content); err != nil {
			return "", err
		}
	}
	h, err := gitfixture.Commit(g.dir, "Initial import", authors[0].name, authors[0].email, g.at(0))
	if err != nil {
		return "", fmt.Errorf("commit 1: %w", err)
	}
	g.hashes = append(g.hashes, h)
	g.logf("commit 1/%d: %d source files, %d stories (%.1fs)", g.p.Commits, len(g.files), len(g.stories), time.Since(t0).Seconds())

	t1 := time.Now()
	hist, err := openHistory(g.dir)
	if err != nil {
		return "", err
	}
	last := g.p.Commits - 1
	for i := 1; i <= last; i++ {
		msg, paths, err := g.work(i)
		if err != nil {
			return "", err
		}
		for _, p := range paths {
			if err := hist.stage(p); err != nil {
				return "", err
			}
		}
		a := authors[g.rng.IntN(len(authors))]
		when := g.at(i)
		if i < last {
			h, err := hist.commit(msg, a.name, a.email, when)
			if err != nil {
				return "", fmt.Errorf("commit %d: %w", i+1, err)
			}
			g.hashes = append(g.hashes, h)
			if i%100 == 0 {
				g.logf("commit %d/%d (%.1fs)", i+1, g.p.Commits, time.Since(t1).Seconds())
			}
			continue
		}
		// the last commit goes through gitfixture, staging the whole work
		// tree, so that the index matches HEAD again. (Naming the touched
		// paths instead costs more: gitfixture's stageTree scans every index
		// entry once per path given.)
		want, err := hist.treeHash()
		if err != nil {
			return "", err
		}
		if err := hist.flush(); err != nil {
			return "", err
		}
		h, err := gitfixture.Commit(g.dir, msg, a.name, a.email, when)
		if err != nil {
			return "", fmt.Errorf("commit %d: %w", i+1, err)
		}
		if got, err := hist.commitTree(h); err != nil || got != want {
			return "", fmt.Errorf("commit %d: tree %s, want %s (%v)", i+1, got, want, err)
		}
		g.hashes = append(g.hashes, h)
	}
	g.logf("commits 2-%d: %.1fs", g.p.Commits, time.Since(t1).Seconds())

	m, err := g.finishWorkTree()
	if err != nil {
		return "", err
	}
	if err := writeManifest(g.dir, m); err != nil {
		return "", err
	}
	return fmt.Sprintf("%d tracked source files, %d stories (%s), %d commits, %d interrupted workflows, %d referenced files (%d changed by later commits, %d edited on disk), HEAD %s",
		len(g.files), len(g.stories), strings.Join(m.Statuses, ", "), g.p.Commits, len(g.wfs), m.Refs, m.Conflicts, len(m.DiskEdits), m.Head[:7]), nil
}

// writeManifest writes m to ManifestFile in dir.
func writeManifest(dir string, m *Manifest) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, ManifestFile), append(data, '\n'), 0o644)
}

// work does the work of commit i on disk — the state saved at that commit,
// the planted edits of referenced files, random edits of other files — and
// returns the commit message and the paths it changed.
func (g *gen) work(i int) (string, []string, error) {
	var paths []string
	for _, h := range g.hooks[i] {
		ps, err := h()
		if err != nil {
			return "", nil, err
		}
		paths = append(paths, ps...)
	}
	edited := map[int]bool{}
	for _, f := range g.planted[i] {
		edited[f] = true
	}
	for n := 1 + g.rng.IntN(maxEditsPerCmt); n > 0; {
		// other work: files no workflow references
		if f := g.rng.IntN(len(g.files)); !g.isRef[f] {
			edited[f] = true
			n--
		}
	}
	idx := make([]int, 0, len(edited))
	for f := range edited {
		idx = append(idx, f)
	}
	sort.Ints(idx)
	for _, f := range idx {
		g.rev[f]++
		if err := gitfixture.WriteFile(g.dir, g.files[f], g.content(f)); err != nil {
			return "", nil, err
		}
		paths = append(paths, g.files[f])
	}
	if g.rng.IntN(8) == 0 { // now and then a finished story's change log grows
		if s := g.stories[g.rng.IntN(len(g.stories))]; s.role == "" {
			ps, err := g.appendChangeLog(s)
			if err != nil {
				return "", nil, err
			}
			paths = append(paths, ps...)
		}
	}
	pkg := strings.SplitN(g.files[idx[0]], "/", 3)[1]
	msg := fmt.Sprintf("%s: %s %s", pkg, g.pick(verbs), g.pick(words))
	if len(g.hooks[i]) > 0 {
		msg += " (and save workflow state)"
	}
	return msg, paths, nil
}

// layoutFiles names the tracked source files.
func (g *gen) layoutFiles() {
	g.files = make([]string, g.p.Files)
	g.rev = make([]int, g.p.Files)
	g.isRef = make([]bool, g.p.Files)
	for i := range g.files {
		dir := i / filesPerDir
		g.files[i] = fmt.Sprintf("src/pkg%03d/sub%02d/file%05d.go", dir/subsPerPkg, dir%subsPerPkg, i)
	}
}

// content is a small, unique Go file; each revision adds a function.
func (g *gen) content(i int) string {
	parts := strings.Split(g.files[i], "/")
	var b strings.Builder
	fmt.Fprintf(&b, "// Package %s is part of %s (generated by benchgen).\npackage %s\n\nimport \"fmt\"\n\n", parts[2], parts[1], parts[2])
	w := words[i%len(words)]
	fmt.Fprintf(&b, "// %s%05d formats one %s record.\nfunc %s%05d(id int) string {\n\treturn fmt.Sprintf(\"%s-%%d-%d\", id*%d)\n}\n",
		strings.ToUpper(w[:1])+w[1:], i, w, strings.ToUpper(w[:1])+w[1:], i, w, i, i%97+3)
	for r := 1; r <= g.rev[i]; r++ {
		fmt.Fprintf(&b, "\n// rev%d of file %d.\nfunc rev%d() int { return %d }\n", r, i, r, (i*31+r*7)%1000)
	}
	return b.String()
}

// layoutStories assigns every story its id, file, layout and status; the
// roles of the interrupted workflows are given in planWorkflows.
func (g *gen) layoutStories() {
	epics := (g.p.Stories + storiesPerEpic - 1) / storiesPerEpic
	n := 0
	for e := 1; e <= epics && n < g.p.Stories; e++ {
		for k := 1; k <= storiesPerEpic && n < g.p.Stories; k++ {
			slug := words[(e*7+k*3)%len(words)] + "-" + words[(e+k*5)%len(words)]
			s := &story{id: fmt.Sprintf("%d.%d", e, k), epic: e, num: k}
			s.title = strings.ToUpper(slug[:1]) + strings.ReplaceAll(slug[1:], "-", " ")
			if e%2 == 0 {
				s.path = fmt.Sprintf("docs/stories/epic-%d/%s.%s.md", e, s.id, slug)
			} else {
				s.path = fmt.Sprintf("docs/stories/%s.%s.md", s.id, slug)
			}
			s.heading = (e+k)%3 == 0
			switch r := g.rng.IntN(100); {
			case r < 86:
				s.status = g.pick(doneSpellings)
			case r < 93:
				s.status = "Draft"
			default:
				s.status = g.pick([]string{"Ready", "Approved", "Ready for Development"})
			}
			for j := g.rng.IntN(4); j > 0; j-- {
				s.files = append(s.files, g.files[g.rng.IntN(len(g.files))])
			}
			s.initial = s.status
			g.stories = append(g.stories, s)
			g.byEpic[e] = append(g.byEpic[e], s)
			n++
		}
	}
}

func (g *gen) writeStory(s *story, status string) error {
	return gitfixture.WriteFile(g.dir, s.path, g.storyText(s, status, 0))
}

func (g *gen) storyText(s *story, status string, extraLog int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Story %s: %s\n\n", s.id, s.title)
	if s.heading {
		fmt.Fprintf(&b, "## Status\n\n%s\n\n", status)
		fmt.Fprintf(&b, "**Epic:** %d\n**Executor:** @dev\n**Quality Gate:** @qa\n\n", s.epic)
	} else {
		fmt.Fprintf(&b, "**Status:** %s\n**Epic:** %d\n**Executor:** @dev\n**Quality Gate:** @qa\n\n", status, s.epic)
	}
	w := strings.ToLower(s.title)
	fmt.Fprintf(&b, "## Story\n\n**As a** user, **I want** %s, **so that** my work goes faster.\n\n", w)
	fmt.Fprintf(&b, "## Acceptance Criteria\n\n1. **Given** a signed-in user, **When** they use %s, **Then** it completes in under a second.\n2. Errors are reported with a clear message.\n3. The change is covered by tests.\n\n", w)
	fmt.Fprintf(&b, "## Scope\n\n**IN:** %s for existing accounts. **OUT:** bulk operations.\n\n", w)
	if s.num > 1 {
		fmt.Fprintf(&b, "## Dependencies\n\n- Story %d.%d\n\n", s.epic, s.num-1)
	}
	b.WriteString("## Tasks / Subtasks\n\n- [x] Data model (AC: 1)\n- [x] Handler (AC: 1, 2)\n- [ ] Tests (AC: 3)\n\n")
	b.WriteString("## Dev Notes\n\nFollow the existing package layout; no new dependencies.\n\n")
	if len(s.files) > 0 {
		b.WriteString("## File List\n\n")
		for _, f := range s.files {
			fmt.Fprintf(&b, "- `%s`\n", f)
		}
		b.WriteString("\n")
	}
	b.WriteString("## Change Log\n\n| Date | Agent | Change |\n|------|-------|--------|\n| 2026-10-01 | @sm | Drafted |\n")
	for j := 1; j <= extraLog; j++ {
		fmt.Fprintf(&b, "| 2026-11-%02d | @dev | Follow-up %d |\n", j%28+1, j)
	}
	return b.String()
}

// appendChangeLog adds a row to a story's change log (its status stays).
func (g *gen) appendChangeLog(s *story) ([]string, error) {
	s.logs++
	if err := gitfixture.WriteFile(g.dir, s.path, g.storyText(s, s.status, s.logs)); err != nil {
		return nil, err
	}
	return []string{s.path}, nil
}

func projectFiles() map[string]string {
	return map[string]string{
		"README.md":  "# benchmark project\n\nGenerated by cmd/benchgen for `make bench`.\n",
		"go.mod":     "module example.com/bench\n\ngo 1.26\n",
		".gitignore": "/bin/\n*.tmp\n",
	}
}

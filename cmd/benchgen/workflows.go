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

// Where in the history (a fraction of it) each workflow was interrupted.
const (
	atSpec       = 0.60
	atEpic       = 0.75
	atStoryFirst = 0.80 // stories left InProgress/InReview on their own: 0.80 … 0.88
	atQA         = 0.90
	atCheckpoint = 0.95
	atOurs       = 0.97
)

// Shares of -refs (percent) per referencing file; "ours" (our workflow
// state's files: list) gets what is left, about 40 %.
const (
	shareStory    = 5  // each story's File List (W, Q, C, the epic's two, five standalone)
	shareQAFiles  = 10 // the QA loop's files_changed
	standaloneIPs = 3  // stories InProgress with no state file
	standaloneIRs = 2  // stories InReview with no state file
)

// planWorkflows picks the stories and referenced files of every interrupted
// workflow and schedules the commits that write their state (hooks) and the
// later commits that change some referenced files (planted).
func (g *gen) planWorkflows() {
	// referenced files: distinct, random
	perm := g.rng.Perm(len(g.files))[:g.p.Refs]
	for _, f := range perm {
		g.isRef[f] = true
	}
	take := func(pct int) []int {
		n := max(1, g.p.Refs*pct/100)
		out := perm[:n]
		perm = perm[n:]
		return out
	}
	paths := func(idx []int) []string {
		out := make([]string, len(idx))
		for i, f := range idx {
			out[i] = g.files[f]
		}
		sort.Strings(out)
		return out
	}

	// the epic: one with a full set of stories
	full := g.p.Stories / storiesPerEpic
	k := 1 + g.rng.IntN(full)
	es := g.byEpic[k]
	for _, s := range es {
		s.role = "epic"
		switch {
		case s.num <= 4:
			s.status, s.initial = "Done", "Done"
		case s.num <= 8:
			s.status, s.initial = "Ready", "Ready"
		default:
			s.status, s.initial = "Draft", "Draft"
		}
	}
	// the other roles: stories of other epics
	var pool []*story
	for _, s := range g.stories {
		if s.role == "" {
			pool = append(pool, s)
		}
	}
	g.rng.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
	next := func(role string) *story {
		s := pool[0]
		pool = pool[1:]
		s.role = role
		return s
	}
	// a story that moves to status at commit i, with a File List of refs
	start := func(s *story, status string, i int, refs []int) {
		s.initial, s.status, s.at = "Ready", status, i
		s.files = paths(refs)
		g.hooks[i] = append(g.hooks[i], func() ([]string, error) {
			return []string{s.path}, g.writeStory(s, s.status)
		})
	}

	// 6. spec pipeline (no source references: its artifacts are its inputs)
	{
		i := g.commitAt(atSpec)
		name := "search-v2"
		w := &wf{ID: "spec:" + name, Kind: "spec-pipeline", State: "docs/specs/" + name + "/.pipeline-state.json", At: i}
		g.hooks[i] = append(g.hooks[i], func() ([]string, error) {
			w.When = g.at(i).Format(time.RFC3339)
			dir := "docs/specs/" + name + "/"
			files := map[string]string{
				".pipeline-state.json": fmt.Sprintf(`{"name": %q, "complexity": "STANDARD", "currentPhase": "spec", "status": "in_progress",
 "startedAt": %q, "updatedAt": %q,
 "phases": {"gather": "completed", "assess": "completed", "research": "completed"}}
`, name, g.at(i).Add(-6*time.Hour).Format(time.RFC3339), w.When),
				"requirements.json": `{"requirements": ["search by title", "search by tag", "results in under 200 ms"]}` + "\n",
				"complexity.json":   `{"result": "STANDARD", "score": 14}` + "\n",
				"research.json":     `{"findings": ["the current index is rebuilt nightly"]}` + "\n",
			}
			var out []string
			for n, c := range files {
				if err := gitfixture.WriteFile(g.dir, dir+n, c); err != nil {
					return nil, err
				}
				out = append(out, dir+n)
			}
			sort.Strings(out)
			w.Refs = out
			return out, nil
		})
		g.wfs = append(g.wfs, w)
	}

	// 1. epic execution state: wave 2 (K.5, K.6) in progress
	{
		i := g.commitAt(atEpic)
		w := &wf{ID: fmt.Sprintf("epic:%d", k), Kind: "epic", State: fmt.Sprintf(".aiox/epic-%d-state.yaml", k), At: i}
		for _, s := range es[4:6] {
			refs := take(shareStory)
			start(s, "InProgress", i, refs)
			w.Refs = append(w.Refs, paths(refs)...)
			g.plant(w, refs, i)
		}
		g.hooks[i] = append(g.hooks[i], func() ([]string, error) {
			w.When = g.at(i).Format(time.RFC3339)
			var b strings.Builder
			fmt.Fprintf(&b, "epic_state:\n  epicId: %q\n  mode: autopilot\n  status: active\n  currentWave: 2\n  startedAt: %s\n  updatedAt: %s\n  waves:\n",
				fmt.Sprint(k), g.at(i).Add(-72*time.Hour).Format(time.RFC3339), w.When)
			waves := []struct {
				n      int
				status string
				from   int
				to     int
			}{{1, "completed", 0, 4}, {2, "in_progress", 4, 6}, {3, "pending", 6, 8}}
			for _, wv := range waves {
				fmt.Fprintf(&b, "    - wave: %d\n      status: %s\n      stories:\n", wv.n, wv.status)
				for _, s := range es[wv.from:wv.to] {
					st := map[string]string{"completed": "done", "in_progress": "in_progress", "pending": "pending"}[wv.status]
					fmt.Fprintf(&b, "        - id: %q\n          status: %s\n          path: %s\n", s.id, st, s.path)
				}
			}
			return []string{w.State}, gitfixture.WriteFile(g.dir, w.State, b.String())
		})
		g.wfs = append(g.wfs, w)
	}

	// 4/5. stories left InProgress or InReview with no state file
	for n := 0; n < standaloneIPs+standaloneIRs; n++ {
		status := "InProgress"
		if n >= standaloneIPs {
			status = "InReview"
		}
		frac := atStoryFirst + 0.02*float64(n)
		i := g.commitAt(frac)
		s := next("standalone")
		refs := take(shareStory)
		start(s, status, i, refs)
		w := &wf{ID: "sdc:" + s.id, Kind: "story " + status, State: s.path, Story: s.id, At: i, When: g.at(i).Format(time.RFC3339), Refs: paths(refs)}
		g.plant(w, refs, i)
		g.wfs = append(g.wfs, w)
	}

	// 2. QA loop: story Q InReview, iteration 3 of 5
	{
		i := g.commitAt(atQA)
		s := next("qa")
		srefs := take(shareStory)
		start(s, "InReview", i, srefs)
		frefs := take(shareQAFiles)
		w := &wf{ID: "qa-loop:" + s.id, Kind: "qa-loop", State: "qa/loop-status.json", Story: s.id, At: i,
			Refs: append(paths(srefs), paths(frefs)...)}
		g.plant(w, append(append([]int{}, srefs...), frefs...), i)
		g.hooks[i] = append(g.hooks[i], func() ([]string, error) {
			w.When = g.at(i).Format(time.RFC3339)
			ago := func(h int) string { return g.at(i).Add(-time.Duration(h) * time.Hour).Format(time.RFC3339) }
			var b strings.Builder
			fmt.Fprintf(&b, "{\n  \"storyId\": %q,\n  \"currentIteration\": 3,\n  \"maxIterations\": 5,\n  \"status\": \"stopped\",\n", s.id)
			fmt.Fprintf(&b, "  \"startedAt\": %q,\n  \"updatedAt\": %q,\n  \"history\": [\n", ago(30), w.When)
			fmt.Fprintf(&b, "    {\"iteration\": 1, \"reviewedAt\": %q, \"verdict\": \"REJECT\", \"issuesFound\": 4, \"fixedAt\": %q, \"issuesFixed\": 4},\n", ago(30), ago(26))
			fmt.Fprintf(&b, "    {\"iteration\": 2, \"reviewedAt\": %q, \"verdict\": \"REJECT\", \"issuesFound\": 2, \"fixedAt\": %q, \"issuesFixed\": 2},\n", ago(20), ago(12))
			fmt.Fprintf(&b, "    {\"iteration\": 3, \"reviewedAt\": %q, \"verdict\": \"REJECT\", \"issuesFound\": 1, \"fixedAt\": null, \"issuesFixed\": null}\n  ],\n", w.When)
			b.WriteString("  \"files_changed\": [\n")
			for j, p := range paths(frefs) {
				sep := ","
				if j == len(frefs)-1 {
					sep = ""
				}
				fmt.Fprintf(&b, "    %q%s\n", p, sep)
			}
			b.WriteString("  ]\n}\n")
			return []string{w.State}, gitfixture.WriteFile(g.dir, w.State, b.String())
		})
		g.wfs = append(g.wfs, w)
	}

	// 3. a nexos story checkpoint, paused after the story's last phase
	{
		i := g.commitAt(atCheckpoint)
		s := next("checkpoint")
		refs := take(shareStory)
		start(s, "InReview", i, refs)
		w := &wf{ID: "workflow:story-development-cycle-" + s.id, Kind: "nexos checkpoint",
			State: fmt.Sprintf(".nexos/workflow-state/%d-state.yaml", s.epic), Story: s.id, At: i, Refs: paths(refs)}
		g.plant(w, refs, i)
		g.hooks[i] = append(g.hooks[i], func() ([]string, error) {
			w.When = g.at(i).Format(time.RFC3339)
			var done []string
			for _, o := range g.byEpic[s.epic] {
				if o.num < s.num {
					done = append(done, fmt.Sprintf("%q", o.id))
				}
			}
			text := fmt.Sprintf("workflow: story-development-cycle\ncurrent_story: %q\ncurrent_phase: \"checkpoint\"\npaused_at: %q\nepic_id: %q\nepic_progress:\n  completed_stories: [%s]\n  next_story: %q\n  remaining_count: %d\n",
				s.id, w.When, fmt.Sprint(s.epic), strings.Join(done, ", "), s.id, storiesPerEpic-s.num+1)
			return []string{w.State}, gitfixture.WriteFile(g.dir, w.State, text)
		})
		g.wfs = append(g.wfs, w)
	}

	// 3. our own workflow state: SDC at phase 3 (implement), with a files: list
	{
		i := g.commitAt(atOurs)
		s := next("ours")
		srefs := take(shareStory)
		start(s, "InProgress", i, srefs)
		frefs := perm // the rest
		perm = nil
		id := fmt.Sprintf("sdc-%s-001", g.at(i).Format("20060102"))
		w := &wf{ID: "workflow:" + id, Kind: "workflow-state", State: ".orchestrate/workflows/" + id + ".yaml", Story: s.id, At: i,
			Refs: append(paths(srefs), paths(frefs)...)}
		g.plant(w, append(append([]int{}, srefs...), frefs...), i)
		g.hooks[i] = append(g.hooks[i], func() ([]string, error) {
			w.When = g.at(i).Format(time.RFC3339)
			var b strings.Builder
			fmt.Fprintf(&b, "# Workflow state kept by the orchestrate task.\nexecution_id: %s\nworkflow: story-development-cycle\nstory: %q\n", id, s.id)
			fmt.Fprintf(&b, "started_at: %s\nupdated_at: %s\ncurrent_phase: 3\ncurrent_agent: dev\nstatus: interrupted\nmode: autopilot\n",
				g.at(i).Add(-5*time.Hour).Format(time.RFC3339), w.When)
			fmt.Fprintf(&b, "base_commit: %s\n", g.hashes[i-1])
			fmt.Fprintf(&b, "phases_completed:\n  - phase: create\n    agent: sm\n    output: %s\n  - phase: validate\n    agent: po\n    output: %s\n", s.path, s.path)
			b.WriteString("context:\n  request: \"implement the story\"\nfiles:\n")
			for _, p := range paths(frefs) {
				fmt.Fprintf(&b, "  - %s\n", p)
			}
			return []string{w.State}, gitfixture.WriteFile(g.dir, w.State, b.String())
		})
		g.wfs = append(g.wfs, w)
	}
}

// plant schedules edits of conflictPercent of refs (at least one) in random
// commits after commit i.
func (g *gen) plant(w *wf, refs []int, i int) {
	n := max(1, int(math.Round(float64(len(refs)*conflictPercent)/100)))
	idx := append([]int{}, refs...)
	sort.Ints(idx)
	g.rng.Shuffle(len(idx), func(a, b int) { idx[a], idx[b] = idx[b], idx[a] })
	for _, f := range idx[:n] {
		c := i + 1 + g.rng.IntN(g.p.Commits-1-i)
		g.planted[c] = append(g.planted[c], f)
		w.Conflicts = append(w.Conflicts, g.files[f])
	}
	sort.Strings(w.Conflicts)
}

// finishWorkTree leaves the work tree as an interrupted session would:
// a few referenced files (and a few others) edited without committing, and
// a couple of untracked files. It returns the manifest.
func (g *gen) finishWorkTree() (*Manifest, error) {
	m := &Manifest{Params: g.p, Head: g.hashes[len(g.hashes)-1], TrackedFiles: len(g.files), Stories: len(g.stories),
		Commits: len(g.hashes), Workflows: g.wfs}
	counts := map[string]int{}
	for _, s := range g.stories {
		st := s.status
		if strings.Contains(strings.ToLower(st), "complete") || strings.HasPrefix(st, "Done") {
			st = "Done"
		}
		if strings.HasPrefix(st, "Ready") || st == "Approved" {
			st = "Ready"
		}
		counts[st]++
	}
	for _, st := range []string{"Done", "Draft", "Ready", "InProgress", "InReview"} {
		m.Statuses = append(m.Statuses, fmt.Sprintf("%d %s", counts[st], st))
	}
	var refs []int
	for f, r := range g.isRef {
		if r {
			refs = append(refs, f)
		}
	}
	m.Refs = len(refs)
	for _, w := range g.wfs {
		m.Conflicts += len(w.Conflicts)
	}
	n := max(3, len(refs)*diskEditPercent/100)
	g.rng.Shuffle(len(refs), func(a, b int) { refs[a], refs[b] = refs[b], refs[a] })
	edit := func(f int) error {
		p := filepath.Join(g.dir, filepath.FromSlash(g.files[f]))
		return os.WriteFile(p, []byte(g.content(f)+"\n// local edit, not committed yet\nfunc wip() {}\n"), 0o644)
	}
	for _, f := range refs[:n] {
		if err := edit(f); err != nil {
			return nil, err
		}
		m.DiskEdits = append(m.DiskEdits, g.files[f])
	}
	for len(m.OtherEdits) < 5 {
		f := g.rng.IntN(len(g.files))
		if g.isRef[f] {
			continue
		}
		if err := edit(f); err != nil {
			return nil, err
		}
		m.OtherEdits = append(m.OtherEdits, g.files[f])
	}
	sort.Strings(m.DiskEdits)
	sort.Strings(m.OtherEdits)
	m.Untracked = []string{"notes.tmp.md", "src/pkg000/sub00/scratch_test.go"}
	for _, u := range m.Untracked {
		if err := gitfixture.WriteFile(g.dir, u, "// scratch\n"); err != nil {
			return nil, err
		}
	}
	return m, nil
}

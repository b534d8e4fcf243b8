package discover

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/progress"
	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
	"github.com/orchestrate-dev/orchestrate/internal/tolerant"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// budgetCase is one format's memory bomb spread over files: each file
// just under the format's per-file bounds, together past the scan's
// budget (set small through Options.MaxElements).
type budgetCase struct {
	name string
	// fixed files every case of the format needs (a marker, a config)
	fixed map[string]string
	// file is the i-th file of the format: its path and content
	file func(i int) (string, string)
	n    int // the number of such files
	// weight is the source's ElementWeight (0: 1)
	weight int
}

// heavySpread is the number of files of the formats whose bombs take
// longest to parse under -race (progress, spec pipeline, spec-kit: with six
// files each, three quarters of the package's time there): three under
// -race, which still spreads the bomb (each file just under the per-file
// bounds, the first read, the last refused), six otherwise.
const heavySpread = 6 - 3*raceAsInt

func budgetCases() []budgetCase {
	return []budgetCase{
		{name: "bmad v4 stories", n: 6, file: func(i int) (string, string) {
			return fmt.Sprintf("docs/stories/1.%d.s.md", i), fmt.Sprintf("# Story 1.%d: s\n\n## Status\n\nInProgress\n\n## Tasks / Subtasks\n\n", i) +
				joinLines(20_000, func(int) string { return "- [ ] t" })
		}},
		{name: "workflow state", n: 2, file: func(i int) (string, string) {
			return fmt.Sprintf(".orchestrate/workflows/w%d.yaml", i), fmt.Sprintf("execution_id: w%d\nstatus: interrupted\nstories: [", i) +
				joinN(99_000, func(j int) string { return fmt.Sprintf("1.%d", j) }) + "]\n"
		}},
		{name: "epic", n: 6, file: func(i int) (string, string) {
			return fmt.Sprintf(".aiox/epic-E%d-state.yaml", i), fmt.Sprintf("epic_state:\n  epic_id: E%d\n  waves:\n    - wave: 1\n      stories: [", i) +
				joinN(4_998, func(j int) string { return fmt.Sprintf("s%d", j) }) + "]\n"
		}},
		{name: "qa loop", n: 6, file: func(i int) (string, string) {
			return fmt.Sprintf("qa/l%d/loop-status.json", i), fmt.Sprintf(`{"storyId":"1.%d","status":"running","history":[`, i) +
				joinN(19_999, func(int) string { return `{"iteration":1}` }) + `]}`
		}},
		{name: "work session", n: 6, file: func(i int) (string, string) {
			return fmt.Sprintf("docs/maestro/work_sessions/s%d.json", i), fmt.Sprintf(`{"wsession_id":"s%d","status":"active","breadcrumbs":[`, i) +
				joinN(19_999, func(int) string { return `"x"` }) + `]}`
		}},
		{name: "progress", n: heavySpread, weight: progress.ProgressSource.(source.Format).Weight(), file: func(i int) (string, string) {
			return fmt.Sprintf(".orchestrate/progress/p%d.md", i), "# Workflow Progress\n\n## Execution Metadata\n- **Status**: paused\n" +
				joinLines(49_000, func(int) string { return "- **K**: v" })
		}},
		{name: "spec pipeline", n: heavySpread, file: func(i int) (string, string) {
			return fmt.Sprintf("docs/specs/s%d/.pipeline-state.json", i), `{"status":"in_progress","phases":[` +
				joinN(19_999, func(j int) string { return fmt.Sprintf(`{"id":"p%d","status":"pending"}`, j) }) + `]}`
		}},
		{name: "spec-kit", n: heavySpread, fixed: map[string]string{".specify/memory/constitution.md": "x\n"}, file: func(i int) (string, string) {
			return fmt.Sprintf("specs/00%d-f/tasks.md", i), "# Tasks\n\n" + joinLines(4_999, func(j int) string { return fmt.Sprintf("- [ ] T%04d x", j) })
		}},
		{name: "gsd", n: 6, fixed: map[string]string{".planning/STATE.md": "---\nstatus: executing\n---\n# State\n", ".planning/ROADMAP.md": "# Roadmap\n"}, file: func(i int) (string, string) {
			return fmt.Sprintf(".planning/phases/0%d-p/0%d-01-PLAN.md", i, i), "---\nphase: 0" + fmt.Sprint(i) + "-p\nplan: 01\n---\n" + joinLines(40_000, func(int) string { return "- step" })
		}},
		{name: "openspec", n: 6, fixed: map[string]string{"openspec/config.yaml": "schema: spec-driven\n"}, file: func(i int) (string, string) {
			return fmt.Sprintf("openspec/changes/c%d/tasks.md", i), "## 1. Work\n\n- [x] 1.1 done\n" + joinLines(4_990, func(j int) string { return fmt.Sprintf("- [ ] 1.%d x", j+2) })
		}},
		{name: "kiro", n: 6, file: func(i int) (string, string) {
			return fmt.Sprintf(".kiro/specs/f%d/tasks.md", i), "# Implementation Plan\n\n- [x] 1. done\n" + joinLines(4_990, func(j int) string { return fmt.Sprintf("- [ ] %d. x", j+2) })
		}},
		// single-file formats: work sessions (read before them) spend the
		// budget, their one file is refused
		{name: "taskmaster", n: 3, file: func(i int) (string, string) {
			if i == 2 {
				return ".taskmaster/tasks/tasks.json", `{"tasks":[` + joinN(19_999, func(j int) string { return fmt.Sprintf(`{"id":%d}`, j+1) }) + `]}`
			}
			return budgetFiller(i)
		}},
		{name: "bmad v6 ledger", n: 3, fixed: map[string]string{"_bmad/bmm/config.yaml": "project_name: x\n"}, file: func(i int) (string, string) {
			if i == 2 {
				return "_bmad-output/implementation-artifacts/sprint-status.yaml", "development_status:\n  epic-1: in-progress\n" +
					joinLines(4_999, func(j int) string { return fmt.Sprintf("  1-%d-x: backlog", j) })
			}
			return budgetFiller(i)
		}},
	}
}

// budgetFiller is the i-th work session of 19,999 breadcrumbs: the files
// that spend the budget before a single-file format's one file.
func budgetFiller(i int) (string, string) {
	return fmt.Sprintf("docs/maestro/work_sessions/f%d.json", i), fmt.Sprintf(`{"wsession_id":"f%d","status":"done","breadcrumbs":[`, i) +
		joinN(19_999, func(int) string { return `"x"` }) + `]}`
}

// TestScanBudgetRefusesSpreadBombs: per format, files each under the
// format's bounds but together past the scan's budget are refused past
// it, the last file with a too-many finding naming where the budget ran
// out, and one warning says so; the files before it are read.
func TestScanBudgetRefusesSpreadBombs(t *testing.T) {
	for _, tc := range budgetCases() {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			files := map[string]string{}
			for p, s := range tc.fixed {
				files[p] = s
			}
			var paths []string
			for i := 0; i < tc.n; i++ {
				p, s := tc.file(i)
				files[p] = s
				paths = append(paths, p)
			}
			for p, s := range files {
				full := filepath.Join(dir, filepath.FromSlash(p))
				if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			first, last := paths[0], paths[len(paths)-1]
			// the budget holds every file but the last one, and half of it
			// (the sources that read on several goroutines, stories and
			// workflow states, may read the last one before another)
			budget := 0
			for p, s := range files {
				budget += tolerant.FileElements(p, []byte(s))
			}
			budget -= tolerant.FileElements(last, []byte(files[last])) / 2
			budget *= max(tc.weight, 1)
			r, _ := source.NewRepo(dir, config.Default())
			start := time.Now()
			res := Scan(r, Options{MaxElements: budget})
			if d := time.Since(start); d > 5*time.Second && !raceEnabled { // well under 1 s on an idle machine
				t.Errorf("scan took %v, want under 5 s", d)
			}
			var summary *workflow.Finding
			for i, f := range res.Findings {
				if f.Code == "too-many" && f.Check == workflow.CheckDiscover {
					summary = &res.Findings[i]
				}
			}
			if summary == nil || !strings.Contains(summary.Message, "the budget ran out at "+summary.Path) || !strings.Contains(summary.Message, "not read (each with a too-many finding)") {
				t.Fatalf("no warning where the scan's budget ran out: %+v", res.Findings)
			}
			if !slices.Contains(paths, summary.Path) {
				t.Errorf("the budget ran out at %s, not at one of the format's files", summary.Path)
			}
			refused := map[string]bool{}
			all := append([]workflow.Finding(nil), res.Findings...)
			for _, c := range res.Candidates {
				all = append(all, c.Findings...)
			}
			for _, f := range all {
				if f.Code == "too-many" && f.Check == workflow.CheckParse &&
					strings.Contains(f.Message, "orchestrate reads in one scan over all the repository's files") {
					refused[f.Path] = true
				}
			}
			// on one goroutine the files are read in order: the last is
			// refused, the first read; on several, one of them is refused
			parallel := tc.name == "bmad v4 stories" || tc.name == "workflow state"
			switch {
			case len(refused) == 0:
				t.Errorf("no too-many finding from the scan's budget; findings %+v", all)
			case len(refused) == len(paths):
				t.Errorf("every file was refused: %v", refused)
			case !parallel && (!refused[last] || refused[first]):
				t.Errorf("refused %v, want %s and not %s", refused, last, first)
			}
		})
	}
}

// TestScanBudgetThroughCaches: with the on-disk cache, the files the story
// and workflow-state caches read themselves draw from the budget too (cold
// scan), and so do the workflow states a warm scan takes from the cache
// (their decoded entries, fewer than when read).
func TestScanBudgetThroughCaches(t *testing.T) {
	dir := t.TempDir()
	old := time.Now().Add(-time.Hour) // out of the cache's racy window
	write := func(p, s string) {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(full, old, old); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 4; i++ {
		write(fmt.Sprintf("docs/stories/1.%d.s.md", i), fmt.Sprintf("# Story 1.%d: s\n\n## Status\n\nInProgress\n\n## Tasks\n\n", i)+
			joinLines(5_000, func(int) string { return "- t" }))
		write(fmt.Sprintf(".orchestrate/workflows/w%d.yaml", i), fmt.Sprintf("execution_id: w%d\nstatus: interrupted\nstories:\n", i)+
			joinLines(5_000, func(j int) string { return fmt.Sprintf("  - '1.%d'", j) }))
	}
	cache := diskcache.New(filepath.Join(t.TempDir(), "cache"))
	refused := func(res Result) map[string]bool {
		out := map[string]bool{}
		for _, c := range res.Candidates {
			for _, f := range c.Findings {
				if f.Code == "too-many" && strings.Contains(f.Message, "in one scan over all the repository's files") {
					out[f.Path] = true
				}
			}
		}
		return out
	}
	// the stories (about 5,000 elements each) fit, two workflow states
	// (about 5,000 entries each, 16 times that when read) do not
	scan := func() map[string]bool {
		r, _ := source.NewRepo(dir, config.Default())
		return refused(Scan(r, Options{Cache: cache, MaxElements: 4*5_010 + 2*5_004*tolerant.YAMLWeight}))
	}
	cold := scan()
	for i := 0; i < 4; i++ {
		if cold[fmt.Sprintf("docs/stories/1.%d.s.md", i)] {
			t.Errorf("cold scan: story 1.%d refused: %v", i, cold)
		}
	}
	if len(cold) != 2 {
		t.Errorf("cold scan refused %v, want two workflow states", cold)
	}
	// warm: the states read cold come from the cache (their entries
	// drawn, not 16 times them): no more is refused than cold
	warm := scan()
	if len(warm) == 0 || len(warm) > len(cold) {
		t.Errorf("warm scan refused %v, cold %v", warm, cold)
	}
}

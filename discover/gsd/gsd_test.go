package gsd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/internal/sourcetest"
	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// Real-shaped GSD files (shapes from gsd-build/get-shit-done templates,
// content invented).
const stateFM = `---
status: executing
stopped_at: Completed 07.2-01-PLAN.md
last_updated: "2025-03-02T10:00:00Z"
next_action: Execute plan 07.2-02
---
# Project State

## Current Position

**Phase:** 07.2 of 9 (API auth)
**Plan:** 1 of 3 — COMPLETE
**Status:** Executing

## Session Continuity

Last session: 2025-03-02 10:00
Stopped at: Completed 07.2-01-PLAN.md
Resume file: None
`

// stateNoFM is the older STATE.md without front matter.
const stateNoFM = `# Project State

## Current Position

Phase: 7 of 9 (Auth)
Plan: 2 of 2
Status: Ready to execute

## Session Continuity

Stopped at: Planned phase 7
Resume file: .planning/phases/07-auth/07-CONTEXT.md
`

func planMD(phase, plan string, deps, files string) string {
	return `---
phase: ` + phase + `
plan: ` + plan + `
type: execute
wave: 1
depends_on: ` + deps + `
files_modified: ` + files + `
autonomous: true
---

<objective>
Objective of plan ` + plan + `

Purpose: invented.
</objective>

<execution_context>
@~/.claude/get-shit-done/workflows/execute-plan.md
</execution_context>

<context>
@.planning/PROJECT.md
@src/shared.go
</context>

<tasks>

<task type="auto">
  <name>Task 1: First task of ` + plan + `</name>
  <files>src/a.go, src/b.go</files>
  <action>Do it.</action>
</task>

<task type="auto">
  <name>Task 2: Second</name>
</task>

</tasks>

<verification>
- [ ] go test ./...
- [x] not progress
</verification>
`
}

const summaryMD = `---
phase: 07.2-api-auth
plan: 01
key-files:
  created: [src/a.go]
  modified: []
---
# Summary
`

func pause(phase, status string) string {
	return `---
context: execution
phase: ` + phase + `
task: 2
total_tasks: 3
status: ` + status + `
last_updated: 2025-03-03T09:00:00Z
---

<current_state>
Half way through the key store.
</current_state>

<next_action>
Finish the key store tests
</next_action>
`
}

const handoffJSON = `{
  "timestamp": "2025-03-04T08:00:00Z",
  "phase": "08",
  "phase_dir": ".planning/phases/08-billing",
  "plan": 1,
  "task": 2,
  "total_tasks": 4,
  "status": "paused",
  "completed_tasks": ["1"],
  "remaining_tasks": ["2", "3"],
  "blockers": [],
  "human_actions_pending": [],
  "uncommitted_files": ["src/billing.go"],
  "next_action": "Wire the invoice export"
}`

func scan(t *testing.T, files map[string]string, times map[string]time.Time) ([]workflow.Candidate, []workflow.Finding) {
	t.Helper()
	root := t.TempDir()
	sourcetest.Write(t, root, files)
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for p := range files {
		when := base
		if tm, ok := times[p]; ok {
			when = tm
		}
		if err := os.Chtimes(filepath.Join(root, filepath.FromSlash(p)), when, when); err != nil {
			t.Fatal(err)
		}
	}
	r, _ := source.NewRepo(root, config.Default())
	return Scan(r)
}

func byID(cs []workflow.Candidate, id string) *workflow.Candidate {
	for i := range cs {
		if cs[i].ID == id {
			return &cs[i]
		}
	}
	return nil
}

const p72 = ".planning/phases/07.2-api-auth/"

func TestScan(t *testing.T) {
	later := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name      string
		files     map[string]string
		times     map[string]time.Time
		id        string // the resumable candidate expected ("" none)
		item      string
		done      int
		total     int
		status    workflow.Status
		command   string
		differs   bool
		findings  []string // finding codes expected (candidate or global)
		notIDs    []string
		fileRefs  []string
		resumable bool
	}{
		{
			name: "front matter state, slugged plans, depends_on",
			files: map[string]string{
				".planning/STATE.md":                          stateFM,
				p72 + "07.2-01-PLAN.md":                       planMD("07.2-api-auth", "01", "[]", "[src/a.go]"),
				p72 + "07.2-01-SUMMARY.md":                    summaryMD,
				p72 + "07.2-02-api-keys-PLAN.md":              planMD("07.2-api-auth", "02", `["07.2-01"]`, "[src/keys.go]"),
				p72 + "07.2-03-rotation-PLAN.md":              planMD("07.2-api-auth", "03", `["07.2-02"]`, "[]"),
				p72 + "07.2-CONTEXT.md":                       "# context\n",
				"src/a.go":                                    "package src\n",
				"src/shared.go":                               "package src\n",
				".planning/ROADMAP.md":                        "- [x] 07.2-02-PLAN.md -- not evidence\n",
				".planning/phases/07-auth/07-01-PLAN.md":      planMD("07-auth", "01", "[]", "[]"),
				".planning/phases/07-auth/07-01-SUMMARY.md":   "# s\n",
				".planning/phases/07-auth/07-VERIFICATION.md": "# v\n",
			},
			id: "phase:07.2", item: "07.2-02", done: 1, total: 3, status: workflow.StatusInProgress,
			command: "/gsd:execute-phase 7.2", resumable: true,
			notIDs:   []string{"phase:07"},
			fileRefs: []string{".planning/STATE.md", p72 + "07.2-02-api-keys-PLAN.md", p72 + "07.2-01-SUMMARY.md", p72 + "07.2-CONTEXT.md", "src/shared.go"},
		},
		{
			name: "no front matter, plans finished out of order: resume at the lowest open plan",
			files: map[string]string{
				".planning/STATE.md":                        stateNoFM,
				".planning/phases/07-auth/07-01-PLAN.md":    planMD("07-auth", "01", "[]", "[]"),
				".planning/phases/07-auth/07-02-PLAN.md":    planMD("07-auth", "02", "[]", "[]"),
				".planning/phases/07-auth/07-02-SUMMARY.md": "# s\n",
				".planning/phases/07-auth/07-00-PLAN.md":    planMD("07-auth", "00", "[]", "[]"),
				".planning/phases/07-auth/07-00-SUMMARY.md": "# s\n",
			},
			id: "phase:07", item: "07-01", done: 2, total: 3, status: workflow.StatusReady,
			command: "/gsd:execute-phase 7", resumable: true,
		},
		{
			name: "dependency holds back the lower plan",
			files: map[string]string{
				".planning/STATE.md":                     stateNoFM,
				".planning/phases/07-auth/07-01-PLAN.md": planMD("07-auth", "01", `["07-02"]`, "[]"),
				".planning/phases/07-auth/07-02-PLAN.md": planMD("07-auth", "02", "[]", "[]"),
			},
			id: "phase:07", item: "07-02", done: 0, total: 2, status: workflow.StatusReady,
			command: "/gsd:execute-phase 7", differs: true, resumable: true,
		},
		{
			name: "all summarised, no verification: verify phase",
			files: map[string]string{
				".planning/STATE.md":                        strings.Replace(stateNoFM, "Ready to execute", "verifying", 1),
				".planning/phases/07-auth/07-01-PLAN.md":    planMD("07-auth", "01", "[]", "[]"),
				".planning/phases/07-auth/07-01-SUMMARY.md": "# s\n",
			},
			id: "phase:07", item: "verify-07", done: 1, total: 1, status: workflow.StatusInReview,
			command: "/gsd:verify-work 7", resumable: true,
		},
		{
			name: "live pause note wins over STATE, resume-work",
			files: map[string]string{
				".planning/STATE.md":                            stateNoFM,
				".planning/phases/07-auth/07-01-PLAN.md":        planMD("07-auth", "01", "[]", "[]"),
				".planning/phases/08-billing/08-01-PLAN.md":     planMD("08-billing", "01", "[]", "[]"),
				".planning/phases/08-billing/08-02-PLAN.md":     planMD("08-billing", "02", "[]", "[]"),
				".planning/phases/08-billing/08-01-SUMMARY.md":  "# s\n",
				".planning/phases/08-billing/.continue-here.md": pause("08-billing", "paused_at_uat"),
			},
			times: map[string]time.Time{".planning/phases/08-billing/.continue-here.md": later},
			id:    "phase:08", item: "08-02", done: 1, total: 2, status: workflow.StatusInReview,
			command: "/gsd:resume-work", resumable: true,
		},
		{
			name: "stale pause note (Done status) reported, STATE used",
			files: map[string]string{
				".planning/STATE.md":                            stateNoFM,
				".planning/phases/07-auth/07-01-PLAN.md":        planMD("07-auth", "01", "[]", "[]"),
				".planning/phases/08-billing/08-01-PLAN.md":     planMD("08-billing", "01", "[]", "[]"),
				".planning/phases/08-billing/.continue-here.md": pause("08", "phase_complete"),
			},
			times: map[string]time.Time{".planning/phases/08-billing/.continue-here.md": later},
			// a complete pause note is no resume point, for GSD either
			id: "phase:07", item: "07-01", status: workflow.StatusReady, total: 1,
			command: "/gsd:execute-phase 7", resumable: true,
			findings: []string{"stale-pause-record"},
		},
		{
			name: "old pause file name, newer STATE says Resume file: None",
			files: map[string]string{
				".planning/STATE.md":                     stateFM,
				p72 + "07.2-01-PLAN.md":                  planMD("07.2", "01", "[]", "[]"),
				".planning/phases/07-auth/07-01-PLAN.md": planMD("07-auth", "01", "[]", "[]"),
				".planning/.continue-here-07-01.md":      "Paused.\n",
			},
			times: map[string]time.Time{".planning/STATE.md": later},
			id:    "phase:07.2", item: "07.2-01", status: workflow.StatusInProgress, total: 1,
			command: "/gsd:execute-phase 7.2", differs: true, resumable: true,
			findings: []string{"stale-pause-record"},
		},
		{
			name: "HANDOFF.json names a missing folder: stale",
			files: map[string]string{
				".planning/STATE.md":                     stateNoFM,
				".planning/phases/07-auth/07-01-PLAN.md": planMD("07-auth", "01", "[]", "[]"),
				".planning/HANDOFF.json":                 handoffJSON,
			},
			id: "phase:07", item: "07-01", status: workflow.StatusReady, total: 1,
			command: "/gsd:execute-phase 7", differs: true, resumable: true,
			findings: []string{"stale-pause-record"},
		},
		{
			name: "HANDOFF.json live: uncommitted files referenced",
			files: map[string]string{
				".planning/STATE.md":                        stateNoFM,
				".planning/phases/08-billing/08-01-PLAN.md": planMD("08", "01", "[]", "[]"),
				".planning/HANDOFF.json":                    handoffJSON,
				"src/billing.go":                            "package src\n",
			},
			id: "phase:08", item: "08-01", status: workflow.StatusInProgress, total: 1,
			command: "/gsd:resume-work", resumable: true,
			fileRefs: []string{".planning/HANDOFF.json", "src/billing.go"},
		},
		{
			name: "archived milestones are never in flight; nothing in flight",
			files: map[string]string{
				".planning/STATE.md": strings.Replace(stateNoFM, "Phase: 7 of 9", "Phase: 3 of 9", 1),
				".planning/milestones/v1.0-phases/03-old/03-01-PLAN.md": planMD("03", "01", "[]", "[]"),
			},
			findings: []string{"gsd-nothing-in-flight"},
		},
		{
			name: "quick plan without summary: low-priority candidate; interrupted agent is the framework's next",
			files: map[string]string{
				".planning/quick/001-fix-typo/001-PLAN.md": planMD("quick", "001", "[]", "[]"),
				".planning/quick/002-done/002-PLAN.md":     planMD("quick", "002", "[]", "[]"),
				".planning/quick/002-done/002-SUMMARY.md":  "# s\n",
				".planning/current-agent-id.txt":           "agent-7f3a\n",
			},
			id: "phase:quick-001-fix-typo", item: "quick-001-fix-typo", total: 1, status: workflow.StatusReady,
			command: "/gsd:quick", resumable: true, notIDs: []string{"phase:quick-002-done"},
			findings: []string{"gsd-nothing-in-flight"},
		},
		{
			name: "unknown STATE status kept raw",
			files: map[string]string{
				".planning/STATE.md":                     strings.Replace(stateNoFM, "Ready to execute", "post-execution review", 1),
				".planning/phases/07-auth/07-01-PLAN.md": planMD("07-auth", "01", "[]", "[]"),
			},
			id: "phase:07", item: "07-01", status: workflow.StatusUnknown, total: 1,
			command: "/gsd:execute-phase 7", resumable: true, findings: []string{"unknown-status"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs, global := scan(t, tt.files, tt.times)
			var all []workflow.Finding
			all = append(all, global...)
			for _, c := range cs {
				all = append(all, c.Findings...)
			}
			for _, code := range tt.findings {
				if !sourcetest.HasFinding(all, code, "") {
					t.Errorf("no %s finding in %+v", code, all)
				}
			}
			for _, id := range tt.notIDs {
				if c := byID(cs, id); c != nil && c.Resumable {
					t.Errorf("%s is resumable", id)
				}
			}
			if tt.id == "" {
				for _, c := range cs {
					if c.Resumable {
						t.Errorf("unexpected resumable %s", c.ID)
					}
				}
				return
			}
			c := byID(cs, tt.id)
			if c == nil {
				t.Fatalf("no %s in %+v", tt.id, cs)
			}
			rp := c.Resume
			if c.Type != workflow.TypePhase || c.Source.Kind != workflow.KindGSD || c.Framework != "gsd" || rp == nil {
				t.Fatalf("candidate = %+v", c)
			}
			if rp.Item != tt.item || rp.Done != tt.done || rp.Total != tt.total || rp.FrameworkCommand != tt.command || rp.Differs != tt.differs {
				t.Errorf("resume = %+v", rp)
			}
			if c.Status != string(tt.status) || c.Resumable != tt.resumable {
				t.Errorf("status %s resumable %v", c.Status, c.Resumable)
			}
			if c.Position.Index != tt.done || c.Position.Total != tt.total || c.Position.Kind != workflow.PosStep {
				t.Errorf("position = %+v", c.Position)
			}
			if c.UpdatedFrom != "mtime" || c.Source.Path == "" {
				t.Errorf("source %+v from %s", c.Source, c.UpdatedFrom)
			}
			for _, f := range tt.fileRefs {
				if _, ok := sourcetest.File(*c, f); !ok {
					t.Errorf("no referenced file %s in %+v", f, c.Files)
				}
			}
			for _, f := range c.Files {
				if strings.HasPrefix(f.Path, "~") || strings.Contains(f.Path, "ROADMAP") {
					t.Errorf("referenced %s", f.Path)
				}
			}
		})
	}
}

func TestPhaseIDOrder(t *testing.T) {
	order := []string{"07", "07.1", "07.2", "07.2.1", "07.10", "08", "10"}
	for i := 0; i+1 < len(order); i++ {
		a, _ := ParsePhaseID(order[i])
		b, _ := ParsePhaseID(order[i+1])
		if a.Compare(b) >= 0 || b.Compare(a) <= 0 {
			t.Errorf("%s !< %s", order[i], order[i+1])
		}
	}
	tests := []struct{ in, want, arg string }{
		{"7", "07", "7"}, {"07", "07", "7"}, {"07.2-api-auth", "07.2", "7.2"}, {"Phase 12", "12", "12"}, {"x", "", ""},
	}
	for _, tt := range tests {
		id, _ := ParsePhaseID(tt.in)
		if id.String() != tt.want || id.Arg() != tt.arg {
			t.Errorf("%q -> %q %q", tt.in, id.String(), id.Arg())
		}
	}
}

func TestPlanFile(t *testing.T) {
	tests := []struct {
		name    string
		phase   string
		plan    int
		summary bool
		ok      bool
	}{
		{"07-02-PLAN.md", "07", 2, false, true},
		{"07.2-03-api-auth-PLAN.md", "07.2", 3, false, true},
		{"07.2-03-SUMMARY.md", "07.2", 3, true, true},
		{"07-00-PLAN.md", "07", 0, false, true},
		{"07-CONTEXT.md", "", 0, false, false},
		{"PLAN.md", "", 0, false, false},
	}
	for _, tt := range tests {
		ph, n, s, ok := PlanFile(tt.name)
		if ok != tt.ok || (ok && (ph.String() != tt.phase || n != tt.plan || s != tt.summary)) {
			t.Errorf("%s -> %s %d %v %v", tt.name, ph, n, s, ok)
		}
	}
}

func TestStatusMapping(t *testing.T) {
	tests := []struct {
		raw   string
		pause bool
		want  workflow.Status
		ok    bool
	}{
		{"ready_to_plan", false, workflow.StatusBacklog, true},
		{"Ready to plan", false, workflow.StatusBacklog, true},
		{"planning", false, workflow.StatusDraft, true},
		{"Ready to execute", false, workflow.StatusReady, true},
		{"**Executing** — plan 2", false, workflow.StatusInProgress, true},
		{"verifying", false, workflow.StatusInReview, true},
		{"Phase complete", false, workflow.StatusDone, true},
		{"blocked", false, workflow.StatusBlocked, true},
		{"Executing Phase 03", false, workflow.StatusInProgress, true},
		{"Ready to execute 07-02", false, workflow.StatusReady, true},
		{"ready to planning", false, "", false},
		{"unknown", false, "", false},
		{"not_started", true, workflow.StatusBacklog, true},
		{"planned", true, workflow.StatusReady, true},
		{"almost_done", true, workflow.StatusInProgress, true},
		{"paused_at_uat", true, workflow.StatusInReview, true},
		{"milestone_complete", true, workflow.StatusDone, true},
		{"bugs_found", true, "", false},
	}
	for _, tt := range tests {
		var got workflow.Status
		var ok bool
		if tt.pause {
			got, ok = PauseStatus(tt.raw)
		} else {
			got, ok = StateStatus(tt.raw)
		}
		if got != tt.want || ok != tt.ok {
			t.Errorf("%q -> %q %v", tt.raw, got, ok)
		}
	}
}

// FuzzParseGSD feeds one input to every GSD parser: none may panic, and
// what they return stays bounded.
func FuzzParseGSD(f *testing.F) {
	for _, s := range []string{stateFM, stateNoFM, planMD("07", "01", `["07-00"]`, "[a.go]"), pause("07", "paused"), handoffJSON, state142, handoffHuman, "---\na: [\n---\n", "<tasks><task><name>"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		st := &state{Path: ".planning/STATE.md"}
		ParseState(st, data)
		pl := &plan{Path: ".planning/phases/07-x/07-01-PLAN.md"}
		ParsePlan(pl, data)
		rec := &record{Path: ".planning/.continue-here.md"}
		ParsePause(rec, data)
		h := &record{Path: ".planning/HANDOFF.json"}
		ParseHandoff(h, data)
		for _, s := range []string{st.StoppedAt, st.StatusRaw, pl.Objective, pl.FirstTask, rec.Note, h.Note} {
			if len(s) > 210 || strings.ContainsAny(s, "\n\r") {
				t.Fatalf("unbounded text %q", s)
			}
		}
		if len(pl.DependsOn) > maxDepends || len(pl.Modified) > maxPlanFiles || len(h.Files) > maxPlanFiles || len(h.Human) > maxHuman {
			t.Fatal("unbounded lists")
		}
		for _, s := range h.Human {
			if len(s) > 420 || strings.ContainsAny(s, "\n\r") {
				t.Fatalf("unbounded human action %q", s)
			}
		}
	})
}

// state142 is a STATE.md shaped like the ones GSD 1.42's state tools write:
// the position in the front matter (current_phase) and as bold fields of
// the body, a session stopped by context exhaustion.
const state142 = `---
gsd_state_version: 1.0
milestone: v1.0
milestone_name: milestone
current_phase: 03
current_phase_name: contacts-sync
current_plan: 1
status: executing
stopped_at: context exhaustion at 91% during 03-01 task 2
last_updated: "2026-03-01T18:22:10.000Z"
last_activity: 2026-03-01
progress:
  total_phases: 6
  completed_phases: 2
  total_plans: 14
  completed_plans: 9
  percent: 64
---

# Project State

## Project Reference

See: .planning/PROJECT.md (updated 2026-02-27)

**Core value:** invented
**Current focus:** Phase 03 — contacts-sync

## Current Position

**Current Phase:** 03
**Current Phase Name:** contacts-sync
**Total Phases:** 6
**Current Plan:** 1
**Total Plans in Phase:** 5
**Status:** Executing Phase 03
**Last Activity:** 2026-03-01

Progress: [██████░░░░] 64%

## Session Continuity

Last session: 2026-03-01T18:22:10.000Z
Stopped at: context exhaustion at 91% during 03-01 task 2
Resume file: None
`

// handoffHuman is a HANDOFF.json shaped like /gsd:pause-work's: paused,
// with a blocking human review and an absolute phase_dir.
const handoffHuman = `{
  "version": "1.0",
  "timestamp": "2026-03-02T09:12:00.000Z",
  "phase": "04",
  "phase_name": "dedupe",
  "phase_dir": "/home/dev/app/.planning/phases/04-dedupe",
  "plan": 2,
  "task": 1,
  "total_tasks": 3,
  "status": "paused",
  "completed_tasks": [{"id": 1, "name": "Score pairs", "status": "done", "commit": "abc1234"}],
  "remaining_tasks": [{"id": 2, "name": "Merge rule", "status": "not_started"}],
  "blockers": [{"description": "Product must pick the merge rule", "type": "human_action", "workaround": ""}],
  "human_actions_pending": [
    {"action": "Review the merge-rule proposal in docs/merge.md", "context": "the plan cannot pick a rule alone", "blocking": true},
    {"action": "Rotate the sandbox key", "context": "nice to have", "blocking": false}
  ],
  "decisions": [],
  "uncommitted_files": [],
  "next_action": "Apply the merge rule the reviewer picks",
  "context_notes": "invented"
}`

// TestRealShapes pins GSD's own answer (framework_next, framework_command)
// and the misreads of real-shaped files: an executing phase stopped by
// context exhaustion, plan dependency chains, a complete pause note, a
// HANDOFF.json waiting on a human.
func TestRealShapes(t *testing.T) {
	p3 := ".planning/phases/03-contacts-sync/"
	p4 := ".planning/phases/04-dedupe/"
	five := map[string]string{
		".planning/phases/02-auth/02-01-PLAN.md":      planMD("02-auth", "01", "[]", "[]"),
		".planning/phases/02-auth/02-01-SUMMARY.md":   "# s\n",
		".planning/phases/02-auth/02-VERIFICATION.md": "# v\n",
		p3 + "03-01-PLAN.md":                          planMD("03-contacts-sync", "01", "[]", "[]"),
		p3 + "03-02-PLAN.md":                          planMD("03-contacts-sync", "02", "[]", "[]"),
		p3 + "03-03-PLAN.md":                          planMD("03-contacts-sync", "03", `["03-01", "03-02"]`, "[]"),
		p3 + "03-04-PLAN.md":                          planMD("03-contacts-sync", "04", `[03-03]`, "[]"),
		p3 + "03-05-PLAN.md":                          planMD("03-contacts-sync", "05", `["04"]`, "[]"),
	}
	with := func(extra map[string]string) map[string]string {
		m := map[string]string{}
		for k, v := range five {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	later := time.Date(2026, 3, 5, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name             string
		files            map[string]string
		times            map[string]time.Time
		id, item, status string
		resumable        bool
		next, cmd, note  string
		differs          bool
		findings         []string
	}{
		{
			name:  "executing, stopped by context exhaustion, five plans, no SUMMARY: in flight",
			files: with(map[string]string{".planning/STATE.md": state142}),
			id:    "phase:03", item: "03-01", status: "InProgress", resumable: true,
			next: "03-01 (" + p3 + "03-01-PLAN.md)", cmd: "/gsd:execute-phase 3",
			note: "context exhaustion at 91% during 03-01 task 2",
		},
		{
			name:  "executing with no phase named: GSD's current phase is in flight",
			files: with(map[string]string{".planning/STATE.md": "# Project State\n\n## Current Position\n\nStatus: Executing\n\n## Session Continuity\n\nStopped at: context exhaustion\nResume file: None\n"}),
			id:    "phase:03", item: "03-01", status: "InProgress", resumable: true,
			next: "03-01 (" + p3 + "03-01-PLAN.md)", cmd: "/gsd:execute-phase 3", note: "context exhaustion",
		},
		{
			name: "a complete pause note is not the resume point",
			files: with(map[string]string{".planning/STATE.md": state142,
				p3 + ".continue-here.md": pause("03-contacts-sync", "complete")}),
			times: map[string]time.Time{p3 + ".continue-here.md": later},
			id:    "phase:03", item: "03-01", status: "InProgress", resumable: true,
			next: "03-01 (" + p3 + "03-01-PLAN.md)", cmd: "/gsd:execute-phase 3",
			note:     "context exhaustion at 91% during 03-01 task 2",
			findings: []string{"stale-pause-record"},
		},
		{
			name: "GSD takes the lowest plan; orchestrate the first whose depends_on are summarised",
			files: map[string]string{".planning/STATE.md": state142,
				p3 + "03-01-PLAN.md": planMD("03-contacts-sync", "01", `["03-02"]`, "[]"),
				p3 + "03-02-PLAN.md": planMD("03-contacts-sync", "02", "[]", "[]"),
			},
			id: "phase:03", item: "03-02", status: "InProgress", resumable: true, differs: true,
			next: "03-01 (" + p3 + "03-01-PLAN.md); GSD takes the lowest plan without a SUMMARY; 03-01 waits on an unsummarised plan (depends_on)",
			cmd:  "/gsd:execute-phase 3", note: "context exhaustion at 91% during 03-01 task 2",
		},
		{
			name: "HANDOFF.json paused on a blocking human review: used, and reported as such",
			files: with(map[string]string{".planning/STATE.md": state142,
				".planning/HANDOFF.json": handoffHuman,
				p4 + "04-01-PLAN.md":     planMD("04-dedupe", "01", "[]", "[]"),
				p4 + "04-01-SUMMARY.md":  "# s\n",
				p4 + "04-02-PLAN.md":     planMD("04-dedupe", "02", `["04-01"]`, "[]"),
			}),
			times: map[string]time.Time{".planning/HANDOFF.json": later},
			id:    "phase:04", item: "04-02", status: "InProgress", resumable: true,
			next: "04-02 (.planning/HANDOFF.json)", cmd: "/gsd:resume-work",
			note:     "waiting on a human: Review the merge-rule proposal in docs/merge.md (the plan cannot pick a rule alone)",
			findings: []string{"gsd-human-action-pending"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs, global := scan(t, tt.files, tt.times)
			c := byID(cs, tt.id)
			if c == nil {
				t.Fatalf("no %s in %+v", tt.id, cs)
			}
			rp := c.Resume
			if rp.Item != tt.item || c.Status != tt.status || c.Resumable != tt.resumable {
				t.Errorf("item %s status %s resumable %v; want %s %s %v", rp.Item, c.Status, c.Resumable, tt.item, tt.status, tt.resumable)
			}
			if rp.FrameworkNext != tt.next || rp.FrameworkCommand != tt.cmd || rp.Differs != tt.differs || rp.Note != tt.note {
				t.Errorf("next %q cmd %q differs %v note %q\nwant %q %q %v %q", rp.FrameworkNext, rp.FrameworkCommand, rp.Differs, rp.Note, tt.next, tt.cmd, tt.differs, tt.note)
			}
			all := append(append([]workflow.Finding(nil), global...), c.Findings...)
			for _, code := range tt.findings {
				if !sourcetest.HasFinding(all, code, "") {
					t.Errorf("no %s finding in %+v", code, all)
				}
			}
			for _, f := range all {
				if f.Code == "gsd-human-action-pending" && (f.Severity != workflow.Blocking || !strings.Contains(f.Message, "Review the merge-rule proposal") || strings.Contains(f.Message, "Rotate")) {
					t.Errorf("human action finding %+v", f)
				}
			}
		})
	}
}

// TestDependencyChain checks that plans' depends_on reach the phases of the
// candidate, as plan items.
func TestDependencyChain(t *testing.T) {
	p3 := ".planning/phases/03-contacts-sync/"
	cs, _ := scan(t, map[string]string{
		".planning/STATE.md": state142,
		p3 + "03-01-PLAN.md": planMD("03-contacts-sync", "01", "[]", "[]"),
		p3 + "03-02-PLAN.md": planMD("03-contacts-sync", "02", `["03-01"]`, "[]"),
		p3 + "03-03-PLAN.md": planMD("03-contacts-sync", "03", `["01", "03-02-PLAN.md"]`, "[]"),
		p3 + "03-04-PLAN.md": planMD("03-contacts-sync", "04", `[02-05]`, "[]"),
	}, nil)
	c := byID(cs, "phase:03")
	if c == nil {
		t.Fatal("no phase:03")
	}
	want := map[string]string{"03-01": "", "03-02": "03-01", "03-03": "03-01 03-02", "03-04": "02-05", "verify-03": ""}
	for _, ph := range c.Phases {
		if got := strings.Join(ph.DependsOn, " "); got != want[ph.ID] {
			t.Errorf("%s depends on %q, want %q", ph.ID, got, want[ph.ID])
		}
	}
}

package attacktest

import (
	"fmt"
	"strings"
	"testing"
)

// bombSize is the size the format bombs grow to: under the 8 MiB read cap
// (max_file_size), so they are read, not refused.
const bombSize = 8_000_000

// bomb is head, then unit(i) for i = 0, 1, … joined by sep, then foot, as
// long as the whole stays within bombSize.
func bomb(head string, unit func(i int) string, sep, foot string) []byte {
	var b strings.Builder
	b.Grow(bombSize)
	b.WriteString(head)
	for i := 0; ; i++ {
		u := unit(i)
		if b.Len()+len(sep)+len(u)+len(foot) > bombSize {
			break
		}
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(u)
	}
	b.WriteString(foot)
	return []byte(b.String())
}

// maxStderrLines bounds the lines of warnings a run prints: findings and
// warnings are capped with a count of the rest.
const maxStderrLines = 200

// Files under the 8 MiB cap whose element count blew up time and memory:
// a tasks.json of 2.8 M `{}` (>60 s, 2.4 GB, 923,000 warning lines), a
// QA-loop index (3.4 GB), epic waves (34 s, 1.8 GB), four epic files
// (>150 s, 3.8 GB), work-session subtasks (2.5 GB) and breadcrumbs
// (1.8 GB). Every format has element-count and total-work limits: status,
// status --json and a dry run answer within the time and memory bounds,
// with a bounded number of warning lines, and nothing is written.
func TestAttackFormatBombs(t *testing.T) {
	t.Parallel()
	epic := func(n int) []byte {
		return bomb(fmt.Sprintf("epic_state: {epicId: E%d, status: paused, currentWave: 1, updatedAt: '2026-11-20T11:00:00Z', waves: [", n),
			func(i int) string { return fmt.Sprintf("{wave: %d, status: pending, stories: ['%d.1']}", i+1, i+1) }, ", ", "]}\n")
	}
	for _, tc := range []struct {
		name   string
		files  map[string][]byte
		dryRun string // the workflow a dry run resumes ("" for autopilot's pick)
	}{
		{"tasks-json-empty-objects", map[string][]byte{
			".taskmaster/tasks/tasks.json": bomb(`{"master": {"tasks": [`, func(int) string { return "{}" }, ",", "]}}\n"),
			".taskmaster/config.json":      []byte(`{ "global": { "defaultTag": "master" } }` + "\n"),
		}, ""},
		{"tasks-json-tasks", map[string][]byte{
			".taskmaster/tasks/tasks.json": bomb(`{"master": {"tasks": [`, func(i int) string {
				return fmt.Sprintf(`{"id":%d,"status":"in-progress","dependencies":[%d]}`, i+1, i+2)
			}, ",", "]}}\n"),
			".taskmaster/config.json": []byte(`{ "global": { "defaultTag": "master" } }` + "\n"),
		}, ""},
		{"qa-loop-index", map[string][]byte{
			".aiox/qa-loops-index.json": bomb(`{"loops": [`, func(i int) string {
				return fmt.Sprintf(`{"storyId":"%d.1","status":"in_progress"}`, i+1)
			}, ",", "]}\n"),
		}, ""},
		{"epic-waves", map[string][]byte{".aiox/epic-E1-state.yaml": epic(1)}, "epic:E1"},
		{"four-epic-files", map[string][]byte{
			".aiox/epic-E1-state.yaml": epic(1), ".aiox/epic-E2-state.yaml": epic(2),
			".aiox/epic-E3-state.yaml": epic(3), ".aiox/epic-E4-state.yaml": epic(4),
		}, "epic:E4"},
		{"work-session-subtasks", map[string][]byte{
			"docs/maestro/work_sessions/ws-1.json": bomb(`{"id": "ws-1", "task_id": "task-1", "ai_session_id": "ai-1", "status": "active", "created_at": "2026-11-20T10:00:00Z", "subtasks": [`,
				func(i int) string { return fmt.Sprintf(`{"wsession_id":"s-%d","status":"open"}`, i) }, ",", "]}\n"),
			"docs/maestro/tasks/task-1.json": []byte(`{"id": "task-1", "title": "T", "status": "in_progress", "created_at": "2026-11-20T10:00:00Z"}` + "\n"),
			".nexos/agents/dev.md":           []byte("# dev\n"),
		}, "work-session:ws-1"},
		{"work-session-breadcrumbs", map[string][]byte{
			"docs/maestro/work_sessions/ws-1.json": bomb(`{"id": "ws-1", "task_id": "task-1", "ai_session_id": "ai-1", "status": "active", "created_at": "2026-11-20T10:00:00Z", "breadcrumbs": [`,
				func(i int) string { return fmt.Sprintf(`{"id":"bc-%d","message":"m"}`, i) }, ",", "]}\n"),
			"docs/maestro/tasks/task-1.json": []byte(`{"id": "task-1", "title": "T", "status": "in_progress", "created_at": "2026-11-20T10:00:00Z"}` + "\n"),
			".nexos/agents/dev.md":           []byte("# dev\n"),
		}, "work-session:ws-1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			e.writeTxtar("sdc.txtar")
			for p, b := range tc.files {
				e.write(p, b)
			}
			e.commitAll("the bomb")
			e.extra = append(e.extra, "ORCHESTRATE_HANDOFF_COMMAND="+e.handoffCommand())
			before := snapshot(t, e.repo, false)
			check := func(r result, codes ...int) {
				t.Helper()
				ok := false
				for _, c := range codes {
					ok = ok || r.code == c
				}
				if !ok {
					t.Errorf("%s: want exit %v\nstdout: %s\nstderr: %s", r, codes, tail(r.stdout), tail(r.stderr))
				}
				if n := strings.Count(r.stderr, "\n"); n > maxStderrLines {
					t.Errorf("%s: %d lines on stderr (over %d: warnings are not capped)", r, n, maxStderrLines)
				}
			}
			r := e.run("status")
			check(r, 0)
			wantOut(t, r, "workflow:sdc-1")
			check(e.run("status", "--all", "--json"), 0)
			args := []string{"resume", "--mode", "autopilot", "--dry-run"}
			if tc.dryRun != "" {
				args = append(args, tc.dryRun)
			}
			check(e.run(args...), 0, 17)
			sameFiles(t, "status and dry runs", before, snapshot(t, e.repo, false))
			if n := e.agentStarts(); n != 0 {
				t.Errorf("a dry run started %d agents", n)
			}
		})
	}
}

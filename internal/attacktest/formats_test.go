package attacktest

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// bombSize is the size the format bombs grow to: under the 8 MiB read cap
// (max_file_size), so they are read, not refused.
const bombSize = 8_000_000

// A bomb is head, then unit(i) for i = 0, 1, … joined by sep, then foot,
// as long as the whole stays within bombSize. It is written straight to its
// file: the test process stays small.
type bomb struct {
	head      string
	unit      func(i int) string
	sep, foot string
	maxUnits  int // the most units written (0: as many as bombSize holds)
}

// writeTo writes the bomb to the repository file rel.
func (b bomb) writeTo(e *env, rel string) {
	e.t.Helper()
	p := filepath.Join(e.repo, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	f, err := os.Create(p)
	if err != nil {
		e.t.Fatal(err)
	}
	// units are appended to a buffer written out a MiB at a time (a
	// bufio write per unit cost more than the unit under -race)
	buf := make([]byte, 0, 1<<20)
	flush := func() {
		if _, err := f.Write(buf); err != nil {
			e.t.Fatal(err)
		}
		buf = buf[:0]
	}
	buf = append(buf, b.head...)
	n := len(b.head)
	for i := 0; b.unit != nil && (b.maxUnits == 0 || i < b.maxUnits); i++ {
		u := b.unit(i)
		if n+len(b.sep)+len(u)+len(b.foot) > bombSize {
			break
		}
		if i > 0 {
			buf = append(buf, b.sep...)
			n += len(b.sep)
		}
		buf = append(buf, u...)
		n += len(u)
		if len(buf) >= 1<<20 {
			flush()
		}
	}
	buf = append(buf, b.foot...)
	flush()
	if err := f.Close(); err != nil {
		e.t.Fatal(err)
	}
	if err := os.Chtimes(p, commitTime, commitTime); err != nil {
		e.t.Fatal(err)
	}
}

// units renders the bomb's units joined by sep, as writeTo writes them
// after head, and whether they are all maxUnits of them (bombSize did not
// cut them short): only then are they the same after another head.
func (b bomb) units() (body []byte, all bool) {
	n := len(b.head)
	i := 0
	for ; b.unit != nil && (b.maxUnits == 0 || i < b.maxUnits); i++ {
		u := b.unit(i)
		if n+len(b.sep)+len(u)+len(b.foot) > bombSize {
			return body, false
		}
		if i > 0 {
			body = append(body, b.sep...)
			n += len(b.sep)
		}
		body = append(body, u...)
		n += len(u)
	}
	return body, b.maxUnits > 0 && i == b.maxUnits
}

// writeUnits writes head, body and foot to the repository file rel: the
// same file as writeTo when body is b's units (rendered once by units for
// bombs that differ in their head only).
func (b bomb) writeUnits(e *env, rel string, body []byte) {
	e.t.Helper()
	if len(b.head)+len(body)+len(b.foot) > bombSize {
		e.t.Fatalf("%s: %d bytes, over bombSize", rel, len(b.head)+len(body)+len(b.foot))
	}
	p := filepath.Join(e.repo, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	data := make([]byte, 0, len(b.head)+len(body)+len(b.foot))
	data = append(append(append(data, b.head...), body...), b.foot...)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		e.t.Fatal(err)
	}
	if err := os.Chtimes(p, commitTime, commitTime); err != nil {
		e.t.Fatal(err)
	}
}

// itoa is strconv.Itoa: the bombs' units are built with it, not
// fmt.Sprintf (millions of units; Sprintf was most of the setup under -race).
func itoa(i int) string { return strconv.Itoa(i) }

// text is a small file that is not a bomb.
func text(s string) bomb { return bomb{head: s} }

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
	epic := func(n int) bomb {
		return bomb{fmt.Sprintf("epic_state: {epicId: E%d, status: paused, currentWave: 1, updatedAt: '2026-11-20T11:00:00Z', waves: [", n),
			func(i int) string {
				n := itoa(i + 1)
				return "{wave: " + n + ", status: pending, stories: ['" + n + ".1']}"
			}, ", ", "]}\n", 0}
	}
	for _, tc := range []struct {
		name   string
		files  map[string]bomb
		dryRun string // the workflow a dry run resumes ("" for autopilot's pick)
		values int    // values (list entries and fields) per unit, for the bomb under the value limit
	}{
		{"tasks-json-empty-objects", map[string]bomb{
			".taskmaster/tasks/tasks.json": bomb{`{"master": {"tasks": [`, func(int) string { return "{}" }, ",", "]}}\n", 0},
			".taskmaster/config.json":      text(`{ "global": { "defaultTag": "master" } }` + "\n"),
		}, "", 1},
		{"tasks-json-tasks", map[string]bomb{
			".taskmaster/tasks/tasks.json": {`{"master": {"tasks": [`, func(i int) string {
				return `{"id":` + itoa(i+1) + `,"status":"in-progress","dependencies":[` + itoa(i+2) + `]}`
			}, ",", "]}}\n", 0},
			".taskmaster/config.json": text(`{ "global": { "defaultTag": "master" } }` + "\n"),
		}, "", 5},
		{"qa-loop-index", map[string]bomb{
			".aiox/qa-loops-index.json": {`{"loops": [`, func(i int) string {
				return `{"storyId":"` + itoa(i+1) + `.1","status":"in_progress"}`
			}, ",", "]}\n", 0},
		}, "", 3},
		{"epic-waves", map[string]bomb{".aiox/epic-E1-state.yaml": epic(1)}, "epic:E1", 5},
		{"four-epic-files", map[string]bomb{
			".aiox/epic-E1-state.yaml": epic(1), ".aiox/epic-E2-state.yaml": epic(2),
			".aiox/epic-E3-state.yaml": epic(3), ".aiox/epic-E4-state.yaml": epic(4),
		}, "epic:E4", 5},
		{"work-session-subtasks", map[string]bomb{
			"docs/maestro/work_sessions/ws-1.json": {`{"id": "ws-1", "task_id": "task-1", "ai_session_id": "ai-1", "status": "active", "created_at": "2026-11-20T10:00:00Z", "subtasks": [`,
				func(i int) string { return `{"wsession_id":"s-` + itoa(i) + `","status":"open"}` }, ",", "]}\n", 0},
			"docs/maestro/tasks/task-1.json": text(`{"id": "task-1", "title": "T", "status": "in_progress", "created_at": "2026-11-20T10:00:00Z"}` + "\n"),
			".nexos/agents/dev.md":           text("# dev\n"),
		}, "work-session:ws-1", 3},
		{"work-session-breadcrumbs", map[string]bomb{
			"docs/maestro/work_sessions/ws-1.json": {`{"id": "ws-1", "task_id": "task-1", "ai_session_id": "ai-1", "status": "active", "created_at": "2026-11-20T10:00:00Z", "breadcrumbs": [`,
				func(i int) string { return `{"id":"bc-` + itoa(i) + `","message":"m"}` }, ",", "]}\n", 0},
			"docs/maestro/tasks/task-1.json": text(`{"id": "task-1", "title": "T", "status": "in_progress", "created_at": "2026-11-20T10:00:00Z"}` + "\n"),
			".nexos/agents/dev.md":           text("# dev\n"),
		}, "work-session:ws-1", 3},
	} {
		for _, under := range []bool{false, true} {
			name := tc.name
			if under {
				// as many elements as the value limit lets through: read
				// whole, so the work per element must be bounded too
				name += "/under-value-limit"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				runBomb(t, tc.files, tc.dryRun, tc.values, under)
			})
		}
	}
}

// underValueLimit is how many values the bombs under the limit hold: just
// below tolerant.MaxNodes (500,000).
const underValueLimit = 480_000

// runBomb writes the bomb files into the sdc fixture and checks status,
// status --json and a dry run.
func runBomb(t *testing.T, files map[string]bomb, dryRun string, values int, under bool) {
	e := newEnv(t)
	e.writeTxtar("sdc.txtar")
	for p, b := range files {
		if under && b.unit != nil {
			b.maxUnits = underValueLimit / values
		}
		b.writeTo(e, p)
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
	r = e.run("status", "--all", "--json")
	check(r, 0)
	for p := range files {
		if strings.HasSuffix(p, ".md") || strings.HasSuffix(p, "config.json") || strings.Contains(p, "/tasks/task-") {
			continue
		}
		// the bomb was found and answered for, not missed
		if !strings.Contains(r.stdout, `"`+p+`"`) && !strings.Contains(r.stderr, p) {
			t.Errorf("%s: %s is not named in the answer (the bomb was not read?)", r, p)
		}
	}
	if os.Getenv("ATTACK_SHOW") != "" {
		t.Log(r.stdout)
	}
	args := []string{"resume", "--mode", "autopilot", "--dry-run"}
	if dryRun != "" {
		args = append(args, dryRun)
	}
	check(e.run(args...), 0, 17)
	sameFiles(t, "status and dry runs", before, snapshot(t, e.repo, false))
	if n := e.agentStarts(); n != 0 {
		t.Errorf("a dry run started %d agents", n)
	}
}

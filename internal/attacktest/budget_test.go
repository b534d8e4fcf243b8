package attacktest

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// A memory bomb spread over many files: each file under every per-file
// bound of its format (list entries, values, bytes), so that no per-file
// check stops it, and together far past what a scan may read. Before the
// scan's budget (tolerant.MaxScanReadElements), the work grew with the
// number of files without bound. Now the files past the budget are refused
// with a too-many finding, one warning names the file where it ran out, the
// rest of the repository (the fixture's workflow) is still listed, and
// nothing is written.
func TestAttackScanBudget(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		files int
		path  func(i int) string
		bomb  func(i int) bomb
		// kinds: bomb(i) and bomb(i+kinds) have the same units (their
		// heads differ), rendered once
		kinds int
	}{
		// 90,000 stories per state (the per-file bound is 100,000 entries),
		// YAML: each file draws 1,440,000, three are read
		{"workflow-states", 12, func(i int) string { return fmt.Sprintf(".orchestrate/workflows/w%02d.yaml", i) },
			func(i int) bomb {
				return bomb{fmt.Sprintf("execution_id: w%02d\nstatus: interrupted\nstories:\n", i), func(j int) string { return fmt.Sprintf("  - '9.%d'", j) }, "\n", "\n", 90_000}
			}, 1},
		// 45,000 list items per progress file (the bound is 50,000)
		{"progress-files", 30, func(i int) string { return fmt.Sprintf(".orchestrate/progress/p%02d.md", i) },
			func(i int) bomb {
				return bomb{"# Workflow Progress\n\n## Execution Metadata\n- **Status**: paused\n", func(int) string { return "- **K**: v" }, "\n", "\n", 45_000}
			}, 1},
		// 19,000 subtasks per work session or iterations per QA loop (the
		// bound is 20,000; each source reads 200,000 in all), and as many
		// phases per spec pipeline: about 40,000 elements each
		{"json-states", 150, func(i int) string {
			switch i % 3 {
			case 0:
				return fmt.Sprintf("docs/maestro/work_sessions/ws-%03d.json", i)
			case 1:
				return fmt.Sprintf("qa/l%03d/loop-status.json", i)
			}
			return fmt.Sprintf("docs/specs/s%03d/.pipeline-state.json", i)
		}, func(i int) bomb {
			switch i % 3 {
			case 2:
				return bomb{`{"status": "in_progress", "phases": [`,
					func(j int) string { return fmt.Sprintf(`{"id":"p%d","status":"pending"}`, j) }, ",", "]}\n", 19_000}
			case 0:
				return bomb{fmt.Sprintf(`{"id": "ws-%02d", "status": "active", "created_at": "2026-11-20T10:00:00Z", "subtasks": [`, i),
					func(j int) string { return fmt.Sprintf(`{"wsession_id":"s-%d","status":"open"}`, j) }, ",", "]}\n", 19_000}
			}
			return bomb{fmt.Sprintf(`{"storyId": "9.%d", "status": "running", "history": [`, i),
				func(j int) string { return fmt.Sprintf(`{"iteration":%d,"verdict":"REJECT"}`, j) }, ",", "]}\n", 19_000}
		}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// one bomb at a time: each run reads up to the scan's whole
			// budget, and three at once on two cores would measure the
			// machine, not the bound
			e := newEnv(t)
			e.writeTxtar("sdc.txtar")
			// the units of each kind are rendered once (millions of
			// them in all: formatting them per file took most of the
			// test's time under -race); each file is written whole, the
			// same bytes as writeTo writes
			bodies := map[int][]byte{}
			for i := 0; i < tc.files; i++ {
				b := tc.bomb(i)
				body, ok := bodies[i%tc.kinds]
				if !ok {
					var all bool
					if body, all = b.units(); !all {
						t.Fatalf("%s: bombSize cut the units short: they would depend on the head", tc.path(i))
					}
					bodies[i%tc.kinds] = body
				} else if u0, un := b.unit(0), b.unit(b.maxUnits-1); !bytes.HasPrefix(body, []byte(u0)) || !bytes.HasSuffix(body, []byte(un)) {
					t.Fatalf("%s: its units are not those of its kind (%d)", tc.path(i), i%tc.kinds)
				}
				b.writeUnits(e, tc.path(i), body)
			}
			e.commitAll("the bomb")
			e.extra = append(e.extra, "ORCHESTRATE_HANDOFF_COMMAND="+e.handoffCommand())
			before := snapshot(t, e.repo, false)
			for _, args := range [][]string{{"status"}, {"status", "--all", "--json"}} {
				r := e.run(args...)
				wantCode(t, r, 0)
				wantOut(t, r, "workflow:sdc-1") // the rest of the repository is listed
				all := r.stdout + r.stderr
				if !strings.Contains(all, "orchestrate reads in one scan over all the repository's files; the budget ran out at ") {
					t.Errorf("%s: no warning where the scan's budget ran out\nstderr: %s", r, tail(r.stderr))
				}
				if !strings.Contains(all, tc.path(tc.files-1)) || !strings.Contains(all, "too-many") {
					t.Errorf("%s: the last file, %s, is not named with a too-many finding\nstdout: %s", r, tc.path(tc.files-1), tail(r.stdout))
				}
				if n := strings.Count(r.stderr, "\n"); n > maxStderrLines {
					t.Errorf("%s: %d lines on stderr (over %d)", r, n, maxStderrLines)
				}
			}
			r := e.run("resume", "--mode", "autopilot", "--dry-run")
			if r.code != 0 && r.code != 17 {
				t.Errorf("%s: want exit 0 or 17\nstderr: %s", r, tail(r.stderr))
			}
			sameFiles(t, "status and a dry run", before, snapshot(t, e.repo, false))
			if n := e.agentStarts(); n != 0 {
				t.Errorf("a dry run started %d agents", n)
			}
		})
	}
}

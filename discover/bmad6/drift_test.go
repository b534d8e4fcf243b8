package bmad6

import (
	"strings"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/workflow"
)

func TestScanDrift(t *testing.T) {
	const dir = "_bmad-output/implementation-artifacts/"
	older := time.Date(2025, 11, 1, 9, 0, 0, 0, time.UTC)
	newer := older.Add(26 * time.Hour)
	tests := []struct {
		name         string
		ledger, file string
		fileNewer    bool
		id           string
		code         string // "" for no drift finding
		severity     workflow.Severity
		newerSide    string
	}{
		{"interrupted dev-story", "in-progress", "ready-for-dev", false, "sdc:1.1", "", "", ""},
		{"file not updated after review", "done", "review", false, "story:1.1", "ledger-drift", workflow.Info, "the ledger changed after the story file"},
		{"review sent it back", "in-progress", "review", false, "sdc:1.1", "ledger-drift", workflow.Warning, "the ledger changed after the story file"},
		{"ledger lags (review)", "review", "done", true, "qa-review:1.1", "ledger-lags", workflow.Warning, "the story file changed after the ledger"},
		{"ledger lags (drafted)", "drafted", "done", true, "story:1.1", "ledger-lags", workflow.Warning, "the story file changed after the ledger"},
		{"ledger lags (backlog)", "backlog", "done", true, "story:1.1", "ledger-lags", workflow.Warning, "the story file changed after the ledger"},
		{"file in progress, ledger ready", "ready-for-dev", "in-progress", true, "sdc:1.1", "ledger-drift", workflow.Info, "the story file changed after the ledger"},
		{"both unknown, different raw", "dev-complete", "implemented", false, "story:1.1", "ledger-drift", workflow.Info, ""},
		{"both unknown, same raw", "dev-complete", "Dev-Complete", false, "story:1.1", "", "", ""},
		{"agree", "done", "Done", false, "story:1.1", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := repoWith(t, map[string]string{
				dir + "sprint-status.yaml": ledger("", "1-1-login: "+tt.ledger),
				dir + "1-1-login.md":       storyMD("1.1", tt.file, ""),
			})
			lt, ft := newer, older
			if tt.fileNewer {
				lt, ft = older, newer
			}
			touch(t, r, dir+"sprint-status.yaml", lt)
			touch(t, r, dir+"1-1-login.md", ft)
			cs, _ := scan(r)
			if len(cs) != 1 || cs[0].ID != tt.id {
				t.Fatalf("candidates %v, want %s", ids(cs), tt.id)
			}
			var drift *workflow.Finding
			for i, f := range cs[0].Findings {
				if f.Check == workflow.CheckConsistency {
					drift = &cs[0].Findings[i]
				}
			}
			switch {
			case tt.code == "" && drift != nil:
				t.Errorf("unexpected drift finding %v", drift)
			case tt.code != "" && drift == nil:
				t.Errorf("no drift finding")
			case tt.code != "" && (drift.Code != tt.code || drift.Severity != tt.severity || !strings.Contains(drift.Message, tt.newerSide)):
				t.Errorf("drift %+v, want %s %s naming %q", drift, tt.code, tt.severity, tt.newerSide)
			}
		})
	}
}

func TestScanTwoLedgersAndHoles(t *testing.T) {
	r := repoWith(t, map[string]string{
		"docs/sprint-status.yaml":                                  ledger("", "1-1-a: in-progress"),
		"docs/stories/1-1-a.md":                                    "# Story 1.1: A\n\nStatus: in-progress\n\n## Tasks / Subtasks\n\n- [ ] Task 1: skipped\n- [x] Task 2: done\n- [ ] Task 3: next\n",
		"_bmad-output/implementation-artifacts/sprint-status.yaml": ledger("", "2-1-b: review"),
	})
	cs, _ := scan(r)
	if len(cs) != 2 {
		t.Fatalf("both ledgers are read: %v", ids(cs))
	}
	for _, c := range cs {
		if c.ID == "sdc:1.1" && (c.Resume.Item != "Task 1" || len(c.Resume.Holes) != 1) {
			t.Errorf("resume %+v", c.Resume)
		}
	}
}

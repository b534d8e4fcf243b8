package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/orchestrate-dev/orchestrate/templates"
)

// positionRe is the one numbering (workflow.Position.String): a count
// always, "D/N done" or "D done" (no total known), "iterations" for QA
// loops, then the item to resume or the last closed one; "-" for none.
var positionRe = regexp.MustCompile(`^(-|\d+(/\d+)?( iterations)? done(, at .+|, last: .+)?)$`)

// TestOneNumbering is a property over every fixture of the end-to-end
// scripts, hostile ones included (laid out without git), so every
// framework and workflow type: for each candidate (--all), status and
// status --json give the same position in the one convention, a count
// always shown; for each resumable one, resume --json and the resume block
// give it too (unless the plan re-runs invalid phases on purpose, or status
// could not read the state: "-"); where the framework names the item to resume
// (candidate.resume_point), the position's count is its done/total, its
// "at" is its item, and plan.resume_from.item is that item too.
func TestOneNumbering(t *testing.T) {
	scripts, err := filepath.Glob("../../testdata/script/*/*.txtar")
	if err != nil || len(scripts) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	want := []string{"epic", "qa-loop", "workflow", "sdc", "qa-review", "spec-pipeline", "progress", "work-session", "feature", "task", "phase", "change", "spec"}
	seen := map[string]bool{}
	checked := 0
	for _, script := range scripts {
		name := strings.TrimSuffix(filepath.Base(script), ".txtar")
		ar, err := txtar.ParseFile(script)
		if err != nil {
			t.Fatal(err)
		}
		files := map[string]string{}
		for _, f := range ar.Files {
			files[f.Name] = string(f.Data)
		}
		dir := testRepo(t, files)
		st := run(t, dir, nil, false, "status", "--json", "--all")
		var doc struct {
			Candidates []struct {
				ID, Type, Position string
				Resumable          bool
				ResumePoint        *struct {
					Item        string
					Done, Total int
				} `json:"resume_point"`
			}
		}
		if json.Unmarshal(st.out.Bytes(), &doc) != nil {
			continue
		}
		table := run(t, dir, nil, false, "status", "--all").out.String()
		for _, c := range doc.Candidates {
			c := c
			t.Run(name+"/"+c.ID, func(t *testing.T) {
				if !positionRe.MatchString(c.Position) {
					t.Errorf("%s: position %q is not in the one numbering", c.Type, c.Position)
				}
				if !strings.Contains(table, templates.Safe(c.Position)) { // the table escapes control bytes
					t.Errorf("%s: status --json %q, not in the table:\n%s", c.Type, c.Position, table)
				}
				if rp := c.ResumePoint; rp != nil && c.Position != "-" {
					count := fmt.Sprintf("%d/%d done", rp.Done, rp.Total)
					if rp.Total == 0 {
						count = fmt.Sprintf("%d done", rp.Done)
					}
					if !strings.HasPrefix(c.Position, count) {
						t.Errorf("%s: position %q, resume_point %d/%d", c.Type, c.Position, rp.Done, rp.Total)
					}
					if rp.Item != "" && !strings.HasSuffix(c.Position, ", at "+rp.Item) {
						t.Errorf("%s: position %q, resume_point item %q", c.Type, c.Position, rp.Item)
					}
				}
				if !c.Resumable {
					return
				}
				js := run(t, dir, nil, false, "resume", c.ID, "--dry-run", "--json", "--mode", "preflight")
				var rd struct {
					Plan *struct {
						Position      string   `json:"position"`
						InvalidPhases []string `json:"invalid_phases"`
						ResumeFrom    struct {
							Phase, Item string
						} `json:"resume_from"`
					} `json:"plan"`
				}
				if err := json.Unmarshal(js.out.Bytes(), &rd); err != nil || rd.Plan == nil || rd.Plan.Position == "" {
					t.Skipf("no plan (exit %d)", js.code)
				}
				seen[c.Type] = true
				checked++
				if !positionRe.MatchString(rd.Plan.Position) {
					t.Errorf("%s: plan position %q is not in the one numbering", c.Type, rd.Plan.Position)
				}
				if rp := c.ResumePoint; rp != nil && rp.Item != "" && rd.Plan.ResumeFrom.Item != rp.Item {
					t.Errorf("%s: plan.resume_from %+v, resume_point item %q", c.Type, rd.Plan.ResumeFrom, rp.Item)
				}
				// a partial resume starts earlier, on purpose; a state status
				// cannot read ("-") the plan starts from its beginning
				moved := len(rd.Plan.InvalidPhases) > 0 || c.Position == "-"
				if !moved && rd.Plan.Position != c.Position {
					t.Errorf("%s: status %q, resume --json %q", c.Type, c.Position, rd.Plan.Position)
				}
				human := run(t, dir, nil, false, "resume", c.ID, "--dry-run", "--mode", "autopilot")
				if out := human.out.String(); !moved && strings.Contains(out, "Resume Point:") && !strings.Contains(out, "-> "+templates.Safe(rd.Plan.Position)) {
					t.Errorf("%s: resume --json %q, the resume block says:\n%s", c.Type, rd.Plan.Position, human.out.String())
				}
			})
		}
	}
	for _, ty := range want {
		if !seen[ty] {
			t.Errorf("no fixture of type %s", ty)
		}
	}
	t.Logf("%d candidates checked", checked)
}

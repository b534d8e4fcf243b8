package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// TestOneNumbering checks, for every workflow type, that status, the resume
// block and resume --json give a candidate the same position: the same kind
// word, index and total. The fixtures are the files of the end-to-end
// scripts, laid out without git.
func TestOneNumbering(t *testing.T) {
	scripts, err := filepath.Glob("../../testdata/script/*.txtar")
	if err != nil || len(scripts) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	want := []string{"epic", "qa-loop", "workflow", "sdc", "spec-pipeline", "progress", "work-session", "feature", "task", "phase"}
	seen := map[string]bool{}
	for _, script := range scripts {
		name := strings.TrimSuffix(filepath.Base(script), ".txtar")
		if strings.HasPrefix(name, "hostile_") || strings.HasPrefix(name, "security_") {
			continue // hostile inputs: their positions are checked by their own scripts
		}
		ar, err := txtar.ParseFile(script)
		if err != nil {
			t.Fatal(err)
		}
		files := map[string]string{}
		for _, f := range ar.Files {
			files[f.Name] = string(f.Data)
		}
		dir := testRepo(t, files)
		st := run(t, dir, nil, false, "status", "--json")
		var doc struct {
			Candidates []struct {
				ID, Type, Position string
				Resumable          bool
			}
		}
		if json.Unmarshal(st.out.Bytes(), &doc) != nil {
			continue
		}
		for _, c := range doc.Candidates {
			// a corrupt QA state status cannot place ("-"); the plan starts it at iteration 1
			if !c.Resumable || c.Position == "-" && c.Type == "qa-loop" || seen[c.Type] && c.Type != "qa-loop" {
				continue
			}
			t.Run(name+"/"+c.ID, func(t *testing.T) {
				js := run(t, dir, nil, false, "resume", c.ID, "--dry-run", "--json", "--mode", "preflight")
				var rd struct {
					Plan *struct {
						Position string `json:"position"`
						Terminal bool
					} `json:"plan"`
				}
				if err := json.Unmarshal(js.out.Bytes(), &rd); err != nil || rd.Plan == nil || rd.Plan.Position == "" {
					t.Skipf("no plan (exit %d)", js.code)
				}
				seen[c.Type] = true
				if label(rd.Plan.Position) != label(c.Position) {
					t.Errorf("%s: status %q, resume --json %q", c.Type, c.Position, rd.Plan.Position)
				}
				human := run(t, dir, nil, false, "resume", c.ID, "--dry-run", "--mode", "autopilot")
				if l := label(c.Position); l != "-" && !strings.Contains(human.out.String(), "-> "+l) {
					t.Errorf("%s: status %q, the resume block says:\n%s", c.Type, c.Position, human.out.String())
				}
			})
		}
	}
	for _, ty := range want {
		if !seen[ty] {
			t.Errorf("no fixture of type %s", ty)
		}
	}
}

// label is a position without its name: "Phase 3/4 (Implementation)" → "Phase 3/4".
func label(pos string) string {
	if i := strings.Index(pos, " ("); i >= 0 {
		return pos[:i]
	}
	return pos
}

package loaded

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/internal/gitfixture"
	"github.com/orchestrate-dev/orchestrate/validate"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// ValidateAll (the validations of status, run concurrently) gives every
// candidate the report one validation after the other gives, on a
// repository whose workflows share files, stories and interruption
// commits, with committed, uncommitted and deleted changes after them.
// Under -race (make test) it also proves the shared run answers safely.
func TestValidateAllIsValidateInTurn(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := gitfixture.Init(root); err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	write := func(rel, content string) {
		t.Helper()
		if err := gitfixture.WriteFile(root, rel, content); err != nil {
			t.Fatal(err)
		}
	}
	commit := func(i int, who string, paths ...string) {
		t.Helper()
		if _, err := gitfixture.Commit(root, fmt.Sprintf("commit %d", i), who, who+"@example.com", t0.Add(time.Duration(i)*time.Hour), paths...); err != nil {
			t.Fatal(err)
		}
	}
	const files, flows = 40, 12
	var all []string
	for f := 0; f < files; f++ {
		p := fmt.Sprintf("src/p%d/f%02d.go", f%4, f)
		all = append(all, p)
		write(p, fmt.Sprintf("package p\n// %d\n", f))
	}
	for s := 0; s < 3; s++ {
		write(fmt.Sprintf("docs/stories/%d.1.story.md", s+1), fmt.Sprintf("# Story %d.1: S\n\n## Status\nIn Progress\n\n## Tasks\n- [x] a\n- [ ] b\n", s+1))
		all = append(all, fmt.Sprintf("docs/stories/%d.1.story.md", s+1))
	}
	commit(0, "ann", all...)
	for i := 1; i <= flows; i++ {
		// each workflow saved at commit i (two share each time: a shared base)
		var refs []string
		for k := 0; k < 10; k++ {
			refs = append(refs, "  - "+all[(i*3+k)%files])
		}
		state := fmt.Sprintf("execution_id: sdc-%02d\nworkflow: story-development-cycle\nstory: \"%d.1\"\nupdated_at: %s\ncurrent_phase: implement\nstatus: interrupted\nfiles:\n%s\n",
			i, i%3+1, t0.Add(time.Duration(i/2)*time.Hour+30*time.Minute).Format(time.RFC3339), strings.Join(refs, "\n"))
		write(fmt.Sprintf(".orchestrate/workflows/sdc-%02d.yaml", i), state)
		commit(i, []string{"bob", "carol"}[i%2], all[(i*7)%files], fmt.Sprintf(".orchestrate/workflows/sdc-%02d.yaml", i))
		write(all[(i*7)%files], fmt.Sprintf("package p\n// edit %d\n", i))
	}
	commit(flows+1, "dave", all[:files]...)
	write(all[5], "package p\n// uncommitted\n")
	if err := gitfixture.Remove(root, all[9]); err != nil {
		t.Fatal(err)
	}
	now := t0.Add(48 * time.Hour)
	cfg := config.Default()
	t.Setenv("ORCHESTRATE_CACHE_DIR", "off")
	load := func() *Session {
		t.Helper()
		loc, err := Resolve(root)
		if err != nil {
			t.Fatal(err)
		}
		return Load(loc, cfg, now)
	}
	seq := load()
	if seq.Git == nil {
		t.Fatalf("no git: %v", seq.GitErr)
	}
	cands := seq.Res.Candidates
	resumable := 0
	want := make([]*validate.Report, len(cands))
	for i, c := range cands {
		if c.Resumable {
			resumable++
			r := seq.Validate(c)
			want[i] = &r
		}
	}
	if resumable < flows {
		t.Fatalf("%d resumable candidates, want at least %d", resumable, flows)
	}
	conflicts := 0
	// round 3 keeps only the blocking findings of each report (status's
	// table keeps those its word reads)
	blocking := func(fs []workflow.Finding) []workflow.Finding {
		var out []workflow.Finding
		for _, f := range fs {
			if f.Severity == workflow.Blocking {
				out = append(out, f)
			}
		}
		return out
	}
	for round := 0; round < 4; round++ {
		s := load()
		lists := round != 1 // round 1: without the lists, the rest the same
		var keep func([]workflow.Finding) []workflow.Finding
		if round == 3 {
			keep = blocking
		}
		got := s.ValidateAll(s.Res.Candidates, lists, keep)
		for i := range cands {
			w := want[i]
			if !lists && w != nil {
				cp := *w
				cp.Files, cp.Stories = []validate.FileReport{}, []validate.StoryReport{}
				w = &cp
			}
			if keep != nil && w != nil {
				cp := *w
				cp.Findings = keep(w.Findings)
				w = &cp
			}
			if !reflect.DeepEqual(got[i], w) {
				t.Fatalf("round %d: %s: ValidateAll's report differs from Validate's:\n got %+v\nwant %+v", round, cands[i].ID, got[i], w)
			}
			if got[i] != nil && got[i].Status == validate.StatusConflicts {
				conflicts++
			}
		}
	}
	if conflicts == 0 {
		t.Error("no workflow has conflicts: the repository does not exercise the shared git answers")
	}
}

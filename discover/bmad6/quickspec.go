package bmad6

import (
	"fmt"
	"path"
	"strings"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/refpath"
	"github.com/orchestrate-dev/orchestrate/internal/storyid"
	"github.com/orchestrate-dev/orchestrate/internal/tolerant"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// WIPFile is the file BMAD's quick-spec workflow writes while it runs
// (renamed to tech-spec-<slug>.md when its fourth step saves it).
const WIPFile = "tech-spec-wip.md"

// QuickSpecWorkflow is the Workflow value of quick-spec candidates.
const QuickSpecWorkflow = "quick-spec"

// quickSpecSteps are quick-spec's four steps, in order.
var quickSpecSteps = []struct{ id, name string }{
	{"understand", "Analyze the requirement delta"},
	{"investigate", "Deep investigation"},
	{"generate", "Generate the implementation plan"},
	{"review", "Review and finalize"},
}

// wipFolders are the folders that may hold tech-spec-wip.md: the config's
// implementation artifacts, beside each ledger, then the defaults.
func wipFolders(cfg Config, ledgers []string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(f string) {
		if f != "" && !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	add(cfg.Stories)
	for _, lp := range ledgers {
		add(path.Dir(lp))
	}
	for _, lp := range defaultLedgers {
		add(path.Dir(lp))
	}
	return out
}

// quickSpecs turns each tech-spec-wip.md whose status is in progress into
// a quick-spec candidate (priority 3, as the other pause records): the
// steps done are its stepsCompleted, the resume point the next step, the
// framework command quick-spec (which offers to continue the file).
func quickSpecs(r *source.Repo, cfg Config, ledgers []string, spell Spelling) ([]workflow.Candidate, []workflow.Finding) {
	var out []workflow.Candidate
	var findings []workflow.Finding
	for _, dir := range wipFolders(cfg, ledgers) {
		p := WIPFile
		if dir != "." {
			p = dir + "/" + WIPFile
		}
		if !r.Exists(p) {
			continue
		}
		data, mt, err := r.ReadWithTime(p)
		if err != nil {
			findings = append(findings, source.ReadFinding(p, err))
			continue
		}
		c, ok := QuickSpec(r, p, data, spell)
		if !ok {
			continue
		}
		c.UpdatedAt, c.UpdatedFrom = mt.UTC(), "mtime"
		if cfg.Version != "" {
			c.Context["bmad_version"] = cfg.Version
		}
		out = append(out, c)
	}
	return out, findings
}

// QuickSpec reads one tech-spec-wip.md (front matter title, slug, status,
// stepsCompleted, files_to_modify); false when its status is not in
// progress (a finished spec is no interrupted work).
func QuickSpec(r *source.Repo, p string, data []byte, spell Spelling) (workflow.Candidate, bool) {
	fm := frontMatter(data)
	var c workflow.Candidate
	if fm == nil {
		return c, false
	}
	m, err := tolerant.DecodeYAMLMap(fm)
	if err != nil {
		return c, false
	}
	f := &source.Fields{Path: p}
	raw := oneLine(f.Str(m, "status"))
	if Canonical(raw) != workflow.StatusInProgress {
		return c, false
	}
	title := oneLine(f.Str(m, "title"))
	slug := "tech-spec-wip"
	for _, s := range []string{f.Str(m, "slug"), strings.ToLower(title)} {
		if strings.TrimSpace(s) != "" {
			slug = storyid.Sanitize(s)
			break
		}
	}
	done := map[int]bool{}
	last := 0
	for _, v := range f.List(m, "stepsCompleted") {
		if n, ok := tolerant.ToInt(v); ok && n >= 1 && n <= len(quickSpecSteps) {
			done[n] = true
			last = max(last, n)
		}
	}
	next := last + 1 // quick-spec jumps to the step after max(stepsCompleted)
	c = workflow.Candidate{
		ID: "quick-spec:" + slug, Key: slug, Type: workflow.TypeWorkflow, Workflow: QuickSpecWorkflow,
		Source:    workflow.SourceRef{Kind: workflow.KindBMADLedger, Path: p, Priority: workflow.PriorityWorkflow},
		Status:    string(workflow.StatusInProgress),
		StatusRaw: raw, Framework: Framework, Resumable: true,
		Context: map[string]any{"tech_spec_wip": p, "tech_spec_title": title},
	}
	for i, s := range quickSpecSteps {
		st := workflow.PhasePending
		switch {
		case done[i+1]:
			st = workflow.PhaseCompleted
		case i+1 == next:
			st = workflow.PhaseCurrent
		}
		c.Phases = append(c.Phases, workflow.Phase{ID: s.id, Name: s.name, Status: st})
	}
	section := "quick-spec " + WIPFile
	if title != "" {
		section = "quick-spec: " + title + " (" + WIPFile + ")"
	}
	rp := &workflow.ResumePoint{Done: len(done), Total: len(quickSpecSteps), Section: section,
		FrameworkCommand: spell.Command("quick-spec"),
		Note:             "quick-spec finds " + WIPFile + " and offers to continue it ([Y])"}
	if next <= len(quickSpecSteps) {
		rp.Item = fmt.Sprintf("step %d", next)
		rp.Title = quickSpecSteps[next-1].name
		c.Position = workflow.StepPosition(len(done), len(quickSpecSteps), rp.Item)
		c.Position.Name = quickSpecSteps[next-1].id
	} else {
		rp.Item = "save the spec"
		rp.Title = "step 4 ended without renaming " + WIPFile
		rp.Note = "every step is done but the file is still " + WIPFile + " in progress: step 4 did not save it"
		c.Position = workflow.StepPosition(len(done), len(quickSpecSteps), rp.Item)
		c.Position.Name = "review"
	}
	c.Resume = rp
	set := source.NewFileSet(nil)
	set.Add(workflow.RefFile{Path: p, Critical: true, From: "tech-spec"})
	for _, s := range f.Strings(m, "files_to_modify") {
		if fp := refpath.CleanPath(s); fp != "" && r.Exists(fp) && len(rp.Files) < 50 {
			set.Add(workflow.RefFile{Path: fp, From: "files_to_modify"})
			rp.Files = append(rp.Files, fp)
		}
	}
	set.Finish(&c, p)
	return c, true
}

// frontMatter is the YAML between a leading "---" line and the next one,
// nil without.
func frontMatter(data []byte) []byte {
	s := strings.TrimPrefix(string(data), "\ufeff")
	if !strings.HasPrefix(s, "---\n") && !strings.HasPrefix(s, "---\r\n") {
		return nil
	}
	rest := s[strings.IndexByte(s, '\n')+1:]
	for off := 0; off < len(rest); {
		nl := strings.IndexByte(rest[off:], '\n')
		line := rest[off:]
		if nl >= 0 {
			line = rest[off : off+nl]
		}
		if strings.TrimRight(line, " \r") == "---" {
			return []byte(rest[:off])
		}
		if nl < 0 {
			break
		}
		off += nl + 1
	}
	return nil
}

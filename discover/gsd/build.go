package gsd

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/refpath"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// build turns phase p into a candidate. flight says it is the phase in
// flight; other phases are candidates when some of their plans have no
// SUMMARY (resumable when some have one: work started there).
func build(r *source.Repo, k clock, p *phase, flight bool, recs []*record, st *state, fwItem, fwFrom string) workflow.Candidate {
	key := p.ID.String()
	c := workflow.Candidate{
		ID: "phase:" + key, Key: key, Type: workflow.TypePhase, Framework: Framework,
		Source: workflow.SourceRef{Kind: workflow.KindGSD, Priority: workflow.PriorityWorkflow},
	}
	c.Findings = append(c.Findings, p.Findings...)
	plans := p.sortedPlans()
	done := p.summarised()

	// the live record naming this phase, freshest first; stale ones reported
	var live *record
	for _, rec := range liveRecords(recs) {
		if rec.Phase.Compare(p.ID) == 0 {
			live = rec
			break
		}
	}
	for _, rec := range recs {
		if rec.Stale != "" && rec.Phase.Compare(p.ID) == 0 {
			c.Findings = append(c.Findings, staleFinding(rec))
		}
	}
	// STATE.md speaks of this phase when it names it, or names none while
	// this phase is the one in flight
	stateHere := st != nil && (st.Phase.Compare(p.ID) == 0 || (flight && st.Phase.IsZero()))

	rp := &workflow.ResumePoint{Done: done, Total: len(plans), Section: "Phase " + key}
	if p.Name != "" {
		rp.Section += ": " + p.Name
	}
	next := resumePlan(p, plans, &c)
	switch {
	case next != nil:
		rp.Item = PlanItem(p.ID, next.Num)
		rp.Title = next.FirstTask
		if rp.Title == "" {
			rp.Title = next.Objective
		}
		if rp.Title == "" {
			rp.Title = "plan " + rp.Item
		}
		for _, f := range append(append([]string(nil), next.Modified...), next.TaskFiles...) {
			if f = refpath.CleanPath(f); f != "" && !contains(rp.Files, f) {
				rp.Files = append(rp.Files, f)
			}
		}
		rp.FrameworkCommand = "/gsd:execute-phase " + p.ID.Arg()
	case p.needsVerify():
		rp.Item = "verify-" + key
		rp.Title = "verify phase " + p.ID.Arg()
		rp.FrameworkCommand = "/gsd:verify-work " + p.ID.Arg()
	}
	// holes: unsummarised plans below a summarised one (a wave finished out of order)
	maxDone := -1
	for _, pl := range plans {
		if pl.Summary != "" {
			maxDone = pl.Num
		}
	}
	for _, pl := range plans {
		if pl.Summary == "" && pl.Num < maxDone {
			rp.Holes = append(rp.Holes, PlanItem(p.ID, pl.Num))
		}
	}
	switch {
	case live != nil && live.Note != "":
		rp.Note = live.Note
	case stateHere && st.StoppedAt != "":
		rp.Note = st.StoppedAt
	}
	if fwItem != "" {
		rp.FrameworkNext = fwItem + " (" + fwFrom + ")"
		// a pause record naming only the phase agrees with any item of it
		rp.Differs = fwItem != rp.Item && fwItem != "phase "+key
	}
	if rp.Differs {
		if why := differsWhy(p, recs, fwFrom); why != "" {
			rp.FrameworkNext += "; " + why
		}
	}
	if live != nil && live.Kind != "agent" && !rp.Differs && next != nil {
		rp.FrameworkCommand = "/gsd:resume-work"
	}
	if live != nil && len(live.Human) > 0 {
		// a paused session waiting on a person: said as such, never resumed
		// past it
		c.Findings = append(c.Findings, workflow.Finding{Check: workflow.CheckConsistency, Severity: workflow.Blocking, Code: "gsd-human-action-pending",
			Message: fmt.Sprintf("%s: the paused session waits on a human action before work can go on: %s", live.Path, strings.Join(live.Human, "; ")), Path: live.Path})
		rp.Note = "waiting on a human: " + live.Human[0]
	}
	c.Resume = rp
	c.Position = workflow.StepPosition(done, len(plans), rp.Item)
	c.Position.Name = p.Name

	// phases of the track: one per plan, then verification
	for _, pl := range plans {
		ph := workflow.Phase{ID: PlanItem(p.ID, pl.Num), Name: pl.Objective, Status: workflow.PhasePending, DependsOn: planDeps(p, pl)}
		if ph.Name == "" {
			ph.Name = path.Base(pl.Path)
		}
		if pl.Summary != "" {
			ph.Status = workflow.PhaseCompleted
			ph.Outputs = []string{pl.Summary}
		} else if next == pl {
			ph.Status = workflow.PhaseCurrent
		}
		c.Phases = append(c.Phases, ph)
	}
	vp := workflow.Phase{ID: "verify-" + key, Name: "verify phase " + p.ID.Arg(), Status: workflow.PhasePending}
	if p.Verification != "" {
		vp.Status = workflow.PhaseCompleted
		vp.Outputs = []string{p.Verification}
	} else if next == nil && p.needsVerify() {
		vp.Status = workflow.PhaseCurrent
	}
	c.Phases = append(c.Phases, vp)

	c.Status, c.StatusRaw = phaseStatus(p, next, live, stateHere, st, &c)
	c.Resumable = (flight || (done > 0 && p.open())) && c.Status != string(workflow.StatusDone) && rp.Item != ""

	// referenced files
	set := source.NewFileSet(nil)
	evidence := []workflow.SourceRef{}
	if st != nil {
		set.Add(workflow.RefFile{Path: st.Path, From: "state"})
		if stateHere || flight {
			evidence = append(evidence, workflow.SourceRef{Kind: workflow.KindGSD, Path: st.Path, Priority: workflow.PriorityWorkflow})
		}
	}
	if live != nil {
		set.Add(workflow.RefFile{Path: live.Path, From: live.Kind})
		for _, u := range live.Files {
			set.Add(workflow.RefFile{Path: u, From: "uncommitted_files"})
		}
		evidence = append(evidence, workflow.SourceRef{Kind: workflow.KindGSD, Path: live.Path, Priority: workflow.PriorityWorkflow})
	}
	for _, f := range []string{p.Context, p.Verification, p.UAT} {
		if f != "" {
			set.Add(workflow.RefFile{Path: f, Phase: key, From: "phase"})
		}
	}
	for _, pl := range plans {
		item := PlanItem(p.ID, pl.Num)
		set.Add(workflow.RefFile{Path: pl.Path, Phase: item, Critical: pl == next, From: "plan"})
		if pl.Summary != "" {
			set.Add(workflow.RefFile{Path: pl.Summary, Phase: item, Produced: true, From: "summary"})
		}
		if pl == next {
			// the files the plan will write: only those that exist are
			// evidence (a file the plan has yet to create is not missing)
			for _, m := range pl.Modified {
				if r.Exists(refpath.CleanPath(m)) {
					set.Add(workflow.RefFile{Path: m, Phase: item, From: "files_modified"})
				}
			}
			for _, m := range pl.TaskFiles {
				if r.Exists(refpath.CleanPath(m)) {
					set.Add(workflow.RefFile{Path: m, Phase: item, From: "files"})
				}
			}
			for _, m := range pl.Context {
				set.Add(workflow.RefFile{Path: m, Phase: item, From: "context"})
			}
		}
	}
	set.Finish(&c, p.Dir)

	// recency: the last SUMMARY or the live pause note, by commit time
	// (modification time for an uncommitted file; see clock)
	src, mt, from := "", c.UpdatedAt, "mtime"
	consider := func(f string) {
		if f == "" {
			return
		}
		if t, fr := k.at(f); src == "" || t.After(mt) {
			src, mt, from = f, t, fr
		}
	}
	for _, pl := range plans {
		consider(pl.Summary)
	}
	if live != nil && live.Kind != "agent" {
		consider(live.Path)
	}
	if src == "" {
		if next != nil {
			consider(next.Path)
		} else if st != nil {
			consider(st.Path)
		}
	}
	if src == "" {
		src = p.Dir
		mt = r.ModTime(p.Dir)
	}
	c.Source.Path = src
	c.UpdatedAt, c.UpdatedFrom = mt, from
	for _, e := range evidence {
		if e.Path != src {
			c.Evidence = append(c.Evidence, e)
		}
	}
	source.SortEvidence(c.Evidence)
	workflow.SortFindings(c.Findings)
	return c
}

// differsWhy says why GSD's own pick (taken from the file from) is not the
// candidate's: GSD checks no staleness, and its execute-phase takes the
// lowest plan without a SUMMARY whatever its depends_on.
func differsWhy(p *phase, recs []*record, from string) string {
	for _, rec := range recs {
		if rec.Path == from && rec.Stale != "" {
			return "GSD does not check that " + rec.Path + " is stale: " + rec.Stale
		}
	}
	for _, pl := range p.Plans {
		if pl.Path == from && pl.Summary == "" && !depsDone(p, pl) {
			return "GSD takes the lowest plan without a SUMMARY; " + PlanItem(p.ID, pl.Num) + " waits on an unsummarised plan (depends_on)"
		}
	}
	return ""
}

// resumePlan is the lowest-numbered plan without a SUMMARY whose
// depends_on are summarised; when every open plan waits on another, the
// lowest open plan, with a warning.
func resumePlan(p *phase, plans []*plan, c *workflow.Candidate) *plan {
	var first *plan
	for _, pl := range plans {
		if pl.Summary != "" {
			continue
		}
		if first == nil {
			first = pl
		}
		if depsDone(p, pl) {
			return pl
		}
	}
	if first != nil {
		c.Findings = append(c.Findings, workflow.Finding{Check: workflow.CheckConsistency, Severity: workflow.Warning, Code: "gsd-depends-unmet",
			Message: fmt.Sprintf("every open plan of phase %s waits on an unsummarised plan; resuming at %s", p.ID, PlanItem(p.ID, first.Num)), Path: first.Path})
	}
	return first
}

// planDeps are the plans pl's depends_on names, as plan items ("07-01"):
// a plan of its phase by number ("01", "07-01", "07-01-PLAN.md"), another
// phase's plan by its own item, anything else as written (bounded).
func planDeps(p *phase, pl *plan) []string {
	var out []string
	for _, d := range pl.DependsOn {
		d = strings.TrimSuffix(strings.TrimSuffix(path.Base(d), ".md"), "-PLAN")
		item := cleanText(d)
		if ph, n, _, ok := PlanFile(d + "-PLAN.md"); ok {
			item = PlanItem(ph, n)
		} else if n, err := strconv.Atoi(d); err == nil && n >= 0 {
			item = PlanItem(p.ID, n)
		}
		if item != "" && !contains(out, item) {
			out = append(out, item)
		}
	}
	return out
}

// depsDone reports whether every plan pl depends on (in its phase: "01",
// "07-01", "07-01-PLAN.md") is summarised; a dependency on another phase or
// an unknown plan does not hold the plan back.
func depsDone(p *phase, pl *plan) bool {
	for _, d := range pl.DependsOn {
		d = strings.TrimSuffix(strings.TrimSuffix(path.Base(d), ".md"), "-PLAN")
		num := -1
		if ph, n, _, ok := PlanFile(d + "-PLAN.md"); ok {
			if ph.Compare(p.ID) != 0 {
				continue
			}
			num = n
		} else if _, err := fmt.Sscanf(d, "%d", &num); err != nil {
			continue
		}
		if dep, ok := p.Plans[num]; ok && dep.Summary == "" && dep != pl {
			return false
		}
	}
	return true
}

// phaseStatus is the candidate's status: the live pause record's, else
// STATE.md's when it names this phase, else what the plans show. A Done
// status while plans are open gives way to the plans.
func phaseStatus(p *phase, next *plan, live *record, stateHere bool, st *state, c *workflow.Candidate) (string, string) {
	derived := workflow.StatusReady
	switch {
	case next == nil && p.needsVerify():
		derived = workflow.StatusInReview
	case next == nil:
		derived = workflow.StatusDone
	case p.summarised() > 0:
		derived = workflow.StatusInProgress
	}
	var raw, from string
	var got workflow.Status
	var mapped bool
	switch {
	case live != nil && live.StatusRaw != "":
		raw, got, mapped, from = live.StatusRaw, live.Status, live.Mapped, live.Path
	case stateHere && st.StatusRaw != "":
		raw, got, mapped, from = st.StatusRaw, st.Status, st.Mapped, st.Path
	default:
		return string(derived), ""
	}
	if !mapped {
		c.Findings = append(c.Findings, workflow.Finding{Check: workflow.CheckParse, Severity: workflow.Info, Code: "unknown-status",
			Message: fmt.Sprintf("status %q has no canonical value", raw), Path: from})
		return string(workflow.StatusUnknown), raw
	}
	if got == workflow.StatusDone && derived != workflow.StatusDone {
		c.Findings = append(c.Findings, workflow.Finding{Check: workflow.CheckConsistency, Severity: workflow.Info, Code: "status-lags",
			Message: fmt.Sprintf("status %q, but phase %s still has work: %s", raw, p.ID, derived), Path: from})
		return string(derived), raw
	}
	return string(got), raw
}

// quickCandidates are the quick/<id>/ plans without a SUMMARY: GSD's resume
// ignores them; they are low-priority candidates here.
func quickCandidates(r *source.Repo) []workflow.Candidate {
	var out []workflow.Candidate
	for _, dir := range r.Glob([]string{planningDir + "/quick/*"}, true) {
		files := r.Glob([]string{dir + "/*"}, false)
		var plans, sums []string
		for _, f := range files {
			u := strings.ToUpper(path.Base(f))
			switch {
			case strings.HasSuffix(u, "PLAN.MD"):
				plans = append(plans, f)
			case strings.HasSuffix(u, "SUMMARY.MD"):
				sums = append(sums, f)
			}
		}
		if len(plans) == 0 || len(sums) > 0 {
			continue
		}
		key := "quick-" + cleanKey(path.Base(dir))
		pl := &plan{Path: plans[0]}
		var findings []workflow.Finding
		if data, err := r.Read(plans[0]); err == nil {
			findings = ParsePlan(pl, data)
		}
		title := pl.FirstTask
		if title == "" {
			title = pl.Objective
		}
		if title == "" {
			title = "quick plan " + path.Base(dir)
		}
		c := workflow.Candidate{
			ID: "phase:" + key, Key: key, Type: workflow.TypePhase, Framework: Framework,
			Source: workflow.SourceRef{Kind: workflow.KindGSD, Path: plans[0], Priority: workflow.PriorityOtherStory},
			Status: string(workflow.StatusReady), Resumable: true,
			UpdatedAt: r.ModTime(plans[0]), UpdatedFrom: "mtime",
			Position: workflow.StepPosition(0, 1, key),
			Phases:   []workflow.Phase{{ID: key, Name: title, Status: workflow.PhaseCurrent}},
			Findings: findings,
			Resume: &workflow.ResumePoint{Item: key, Title: title, Section: "quick " + path.Base(dir), Total: 1,
				Files: append(append([]string(nil), pl.Modified...), pl.TaskFiles...), FrameworkCommand: "/gsd:quick",
				Note: "GSD's own resume ignores quick plans"},
		}
		set := source.NewFileSet(nil)
		set.Add(workflow.RefFile{Path: plans[0], Critical: true, From: "plan"})
		for _, m := range pl.Modified {
			set.Add(workflow.RefFile{Path: m, From: "files_modified"})
		}
		set.Finish(&c, plans[0])
		out = append(out, c)
	}
	return out
}

// cleanKey keeps an id's letters, digits, dots and dashes.
func cleanKey(s string) string {
	s = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '_' {
			return r
		}
		return -1
	}, s)
	if len(s) > 64 {
		s = s[:64]
	}
	if s == "" {
		s = "x"
	}
	return s
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Package gsd is the GSD (get-shit-done) format: the `.planning/` folder
// with its STATE.md, pause notes (`.continue-here*.md`), HANDOFF.json,
// current-agent-id.txt and the phase folders' PLAN/SUMMARY pairs. GSDSource
// turns the phase in flight into a `phase:<id>` candidate whose resume point
// is the lowest-numbered plan without a SUMMARY whose dependencies are
// summarised, or "verify phase N". Pause records that contradict the plans
// are reported stale, never silently used. The rules are in
// docs/ARCHITECTURE.md; the framework's files are never edited.
package gsd

import (
	"fmt"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/refpath"
	"github.com/orchestrate-dev/orchestrate/internal/tolerant"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// GSDSource finds GSD phases in flight (priority 3, like the other pause
// records; quick plans at 7).
var GSDSource source.Source = source.Format{FormatKind: workflow.KindGSD, FormatPriority: workflow.PriorityWorkflow, ScanFunc: Scan}

// Framework is the Candidate.Framework value of GSD candidates.
const Framework = "gsd"

// Bounds on what one scan looks at.
const (
	maxPhases    = 2000
	maxPlans     = 500
	maxDepends   = 50
	maxPlanFiles = 200
)

const planningDir = ".planning"

// plan is one PLAN.md (and its SUMMARY.md when it exists).
type plan struct {
	Num       int
	Path      string
	Summary   string
	DependsOn []string
	Modified  []string
	TaskFiles []string
	Context   []string
	Objective string
	FirstTask string
}

// phase is one folder under .planning/phases.
type phase struct {
	ID           PhaseID
	Dir          string
	Name         string
	Plans        map[int]*plan
	Summaries    map[int]string // summaries by plan number, with or without a PLAN
	Context      string
	Verification string
	UAT          string
	Findings     []workflow.Finding
}

// sortedPlans returns the phase's plans by number.
func (p *phase) sortedPlans() []*plan {
	out := make([]*plan, 0, len(p.Plans))
	for _, pl := range p.Plans {
		out = append(out, pl)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Num < out[j].Num })
	return out
}

// summarised counts the plans with a SUMMARY.
func (p *phase) summarised() int {
	n := 0
	for _, pl := range p.Plans {
		if pl.Summary != "" {
			n++
		}
	}
	return n
}

// open reports whether some plan has no SUMMARY.
func (p *phase) open() bool { return len(p.Plans) > 0 && p.summarised() < len(p.Plans) }

// needsVerify reports whether every plan is summarised and no VERIFICATION exists.
func (p *phase) needsVerify() bool {
	return len(p.Plans) > 0 && p.summarised() == len(p.Plans) && p.Verification == ""
}

// record is one piece of pause evidence: a .continue-here note, HANDOFF.json
// or current-agent-id.txt.
type record struct {
	Path      string
	Kind      string // "pause", "handoff", "agent"
	Phase     PhaseID
	Plan      int
	Status    workflow.Status
	StatusRaw string
	Mapped    bool
	Note      string
	PhaseDir  string
	Files     []string
	Agent     string
	// Human are HANDOFF.json's pending human actions that block the work
	// (human_actions_pending, blockers of type human_action), one line each.
	Human []string
	Time  time.Time // in-file timestamp
	MTime time.Time // last change: commit time, or modification time (clock)
	Stale string    // why the record is stale; "" when live
}

// newer reports whether a is fresher than b: the file's last change first
// (its last commit when it is as committed, else its modification time; see
// clock), the in-file timestamp as the tie-break.
func newer(aM, aT, bM, bT time.Time) bool {
	if !aM.Equal(bM) {
		return aM.After(bM)
	}
	return aT.After(bT)
}

// state is what STATE.md says.
type state struct {
	Path       string
	Phase      PhaseID
	PhaseName  string
	Plan       int
	PlanDone   bool
	Status     workflow.Status
	StatusRaw  string
	Mapped     bool
	StoppedAt  string
	ResumeFile string
	NextAction string
	Time       time.Time
	MTime      time.Time // last change: commit time, or modification time (clock)
	Findings   []workflow.Finding
}

// clock dates GSD's files: the last commit of a file that is as committed
// (git survives a fresh clone, modification times do not), else its
// modification time (an uncommitted edit, or no git).
type clock struct {
	r   *source.Repo
	git map[string]source.Stamp
}

// newClock asks git, in one query, for the files whose recency decides
// something: STATE.md, the pause records, and the SUMMARY files of the
// phases that may be candidates; it redates STATE.md and the records.
func newClock(r *source.Repo, st *state, recs []*record, phases []*phase) clock {
	var paths []string
	if st != nil {
		paths = append(paths, st.Path)
	}
	for _, rec := range recs {
		paths = append(paths, rec.Path)
	}
	for _, p := range phases {
		if p.open() || p.needsVerify() {
			for _, pl := range p.Plans {
				if pl.Summary != "" {
					paths = append(paths, pl.Summary)
				}
			}
		}
	}
	k := clock{r: r, git: r.CommitTimes(paths)}
	if st != nil {
		st.MTime, _ = k.at(st.Path)
	}
	for _, rec := range recs {
		rec.MTime, _ = k.at(rec.Path)
	}
	return k
}

// at is when path last changed and where that came from ("git:<hash>" or
// "mtime").
func (k clock) at(p string) (time.Time, string) {
	if st, ok := k.git[p]; ok {
		return st.When.UTC(), st.From
	}
	return k.r.ModTime(p), "mtime"
}

// Scan reads the repository's .planning folder; no folder, no candidates.
func Scan(r *source.Repo) ([]workflow.Candidate, []workflow.Finding) {
	if !r.Exists(planningDir) {
		return nil, nil
	}
	var findings []workflow.Finding
	st := readState(r)
	if st != nil {
		findings = append(findings, st.Findings...)
	}
	phases, pf := readPhases(r)
	findings = append(findings, pf...)
	recs, rf := readRecords(r)
	findings = append(findings, rf...)
	k := newClock(r, st, recs, phases)
	judgeRecords(r, recs, phases, st)

	byID := map[string]*phase{}
	for _, p := range phases {
		byID[p.ID.String()] = p
	}
	flight := inFlight(recs, st, phases, byID)
	fwItem, fwFrom := frameworkNext(recs, phases)

	var out []workflow.Candidate
	for _, p := range phases {
		isFlight := flight != nil && flight == p
		if !isFlight && !p.open() {
			continue
		}
		out = append(out, build(r, k, p, isFlight, recs, st, fwItem, fwFrom))
	}
	if flight == nil {
		msg := "GSD: no phase in flight"
		if st != nil {
			if st.NextAction != "" {
				msg += "; STATE.md next action: " + st.NextAction
			} else if st.StoppedAt != "" {
				msg += "; STATE.md stopped at: " + st.StoppedAt
			}
		}
		findings = append(findings, workflow.Finding{Check: workflow.CheckDiscover, Severity: workflow.Info, Code: "gsd-nothing-in-flight", Message: msg, Path: planningDir})
	}
	// stale records that no candidate carries are reported on their own
	for _, rec := range recs {
		if rec.Stale == "" {
			continue
		}
		carried := false
		for _, c := range out {
			if c.Key == rec.Phase.String() {
				carried = true
			}
		}
		if !carried {
			findings = append(findings, staleFinding(rec))
		}
	}
	out = append(out, quickCandidates(r)...)
	return out, findings
}

// readState parses .planning/STATE.md, nil when there is none.
func readState(r *source.Repo) *state {
	p := planningDir + "/STATE.md"
	if !r.Exists(p) {
		return nil
	}
	st := &state{Path: p, MTime: r.ModTime(p)}
	data, err := r.Read(p)
	if err != nil {
		st.Findings = append(st.Findings, warn(source.ReadFinding(p, err)))
		return st
	}
	ParseState(st, data)
	return st
}

// ParseState fills st from STATE.md's text: the optional front matter, the
// Current Position and Session Continuity sections. Front matter wins where
// both speak.
func ParseState(st *state, data []byte) {
	fmData, body := SplitFrontMatter(data)
	fm, err := decodeFrontMatter(fmData)
	if err != nil {
		st.Findings = append(st.Findings, warn(source.DecodeFinding(st.Path, err)))
	}
	f := &source.Fields{Path: st.Path}
	pos := sections(body, "Current Position")
	cont := sections(body, "Session Continuity")
	// "Phase: 3 of 8 (Name)", "Phase: 03 (name) — EXECUTING", or the
	// bold field GSD's state tools write ("**Current Phase:** 03")
	for _, key := range []string{"phase", "current phase"} {
		v := pos[key]
		if v == "" || !st.Phase.IsZero() {
			continue
		}
		if m := ofRe().FindStringSubmatch(v); m != nil {
			st.Phase, _ = ParsePhaseID(m[1])
			st.PhaseName = cleanText(m[3])
		} else {
			st.Phase, _ = ParsePhaseID(v)
		}
	}
	for _, key := range []string{"plan", "current plan"} {
		if v := pos[key]; v != "" && st.Plan == 0 {
			if m := ofRe().FindStringSubmatch(v); m != nil {
				fmt.Sscanf(m[1], "%d", &st.Plan)
				st.PlanDone = strings.Contains(strings.ToLower(m[4]), "complete")
			}
		}
	}
	raw := pos["status"]
	st.StoppedAt = cont["stopped at"]
	st.ResumeFile = cont["resume file"]
	if fm != nil {
		if s := f.Str(fm, "status"); s != "" {
			raw = s
		}
		if s := f.Str(fm, "stopped_at"); s != "" {
			st.StoppedAt = cleanText(s)
		}
		st.NextAction = cleanText(f.Str(fm, "next_action"))
		// GSD's state tools keep the position in the front matter too
		// (buildStateFrontmatter: current_phase, current_plan)
		if id, ok := ParsePhaseID(f.Str(fm, "current_phase")); ok {
			st.Phase = id
		}
		if n, ok := tolerant.ToInt(fm["current_plan"]); ok && n > 0 {
			st.Plan = n // "03-01" and other spellings are simply not read
		}
		st.Time = fieldTime(fm, "last_updated", "updated")
	}
	st.Findings = append(st.Findings, f.Findings...)
	st.StatusRaw = cleanText(raw)
	st.Status, st.Mapped = StateStatus(raw)
}

// readPhases lists .planning/phases/<N>-<slug>/ folders and their files.
// milestones/ holds archived phases and is never read.
func readPhases(r *source.Repo) ([]*phase, []workflow.Finding) {
	var out []*phase
	var findings []workflow.Finding
	dirs := r.Glob([]string{planningDir + "/phases/*"}, true)
	for _, dir := range dirs {
		id, ok := ParsePhaseID(path.Base(dir))
		if !ok {
			continue
		}
		if len(out) >= maxPhases {
			break
		}
		p := &phase{ID: id, Dir: dir, Plans: map[int]*plan{}, Summaries: map[int]string{}}
		base := path.Base(dir)
		if i := strings.IndexByte(base, '-'); i >= 0 {
			p.Name = cleanText(base[i+1:])
		}
		files := r.Glob([]string{dir + "/*"}, false)
		for _, fp := range files {
			name := path.Base(fp)
			upper := strings.ToUpper(name)
			switch {
			case strings.HasSuffix(upper, "-CONTEXT.MD") || upper == "CONTEXT.MD":
				p.Context = fp
			case strings.HasSuffix(upper, "VERIFICATION.MD"):
				p.Verification = fp
			case strings.HasSuffix(upper, "-UAT.MD") || upper == "UAT.MD":
				p.UAT = fp
			}
			_, num, summary, ok := PlanFile(name)
			if !ok {
				continue
			}
			if summary {
				p.Summaries[num] = fp
				continue
			}
			if len(p.Plans) >= maxPlans {
				continue
			}
			if prev, dup := p.Plans[num]; dup {
				p.Findings = append(p.Findings, workflow.Finding{Check: workflow.CheckParse, Severity: workflow.Warning, Code: "duplicate-plan",
					Message: fmt.Sprintf("plan %s has two files: %s and %s", PlanItem(id, num), prev.Path, fp), Path: fp})
				continue
			}
			pl := &plan{Num: num, Path: fp}
			if data, err := r.Read(fp); err != nil {
				p.Findings = append(p.Findings, warn(source.ReadFinding(fp, err)))
			} else {
				p.Findings = append(p.Findings, ParsePlan(pl, data)...)
			}
			p.Plans[num] = pl
		}
		for num, s := range p.Summaries {
			if pl, ok := p.Plans[num]; ok {
				pl.Summary = s
			}
		}
		out = append(out, p)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].ID.Compare(out[j].ID) < 0 })
	return out, findings
}

// ParsePlan reads a PLAN.md: front matter depends_on and files_modified,
// the objective, the first task's name and files, and the @paths of
// <context>. The <verification> checklist is not progress and is ignored.
func ParsePlan(pl *plan, data []byte) []workflow.Finding {
	fmData, body := SplitFrontMatter(data)
	fm, err := decodeFrontMatter(fmData)
	var findings []workflow.Finding
	if err != nil {
		findings = append(findings, warn(source.DecodeFinding(pl.Path, err)))
	}
	if fm != nil {
		f := &source.Fields{Path: pl.Path}
		for _, d := range f.Strings(fm, "depends_on", "depends-on", "dependsOn") {
			if len(pl.DependsOn) < maxDepends {
				pl.DependsOn = append(pl.DependsOn, strings.TrimSpace(d))
			}
		}
		for _, m := range f.Strings(fm, "files_modified", "files-modified") {
			if refpath.LooksLikePath(m) && len(pl.Modified) < maxPlanFiles {
				pl.Modified = append(pl.Modified, m)
			}
		}
		findings = append(findings, f.Findings...)
	}
	pl.Objective = firstLine(tag(body, "objective"))
	tasks := tag(body, "tasks")
	if task := tag(tasks, "task"); task != "" {
		pl.FirstTask = firstLine(tag(task, "name"))
		for _, fl := range strings.FieldsFunc(tag(task, "files"), func(r rune) bool { return r == ',' || r == '\n' }) {
			fl = strings.Trim(strings.TrimSpace(fl), "`")
			if refpath.LooksLikePath(fl) && len(pl.TaskFiles) < maxPlanFiles {
				pl.TaskFiles = append(pl.TaskFiles, fl)
			}
		}
	}
	for _, l := range strings.Split(tag(body, "context"), "\n") {
		l = strings.TrimSpace(l)
		if !strings.HasPrefix(l, "@") || strings.HasPrefix(l, "@~") {
			continue
		}
		p := strings.Fields(l[1:])
		if len(p) > 0 && refpath.LooksLikePath(p[0]) && len(pl.Context) < maxPlanFiles {
			pl.Context = append(pl.Context, p[0])
		}
	}
	return findings
}

// inFlight is the phase with unsummarised plans named by the freshest live
// record, else by STATE.md; else the phase they name that awaits
// verification; else, when STATE.md says work is executing, the phase GSD
// reports as current (progressCurrent).
func inFlight(recs []*record, st *state, phases []*phase, byID map[string]*phase) *phase {
	live := liveRecords(recs)
	for _, want := range []func(*phase) bool{(*phase).open, (*phase).needsVerify} {
		for _, rec := range live {
			if p := byID[rec.Phase.String()]; p != nil && want(p) {
				return p
			}
		}
		if st != nil && !st.Phase.IsZero() {
			if p := byID[st.Phase.String()]; p != nil && want(p) {
				return p
			}
		}
	}
	// STATE says work is executing but names no phase with open plans:
	// the phase GSD's own progress reports as current (init.progress: the
	// first phase with fewer SUMMARYs than PLANs) is the one in flight
	if st != nil && st.Mapped && st.Status == workflow.StatusInProgress {
		if p := progressCurrent(phases); p != nil {
			return p
		}
	}
	return nil
}

// progressCurrent is the phase `gsd-sdk query init.progress` reports as
// current_phase (sdk/src/query/init-complex.ts initProgress): phase folders
// in order, the first with some PLAN and fewer SUMMARY files than PLANs.
func progressCurrent(phases []*phase) *phase {
	for _, p := range phases {
		if len(p.Plans) > 0 && len(p.Summaries) < len(p.Plans) {
			return p
		}
	}
	return nil
}

// liveRecords are the records that are not stale and name a phase, freshest first.
func liveRecords(recs []*record) []*record {
	var live []*record
	for _, rec := range recs {
		if rec.Stale == "" && !rec.Phase.IsZero() {
			live = append(live, rec)
		}
	}
	sort.SliceStable(live, func(i, j int) bool {
		return newer(live[i].MTime, live[i].Time, live[j].MTime, live[j].Time)
	})
	return live
}

// frameworkNext is what GSD's own tools would pick (GSD 1.42,
// workflows/resume-project.md with `gsd-sdk query init.progress` and
// `init.execute-phase`), in their order: an interrupted agent
// (current-agent-id.txt), HANDOFF.json, a pause note, then the current
// phase of init.progress (progressCurrent) and the first of its
// incomplete_plans (init.execute-phase: plans without a SUMMARY, by
// number). Like GSD it checks no staleness, except that a record whose own
// status is complete (Done-class) marks finished work and is no resume
// point.
func frameworkNext(recs []*record, phases []*phase) (item, from string) {
	for _, kind := range []string{"agent", "handoff", "pause"} {
		for _, rec := range recs {
			if rec.Kind != kind || (rec.Mapped && rec.Status == workflow.StatusDone) {
				continue
			}
			switch {
			case kind == "agent":
				return "agent " + rec.Agent, rec.Path
			case rec.Plan > 0 && !rec.Phase.IsZero():
				return PlanItem(rec.Phase, rec.Plan), rec.Path
			case !rec.Phase.IsZero():
				return "phase " + rec.Phase.String(), rec.Path
			}
			return "", rec.Path
		}
	}
	if p := progressCurrent(phases); p != nil {
		for _, pl := range p.sortedPlans() {
			if pl.Summary == "" {
				return PlanItem(p.ID, pl.Num), pl.Path
			}
		}
	}
	return "", ""
}

// warn downgrades a finding to a warning: GSD's files are markdown notes, a
// bad one does not block the others.
func warn(f workflow.Finding) workflow.Finding {
	f.Severity = workflow.Warning
	return f
}

// staleFinding reports a stale pause record.
func staleFinding(rec *record) workflow.Finding {
	return workflow.Finding{Check: workflow.CheckConsistency, Severity: workflow.Warning, Code: "stale-pause-record",
		Message: fmt.Sprintf("%s is stale and was not used: %s", rec.Path, rec.Stale), Path: rec.Path}
}

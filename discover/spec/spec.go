// Package spec is the spec-pipeline format: a spec folder with its
// `.pipeline-state.json` or, without one, the artifacts the spec tasks write.
// SpecSource finds the folders and Build turns the state and the artifacts
// into a candidate. Adding a framework means adding one format package like
// this one and one line to discover.DefaultSources (see
// docs/ARCHITECTURE.md).
package spec

import (
	"path"
	"strings"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/lazyre"
	"github.com/orchestrate-dev/orchestrate/internal/refpath"
	"github.com/orchestrate-dev/orchestrate/internal/storyid"
	"github.com/orchestrate-dev/orchestrate/internal/tolerant"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// SpecSource finds spec pipelines in progress (priority 6): a
// folder from the configured spec globs (`docs/stories/*/spec`,
// `docs/specs/*`) with a `.pipeline-state.json`, or without one, with the
// artifacts the nexos spec tasks write (requirements, complexity, research,
// spec, critique). A pipeline whose critique verdict is APPROVED is
// completed; a folder without any artifact is no candidate.
var SpecSource source.Source = source.Format{FormatKind: workflow.KindSpec, FormatPriority: workflow.PrioritySpec, ScanFunc: scanSpecs}

// specStateFile is the pipeline state file inside a spec folder.
const specStateFile = ".pipeline-state.json"

// specMaxEntries bounds the folder entries looked at in one spec folder.
const specMaxEntries = 5000

// Spec verdicts (spec-critique).
const (
	specApproved      = "APPROVED"
	specNeedsRevision = "NEEDS_REVISION"
	specBlocked       = "BLOCKED"
)

// scanSpecs looks at every spec folder and returns one candidate per folder that
// has a state file or at least one artifact. Findings are attached to their
// candidate.
func scanSpecs(r *source.Repo) ([]workflow.Candidate, []workflow.Finding) {
	def := r.Definition(workflow.DefSpec)
	if len(def.Phases) == 0 {
		def = source.BuiltinDefinitions()[workflow.DefSpec]
	}
	var out []workflow.Candidate
	for _, dir := range r.Glob(r.Config.Sources.Spec, true) {
		names := ListDir(r, dir)
		arts := FindArtifacts(r, dir, names, def)
		hasState := false
		for _, n := range names {
			if n == specStateFile {
				hasState = true
			}
		}
		if !hasState && len(arts) == 0 {
			continue
		}
		var info specInfo
		statePath := dir + "/" + specStateFile
		if hasState {
			data, err := r.Read(statePath)
			if err != nil {
				info = specUnreadable(statePath, source.ReadFinding(statePath, err))
			} else {
				info = ParseState(statePath, data, def)
			}
		} else {
			info = specInfo{Dir: dir, States: map[string]string{}, Artifacts: map[string]string{}, From: map[string]string{}}
			info.Name, info.Story = specNameFromDir(dir, r.Config.StoriesDir)
		}
		if info.Story == "" {
			_, info.Story = specNameFromDir(dir, r.Config.StoriesDir)
		}
		MergeArtifacts(r, &info, arts, hasState && !info.Unreadable && info.Recorded)
		if info.UpdatedAt.IsZero() {
			for _, a := range arts {
				if a.ModTime.After(info.UpdatedAt) {
					info.UpdatedAt, info.UpdatedFrom = a.ModTime, "mtime"
				}
			}
		}
		if info.UpdatedAt.IsZero() && hasState {
			if mt := r.ModTime(statePath); !mt.IsZero() {
				info.UpdatedAt, info.UpdatedFrom = mt, "mtime"
			}
		}
		StoryFromRepo(r, &info)
		out = append(out, Build(info, def))
	}
	return out, nil
}

// ParseSpecState parses a spec folder's `.pipeline-state.json` into a
// candidate, with the built-in spec-pipeline definition. It never fails: a
// file that does not decode is a candidate with status "unreadable" and a
// blocking parse finding. The findings returned are the candidate's own
// (also in Candidate.Findings). Artifacts found on disk are added by Scan.
func ParseSpecState(path string, data []byte) (workflow.Candidate, []workflow.Finding) {
	def := source.BuiltinDefinitions()[workflow.DefSpec]
	c := Build(ParseState(path, data, def), def)
	return c, c.Findings
}

// specInfo is what is known of one spec pipeline before it becomes a candidate.
type specInfo struct {
	Path        string // the state file, "" when built from artifacts
	Dir         string
	Name        string
	Story       string
	StoryPath   string
	Complexity  string
	Verdict     string
	Status      string
	StatusRaw   string
	Current     source.PhaseRef
	HasCurrent  bool
	Recorded    bool              // the state records phases
	States      map[string]string // phase id -> completed/skipped/active/pending
	Agents      map[string]string
	Artifacts   map[string]string // phase id -> path
	From        map[string]string // phase id -> where the artifact came from
	UpdatedAt   time.Time
	UpdatedFrom string
	StartedAt   time.Time
	Unreadable  bool
	Findings    []workflow.Finding
}

// specNameFromDir names a spec folder: `docs/stories/<x>/spec` is <x> (and
// story <x> when <x> starts with a story number), `docs/specs/<x>` is <x>.
func specNameFromDir(dir, storiesDir string) (name, story string) {
	dir = refpath.CleanPath(dir)
	base := path.Base(dir)
	if (strings.EqualFold(base, "spec") || strings.EqualFold(base, "specs")) && strings.Contains(dir, "/") {
		parent := path.Dir(dir)
		name = path.Base(parent)
		underStories := storiesDir != "" && strings.HasPrefix(parent+"/", strings.TrimSuffix(storiesDir, "/")+"/") && parent != strings.TrimSuffix(storiesDir, "/")
		for _, seg := range strings.Split(path.Dir(parent), "/") {
			if strings.EqualFold(seg, "stories") {
				underStories = true
			}
		}
		if underStories {
			if m := storyid.NumRe.FindStringSubmatch(name); m != nil {
				story = m[1]
			}
		}
		return name, story
	}
	if base == "." || base == "/" || base == "" {
		base = "spec"
	}
	return base, ""
}

// specUnreadable is the info of a state file that cannot be read or decoded.
func specUnreadable(file string, f workflow.Finding) specInfo {
	info := specInfo{Path: file, Dir: path.Dir(file), Unreadable: true, States: map[string]string{}, Artifacts: map[string]string{}, From: map[string]string{}}
	info.Name, info.Story = specNameFromDir(info.Dir, "docs/stories")
	info.Status = "unreadable"
	info.Findings = []workflow.Finding{f}
	return info
}

// specStateLists are the phase-recording fields of a pipeline state.
var specStateLists = []source.RecList{
	{Key: "phases", Dflt: workflow.PhaseCompleted},
	{Key: "phaseResults", Dflt: workflow.PhaseCompleted},
	{Key: "phase_results", Dflt: workflow.PhaseCompleted},
	{Key: "completed_phases", Dflt: workflow.PhaseCompleted},
	{Key: "completedPhases", Dflt: workflow.PhaseCompleted},
}

// specPhaseAliases maps other names of the spec phases to the built-in ids.
var specPhaseAliases = map[string]string{
	"requirements": "gather", "gather_requirements": "gather", "requirements_gathering": "gather", "gathering": "gather",
	"complexity": "assess", "assess_complexity": "assess", "complexity_assessment": "assess", "assessment": "assess",
	"research_dependencies": "research", "dependency_research": "research", "dependencies": "research",
	"write": "spec", "write_spec": "spec", "specification": "spec", "write_specification": "spec",
	"review": "critique", "spec_critique": "critique", "critique_spec": "critique",
}

// specPhaseIndex resolves a recorded spec phase against def.
func specPhaseIndex(def workflow.Definition, ref source.PhaseRef) int {
	if i := source.DefIndex(def, ref); i >= 0 {
		return i
	}
	for _, n := range []string{ref.Name, ref.Raw} {
		if alias, ok := specPhaseAliases[source.Norm(n)]; ok {
			return def.Index(alias)
		}
	}
	return -1
}

// ParseState reads a `.pipeline-state.json`.
func ParseState(file string, data []byte, def workflow.Definition) specInfo {
	m, err := tolerant.DecodeJSONMap(data)
	if err != nil {
		return specUnreadable(file, source.DecodeFinding(file, err))
	}
	f := &source.Fields{Path: file}
	info := specInfo{Path: file, Dir: path.Dir(file), States: map[string]string{}, Agents: map[string]string{}, Artifacts: map[string]string{}, From: map[string]string{}}
	dirName, dirStory := specNameFromDir(info.Dir, "docs/stories")
	info.Name = f.Str(m, "name", "feature", "specId", "spec_id", "feature_name", "featureName")
	if info.Name == "" {
		info.Name = dirName
	}
	info.Story = dirStory
	if s := f.Str(m, "story", "storyId", "story_id"); s != "" {
		info.Story, info.StoryPath = storyid.FromRef(s)
	}
	if v, k, ok := tolerant.Lookup(m, []string{"complexity", "complexityClass", "complexity_class"}); ok {
		info.Complexity = specComplexityValue(f, k, v)
	}
	if v, k, ok := tolerant.Lookup(m, []string{"currentPhase", "current_phase"}); ok {
		if ref, ok := source.ParseRef(v); ok {
			info.Current, info.HasCurrent = ref, true
		} else {
			f.Wrong(k, "a phase number or name", v)
		}
	}
	for _, r := range source.Recorded(f, []map[string]any{m}, specStateLists) {
		i := specPhaseIndex(def, r.Ref)
		if i < 0 {
			f.Findings = append(f.Findings, workflow.Finding{Check: workflow.CheckParse, Severity: workflow.Info, Code: "unknown-phase", Path: file,
				Message: "phase " + r.Ref.Raw + " is not a phase of the spec pipeline; ignored"})
			continue
		}
		id := def.Phases[i].ID
		info.Recorded = true
		info.States[id] = r.State
		if r.Agent != "" {
			info.Agents[id] = r.Agent
		}
		for _, o := range r.Outputs {
			if op, ok := refpath.Output(o); ok && info.Artifacts[id] == "" {
				info.Artifacts[id] = specResolve(info.Dir, op)
				info.From[id] = r.From
			}
		}
	}
	if info.HasCurrent {
		info.Recorded = true
	}
	specStateArtifacts(f, &info, m, def)
	raw := f.Str(m, "status")
	info.StatusRaw = raw
	info.Status = workflow.NormalizeStateStatus(raw)
	if v := f.Str(m, "verdict", "critiqueVerdict", "critique_verdict"); v != "" {
		info.Verdict = specVerdict(v)
	} else if cm, ok := m["critique"].(map[string]any); ok {
		info.Verdict = specVerdict(f.Str(cm, "verdict"))
	}
	var key string
	info.UpdatedAt, key = f.Time(m, "updatedAt", "updated_at", "lastUpdated", "last_updated")
	if key != "" {
		info.UpdatedFrom = "field:" + key
	}
	info.StartedAt, _ = f.Time(m, "startedAt", "started_at", "createdAt", "created_at")
	info.Findings = append(info.Findings, f.Findings...)
	return info
}

// specStateArtifacts reads the state's `artifacts`: a mapping phase -> path
// (or {path}), or a list of {phase, path} or of paths (matched by name).
func specStateArtifacts(f *source.Fields, info *specInfo, m map[string]any, def workflow.Definition) {
	v, ok := m["artifacts"]
	if !ok || v == nil {
		return
	}
	set := func(phase source.PhaseRef, p string) {
		i := specPhaseIndex(def, phase)
		if i < 0 || p == "" {
			return
		}
		id := def.Phases[i].ID
		if info.Artifacts[id] == "" {
			info.Artifacts[id] = specResolve(info.Dir, p)
			info.From[id] = "artifacts"
		}
	}
	switch t := v.(type) {
	case map[string]any:
		keys := source.SortedKeys(t)
		for _, k := range keys {
			ref, _ := source.ParseRef(k)
			switch x := t[k].(type) {
			case map[string]any:
				set(ref, f.Str(x, "path", "file"))
			default:
				if s, ok := tolerant.ScalarString(x); ok {
					set(ref, s)
				} else {
					f.Wrong("artifacts."+k, "a path", x)
				}
			}
		}
	case []any:
		for _, it := range t {
			switch x := it.(type) {
			case map[string]any:
				p := f.Str(x, "path", "file")
				ph, _ := source.ParseRef(x["phase"])
				if ph.Raw == "" {
					ph.Name, _ = specArtifactPhase(path.Base(p))
					ph.Raw = ph.Name
				}
				set(ph, p)
			default:
				s, ok := tolerant.ScalarString(x)
				if !ok {
					f.Wrong("artifacts[]", "a path", x)
					continue
				}
				if id, _ := specArtifactPhase(path.Base(s)); id != "" {
					set(source.PhaseRef{Raw: id, Name: id}, s)
				}
			}
		}
	default:
		f.Wrong("artifacts", "a mapping or a list", v)
	}
}

var (
	specVerdictRe    = lazyre.New(`(?i)^[^a-z]*(needs[ _-]*revisions?|revision[ _-]*needed|approved?|blocked|[a-z][a-z_-]*)`)
	specMDVerdictRe  = lazyre.New(`(?i)^verdict\s*(?:[:=\-—]\s*)(.*)$`)
	specMDHeadingRe  = lazyre.New(`(?i)^#{1,6}\s*verdict\s*:?\s*$`)
	specComplexityRe = lazyre.New(`(?i)\b(?:class|complexity)\b[^\n]{0,80}?\b(SIMPLE|STANDARD|COMPLEX)\b`)
)

// wfQuote quotes text for a message, shortened.
func wfQuote(s string) string {
	if len(s) > 60 {
		s = s[:60] + "…"
	}
	return `"` + strings.ToValidUTF8(s, "?") + `"`
}

// Build turns what is known of a pipeline into its candidate.
func Build(info specInfo, def workflow.Definition) workflow.Candidate {
	if info.Name == "" {
		info.Name, _ = specNameFromDir(info.Dir, "docs/stories")
	}
	key := storyid.Sanitize(info.Name)
	srcPath := info.Path
	if srcPath == "" {
		srcPath = info.Dir
	}
	c := workflow.Candidate{
		ID:          "spec:" + key,
		Type:        workflow.TypeSpec,
		Key:         key,
		Source:      workflow.SourceRef{Kind: workflow.KindSpec, Path: srcPath, Priority: workflow.PrioritySpec},
		Workflow:    workflow.DefSpec,
		Stories:     []string{},
		UpdatedAt:   info.UpdatedAt,
		UpdatedFrom: info.UpdatedFrom,
		StartedAt:   info.StartedAt,
		Findings:    info.Findings,
	}
	if def.ID != "" {
		c.Workflow = def.ID
	}
	if info.Story != "" {
		c.Stories = []string{info.Story}
		c.StoryRefs = []workflow.StoryRef{{ID: info.Story, Path: info.StoryPath}}
	}
	arts := map[string]string{}
	for k, v := range info.Artifacts {
		if v != "" {
			arts[k] = v
		}
	}
	c.Spec = &workflow.Spec{Name: info.Name, Dir: info.Dir, Complexity: info.Complexity, Artifacts: arts, Verdict: info.Verdict}

	phases := specDefPhases(info, def, arts)
	curIdx, revision := specCurrent(info, def, phases)
	c.Phases = phases
	lastDone := ""
	for i, p := range phases {
		if p.Status == workflow.PhaseCompleted && (curIdx < 0 || i < curIdx) {
			lastDone = p.ID
		}
	}
	specPosition(&c, curIdx)
	c.StatusRaw = info.StatusRaw
	c.Status = specStatus(info)
	c.Resumable = info.Unreadable || !workflow.IsTerminalStatus(c.Status)

	// files: every artifact; critical when the next phase needs it
	next := ""
	if curIdx >= 0 {
		next = phases[curIdx].ID
	}
	ids := source.SortedKeys(arts)
	set := source.NewFileSet(nil)
	for _, id := range ids {
		critical := id == lastDone ||
			(id == "gather" && (next == "spec" || next == "critique")) ||
			(id == "spec" && next == "critique") ||
			(id == "critique" && revision && next == "spec")
		set.Add(workflow.RefFile{Path: arts[id], Phase: id, Critical: critical, Produced: true, From: info.From[id]})
	}
	c.Files = set.Sorted()
	return c
}

// specDefPhases lists the definition's phases with what the pipeline
// recorded: agents, artifacts, completed and skipped phases (a SIMPLE
// pipeline skips the assessment and the research).
func specDefPhases(info specInfo, def workflow.Definition, arts map[string]string) []workflow.Phase {
	phases := make([]workflow.Phase, len(def.Phases))
	for i, p := range def.Phases {
		phases[i] = workflow.Phase{ID: p.ID, Name: p.Name, Agent: p.Agent, Status: workflow.PhasePending}
		if a := info.Agents[p.ID]; a != "" {
			phases[i].Agent = a
		}
		if a := arts[p.ID]; a != "" {
			phases[i].Outputs = []string{a}
		}
		switch st := info.States[p.ID]; st {
		case workflow.PhaseCompleted, workflow.PhaseSkipped:
			phases[i].Status = st
		}
		if info.Complexity == "SIMPLE" && (p.ID == "assess" || p.ID == "research") {
			phases[i].Status = workflow.PhaseSkipped // SIMPLE runs gather, spec, critique
		}
	}
	return phases
}

// specCurrent finds the current phase and marks it (-1 when none): the
// recorded one, else the spec when the critique asks for a revision, else
// an active one, else the first pending phase after the last completed
// one. revision reports a NEEDS_REVISION verdict on a completed critique.
func specCurrent(info specInfo, def workflow.Definition, phases []workflow.Phase) (curIdx int, revision bool) {
	curIdx = -1
	if info.HasCurrent {
		curIdx = specPhaseIndex(def, info.Current)
	}
	critique := def.Index("critique")
	spec := def.Index("spec")
	revision = info.Verdict == specNeedsRevision && critique >= 0 && spec >= 0 && phases[critique].Status == workflow.PhaseCompleted
	if curIdx < 0 && revision {
		curIdx = spec // the critique sends the spec back for revision
	}
	if curIdx < 0 {
		for i := range phases {
			if info.States[phases[i].ID] == "active" {
				curIdx = i
				break
			}
		}
	}
	if curIdx < 0 {
		lastDone := -1
		for i, p := range phases {
			if p.Status == workflow.PhaseCompleted {
				lastDone = i
			}
		}
		for i := lastDone + 1; i < len(phases); i++ {
			if phases[i].Status == workflow.PhasePending {
				curIdx = i
				break
			}
		}
	}
	source.SkipBefore(phases, curIdx)
	if curIdx >= 0 {
		for i := curIdx + 1; i < len(phases) && revision; i++ {
			phases[i].Status = workflow.PhasePending // the critique runs again after the revision
		}
		phases[curIdx].Status = workflow.PhaseCurrent
	}
	return curIdx, revision
}

// specPosition sets the position among the phases that are not skipped
// (the current one, else the last one) and the current phase's agent.
func specPosition(c *workflow.Candidate, curIdx int) {
	phases := c.Phases
	if len(phases) == 0 {
		return
	}
	var active []int
	for i, p := range phases {
		if p.Status != workflow.PhaseSkipped {
			active = append(active, i)
		}
	}
	pos := workflow.Position{Kind: workflow.PosPhase, Total: len(active)}
	if curIdx >= 0 {
		index := 0
		for rank, i := range active {
			if i == curIdx {
				index = rank + 1
			}
		}
		pos = workflow.PhasePosition(index, len(active), phases[curIdx].Name)
		c.Agent = phases[curIdx].Agent
	} else if len(active) > 0 {
		pos = workflow.PhasesDone(len(active), phases[active[len(active)-1]].Name)
	}
	c.Position = pos
}

// specStatus is the pipeline's status: the recorded one, else what the
// critique verdict says; an APPROVED verdict completes a readable pipeline.
func specStatus(info specInfo) string {
	status := info.Status
	if status == "" {
		switch info.Verdict {
		case specApproved:
			status = "completed"
		case specBlocked:
			status = "blocked"
		default:
			status = "in_progress"
		}
	}
	if info.Verdict == specApproved && !info.Unreadable {
		status = "completed"
	}
	return status
}

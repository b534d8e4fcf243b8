package plan

import (
	"fmt"
	"sort"
	"strings"

	"github.com/orchestrate-dev/orchestrate/workflow"
)

// buildTrack lays out candidate c according to its workflow type.
func buildTrack(c workflow.Candidate, def workflow.Definition) track {
	var t track
	switch {
	case c.Type == workflow.TypePhase && c.Source.Kind == workflow.KindGSD:
		t = gsdTrack(c)
	case c.Type == workflow.TypeFeature:
		t = speckitTrack(c)
	case c.Type == workflow.TypeChange:
		t = openspecTrack(c)
	case c.Type == workflow.TypeKiroSpec && c.Source.Kind == workflow.KindKiro:
		t = kiroTrack(c)
	case c.Type == workflow.TypeEpic || (c.Epic != nil && c.QA == nil):
		t = epicTrack(c, def)
	case c.Type == workflow.TypeQALoop || (c.QA != nil && c.Type != workflow.TypeQAReview):
		t = qaTrack(c, def)
	case c.Type == workflow.TypeSpec || c.Workflow == workflow.DefSpec || def.ID == workflow.DefSpec:
		t = specTrack(c, def)
	case c.Type == workflow.TypeTask:
		t = taskTrack(c, def)
	case c.Source.Kind == workflow.KindBMADLedger:
		t = bmad6Track(c, def)
	case c.Type == workflow.TypeSDC || c.Type == workflow.TypeQAReview || c.Workflow == workflow.DefSDC || def.ID == workflow.DefSDC:
		t = sdcTrack(c, def)
	default:
		t = genericTrack(c, def)
	}
	t.finish()
	return t
}

// slotNames gives the i-th phase an id and a title even when the state or
// definition leaves one out.
func slotNames(id, name string, i int) (string, string) {
	id, name = strings.TrimSpace(id), strings.TrimSpace(name)
	if id == "" {
		id = slug(name)
	}
	if id == "" {
		id = fmt.Sprintf("phase-%d", i+1)
	}
	if name == "" {
		name = id
	}
	return id, name
}

// newTrack returns an empty linear track.
func newTrack() track {
	return track{chain: true, lastDone: -1}
}

// defSlots lays out the phases of def with what the candidate says of them:
// statuses and outputs from c.Phases, outputs and inputs from c.Files. marked
// reports whether the state gave any of them a status.
func defSlots(c workflow.Candidate, def workflow.Definition) (slots []slot, marked bool) {
	for i, pd := range def.Phases {
		id, title := slotNames(pd.ID, pd.Name, i)
		s := slot{
			id: id, title: title, agent: pd.Agent, story: firstStory(c),
			index: i + 1, aliases: []string{pd.Name}, keys: []string{pd.ID, pd.Name},
		}
		if pd.Task != "" {
			s.note = "task " + pd.Task
		}
		slots = append(slots, s)
	}
	for _, ph := range c.Phases {
		i := matchPhase(def, ph.ID)
		if i < 0 {
			i = matchPhase(def, ph.Name)
		}
		if i < 0 {
			continue
		}
		slots[i].outputs = appendPaths(slots[i].outputs, ph.Outputs...)
		if slots[i].agent == "" {
			slots[i].agent = strings.TrimPrefix(ph.Agent, "@")
		}
		if st := phaseStatus(ph.Status); st != "" {
			slots[i].status = st
			marked = true
		}
	}
	attachFiles(c, slots, func(phase string) int { return matchPhase(def, phase) })
	return slots, marked
}

// attachFiles adds the candidate's referenced files to the slots their phase
// names: produced files as outputs, the others as inputs.
func attachFiles(c workflow.Candidate, slots []slot, index func(phase string) int) {
	for _, f := range c.Files {
		if f.Phase == "" {
			continue
		}
		i := index(f.Phase)
		if i < 0 || i >= len(slots) {
			continue
		}
		if f.Produced {
			slots[i].outputs = appendPaths(slots[i].outputs, f.Path)
		} else {
			slots[i].inputs = append(slots[i].inputs, input{path: f.Path, producer: -1, critical: f.Critical})
		}
	}
}

// matchPhase finds a phase of def by id or name, tolerating the spellings
// states use ("3_implement", "Implementation", "IMPLEMENT").
func matchPhase(def workflow.Definition, name string) int {
	if strings.TrimSpace(name) == "" {
		return -1
	}
	if i := def.Index(strings.TrimSpace(name)); i >= 0 {
		return i
	}
	k := normKey(name)
	for _, key := range []string{k, stripStep(k)} {
		for i, p := range def.Phases {
			if normKey(p.ID) == key || normKey(p.Name) == key {
				return i
			}
		}
	}
	return -1
}

// positionIndex is the 0-based index in def the candidate's position names, or -1.
func positionIndex(c workflow.Candidate, def workflow.Definition) int {
	pos := c.Position
	if pos.Kind != "" && pos.Kind != workflow.PosPhase && pos.Kind != workflow.PosStep {
		return -1
	}
	if i := matchPhase(def, pos.Name); i >= 0 {
		return i
	}
	if pos.Index > 0 && pos.Index <= len(def.Phases) {
		return pos.Index - 1
	}
	return -1
}

// phaseStatus maps a state's phase status to a slot status ("" when the
// state gives none).
func phaseStatus(raw string) string {
	switch workflow.NormalizeStateStatus(raw) {
	case "":
		return ""
	case "completed", "complete", "done", "passed", "pass", "approved", "success", "succeeded", "finished", "ok":
		return workflow.PhaseCompleted
	case "current", "in_progress", "active", "running", "started", "paused", "interrupted", "failed", "error":
		return workflow.PhaseCurrent
	case "skipped", "skip", "not_applicable", "n/a":
		return workflow.PhaseSkipped
	}
	return workflow.PhasePending
}

// normKey is the comparison form of a phase name: lower case, words joined
// by "-" ("Story Creation" → "story-creation", "3_implement" → "3-implement").
func normKey(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	var b strings.Builder
	dash := false
	for _, r := range s {
		ok := (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') || r == ':' || r == '.'
		if !ok {
			dash = b.Len() > 0
			continue
		}
		if dash {
			b.WriteByte('-')
			dash = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// stripStep drops a leading step number from a key: "3-implement" → "implement".
func stripStep(k string) string {
	if i := strings.IndexByte(k, '-'); i > 0 && isDigits(k[:i]) {
		return k[i+1:]
	}
	return k
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// slug makes an id from a human name.
func slug(s string) string {
	return normKey(s)
}

func appendPaths(list []string, paths ...string) []string {
	for _, p := range paths {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		list = appendUnique(list, p)
	}
	return list
}

func firstStory(c workflow.Candidate) string {
	if len(c.Stories) > 0 {
		return c.Stories[0]
	}
	return ""
}

// storyFiles are the candidate's story files: its source when it is a story,
// story evidence, and the paths its story references record.
func storyFiles(c workflow.Candidate) []string {
	var out []string
	if c.Source.Kind == workflow.KindStory {
		out = appendPaths(out, c.Source.Path)
	}
	for _, e := range c.Evidence {
		if e.Kind == workflow.KindStory {
			out = appendPaths(out, e.Path)
		}
	}
	for _, s := range c.StoryRefs {
		out = appendPaths(out, s.Path)
	}
	return out
}

// defNames are the phase ids of def, for the usage error.
func defNames(def workflow.Definition) []string {
	var out []string
	for _, p := range def.Phases {
		if p.ID != "" {
			out = appendUnique(out, p.ID)
		}
	}
	return out
}

// sortedKeys returns the keys of m in order.
func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// positionUnknown is the info finding of a state that does not say where it
// stopped.
func positionUnknown(phase, what string) workflow.Finding {
	return workflow.Finding{
		Check: workflow.CheckPrerequisite, Severity: workflow.Info, Code: CodePositionUnknown,
		Message: "the state does not say where it stopped; " + what, Phase: phase,
	}
}

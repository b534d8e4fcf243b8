package plan

import (
	"fmt"
	"strings"

	"github.com/orchestrate-dev/orchestrate/validate"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// A track is a workflow laid out as the sequence of steps it runs, from its
// first phase to completion, with what the saved state says of each. Every
// workflow type builds one (sdc.go, spec.go, qaloop.go, epic.go, generic.go);
// partial resume, --restart, --from-phase, prerequisites and the remaining
// phases are then worked out the same way for all of them.
type track struct {
	slots []slot
	// natural is the resume point the saved state gives (len(slots): none).
	natural int
	// terminal is set when nothing is left to do.
	terminal bool
	// independent tracks (epic stories) do not re-run completed steps that
	// follow the resume point; in a linear track everything after it re-runs.
	independent bool
	// chain: the outputs of completed steps are inputs of the later ones.
	chain bool
	// lastDone overrides the last completed step when the workflow looped
	// back (a critique that asked for a revision); -1 when unused.
	lastDone int
	// total is the plan's PhaseTotal.
	total int
	// names are the phase names --from-phase accepts, for the usage error.
	names []string
	// storyFiles are inputs of every step (the candidate's story files).
	storyFiles []string
	// findings the builder made (an unknown position, …).
	findings []workflow.Finding
	// restart builds the track a restart runs, when it is not simply this
	// track with every step pending (the QA loop starts at iteration 1).
	restart func() track
}

// slot is one step of a track.
type slot struct {
	id    string // the phase name in JSON (implement, fix, wave-2:3.4, …)
	title string // human name
	agent string
	story string
	note  string
	index int // the phase's place in its definition
	// pos is the position when the plan resumes here, in the candidate's
	// numbering (QA iterations, epic waves); zero: worked out by positionOf.
	pos workflow.Position
	// status is workflow.PhaseCompleted, PhaseCurrent, PhasePending,
	// PhaseSkipped, or "" while a builder has not decided.
	status string
	// aliases are other spellings of id for --from-phase (the definition's
	// phase name); several slots may share them (QA iterations).
	aliases []string
	// groups name a set of slots for --from-phase (wave-2, a story id); the
	// first slot of the set is chosen.
	groups []string
	// keys are the phase names validation may report this slot under
	// (Report.ChangedPhases / MissingPhases); nil: never invalid.
	keys []string
	// group is the label the slot collapses to in remaining_phases when it
	// is not in the resume point's group (wave-3).
	group   string
	outputs []string
	inputs  []input // inputs of this step beyond the chained outputs
	invalid bool
}

// input is a file a step needs.
type input struct {
	path     string
	producer int // index of the completed slot that produced it, -1 if none
	critical bool
}

func (s *slot) unskip() {
	if s.status == workflow.PhaseSkipped {
		s.status = workflow.PhasePending
	}
}

func (s slot) active() bool { return s.status != workflow.PhaseSkipped }

// finish turns undecided statuses into pending.
func (t *track) finish() {
	for i := range t.slots {
		if t.slots[i].status == "" {
			t.slots[i].status = workflow.PhasePending
		}
	}
	if t.natural < 0 {
		t.natural = 0
	}
	if t.natural > len(t.slots) {
		t.natural = len(t.slots)
	}
	t.natural = t.nextActive(t.natural)
	if t.natural >= len(t.slots) {
		t.terminal = true
	}
}

// nextActive returns the first slot at or after i that is not skipped.
func (t *track) nextActive(i int) int {
	for i < len(t.slots) && !t.slots[i].active() {
		i++
	}
	return i
}

func (t *track) firstActive() int { return t.nextActive(0) }

// reset makes every step pending again (a restart).
func (t *track) reset() {
	for i := range t.slots {
		if t.slots[i].status != workflow.PhaseSkipped {
			t.slots[i].status = workflow.PhasePending
		}
	}
	t.lastDone = -1
	t.natural = t.firstActive()
}

// afterLastCompleted returns the index after the last completed slot.
func (t *track) afterLastCompleted() (int, bool) {
	for i := len(t.slots) - 1; i >= 0; i-- {
		if t.slots[i].status == workflow.PhaseCompleted {
			return i + 1, true
		}
	}
	return 0, false
}

// firstWith returns the first slot with status st, or -1.
func (t *track) firstWith(st string) int {
	for i, s := range t.slots {
		if s.status == st {
			return i
		}
	}
	return -1
}

// impliedBefore marks every slot before i that the state gives no status
// completed: the state only says where it stopped.
func (t *track) impliedBefore(i int) {
	for j := 0; j < i && j < len(t.slots); j++ {
		if t.slots[j].status == "" {
			t.slots[j].status = workflow.PhaseCompleted
		}
	}
}

type invalidity struct {
	ids   []string
	first int
}

// markInvalid flags the completed slots whose phase validation found
// changed or missing files.
func (t *track) markInvalid(rep validate.Report) invalidity {
	bad := map[string]bool{}
	for _, ph := range append(append([]string{}, rep.ChangedPhases...), rep.MissingPhases...) {
		if k := normKey(ph); k != "" {
			bad[k] = true
		}
	}
	// A phase the natural resume point runs anyway (the next round of a QA
	// review) is not sent back for: its next run covers the change.
	next := ""
	if t.natural < len(t.slots) {
		next = normKey(t.slots[t.natural].id)
	}
	inv := invalidity{ids: []string{}, first: -1}
	for i := range t.slots {
		s := &t.slots[i]
		if s.status != workflow.PhaseCompleted || normKey(s.id) == next {
			continue
		}
		for _, k := range s.keys {
			if bad[normKey(k)] {
				s.invalid = true
				break
			}
		}
		if s.invalid {
			inv.ids = appendUnique(inv.ids, s.id)
			if inv.first < 0 {
				inv.first = i
			}
		}
	}
	return inv
}

// invalidIDs lists the invalid completed slots, in track order.
func (t *track) invalidIDs() []string {
	out := []string{}
	for _, s := range t.slots {
		if s.invalid && s.status == workflow.PhaseCompleted {
			out = appendUnique(out, s.id)
		}
	}
	return out
}

// find returns the slot --from-phase name designates. A phase id or name
// that several slots share (QA iterations) designates the last one at or
// before the natural resume point, else the first after it; a group (a wave,
// a story) designates its first slot.
func (t *track) find(name string) (int, bool) {
	k := normKey(name)
	if k == "" {
		return -1, false
	}
	var hits []int
	for i, s := range t.slots {
		if normKey(s.id) == k || containsKey(s.aliases, k) {
			hits = append(hits, i)
		}
	}
	if len(hits) > 0 {
		best := -1
		for _, i := range hits {
			if i <= t.natural {
				best = i
			}
		}
		if best < 0 {
			best = hits[0]
		}
		return best, true
	}
	for i, s := range t.slots {
		if containsKey(s.groups, k) {
			return i, true
		}
	}
	return -1, false
}

func containsKey(list []string, k string) bool {
	for _, x := range list {
		if normKey(x) == k {
			return true
		}
	}
	return false
}

// fromPhaseFindings reports, for a start at slot idx, the invalid completed
// steps before it (blocking) and the steps before it that never ran
// (warning).
func (t *track) fromPhaseFindings(idx int) []workflow.Finding {
	var invalid, never []string
	for i := 0; i < idx; i++ {
		s := t.slots[i]
		switch {
		case s.status == workflow.PhaseCompleted && s.invalid:
			invalid = appendUnique(invalid, s.id)
		case s.status != workflow.PhaseCompleted && s.active():
			never = appendUnique(never, s.id)
		}
	}
	target := t.slots[idx].id
	var fs []workflow.Finding
	if len(invalid) > 0 {
		msg := fmt.Sprintf("cannot start at %s: phase %s before it is no longer valid (its referenced files changed or are missing); start from %s or earlier", target, invalid[0], invalid[0])
		if len(invalid) > 1 {
			msg = fmt.Sprintf("cannot start at %s: phases %s before it are no longer valid (their referenced files changed or are missing); start from %s or earlier", target, strings.Join(invalid, ", "), invalid[0])
		}
		fs = append(fs, workflow.Finding{
			Check: workflow.CheckPrerequisite, Severity: workflow.Blocking, Code: CodeFromPhaseInvalid,
			Message: msg, Phase: invalid[0],
		})
	}
	if len(never) > 0 {
		fs = append(fs, workflow.Finding{
			Check: workflow.CheckPrerequisite, Severity: workflow.Warning, Code: CodeFromPhaseSkips,
			Message: fmt.Sprintf("starting at %s skips %s, which never completed", target, strings.Join(never, ", ")),
			Phase:   target,
		})
	}
	return fs
}

// inputsOf lists the inputs of slot i: the story files, the outputs of the
// completed steps before it (chained tracks) and the step's own inputs. A
// path produced by an earlier step keeps that producer.
func (t *track) inputsOf(i int) []input {
	var out []input
	pos := map[string]int{}
	add := func(in input) {
		if in.path == "" {
			return
		}
		if j, ok := pos[in.path]; ok {
			if out[j].producer < 0 && in.producer >= 0 {
				out[j].producer = in.producer
			}
			out[j].critical = out[j].critical || in.critical
			return
		}
		pos[in.path] = len(out)
		out = append(out, in)
	}
	for _, p := range t.storyFiles {
		add(input{path: p, producer: -1, critical: true})
	}
	if t.chain {
		for j := 0; j < i; j++ {
			if t.slots[j].status != workflow.PhaseCompleted {
				continue
			}
			for _, o := range t.slots[j].outputs {
				add(input{path: o, producer: j, critical: true})
			}
		}
	}
	for _, in := range t.slots[i].inputs {
		in.producer = -1
		add(in)
	}
	return out
}

// prerequisites checks the inputs of the resume slot. An output of an
// earlier completed step that is missing moves the resume point back to that
// step (unless the user chose the starting point); the missing files are
// findings either way. It returns the final resume index and its inputs.
func (t *track) prerequisites(resume int, env Env, chosen bool) (int, []string, []workflow.Finding) {
	exists := env.Exists
	if exists == nil {
		exists = func(string) bool { return true }
	}
	var fs []workflow.Finding
	reported := map[string]bool{}
	if !chosen {
		for guard := 0; guard <= len(t.slots); guard++ {
			earliest := -1
			needer := t.slots[resume].id
			for _, in := range t.inputsOf(resume) {
				if in.producer < 0 || reported[in.path] || exists(in.path) {
					continue
				}
				reported[in.path] = true
				prod := t.slots[in.producer].id
				fs = append(fs, workflow.Finding{
					Check: workflow.CheckPrerequisite, Severity: workflow.Blocking, Code: CodeMissingInput,
					Message: fmt.Sprintf("%s, an output of phase %s needed by %s, is missing; phase %s must re-run", in.path, prod, needer, prod),
					Path:    in.path, Phase: needer,
				})
				if earliest < 0 || in.producer < earliest {
					earliest = in.producer
				}
			}
			if earliest < 0 {
				break
			}
			t.slots[earliest].invalid = true
			resume = earliest
		}
	}
	inputs := t.inputsOf(resume)
	paths := make([]string, 0, len(inputs))
	needer := t.slots[resume].id
	for _, in := range inputs {
		paths = append(paths, in.path)
		if reported[in.path] || exists(in.path) {
			continue
		}
		reported[in.path] = true
		f := workflow.Finding{Check: workflow.CheckPrerequisite, Severity: workflow.Blocking, Code: CodeMissingInput, Path: in.path, Phase: needer}
		switch {
		case in.producer >= 0:
			prod := t.slots[in.producer].id
			f.Message = fmt.Sprintf("%s, an output of phase %s needed by %s, is missing; phase %s must re-run (--from-phase %s)", in.path, prod, needer, prod, prod)
		case in.critical:
			f.Message = fmt.Sprintf("input %s of phase %s is missing", in.path, needer)
		default:
			f.Severity = workflow.Warning
			f.Message = fmt.Sprintf("input %s of phase %s is missing (not critical)", in.path, needer)
		}
		fs = append(fs, f)
	}
	return resume, paths, fs
}

// remaining lists the phases from resume to completion, and the steps.
// chosen: the user picked the starting point, so every step from it runs.
func (t *track) remaining(resume int, chosen bool) ([]string, []Step) {
	ids := []string{}
	var steps []Step
	if resume >= len(t.slots) {
		return ids, steps
	}
	rg := t.slots[resume].group
	for i := resume; i < len(t.slots); i++ {
		s := t.slots[i]
		if !s.active() {
			continue
		}
		if t.independent && !chosen && i != resume && s.status == workflow.PhaseCompleted && !s.invalid {
			continue
		}
		label := s.id
		if s.group != "" && s.group != rg {
			label = s.group
			if len(ids) > 0 && ids[len(ids)-1] == label {
				label = ""
			}
		}
		if label != "" {
			ids = append(ids, label)
		}
		steps = append(steps, Step{Phase: s.id, Name: s.title, Agent: s.agent, Story: s.story, Note: s.note})
	}
	return ids, steps
}

// lastCompleted is the last completed step before resume.
func (t *track) lastCompleted(resume int, chosen bool) *PhaseRef {
	idx := -1
	if !chosen && t.lastDone >= 0 && t.lastDone < len(t.slots) && resume == t.natural {
		idx = t.lastDone
	} else {
		for i := resume - 1; i >= 0; i-- {
			if i < len(t.slots) && t.slots[i].status == workflow.PhaseCompleted {
				idx = i
				break
			}
		}
	}
	if idx < 0 {
		return nil
	}
	s := t.slots[idx]
	ref := &PhaseRef{Phase: s.id, Agent: s.agent}
	if len(s.outputs) > 0 {
		ref.Output = s.outputs[0]
	}
	return ref
}

// useStateAgent gives the natural resume slot the agent the state records
// (a story's executor, a workflow's current_agent) when that slot is the
// phase the state says is current (index cur).
func (t *track) useStateAgent(c workflow.Candidate, cur int) {
	agent := strings.TrimPrefix(strings.TrimSpace(c.Agent), "@")
	if agent == "" || cur < 0 || cur != t.natural || cur >= len(t.slots) {
		return
	}
	t.slots[cur].agent = agent
}

// stateCurrent is the slot the state marks current, else the one its
// position names, or -1.
func (t *track) stateCurrent(c workflow.Candidate, def workflow.Definition) int {
	if i := t.firstWith(workflow.PhaseCurrent); i >= 0 {
		return i
	}
	if len(def.Phases) > 0 && len(def.Phases) == len(t.slots) {
		return positionIndex(c, def)
	}
	return slotPosition(c.Position, t.slots)
}

// stoppedAt sets the natural resume point of a linear track from what the
// state says, in this order: the phase after the last completed one, the
// phase marked current, the phase the position names. It reports whether the
// state said anything.
func (t *track) stoppedAt(c workflow.Candidate, def workflow.Definition) bool {
	if i, ok := t.afterLastCompleted(); ok {
		t.natural = i
		return true
	}
	i := t.firstWith(workflow.PhaseCurrent)
	if i < 0 {
		i = positionIndex(c, def)
	}
	if i < 0 {
		return false
	}
	t.impliedBefore(i)
	t.natural = i
	return true
}

// positionOf is the position of a resume at slot i, in the numbering
// discovery gives the candidate (workflow.Position), so that status, the
// resume blocks and --json agree. A slot's own position (QA loops, epics)
// wins; a step source (progress, work session, spec-kit, Taskmaster, GSD)
// resuming where it stopped keeps the position discovery counted in its own
// items; any other resume counts the active (not skipped) steps of the
// track: "2/5 done, at Spec" resumes at the third of the five phases that
// will run.
func (t *track) positionOf(i int, c workflow.Candidate, natural bool) workflow.Position {
	s := t.slots[i]
	if s.pos.Kind != "" {
		return s.pos
	}
	if natural && c.Position.Kind != "" && c.Position.Kind != workflow.PosPhase {
		return c.Position
	}
	if natural && c.Position.Kind == workflow.PosPhase && c.Position.At != "" &&
		(normKey(c.Position.At) == normKey(s.title) || normKey(c.Position.At) == normKey(s.id)) {
		// resuming where discovery says: its count (a state that names only
		// its current phase counts the phases before it as done)
		return c.Position
	}
	if len(t.slots) == 1 && len(c.Phases) == 0 {
		// one step continuing from the saved context: where the state says
		return c.Position
	}
	index, total := 0, 0
	for j, o := range t.slots {
		if !o.active() && j != i {
			continue
		}
		total++
		if j <= i {
			index++
		}
	}
	return workflow.PhasePosition(index, total, s.title)
}

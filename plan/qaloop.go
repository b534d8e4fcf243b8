package plan

import (
	"fmt"
	"strings"

	"github.com/orchestrate-dev/orchestrate/workflow"
)

// QA-loop verdicts, normalised.
const (
	verdictApprove = "APPROVE"
	verdictReject  = "REJECT"
	verdictBlocked = "BLOCKED"
)

// defaultMaxIterations is the QA loop's limit when neither the state nor the
// definition gives one.
const defaultMaxIterations = 5

// qaTrack lays out a QA loop as the rounds it runs: review and fix
// alternating, iteration after iteration, up to the maximum, then
// escalation. The resume point follows the last verdict of the current
// iteration: none yet → review; REJECT → fix, or the next iteration's review
// once the fixes are applied; REJECT at the last iteration, or BLOCKED, →
// escalate; APPROVE → nothing left. The remaining phases are the worst case:
// every later review rejects until escalation.
func qaTrack(c workflow.Candidate, def workflow.Definition) track {
	q := workflow.QALoop{}
	if c.QA != nil {
		q = *c.QA
	}
	max := q.MaxIterations
	if max <= 0 {
		max = def.MaxIterations
	}
	if max <= 0 {
		max = defaultMaxIterations
	}
	iter := q.Iteration
	if iter <= 0 && len(q.History) > 0 {
		iter = q.History[len(q.History)-1].Number
		if iter <= 0 {
			iter = len(q.History)
		}
	}
	if iter <= 0 {
		iter = 1
	}
	raw := strings.TrimSpace(q.LastVerdict)
	if raw == "" && len(q.History) > 0 {
		raw = strings.TrimSpace(q.History[len(q.History)-1].Verdict)
	}
	verdict := qaVerdict(raw)
	fixed := q.FixesApplied
	if n := len(q.History); n > 0 && q.History[n-1].Fixed && (q.History[n-1].Number == iter || q.History[n-1].Number == 0) {
		fixed = true
	}
	escalated := workflow.NormalizeStateStatus(c.Status) == "escalated"

	b := qaBuilder{c: c, def: def, max: max}
	var findings []workflow.Finding
	if verdict != "" && verdict != verdictApprove && verdict != verdictReject && verdict != verdictBlocked {
		findings = append(findings, workflow.Finding{
			Check: workflow.CheckPrerequisite, Severity: workflow.Warning, Code: "unknown-verdict",
			Message: fmt.Sprintf("QA verdict %q is not APPROVE, REJECT or BLOCKED; resuming at the review of iteration %d", raw, iter),
			Phase:   "review",
		})
		verdict = ""
	}

	for k := 1; k < iter; k++ {
		b.add("review", k, workflow.PhaseCompleted)
		b.add("fix", k, workflow.PhaseCompleted)
	}
	switch {
	case verdict == verdictApprove:
		b.add("review", iter, workflow.PhaseCompleted)
		b.t.natural = len(b.t.slots)
		b.t.terminal = true
	case verdict == verdictBlocked || escalated || iter > max:
		if verdict != "" {
			b.add("review", iter, workflow.PhaseCompleted)
		}
		if fixed && verdict == verdictReject {
			b.add("fix", iter, workflow.PhaseCompleted)
		}
		b.t.natural = len(b.t.slots)
		b.add("escalate", iter, workflow.PhasePending)
	case verdict == verdictReject && iter >= max:
		b.add("review", iter, workflow.PhaseCompleted)
		if fixed {
			b.add("fix", iter, workflow.PhaseCompleted)
		}
		b.t.natural = len(b.t.slots)
		b.add("escalate", iter, workflow.PhasePending)
	case verdict == verdictReject && !fixed:
		b.add("review", iter, workflow.PhaseCompleted)
		b.t.natural = len(b.t.slots)
		b.future(iter, true)
	case verdict == verdictReject:
		b.add("review", iter, workflow.PhaseCompleted)
		b.add("fix", iter, workflow.PhaseCompleted)
		b.t.natural = len(b.t.slots)
		b.future(iter+1, false)
	default:
		b.t.natural = len(b.t.slots)
		b.future(iter, false)
	}
	b.finish()
	b.t.findings = findings
	b.t.restart = func() track {
		r := qaBuilder{c: c, def: def, max: max}
		r.future(1, false)
		r.finish()
		r.t.finish()
		return r.t
	}
	return b.t
}

// qaBuilder appends the rounds of a QA loop to a track.
type qaBuilder struct {
	c   workflow.Candidate
	def workflow.Definition
	max int
	t   track
}

// future appends the rounds from iteration k (starting with its fix when
// fixFirst) to escalation.
func (b *qaBuilder) future(k int, fixFirst bool) {
	if fixFirst {
		b.add("fix", k, workflow.PhasePending)
		k++
	}
	for ; k < b.max; k++ {
		b.add("review", k, workflow.PhasePending)
		b.add("fix", k, workflow.PhasePending)
	}
	b.add("review", k, workflow.PhasePending)
	b.add("escalate", k, workflow.PhasePending)
}

// add appends one round step.
func (b *qaBuilder) add(phase string, k int, status string) {
	pd, idx := qaPhase(b.def, phase)
	s := slot{
		id: pd.ID, title: fmt.Sprintf("%s (iteration %d of %d)", pd.Name, k, b.max), agent: pd.Agent,
		story: firstStory(b.c), index: idx, status: status, aliases: []string{pd.Name},
		note: fmt.Sprintf("iteration %d: %s", k, pd.ID),
	}
	s.pos = workflow.Position{Kind: workflow.PosIteration, Index: k, Done: k - 1, Total: b.max, Name: pd.Name, At: phase}
	s.pos.Phase, s.pos.Phases = workflow.QAPhase(b.def, phase)
	if phase == "escalate" {
		s.pos.Done = min(k, b.max) // escalation follows the last iteration's review
		s.title = pd.Name
		s.note = fmt.Sprintf("after iteration %d: escalate", k)
	}
	b.t.slots = append(b.t.slots, s)
}

// finish gives the latest occurrence of each phase the keys validation uses
// and the files the state attaches to that phase: an older round's outputs
// are superseded.
func (b *qaBuilder) finish() {
	t := &b.t
	t.chain = true
	t.lastDone = -1
	t.total = len(b.def.Phases)
	if t.total == 0 {
		t.total = 3
	}
	t.names = defNames(b.def)
	if len(t.names) == 0 {
		t.names = []string{"review", "fix", "escalate"}
	}
	t.storyFiles = storyFiles(b.c)
	seen := map[string]bool{}
	latest := map[string]int{}
	for i := len(t.slots) - 1; i >= 0; i-- {
		s := &t.slots[i]
		if s.status != workflow.PhaseCompleted || seen[s.id] {
			continue
		}
		seen[s.id] = true
		latest[normKey(s.id)] = i
		s.keys = []string{s.id, s.aliases[0]}
		for _, ph := range b.c.Phases {
			if normKey(ph.ID) == normKey(s.id) || normKey(ph.Name) == normKey(s.aliases[0]) {
				s.outputs = appendPaths(s.outputs, ph.Outputs...)
			}
		}
	}
	// produced files go to the latest completed round of their phase;
	// inputs to every pending step of it
	for _, f := range b.c.Files {
		k := normKey(f.Phase)
		if k == "" {
			continue
		}
		if f.Produced {
			if i, ok := latest[k]; ok {
				t.slots[i].outputs = appendPaths(t.slots[i].outputs, f.Path)
			}
			continue
		}
		for i := range t.slots {
			if t.slots[i].status != workflow.PhaseCompleted && normKey(t.slots[i].id) == k {
				t.slots[i].inputs = append(t.slots[i].inputs, input{path: f.Path, producer: -1, critical: f.Critical})
			}
		}
	}
}

// qaPhase returns the definition of a QA-loop phase and its 1-based index,
// with the built-in values when the definition lacks it.
func qaPhase(def workflow.Definition, id string) (workflow.PhaseDef, int) {
	if i := def.Index(id); i >= 0 {
		pd := def.Phases[i]
		if pd.Name == "" {
			pd.Name = pd.ID
		}
		if pd.Agent == "" {
			pd.Agent = qaDefaults[id].Agent
		}
		return pd, i + 1
	}
	pd := qaDefaults[id]
	return pd, 0
}

var qaDefaults = map[string]workflow.PhaseDef{
	"review":   {ID: "review", Name: "QA Review", Agent: "qa"},
	"fix":      {ID: "fix", Name: "Apply Fixes", Agent: "dev"},
	"escalate": {ID: "escalate", Name: "Escalation", Agent: "master"},
}

// qaVerdict normalises a QA verdict.
func qaVerdict(v string) string { return workflow.QAVerdict(v) }

package plan

import (
	"strings"

	"github.com/orchestrate-dev/orchestrate/workflow"
)

// specArtifactPhase maps the artifact names spec pipelines write to the
// phase that writes them, for states that key artifacts by file rather than
// by phase id.
var specArtifactPhase = map[string]string{
	"requirements": "gather",
	"complexity":   "assess",
	"dependencies": "research",
	"spec":         "spec",
	"critique":     "critique",
}

// specTrack lays out a spec pipeline (gather → assess → research → spec →
// critique). A SIMPLE pipeline skips the phases whose skip_if names the
// SIMPLE class (assess and research). A phase with an artifact is complete.
// The resume point is the phase after the last completed one; a critique
// that asked for a revision (NEEDS_REVISION, or BLOCKED) sends it back to
// spec, with the critique as the last completed phase; APPROVED is terminal.
func specTrack(c workflow.Candidate, def workflow.Definition) track {
	return stateTrack(c, def, specNatural)
}

// specNatural lays out the pipeline and finds its natural resume point.
func specNatural(c workflow.Candidate, def workflow.Definition) track {
	t := defTrack(c, def)

	sp := c.Spec
	if sp == nil {
		sp = &workflow.Spec{}
	}
	if strings.EqualFold(strings.TrimSpace(sp.Complexity), "SIMPLE") {
		for i, pd := range def.Phases {
			if t.slots[i].status == workflow.PhaseCompleted {
				continue
			}
			if strings.Contains(strings.ToLower(pd.SkipIf), "simple") || pd.ID == "assess" || pd.ID == "research" {
				t.slots[i].status = workflow.PhaseSkipped
			}
		}
	}
	for _, name := range sortedKeys(sp.Artifacts) {
		i := matchPhase(def, name)
		if i < 0 {
			i = matchPhase(def, specArtifactPhase[normKey(name)])
		}
		if i < 0 {
			continue
		}
		t.slots[i].outputs = appendPaths(t.slots[i].outputs, sp.Artifacts[name])
		if t.slots[i].status == "" || t.slots[i].status == workflow.PhasePending {
			t.slots[i].status = workflow.PhaseCompleted
		}
	}

	specIdx, critIdx := def.Index("spec"), def.Index("critique")
	switch specVerdict(sp.Verdict) {
	case "APPROVED":
		if critIdx >= 0 {
			t.slots[critIdx].status = workflow.PhaseCompleted
		}
		t.impliedBefore(len(t.slots))
		t.natural = len(t.slots)
		t.terminal = true
		return t
	case "NEEDS_REVISION", "BLOCKED":
		if specIdx >= 0 {
			t.impliedBefore(specIdx)
			t.natural = specIdx
			if critIdx >= 0 {
				t.slots[critIdx].status = workflow.PhaseCompleted
				t.lastDone = critIdx
			}
			return t
		}
	}
	if !t.stoppedAt(c, def) {
		t.natural = t.firstActive()
	}
	return t
}

// specVerdict normalises a critique verdict: "Needs revision" → NEEDS_REVISION.
func specVerdict(v string) string {
	v = strings.ToUpper(strings.TrimSpace(v))
	v = strings.NewReplacer("-", "_", " ", "_").Replace(v)
	switch v {
	case "APPROVE", "APPROVED", "PASS":
		return "APPROVED"
	case "NEEDS_REVISION", "NEEDS_REVISIONS", "REVISION", "REVISE", "REJECT", "REJECTED":
		return "NEEDS_REVISION"
	case "BLOCK", "BLOCKED":
		return "BLOCKED"
	}
	return v
}

package plan

import (
	"fmt"
	"sort"
	"strings"

	"github.com/orchestrate-dev/orchestrate/workflow"
)

// epicTrack lays out an epic execution as its stories, wave by wave, then
// the final gate. The resume point is the first incomplete story (not done,
// completed or skipped) of the current wave, else of the next wave with one;
// when every story is done the final gate remains, unless the state records
// it done. Stories of a wave are independent: a completed story after the
// resume point does not re-run. Phase names are wave-<n>:<story id>; later
// waves collapse to wave-<n> in remaining_phases.
func epicTrack(c workflow.Candidate, def workflow.Definition) track {
	e := c.Epic
	if e == nil || !epicHasStories(e.Waves) {
		return genericTrack(c, def)
	}
	t := newTrack()
	t.chain = false
	t.independent = true

	// waves keep their own numbers (0-based, gaps); positions count the
	// waves listed: the 1st of them is index 1 whatever its number
	waves := make([]workflow.Wave, len(e.Waves))
	copy(waves, e.Waves)
	sort.SliceStable(waves, func(i, j int) bool { return waves[i].Number < waves[j].Number })

	refs := map[string]workflow.StoryRef{}
	for _, r := range c.StoryRefs {
		if _, ok := refs[r.ID]; !ok {
			refs[r.ID] = r
		}
	}
	planPath := strings.TrimSpace(e.PlanPath)
	start := -1
	for wi, w := range waves {
		label := fmt.Sprintf("wave-%d", w.Number)
		t.names = appendUnique(t.names, label)
		waveSkipped := workflow.NormalizeStateStatus(w.Status) == "skipped"
		waveDone := epicStoryStatus(w.Status) == workflow.PhaseCompleted
		for _, s := range w.Stories {
			sid := strings.TrimSpace(s.ID)
			if sid == "" {
				continue
			}
			st := epicStoryStatus(s.Status)
			switch {
			case waveSkipped && st != workflow.PhaseCompleted:
				st = workflow.PhaseSkipped
			case waveDone && strings.TrimSpace(s.Status) == "":
				st = workflow.PhaseCompleted
			}
			agent := strings.TrimPrefix(s.Executor, "@")
			if agent == "" {
				agent = strings.TrimPrefix(refs[sid].Executor, "@")
			}
			if agent == "" {
				agent = "dev"
			}
			id := label + ":" + sid
			sl := slot{
				id: id, title: "Story " + sid, agent: agent, story: sid,
				note: fmt.Sprintf("wave %d: story %s", w.Number, sid), index: wi + 1, status: st,
				pos:   workflow.Position{Kind: workflow.PosWave, Index: wi + 1, Done: wi, Total: len(waves), At: fmt.Sprintf("wave %d", w.Number)},
				group: label, groups: []string{label, sid, "waves"}, keys: []string{id, sid, label},
			}
			path := strings.TrimSpace(s.Path)
			if path == "" {
				path = strings.TrimSpace(refs[sid].Path)
			}
			if path != "" {
				sl.inputs = append(sl.inputs, input{path: path, producer: -1, critical: true})
			}
			if w.Number != wi+1 {
				sl.pos.Name = fmt.Sprintf("Wave %d", w.Number)
			}
			if planPath != "" {
				// not critical: the state lists every wave and story
				sl.inputs = append(sl.inputs, input{path: planPath, producer: -1})
			}
			if start < 0 && w.Number == e.CurrentWave {
				start = len(t.slots)
			}
			t.slots = append(t.slots, sl)
		}
	}

	gate := workflow.PhaseDef{ID: "final-gate", Name: "Final Gate", Agent: "qa"}
	if i := def.Index("final-gate"); i >= 0 {
		pd := def.Phases[i]
		if pd.Name != "" {
			gate.Name = pd.Name
		}
		if pd.Agent != "" {
			gate.Agent = pd.Agent
		}
	}
	g := slot{
		id: gate.ID, title: gate.Name, agent: gate.Agent, note: "epic sign-off after the last wave",
		index: len(waves) + 1, aliases: []string{gate.Name}, keys: []string{gate.ID, gate.Name},
		// the gate closes the last wave: "3/3 done, at Final Gate", as discovery says
		pos: workflow.Position{Kind: workflow.PosWave, Index: len(waves), Done: len(waves), Total: len(waves), Name: "Final Gate", At: "Final Gate"},
	}
	if planPath != "" {
		g.inputs = append(g.inputs, input{path: planPath, producer: -1})
	}
	for _, ph := range c.Phases {
		if normKey(ph.ID) == gate.ID || normKey(ph.Name) == normKey(gate.Name) {
			if phaseStatus(ph.Status) == workflow.PhaseCompleted {
				g.status = workflow.PhaseCompleted
			}
			g.outputs = appendPaths(g.outputs, ph.Outputs...)
		}
	}
	t.slots = append(t.slots, g)
	t.names = appendUnique(t.names, gate.ID)
	t.total = len(waves) + 1

	attachFiles(c, t.slots, func(phase string) int {
		k := normKey(phase)
		for i, s := range t.slots {
			if normKey(s.id) == k || normKey(s.story) == k && s.story != "" {
				return i
			}
		}
		return -1
	})

	if start < 0 {
		start = 0
	}
	t.natural = len(t.slots)
	for i := start; i < len(t.slots); i++ {
		if st := t.slots[i].status; st != workflow.PhaseCompleted && st != workflow.PhaseSkipped {
			t.natural = i
			break
		}
	}
	return t
}

func epicHasStories(waves []workflow.Wave) bool {
	for _, w := range waves {
		for _, s := range w.Stories {
			if strings.TrimSpace(s.ID) != "" {
				return true
			}
		}
	}
	return false
}

// epicStoryStatus maps a story's (or wave's) status in an epic state to a
// slot status.
func epicStoryStatus(raw string) string {
	switch workflow.NormalizeStateStatus(raw) {
	case "done", "completed", "complete", "approved", "merged", "closed", "passed", "pass", "waived":
		return workflow.PhaseCompleted
	case "skipped", "cancelled":
		return workflow.PhaseSkipped
	}
	return workflow.PhasePending
}

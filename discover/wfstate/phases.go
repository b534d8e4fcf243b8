package wfstate

import (
	"sort"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// wfResolveDef picks the definition the recorded phases belong to: the one
// named, else the built-in one its id stands for; a definition that does not
// know a recorded phase is not used (the phases are then built from the
// record).
func wfResolveDef(id string, defs func(string) workflow.Definition, recs []source.Rec, cur source.PhaseRef, hasCur bool) workflow.Definition {
	var cands []workflow.Definition
	if id != "" {
		d := defs(id)
		if d.ID == "" {
			d.ID = id
		}
		cands = append(cands, d)
		if alias := source.AliasDef(id); alias != "" && alias != id {
			cands = append(cands, defs(alias))
		}
		if source.Norm(id) == "development_cycle" {
			cands = append(cands, wfAIOSDevCycle)
		}
	}
	for _, d := range cands {
		if len(d.Phases) == 0 {
			continue
		}
		fits := true
		for _, r := range recs {
			if source.DefIndex(d, r.Ref) < 0 {
				fits = false
				break
			}
		}
		if fits && hasCur && source.DefIndex(d, cur) < 0 && source.Norm(cur.Label()) != "checkpoint" {
			fits = false
		}
		if fits {
			return d
		}
	}
	return workflow.Definition{}
}

// wfPhases fills c.Phases and c.Position and returns the id of the last
// completed phase (whose outputs the next phase consumes).
func wfPhases(c *workflow.Candidate, def workflow.Definition, recs []source.Rec, cur source.PhaseRef, hasCur bool) string {
	if len(def.Phases) > 0 {
		return wfPhasesFromDef(c, def, recs, cur, hasCur)
	}
	return wfPhasesFromRecord(c, recs, cur, hasCur)
}

// wfPhasesFromRecord builds the phases of a workflow without a usable
// definition from what the state records; the current phase comes last
// unless phase numbers say otherwise.
func wfPhasesFromRecord(c *workflow.Candidate, recs []source.Rec, cur source.PhaseRef, hasCur bool) string {
	type item struct {
		p   workflow.Phase
		num int
	}
	var items []item
	listsFuture := false
	curIdx := -1
	for i, r := range recs {
		st := r.State
		if st == workflow.PhasePending {
			listsFuture = true
		}
		items = append(items, item{workflow.Phase{ID: r.Ref.Raw, Name: r.Ref.Label(), Agent: r.Agent, Status: st, Outputs: r.Outputs}, r.Ref.Num})
		if hasCur && (r.Ref.Key() == cur.Key() || (cur.Name == "" && cur.Num > 0 && r.Ref.Num == cur.Num)) {
			curIdx = i
		}
	}
	if hasCur && curIdx < 0 {
		items = append(items, item{workflow.Phase{ID: cur.Raw, Name: cur.Label()}, cur.Num})
		curIdx = len(items) - 1
	}
	if !hasCur { // the first running (or failed) phase, else the first pending one
		for _, want := range []string{"active", workflow.PhasePending} {
			for i := range items {
				if curIdx < 0 && items[i].p.Status == want {
					curIdx = i
				}
			}
		}
	}
	for i := range items {
		if items[i].p.Status == "active" {
			items[i].p.Status = workflow.PhasePending
		}
	}
	if curIdx >= 0 {
		items[curIdx].p.Status = workflow.PhaseCurrent
	}
	if len(items) == 0 {
		return ""
	}
	numbered := true
	for _, it := range items {
		if it.num <= 0 {
			numbered = false
		}
	}
	if numbered {
		var curID string
		if curIdx >= 0 {
			curID = items[curIdx].p.ID
		}
		sort.SliceStable(items, func(a, b int) bool { return items[a].num < items[b].num })
		for i := range items {
			if curIdx >= 0 && items[i].p.ID == curID {
				curIdx = i
			}
		}
	}
	last := ""
	for i, it := range items {
		c.Phases = append(c.Phases, it.p)
		if it.p.Status == workflow.PhaseCompleted && (curIdx < 0 || i < curIdx) {
			last = it.p.ID
		}
	}
	total := 0
	if listsFuture {
		total = len(items)
	}
	at := curIdx
	if at < 0 {
		at = len(items) - 1
	}
	index := at + 1
	if numbered || (at == curIdx && hasCur && cur.Num > 0) {
		index = items[at].num
	}
	if total > 0 {
		for _, it := range items {
			if it.num > total { // numbered phases: at least as many as the highest number
				total = it.num
			}
		}
		if index > total {
			total = index
		}
	}
	c.Position = workflow.PhasePosition(index, total, items[at].p.Name)
	if curIdx < 0 && items[at].p.Status == workflow.PhaseCompleted { // the last phase done: nothing to resume
		c.Position.Done, c.Position.At = index, ""
	}
	return last
}

func wfPhasesFromDef(c *workflow.Candidate, def workflow.Definition, recs []source.Rec, cur source.PhaseRef, hasCur bool) string {
	n := len(def.Phases)
	phases := make([]workflow.Phase, n)
	for i, p := range def.Phases {
		phases[i] = workflow.Phase{ID: p.ID, Name: p.Name, Agent: p.Agent, Status: workflow.PhasePending}
	}
	active := -1
	for _, r := range recs {
		i := source.DefIndex(def, r.Ref)
		if i < 0 {
			continue
		}
		if r.Agent != "" {
			phases[i].Agent = r.Agent
		}
		phases[i].Outputs = append(phases[i].Outputs, r.Outputs...)
		switch r.State {
		case workflow.PhaseCompleted, workflow.PhaseSkipped:
			phases[i].Status = r.State
		case "active":
			if active < 0 {
				active = i
			}
		}
	}
	curIdx := -1
	checkpoint := false
	if hasCur {
		curIdx = source.DefIndex(def, cur)
		if curIdx < 0 && source.Norm(cur.Label()) == "checkpoint" {
			// a nexos story checkpoint: the story went through every phase
			checkpoint = true
			for i := range phases {
				if phases[i].Status == workflow.PhasePending {
					phases[i].Status = workflow.PhaseCompleted
				}
			}
			phases = append(phases, workflow.Phase{ID: "checkpoint", Name: "Story Checkpoint", Agent: "po", Status: workflow.PhaseCurrent})
			curIdx = n
			n++
		}
	}
	if curIdx < 0 && active >= 0 {
		curIdx = active
	}
	if curIdx < 0 {
		lastDone := -1
		for i, p := range phases {
			if p.Status == workflow.PhaseCompleted {
				lastDone = i
			}
		}
		for i := lastDone + 1; i < n; i++ {
			if phases[i].Status == workflow.PhasePending {
				curIdx = i
				break
			}
		}
	}
	if !checkpoint {
		source.SkipBefore(phases, curIdx)
	}
	if curIdx >= 0 {
		phases[curIdx].Status = workflow.PhaseCurrent
	}
	c.Phases = phases
	last := ""
	for i, p := range phases {
		if p.Status == workflow.PhaseCompleted && (curIdx < 0 || i < curIdx) {
			last = p.ID
		}
	}
	if curIdx >= 0 {
		c.Position = workflow.PhasePosition(curIdx+1, n, phases[curIdx].Name)
	} else if phases[n-1].Status == workflow.PhaseCompleted {
		c.Position = workflow.PhasesDone(n, phases[n-1].Name)
	} else {
		c.Position = workflow.PhasePosition(n, n, phases[n-1].Name)
	}
	return last
}

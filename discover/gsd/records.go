package gsd

import (
	"fmt"
	"path"
	"strings"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/refpath"
	"github.com/orchestrate-dev/orchestrate/internal/tolerant"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// Pause records: .continue-here notes, HANDOFF.json and the interrupted
// agent id, read and judged live or stale (gsd.go decides what is in flight).

// pausePatterns are where pause notes live: the root and .planning up to
// three folders deep (milestones/ is skipped after expansion).
var pausePatterns = []string{
	".continue-here*.md",
	planningDir + "/.continue-here*.md",
	planningDir + "/*/.continue-here*.md",
	planningDir + "/*/*/.continue-here*.md",
	planningDir + "/*/*/*/.continue-here*.md",
}

// readRecords reads every pause record: .continue-here notes, HANDOFF.json
// and current-agent-id.txt.
func readRecords(r *source.Repo) ([]*record, []workflow.Finding) {
	var recs []*record
	var findings []workflow.Finding
	for _, p := range r.Glob(pausePatterns, false) {
		if strings.HasPrefix(p, planningDir+"/milestones/") {
			continue
		}
		rec := &record{Path: p, Kind: "pause", MTime: r.ModTime(p)}
		data, err := r.Read(p)
		if err != nil {
			findings = append(findings, warn(source.ReadFinding(p, err)))
			continue
		}
		findings = append(findings, ParsePause(rec, data)...)
		if rec.Phase.IsZero() {
			// a note inside a phase folder belongs to that phase
			if dir := path.Dir(p); strings.HasPrefix(dir, planningDir+"/phases/") {
				rec.Phase, _ = ParsePhaseID(path.Base(dir))
			}
		}
		recs = append(recs, rec)
	}
	hp := planningDir + "/HANDOFF.json"
	if r.Exists(hp) {
		rec := &record{Path: hp, Kind: "handoff", MTime: r.ModTime(hp)}
		if data, err := r.Read(hp); err != nil {
			findings = append(findings, warn(source.ReadFinding(hp, err)))
		} else {
			findings = append(findings, ParseHandoff(rec, data)...)
			recs = append(recs, rec)
		}
	}
	ap := planningDir + "/current-agent-id.txt"
	if r.Exists(ap) {
		if data, err := r.Read(ap); err == nil {
			if id := cleanText(firstLine(string(data))); id != "" {
				recs = append(recs, &record{Path: ap, Kind: "agent", Agent: id, MTime: r.ModTime(ap)})
			}
		}
	}
	return recs, findings
}

// ParsePause reads a .continue-here note: front matter phase, task,
// status, last_updated and the body's <next_action>; the old name
// .continue-here-<phase>-<plan>.md gives phase and plan.
func ParsePause(rec *record, data []byte) []workflow.Finding {
	var findings []workflow.Finding
	if m := oldPauseRe().FindStringSubmatch(path.Base(rec.Path)); m != nil {
		rec.Phase, _ = ParsePhaseID(m[1])
		fmt.Sscanf(m[2], "%d", &rec.Plan)
	}
	fmData, body := SplitFrontMatter(data)
	fm, err := decodeFrontMatter(fmData)
	if err != nil {
		findings = append(findings, warn(source.DecodeFinding(rec.Path, err)))
	}
	if fm != nil {
		f := &source.Fields{Path: rec.Path}
		if s := f.Str(fm, "phase"); s != "" {
			if id, ok := ParsePhaseID(s); ok {
				rec.Phase = id
			}
		}
		rec.StatusRaw = cleanText(f.Str(fm, "status"))
		rec.Time = fieldTime(fm, "last_updated", "timestamp")
		findings = append(findings, f.Findings...)
	}
	rec.Status, rec.Mapped = PauseStatus(rec.StatusRaw)
	rec.Note = firstLine(tag(body, "next_action"))
	if rec.Note == "" {
		rec.Note = firstLine(tag(body, "current_state"))
	}
	return findings
}

// ParseHandoff reads HANDOFF.json.
func ParseHandoff(rec *record, data []byte) []workflow.Finding {
	m, err := tolerant.DecodeJSONMap(data)
	if err != nil {
		return []workflow.Finding{warn(source.DecodeFinding(rec.Path, err))}
	}
	f := &source.Fields{Path: rec.Path}
	if s := f.Str(m, "phase"); s != "" {
		rec.Phase, _ = ParsePhaseID(s)
	}
	if n, ok := f.Int(m, "plan"); ok && n >= 0 {
		rec.Plan = n
	} else if s := f.Str(m, "plan"); s != "" {
		if _, n, _, ok := PlanFile(s + "-PLAN.md"); ok {
			rec.Plan = n
		}
	}
	rec.PhaseDir = phaseDir(f.Str(m, "phase_dir"))
	rec.StatusRaw = cleanText(f.Str(m, "status"))
	rec.Status, rec.Mapped = PauseStatus(rec.StatusRaw)
	rec.Time = fieldTime(m, "timestamp", "last_updated")
	rec.Note = cleanText(f.Str(m, "next_action"))
	for _, u := range f.Strings(m, "uncommitted_files") {
		if refpath.LooksLikePath(u) && len(rec.Files) < maxPlanFiles {
			rec.Files = append(rec.Files, u)
		}
	}
	rec.Human = humanActions(m)
	return append([]workflow.Finding(nil), f.Findings...)
}

// maxHuman bounds the human actions one HANDOFF.json contributes.
const maxHuman = 10

// humanActions reads HANDOFF.json's blocking human actions, in the shape
// /gsd:pause-work writes (workflows/pause-work.md):
// "human_actions_pending": [{"action", "context", "blocking": true}] and
// "blockers": [{"description", "type": "human_action", "workaround"}]. A
// pending action is blocking unless it says "blocking": false; a plain
// string is one. Each is one line, bounded.
func humanActions(m map[string]any) []string {
	var out []string
	add := func(what, why string) {
		if what = cleanText(what); what != "" && len(out) < maxHuman {
			if why = cleanText(why); why != "" {
				what += " (" + why + ")"
			}
			out = append(out, what)
		}
	}
	if list, ok := m["human_actions_pending"].([]any); ok {
		for _, it := range list {
			switch x := it.(type) {
			case string:
				add(x, "")
			case map[string]any:
				if b, ok := x["blocking"].(bool); ok && !b {
					continue
				}
				s, _ := tolerant.ScalarString(x["action"])
				why, _ := tolerant.ScalarString(x["context"])
				add(s, why)
			}
		}
	}
	if list, ok := m["blockers"].([]any); ok {
		for _, it := range list {
			if x, ok := it.(map[string]any); ok {
				if t, _ := tolerant.ScalarString(x["type"]); strings.EqualFold(strings.TrimSpace(t), "human_action") {
					s, _ := tolerant.ScalarString(x["description"])
					add(s, "")
				}
			}
		}
	}
	return out
}

// phaseDir reads HANDOFF.json's phase_dir as a repository path: GSD writes
// it relative (".planning/phases/08-billing"), some sessions absolute
// ("/home/me/app/.planning/phases/08-billing"); the part from .planning/ on
// is the folder either way.
func phaseDir(s string) string {
	s = strings.ReplaceAll(strings.TrimSpace(s), `\`, "/")
	if i := strings.Index(s, planningDir+"/"); i > 0 && s[i-1] == '/' {
		s = s[i:]
	}
	return refpath.CleanPath(s)
}

// judgeRecords marks stale pause records: a Done-class status, a phase
// fully summarised and verified, a newer STATE.md saying "Resume file:
// None", or a file they name that is missing.
func judgeRecords(r *source.Repo, recs []*record, phases []*phase, st *state) {
	for _, rec := range recs {
		if rec.Kind == "agent" {
			continue
		}
		var ph *phase
		for _, p := range phases {
			if !rec.Phase.IsZero() && p.ID.Compare(rec.Phase) == 0 {
				ph = p
			}
		}
		switch {
		case rec.Mapped && rec.Status == workflow.StatusDone:
			rec.Stale = fmt.Sprintf("its status is %q", rec.StatusRaw)
		case ph != nil && len(ph.Plans) > 0 && !ph.open() && ph.Verification != "":
			rec.Stale = "phase " + ph.ID.String() + " is fully summarised and verified"
		case st != nil && strings.EqualFold(strings.Trim(st.ResumeFile, "`"), "none") && st.MTime.After(rec.MTime):
			rec.Stale = "a newer STATE.md says Resume file: None"
		case rec.PhaseDir != "" && !r.Exists(rec.PhaseDir):
			rec.Stale = "the folder it names (" + rec.PhaseDir + ") is missing"
		case !rec.Phase.IsZero() && ph == nil:
			rec.Stale = "phase " + rec.Phase.String() + " has no folder under .planning/phases"
		}
	}
}

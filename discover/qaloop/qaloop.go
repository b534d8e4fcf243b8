// Package qaloop is the QA-loop format: the loop status file and its index.
// QALoopSource finds them, ParseQALoop and ParseIndex read iterations,
// verdicts and the story under review into a candidate. Adding a framework
// means adding one format package like this one and one line to
// discover.DefaultSources (see docs/ARCHITECTURE.md).
package qaloop

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/refpath"
	"github.com/orchestrate-dev/orchestrate/internal/tolerant"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// QALoopSource finds QA-loop status files (priority 2) and the
// AIOX loops index. An index entry whose status file was also found is the
// same workflow: it becomes evidence on the file's candidate; an entry
// without a file is a candidate of its own.
var QALoopSource source.Source = source.Format{FormatKind: workflow.KindQALoop, FormatPriority: workflow.PriorityQALoop, ScanFunc: scanQALoops}

// DefaultMax is the iteration limit when neither the state nor the
// qa-loop definition says.
const DefaultMax = 5

// qaWrappers are the top-level keys a dashboard-style file nests the loop in.
var qaWrappers = []string{"qaLoop", "qa_loop", "loop"}

// scanQALoops reads every QA-loop status file and index. The findings returned
// (those about an unreadable index) belong to no candidate.
func scanQALoops(r *source.Repo) ([]workflow.Candidate, []workflow.Finding) {
	def := r.Definition(workflow.DefQALoop)
	lookupStory := func(id string) string {
		if s := r.Stories[id]; s != nil {
			return s.Path
		}
		return ""
	}
	var out []workflow.Candidate
	byPath := map[string]int{}
	byKey := map[string]int{}
	budget := tolerant.NewBudget() // the iterations of all the loops
	for _, p := range r.Glob(r.Config.Sources.QALoop, false) {
		if source.IsBackup(p) {
			continue
		}
		var c workflow.Candidate
		ok := false
		data, err := r.Read(p)
		if err != nil {
			c = qaUnreadable(p, source.ReadFinding(p, err), def)
		} else {
			c, ok = Parse(p, data, def)
		}
		if n := qaSize(c); ok && !budget.Take(n) {
			c, ok = qaUnreadable(p, source.DecodeFinding(p, budget.Err(n, "iterations")), def), false
		}
		source.StampMTime(r, &c, p)
		if bak := p + ".bak"; r.Exists(bak) {
			c.BackupPath = bak
		}
		if ok {
			AddStoryFile(&c, lookupStory)
		}
		byPath[p] = len(out)
		if _, dup := byKey[c.Key]; !dup {
			byKey[c.Key] = len(out)
		}
		out = append(out, c)
	}

	var loose []workflow.Finding
	byIndexID := map[string]int{}
	for _, ip := range r.Glob(r.Config.Sources.QALoopIndex, false) {
		if source.IsBackup(ip) {
			continue
		}
		data, err := r.Read(ip)
		if err != nil {
			loose = append(loose, qaIndexFindingSeverity(source.ReadFinding(ip, err)))
			continue
		}
		entries, fs := ParseIndex(ip, data, def)
		loose = append(loose, fs...)
		ev := workflow.SourceRef{Kind: workflow.KindQALoopIndex, Path: ip, Priority: workflow.PriorityQALoop}
		for _, e := range entries {
			target := -1
			if e.StatusFile != "" {
				if i, ok := byPath[e.StatusFile]; ok {
					target = i
				} else if i, ok := byPath[path.Join(path.Dir(ip), e.StatusFile)]; ok {
					target = i
				}
			}
			if target < 0 {
				if i, ok := byKey[e.Cand.Key]; ok && out[i].Source.Kind == workflow.KindQALoop {
					target = i
				}
			}
			if target >= 0 {
				t := &out[target]
				t.Evidence = qaAddEvidence(t.Evidence, ev)
				if e.timed && e.Cand.UpdatedAt.After(t.UpdatedAt) {
					t.Findings = append(t.Findings, workflow.Finding{
						Check:    workflow.CheckDiscover,
						Severity: workflow.Info,
						Code:     "index-newer",
						Message: fmt.Sprintf("the loops index %s was updated after %s (%s > %s); the status file's values are used",
							ip, t.Source.Path, e.Cand.UpdatedAt.Format("2006-01-02T15:04:05Z"), t.UpdatedAt.Format("2006-01-02T15:04:05Z")),
						Path: ip,
					})
				}
				continue
			}
			if i, ok := byIndexID[e.Cand.ID]; ok {
				if out[i].Source.Path != ip {
					out[i].Evidence = qaAddEvidence(out[i].Evidence, ev)
				}
				continue
			}
			c := e.Cand
			source.StampMTime(r, &c, ip)
			AddStoryFile(&c, lookupStory)
			byIndexID[c.ID] = len(out)
			out = append(out, c)
		}
	}
	return out, loose
}

// qaSize is the number of iterations a loop's candidate records.
func qaSize(c workflow.Candidate) int {
	if c.QA == nil {
		return 0
	}
	return len(c.QA.History)
}

// qaAddEvidence appends ref unless it is already there.
func qaAddEvidence(ev []workflow.SourceRef, ref workflow.SourceRef) []workflow.SourceRef {
	for _, e := range ev {
		if e == ref {
			return ev
		}
	}
	return append(ev, ref)
}

// qaIndexFindingSeverity makes a finding about the index itself a warning:
// the index only mirrors the status files, so a bad one blocks nothing.
func qaIndexFindingSeverity(f workflow.Finding) workflow.Finding {
	if f.Severity == workflow.Blocking {
		f.Severity = workflow.Warning
	}
	return f
}

// AddStoryFile adds the story file looked up by id when the state records
// no story path.
func AddStoryFile(c *workflow.Candidate, lookup func(string) string) {
	if len(c.StoryRefs) == 0 || c.StoryRefs[0].Path != "" {
		return
	}
	if p := refpath.KeepUnsafe(lookup(c.StoryRefs[0].ID)); p != "" {
		c.Files = qaStoryFirst(c.Files, workflow.RefFile{Path: p, Phase: "review", Critical: true, From: "story"})
	}
}

// ParseQALoop parses a QA-loop status file (JSON, or YAML for a .yaml/.yml
// path) in any of the three schemas (AIOS camelCase, snake_case, or wrapped
// under qaLoop/qa_loop/loop) without touching the file system. It always
// returns one candidate: a file that does not decode gives a candidate with
// status "unreadable" carrying the blocking parse finding. The findings
// returned are the ones also attached to the candidate (c.Findings).
func ParseQALoop(path string, data []byte) (workflow.Candidate, []workflow.Finding) {
	c, _ := Parse(path, data, source.BuiltinDefinitions()[workflow.DefQALoop])
	return c, c.Findings
}

// Parse is ParseQALoop with the qa-loop definition in force; ok is false
// when the file did not decode.
func Parse(p string, data []byte, def workflow.Definition) (workflow.Candidate, bool) {
	m, err := source.DecodeMap(p, data, true)
	if err != nil {
		return qaUnreadable(p, source.DecodeFinding(p, err), def), false
	}
	f := &source.Fields{Path: p}
	st := m
	for _, k := range qaWrappers {
		if !f.Has(m, k) {
			continue
		}
		if inner := f.Map(m, k); inner != nil {
			st = source.Overlay(m, inner, k)
			break
		}
	}
	if n := tolerant.ListLen(st, "history", "iterations"); n > tolerant.MaxElements {
		return qaUnreadable(p, source.DecodeFinding(p, tolerant.TooManyElements(n, tolerant.MaxElements, "iterations")), def), false
	}
	src := workflow.SourceRef{Kind: workflow.KindQALoop, Path: p, Priority: workflow.PriorityQALoop}
	c, story := qaFromMap(f, st, def, src)
	key := story.id
	if key == "" {
		key = qaKeyFromPath(p)
		c.Findings = append(c.Findings, workflow.Finding{
			Check:    workflow.CheckParse,
			Severity: workflow.Warning,
			Code:     "no-story-id",
			Message:  fmt.Sprintf("the QA loop names no story (storyId/story_id); it is called %q after its file", key),
			Path:     p,
		})
	}
	qaSetKey(&c, key, story)
	c.Findings = append(c.Findings, f.Findings...)
	return c, true
}

// qaStoryInfo is what a loop state says about its story.
type qaStoryInfo struct {
	id, path, from string
}

// qaStory reads the story: storyId|story_id, or story as text or as a
// mapping {id, path}; the path also from storyPath|story_path|story_file.
func qaStory(f *source.Fields, st map[string]any) qaStoryInfo {
	var s qaStoryInfo
	s.id = f.Str(st, "storyId", "story_id", "storyID")
	if v, ok := st["story"]; ok && v != nil {
		if mm, ok := v.(map[string]any); ok {
			if s.id == "" {
				s.id = f.Str(mm, "id", "storyId", "story_id")
			}
			if p := f.Str(mm, "path", "file"); p != "" {
				s.path, s.from = p, "story.path"
			}
		} else if s.id == "" {
			s.id = f.Str(st, "story")
		}
	}
	if s.path == "" {
		s.path, s.from = f.StrKey(st, "storyPath", "story_path", "storyFile", "story_file")
	}
	s.path = refpath.KeepUnsafe(s.path)
	return s
}

// qaSetKey names the candidate and, when the key is a story id, its story.
func qaSetKey(c *workflow.Candidate, key string, story qaStoryInfo) {
	c.Key = key
	c.ID = "qa-loop:" + key
	if story.id == "" {
		return
	}
	c.Stories = []string{story.id}
	ref := workflow.StoryRef{ID: story.id, Path: story.path}
	if c.Resumable {
		ref.Status = "in_review" // a running loop reviews the story
	}
	c.StoryRefs = []workflow.StoryRef{ref}
	if story.path != "" {
		c.Files = qaStoryFirst(c.Files, workflow.RefFile{Path: story.path, Phase: "review", Critical: true, From: story.from})
	}
}

// qaStoryFirst puts the story file before the other referenced files.
func qaStoryFirst(files []workflow.RefFile, story workflow.RefFile) []workflow.RefFile {
	out := []workflow.RefFile{story}
	for _, rf := range files {
		out = source.AddFile(out, rf)
	}
	return out
}

// qaFromMap builds a QA-loop candidate from the loop's fields (everything
// but the id, key and stories, which depend on where the map came from).
func qaFromMap(f *source.Fields, st map[string]any, def workflow.Definition, src workflow.SourceRef) (workflow.Candidate, qaStoryInfo) {
	c := workflow.Candidate{
		Type:     workflow.TypeQALoop,
		Source:   src,
		Workflow: workflow.DefQALoop,
	}
	story := qaStory(f, st)
	source.ReadStatus(f, st, src.Path, &c)
	var known bool
	c.Resumable, known = qaResumable(c.Status)
	if !known {
		msg := fmt.Sprintf("QA loop status %q is not one orchestrate knows; treated as not resumable", c.StatusRaw)
		if c.StatusRaw == "" {
			msg = "the QA loop records no status; treated as not resumable"
		}
		c.Findings = append(c.Findings, workflow.Finding{
			Check: workflow.CheckParse, Severity: workflow.Info, Code: "unknown-status", Message: msg, Path: src.Path,
		})
	}
	source.StateCommon(f, st, &c)

	max, ok := f.Int(st, "maxIterations", "max_iterations")
	if !ok || max <= 0 {
		max = def.MaxIterations
		if max <= 0 {
			max = DefaultMax
		}
	}
	iter, iterOK := f.Int(st, "currentIteration", "current_iteration", "iteration")
	if iter < 0 {
		iter, iterOK = 0, false
	}

	var gateFiles []workflow.RefFile
	var hist []workflow.Iteration
	for i, it := range f.List(st, "history", "iterations") {
		hm, ok := it.(map[string]any)
		if !ok {
			f.Wrong("history[]", "a mapping", it)
			continue
		}
		n, ok := f.Int(hm, "iteration", "number")
		if !ok || n <= 0 {
			n = i + 1
		}
		hist = append(hist, workflow.Iteration{
			Number:  n,
			Verdict: strings.ToUpper(f.Str(hm, "verdict", "result")),
			Fixed:   qaFixed(hm),
		})
		if g, k := f.StrKey(hm, "gate_file", "gateFile"); g != "" {
			gateFiles = append(gateFiles, workflow.RefFile{Path: refpath.KeepUnsafe(g), Phase: "review", Produced: true, From: "history[]." + k})
		}
	}
	sort.SliceStable(hist, func(i, j int) bool { return hist[i].Number < hist[j].Number })
	if !iterOK && len(hist) > 0 {
		iter = hist[len(hist)-1].Number
	}
	verdict := strings.ToUpper(f.Str(st, "lastVerdict", "last_verdict"))
	if verdict == "" && len(hist) > 0 {
		verdict = hist[len(hist)-1].Verdict
	}
	fixed := false
	if len(hist) > 0 {
		fixed = hist[len(hist)-1].Fixed
	} else {
		fixed = qaFixed(st)
	}
	c.QA = &workflow.QALoop{Iteration: iter, MaxIterations: max, LastVerdict: verdict, History: hist, FixesApplied: fixed}
	c.Position = Position(def, c.Status, c.QA)
	c.Phases = Phases(def, c.Status, c.QA)

	for _, rf := range source.RefFiles(f, st, "review", "files", "files_changed", "filesChanged") {
		c.Files = source.AddFile(c.Files, rf)
	}
	if g, k := f.StrKey(st, "gate_file", "gateFile"); g != "" {
		c.Files = source.AddFile(c.Files, workflow.RefFile{Path: refpath.KeepUnsafe(g), Phase: "review", Produced: true, From: k})
	}
	for _, g := range gateFiles {
		c.Files = source.AddFile(c.Files, g)
	}
	return c, story
}

// qaResumable classifies a normalised loop status: resumable, and whether
// the status is one orchestrate knows. "active" (what a resume writes) and
// "interrupted" count as running.
func qaResumable(s string) (resumable, known bool) {
	switch s {
	case "in_progress", "running", "stopped", "escalated", "paused", "active", "interrupted":
		return true, true
	case "idle", "completed", "pending", "approved":
		return false, true
	}
	if workflow.IsTerminalStatus(s) {
		return false, true
	}
	return false, false
}

// qaFixed reports whether a history entry (or a flat state) says fixes were
// applied: fixedAt|fixed_at set, issuesFixed|issues_fixed above zero, or
// fixes_applied|fixesApplied true (or a non-empty count or list).
func qaFixed(m map[string]any) bool {
	if v, _, ok := tolerant.Lookup(m, []string{"fixedAt", "fixed_at"}); ok {
		switch t := v.(type) {
		case string:
			if s := strings.TrimSpace(t); s != "" && !strings.EqualFold(s, "null") && !strings.EqualFold(s, "false") {
				return true
			}
		case bool:
			if t {
				return true
			}
		default:
			return true
		}
	}
	for _, keys := range [][]string{{"issuesFixed", "issues_fixed"}, {"fixes_applied", "fixesApplied"}} {
		v, _, ok := tolerant.Lookup(m, keys)
		if !ok {
			continue
		}
		switch t := v.(type) {
		case bool:
			if t {
				return true
			}
		case []any:
			if len(t) > 0 {
				return true
			}
		case string:
			switch strings.ToLower(strings.TrimSpace(t)) {
			case "true", "yes", "y":
				return true
			}
			if n, ok := tolerant.ToInt(t); ok && n > 0 {
				return true
			}
		default:
			if n, ok := tolerant.ToInt(v); ok && n > 0 {
				return true
			}
		}
	}
	return false
}

// Phases renders the definition's phases with the status the loop puts
// them in: review, fix or escalate is current, or all are over.
func Phases(def workflow.Definition, status string, qa *workflow.QALoop) []workflow.Phase {
	done := qa.LastVerdict == "APPROVE" || status == "completed" || status == "approved" || workflow.IsTerminalStatus(status)
	cur := ""
	switch {
	case done:
	case status == "escalated" || qa.LastVerdict == "BLOCKED" || qa.Iteration > qa.MaxIterations:
		cur = "escalate"
	case qa.LastVerdict == "REJECT" && !qa.FixesApplied:
		cur = "fix"
	default:
		cur = "review"
	}
	reviewed := qa.LastVerdict != "" || len(qa.History) > 0
	fixedOnce := false
	for _, h := range qa.History {
		fixedOnce = fixedOnce || h.Fixed
	}
	var out []workflow.Phase
	for _, pd := range def.Phases {
		ps := workflow.PhasePending
		switch {
		case pd.ID == cur:
			ps = workflow.PhaseCurrent
		case pd.ID == "review" && reviewed:
			ps = workflow.PhaseCompleted
		case pd.ID == "fix" && fixedOnce:
			ps = workflow.PhaseCompleted
		case done:
			ps = workflow.PhaseSkipped
		}
		out = append(out, workflow.Phase{ID: pd.ID, Name: pd.Name, Agent: pd.Agent, Status: ps})
	}
	return out
}

// Position is where the loop picks up, in the plan's numbering: the
// iterations done out of the maximum and the phase to run ("3/5
// iterations done, at review" once the fixes of iteration 3 are applied).
func Position(def workflow.Definition, status string, qa *workflow.QALoop) workflow.Position {
	pos := workflow.Position{Kind: workflow.PosIteration, Index: qa.Iteration, Done: max(qa.Iteration, 0), Total: qa.MaxIterations}
	if pos.Total > 0 && pos.Done > pos.Total {
		pos.Done = pos.Total // a state past its maximum: all iterations done
	}
	escalated := workflow.NormalizeStateStatus(status) == "escalated"
	iter, phase := workflow.QANext(qa.Iteration, qa.MaxIterations, workflow.QAVerdict(qa.LastVerdict), qa.FixesApplied, escalated)
	if phase == "" || workflow.IsTerminalStatus(workflow.NormalizeStateStatus(status)) {
		return pos
	}
	pos.Index, pos.Done, pos.At = iter, iter-1, phase
	if phase == workflow.QAEscalate {
		pos.Done = iter // escalation follows the iteration's review
	}
	if pos.Total > 0 && pos.Done > pos.Total {
		pos.Done = pos.Total // a state past its maximum: all iterations done
	}
	pos.Phase, pos.Phases = workflow.QAPhase(def, phase)
	pos.Name = phase
	if i := def.Index(phase); i >= 0 && def.Phases[i].Name != "" {
		pos.Name = def.Phases[i].Name
	}
	return pos
}

// qaKeyFromPath names a loop whose state has no story id: its folder
// (qa/<story>/loop-status.json), else the file stem.
func qaKeyFromPath(p string) string {
	dir := path.Base(path.Dir(p))
	if dir != "" && dir != "." && dir != "/" && dir != "qa" && !strings.HasPrefix(dir, ".") {
		return dir
	}
	if s := source.StateStem(p); s != "" {
		return s
	}
	return "unknown"
}

// qaUnreadable is the candidate of a status file that cannot be read or
// decoded.
func qaUnreadable(p string, finding workflow.Finding, def workflow.Definition) workflow.Candidate {
	max := def.MaxIterations
	if max <= 0 {
		max = DefaultMax
	}
	src := workflow.SourceRef{Kind: workflow.KindQALoop, Path: p, Priority: workflow.PriorityQALoop}
	c := source.Unreadable(src, workflow.TypeQALoop, "qa-loop", qaKeyFromPath(p), workflow.DefQALoop, finding)
	c.Stories = nil
	c.QA = &workflow.QALoop{MaxIterations: max}
	return c
}

// qaIndexEntry is one loop of the index, with the status file it names.
type qaIndexEntry struct {
	Cand       workflow.Candidate
	StatusFile string // cleaned; "" when the entry names none
	timed      bool   // the update time comes from a field of the entry
}

// ParseQALoopIndex parses the AIOX loops index (.aiox/qa-loops-index.json):
// {"loops": [ {storyId, status, path|statusFile, iteration, maxIterations,
// updatedAt}, … ]}, "loops" as an object keyed by story id, a bare array of
// entries, or a top-level object keyed by story id. Each entry is a
// candidate with Source.Kind qa-loop-index (Scan later folds entries whose
// status file exists into that file's candidate). The findings returned are
// about the index as a whole (a decode failure, an entry that names nothing)
// and are warnings: the index only mirrors the status files.
func ParseQALoopIndex(path string, data []byte) ([]workflow.Candidate, []workflow.Finding) {
	entries, fs := ParseIndex(path, data, source.BuiltinDefinitions()[workflow.DefQALoop])
	out := make([]workflow.Candidate, 0, len(entries))
	for _, e := range entries {
		out = append(out, e.Cand)
	}
	return out, fs
}

// ParseIndex is ParseQALoopIndex keeping each entry's status file path.
func ParseIndex(p string, data []byte, def workflow.Definition) ([]qaIndexEntry, []workflow.Finding) {
	var root any
	var err error
	switch strings.ToLower(path.Ext(p)) {
	case ".yaml", ".yml":
		var m map[string]any
		m, err = tolerant.DecodeYAMLMap(data)
		root = m
	default:
		root, err = tolerant.DecodeJSON(data)
	}
	if err != nil {
		return nil, []workflow.Finding{qaIndexFindingSeverity(source.DecodeFinding(p, err))}
	}
	type raw struct {
		id    string // the key of a keyed object
		value any
		where string
	}
	var items []raw
	list := func(l []any) {
		for i, v := range l {
			items = append(items, raw{value: v, where: fmt.Sprintf("loops[%d]", i)})
		}
	}
	keyed := func(m map[string]any, prefix string, skipScalars bool) {
		for _, k := range source.SortedKeys(m) {
			if _, ok := m[k].(map[string]any); !ok && skipScalars {
				continue // metadata beside the entries (version, updatedAt, …)
			}
			items = append(items, raw{id: strings.TrimSpace(k), value: m[k], where: prefix + k})
		}
	}
	var findings []workflow.Finding
	switch t := root.(type) {
	case []any:
		list(t)
	case map[string]any:
		switch l := t["loops"].(type) {
		case []any:
			list(l)
		case map[string]any:
			keyed(l, "loops.", false)
		case nil:
			keyed(t, "", true)
		default:
			findings = append(findings, qaIndexWarning(p, "wrong-type", fmt.Sprintf("field loops: want a list of loops, got %s", tolerant.TypeName(l))))
		}
	default:
		return nil, []workflow.Finding{qaIndexWarning(p, "not-an-object", fmt.Sprintf("the loops index is %s, want an object", tolerant.JSONKind(root)))}
	}

	if len(items) > tolerant.MaxElements {
		return nil, append(findings, qaIndexFindingSeverity(source.DecodeFinding(p, tolerant.TooManyElements(len(items), tolerant.MaxElements, "loop entries"))))
	}
	var out []qaIndexEntry
	seen := map[string]bool{}
	src := workflow.SourceRef{Kind: workflow.KindQALoopIndex, Path: p, Priority: workflow.PriorityQALoop}
	for _, it := range items {
		em, ok := it.value.(map[string]any)
		if !ok {
			findings = append(findings, qaIndexWarning(p, "wrong-type", fmt.Sprintf("entry %s: want a mapping, got %s", it.where, tolerant.TypeName(it.value))))
			continue
		}
		f := &source.Fields{Path: p}
		c, story := qaFromMap(f, em, def, src)
		if story.id == "" {
			story.id = it.id
		}
		sf, sfKey := source.PathField(f, em, "path", "statusFile", "status_file", "file")
		sf = refpath.KeepUnsafe(sf)
		key := story.id
		if key == "" {
			if sf == "" {
				findings = append(findings, qaIndexWarning(p, "no-story-id", fmt.Sprintf("entry %s names no story and no status file; it is ignored", it.where)))
				continue
			}
			key = qaKeyFromPath(sf)
			c.Findings = append(c.Findings, workflow.Finding{
				Check: workflow.CheckParse, Severity: workflow.Warning, Code: "no-story-id",
				Message: fmt.Sprintf("index entry %s names no story; it is called %q after its status file", it.where, key), Path: p,
			})
		}
		if seen[key] {
			findings = append(findings, qaIndexWarning(p, "duplicate-entry", fmt.Sprintf("entry %s repeats the loop of %q; the first one is used", it.where, key)))
			continue
		}
		seen[key] = true
		qaSetKey(&c, key, story)
		if sf != "" {
			c.Files = source.AddFile(c.Files, workflow.RefFile{Path: sf, Phase: "review", From: sfKey})
		}
		c.Findings = append(c.Findings, f.Findings...)
		out = append(out, qaIndexEntry{Cand: c, StatusFile: sf, timed: strings.HasPrefix(c.UpdatedFrom, "field:")})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Cand.ID < out[j].Cand.ID })
	return out, findings
}

// qaIndexWarning is a warning about the index file itself.
func qaIndexWarning(p, code, msg string) workflow.Finding {
	return workflow.Finding{Check: workflow.CheckParse, Severity: workflow.Warning, Code: code, Message: msg, Path: p}
}

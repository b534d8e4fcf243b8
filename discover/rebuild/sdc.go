package rebuild

import (
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/discover/story"
	"github.com/orchestrate-dev/orchestrate/internal/lazyre"
	"github.com/orchestrate-dev/orchestrate/internal/tolerant"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// The four roles of a story development cycle, as indexes into rbSDCRoles.
const (
	rbCreate = iota
	rbValidate
	rbImplement
	rbReview
)

// rbSDC is the story development cycle definition a rebuild lays phases on,
// with the definition index of each role.
type rbSDC struct {
	def  workflow.Definition
	role [4]int
}

func (b *rbBuilder) sdcDef() rbSDC {
	for _, def := range []workflow.Definition{b.r.Definition(workflow.DefSDC), source.BuiltinDefinitions()[workflow.DefSDC]} {
		impl := story.PhaseIndex(def, story.ImplementPhases)
		rev := story.PhaseIndex(def, story.ReviewPhases)
		if impl < 1 || rev <= impl {
			continue
		}
		create := def.Index("create")
		if create < 0 || create >= impl {
			create = 0
		}
		val := def.Index("validate")
		if val < 0 || val >= impl || val < create {
			val = impl - 1
		}
		return rbSDC{def: def, role: [4]int{create, val, impl, rev}}
	}
	return rbSDC{} // not reached: the built-in definition has every role
}

// rbStatusRole is the last role a story status says is complete (-1: none
// or unknown) and whether the status decides.
func rbStatusRole(s workflow.Status) (int, bool) {
	switch s {
	case workflow.StatusDraft:
		return rbCreate, true
	case workflow.StatusReady, workflow.StatusInProgress:
		return rbValidate, true
	case workflow.StatusInReview:
		return rbImplement, true
	case workflow.StatusDone:
		return rbReview, true
	}
	return -1, false
}

var rbRoleNames = [4]string{"create", "validate", "implement", "review"}

// rbSdcEvidence is what the evidence of one story says about its cycle.
type rbSdcEvidence struct {
	last     int    // the last completed role, -1 for none
	from     string // the source that decided
	detail   string
	files    []string // File List files present
	fileList int      // File List entries
	gate     rbGateInfo
	log      rbLogRow
	hasLog   bool
}

// storyEvidence collects steps 2–4 for one story.
func (b *rbBuilder) storyEvidence(h rbHit) rbSdcEvidence {
	st := h.story
	ev := rbSdcEvidence{last: -1}
	statusRole, decided := rbStatusRole(st.Status)

	// artifacts
	artRole, artFrom, artDetail := rbValidate, "story file "+st.Path, "the story exists: created and validated"
	ev.fileList = len(st.FileList)
	for _, f := range st.FileList {
		if len(ev.files) < 1000 && b.r.Exists(f) {
			ev.files = append(ev.files, f)
		}
	}
	ev.gate = b.gate(st.ID)
	if ev.gate.path != "" {
		artRole, artFrom = rbReview, "artifact "+ev.gate.path
		artDetail = "a QA gate file: reviewed"
		if ev.gate.verdict != "" {
			artDetail += ", gate " + ev.gate.verdict
		}
		b.seen(ev.gate.updated, ev.gate.path)
		b.evidenceRef("qa-gate", ev.gate.path, workflow.PriorityUnspecified)
	}
	// Change Log
	logRole := -1
	if row, ok := rbLatestLog(st); ok {
		ev.log, ev.hasLog = row, true
		logRole = row.role
		b.seen(row.date, "Change Log of story "+st.ID)
	}

	switch {
	case decided:
		ev.last, ev.from = statusRole, "story "+st.ID+" status"
		ev.detail = string(st.Status)
	case logRole > artRole:
		ev.last, ev.from, ev.detail = logRole, "Change Log of story "+st.ID, ev.log.describe()
	default:
		ev.last, ev.from, ev.detail = artRole, artFrom, artDetail
	}
	return ev
}

// sdc rebuilds a workflow state as a story development cycle.
func (b *rbBuilder) sdc() (workflow.Candidate, bool) {
	c := b.c
	if m := rbWorkflowRe().FindSubmatch(b.rawText()); m != nil {
		id := string(m[1])
		if t := source.TypeOf(id); t != workflow.TypeSDC && t != workflow.TypeWorkflow {
			b.note("workflow", "text of "+c.Source.Path, fmt.Sprintf("workflow %s: only a story development cycle is rebuilt from stories", id))
			return c, false
		}
	}
	known := b.knownStories()
	if len(known) == 0 {
		return c, false
	}
	h := known[0]
	st := h.story
	sd := b.sdcDef()
	ev := b.storyEvidence(h)
	b.add("story", h.from, fmt.Sprintf("story %s (%s)", st.ID, st.Path))
	for _, o := range known[1:] {
		b.add("other stories named", o.from, "story "+o.id+" (not the cycle's story: the first one named is)")
	}
	b.evidenceRef(workflow.KindStory, st.Path, workflow.PriorityInProgress)

	n := len(sd.def.Phases)
	lastIdx := -1
	if ev.last >= 0 {
		lastIdx = sd.role[ev.last]
	}
	cur := lastIdx + 1
	if cur >= n {
		cur = -1
	}
	var done []string
	out := workflow.Candidate{
		Type:      workflow.TypeSDC,
		Workflow:  sd.def.ID,
		Stories:   []string{st.ID},
		StoryRefs: []workflow.StoryRef{{ID: st.ID, Status: rbStateStatus(st.Status), Path: st.Path, Executor: st.Executor}},
		StatusRaw: string(st.Status),
	}
	for i, pd := range sd.def.Phases {
		ph := workflow.Phase{ID: pd.ID, Name: pd.Name, Agent: pd.Agent, Status: workflow.PhasePending}
		switch {
		case i <= lastIdx:
			ph.Status = workflow.PhaseCompleted
			done = append(done, pd.Name)
			switch {
			case i <= sd.role[rbValidate]:
				ph.Outputs = []string{st.Path}
			case i == sd.role[rbImplement]:
				ph.Outputs = append([]string(nil), ev.files...)
			case i == sd.role[rbReview] && ev.gate.path != "":
				ph.Outputs = []string{ev.gate.path}
			}
		case i == cur:
			ph.Status = workflow.PhaseCurrent
		}
		out.Phases = append(out.Phases, ph)
	}
	phaseText := "none done"
	if len(done) > 0 {
		phaseText = strings.Join(done, ", ") + " done"
	}
	if cur >= 0 {
		phaseText += "; " + sd.def.Phases[cur].Name + " next"
		if cur == sd.role[rbImplement] && st.Status == workflow.StatusInProgress {
			phaseText = strings.TrimSuffix(phaseText, " next") + " under way"
		}
		out.Position = workflow.PhasePosition(cur+1, n, sd.def.Phases[cur].Name)
		out.Agent = sd.def.Phases[cur].Agent
		if cur == sd.role[rbImplement] && st.Executor != "" {
			out.Agent = st.Executor
		}
		if cur == sd.role[rbReview] && st.QualityGate != "" {
			out.Agent = st.QualityGate
		}
	} else {
		out.Position = workflow.PhasesDone(n, sd.def.Phases[n-1].Name)
	}
	b.add("phases completed", ev.from, phaseText+" ("+ev.detail+")")
	b.supporting(st, ev, ev.from)

	curID := ""
	if cur >= 0 {
		curID = sd.def.Phases[cur].ID
	}
	implID, revID := sd.def.Phases[sd.role[rbImplement]].ID, sd.def.Phases[sd.role[rbReview]].ID
	out.Files = append(out.Files, workflow.RefFile{Path: st.Path, Phase: curID, Critical: cur >= 0, From: "story"})
	for _, f := range st.FileList {
		if f != st.Path && len(out.Files) < source.MaxFiles {
			out.Files = source.AddFile(out.Files, workflow.RefFile{Path: f, Phase: implID, Produced: true, From: "file-list"})
		}
	}
	if ev.gate.path != "" {
		out.Files = source.AddFile(out.Files, workflow.RefFile{Path: ev.gate.path, Phase: revID, Produced: true, From: "qa-gate"})
	}
	return b.finish(out), true
}

// supporting records the evidence that did not decide but was looked at.
func (b *rbBuilder) supporting(st *workflow.Story, ev rbSdcEvidence, decided string) {
	if ev.fileList > 0 {
		b.add("implementation", "File List of story "+st.ID, fmt.Sprintf("%d of %d files exist", len(ev.files), ev.fileList))
	}
	if ev.gate.path != "" && decided != "artifact "+ev.gate.path {
		d := "a QA gate file"
		if ev.gate.verdict != "" {
			d += ": gate " + ev.gate.verdict
		}
		b.add("review", "artifact "+ev.gate.path, d+" (not deciding)")
	}
	if ev.hasLog && decided != "Change Log of story "+st.ID {
		b.add("last change", "Change Log of story "+st.ID, ev.log.describe()+" (not deciding)")
	}
}

// noStories explains why no story was usable.
func (b *rbBuilder) noStories(hits []rbHit) {
	if len(hits) == 0 {
		b.note("stories", "text of "+b.c.Source.Path, "names no story the repository has, and no other state links to it")
		return
	}
	var ids []string
	for _, h := range hits {
		ids = append(ids, h.id)
	}
	b.note("stories", "text of "+b.c.Source.Path, "names "+strings.Join(ids, ", ")+", but no such story file exists")
}

// rbGateInfo is a QA gate file of a story.
type rbGateInfo struct {
	path    string
	verdict string // APPROVE (PASS, CONCERNS, WAIVED), REJECT (FAIL), "" unknown
	raw     string
	updated time.Time
}

// gate finds the QA gate file of story id: docs/qa/gates/<id>.yml or
// <id>-<slug>.yml (also .yaml); the newest by name when several.
func (b *rbBuilder) gate(id string) rbGateInfo {
	if !b.gatesOK {
		b.gatesOK = true
		b.gates = b.r.Glob([]string{"docs/qa/gates/*.yml", "docs/qa/gates/*.yaml"}, false)
	}
	var found string
	for _, g := range b.gates {
		base := path.Base(g)
		base = strings.TrimSuffix(strings.TrimSuffix(base, ".yml"), ".yaml")
		if !strings.HasPrefix(base, id) {
			continue
		}
		rest := base[len(id):]
		if rest == "" || rest[0] == '-' || rest[0] == '_' || (rest[0] == '.' && (len(rest) == 1 || rest[1] < '0' || rest[1] > '9')) {
			found = g // sorted: the last match is kept
		}
	}
	if found == "" {
		return rbGateInfo{}
	}
	info := rbGateInfo{path: found}
	data, err := b.r.Read(found)
	if err != nil {
		return info
	}
	m, err := tolerant.DecodeYAMLMap(data)
	if err != nil {
		return info
	}
	f := &source.Fields{Path: found}
	info.raw = strings.ToUpper(f.Str(m, "gate", "decision", "verdict", "status"))
	switch info.raw {
	case "PASS", "CONCERNS", "WAIVED", "APPROVE", "APPROVED":
		info.verdict = "APPROVE"
	case "FAIL", "REJECT", "REJECTED":
		info.verdict = "REJECT"
	}
	info.updated, _ = f.Time(m, "updated", "updated_at", "updatedAt", "reviewed_at", "date")
	return info
}

// rbLogRow is one Change Log row.
type rbLogRow struct {
	date               time.Time
	dateText           string
	agent, status, msg string
	role               int // the role the row completes, -1 unknown
	order              int
}

func (r rbLogRow) describe() string {
	var parts []string
	if r.dateText != "" {
		parts = append(parts, r.dateText)
	}
	who := r.agent
	if who == "" {
		who = r.status
	}
	if who != "" {
		parts = append(parts, who)
	}
	s := strings.Join(parts, " ")
	if r.msg != "" {
		if s != "" {
			s += ": "
		}
		s += workflow.Truncate(r.msg, 120)
	}
	if r.role >= 0 {
		s += " -> " + rbRoleNames[r.role] + " done"
	}
	return s
}

var rbDateRe = lazyre.New(`\b(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2})?)(Z|[+-]\d{2}:?\d{2})?)?\b`)

// rbParseDate reads the first date in s.
func rbParseDate(s string) (time.Time, string) {
	m := rbDateRe().FindStringSubmatch(s)
	if m == nil {
		return time.Time{}, ""
	}
	text := m[0]
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02T15:04", "2006-01-02 15:04", "2006-01-02"} {
		if t, err := time.Parse(layout, text); err == nil {
			return t.UTC(), text
		}
	}
	if t, err := time.Parse("2006-01-02", m[1]); err == nil {
		return t.UTC(), m[1]
	}
	return time.Time{}, ""
}

// rbAgentRole maps the agent of a Change Log row to the role it completes:
// "@sm", "Bob (SM)", "Sarah (PO)", "James (Dev Agent)", "Quinn (QA)",
// "Claude Code Review".
func rbAgentRole(agent string) int {
	words := strings.FieldsFunc(strings.ToLower(agent), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	})
	has := func(ws ...string) bool {
		for _, w := range words {
			for _, x := range ws {
				if w == x {
					return true
				}
			}
		}
		return false
	}
	switch {
	case has("qa", "test", "tester", "review", "reviewer"):
		return rbReview
	case has("po", "product", "owner"):
		return rbValidate
	case has("sm", "scrum"):
		return rbCreate
	case has("dev", "developer", "engineer"):
		return rbImplement
	}
	return -1
}

// rbChangeLog reads the rows of a story's Change Log: a table (columns
// found by their headers: Date, Agent|Author|By, Status, Change|Description)
// or a list of "date agent: text" items.
func rbChangeLog(st *workflow.Story) []rbLogRow {
	if st == nil {
		return nil
	}
	sec, ok := st.Sections.Get(workflow.SectionChangeLog)
	if !ok {
		return nil
	}
	var rows []rbLogRow
	cols := map[string]int{}
	header := false
	for i, line := range strings.Split(sec.Raw, "\n") {
		if len(rows) >= 2000 {
			break
		}
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "|") {
			cells := story.TableCells(t, story.MaxTableCells)
			if story.IsSeparatorRow(cells) {
				continue
			}
			if !header {
				header = true
				isHeader := false
				for j, cell := range cells {
					n := strings.ToLower(story.Unemphasize(cell))
					switch {
					case strings.Contains(n, "date"):
						cols["date"], isHeader = j, true
					case strings.Contains(n, "agent") || strings.Contains(n, "author") || n == "by" || n == "who":
						cols["agent"], isHeader = j, true
					case strings.Contains(n, "status"):
						cols["status"], isHeader = j, true
					case strings.Contains(n, "change") || strings.Contains(n, "description") || strings.Contains(n, "summary") || strings.Contains(n, "note"):
						cols["msg"], isHeader = j, true
					}
				}
				if isHeader {
					continue
				}
			}
			cell := func(k string) string {
				if j, ok := cols[k]; ok && j < len(cells) {
					return story.Unemphasize(cells[j])
				}
				return ""
			}
			row := rbLogRow{agent: cell("agent"), status: cell("status"), msg: cell("msg"), role: -1, order: i}
			if _, ok := cols["date"]; ok {
				row.date, row.dateText = rbParseDate(cell("date"))
			} else {
				row.date, row.dateText = rbParseDate(t)
			}
			if _, ok := cols["agent"]; !ok && len(cells) > 0 {
				row.agent = story.Unemphasize(cells[len(cells)-1])
			}
			rows = append(rows, rbRole(row))
			continue
		}
		item, ok := story.Bullet(t)
		if !ok {
			continue
		}
		row := rbLogRow{msg: item, role: -1, order: i}
		row.date, row.dateText = rbParseDate(item)
		if m := rbMentionRe().FindStringSubmatch(item); m != nil {
			row.agent = "@" + m[1]
		}
		rows = append(rows, rbRole(row))
	}
	return rows
}

// rbRole fills the role a row completes: its status column, else its agent.
func rbRole(row rbLogRow) rbLogRow {
	if row.status != "" {
		if s, _ := workflow.CanonicalStatus(row.status, nil); s != workflow.StatusUnknown {
			if role, ok := rbStatusRole(s); ok {
				row.role = role
				return row
			}
		}
	}
	row.role = rbAgentRole(row.agent)
	return row
}

// rbLatestLog is the latest Change Log row that tells a phase: the newest
// date, the later row on a tie (rows without a date rank by position, after
// no dated row).
func rbLatestLog(st *workflow.Story) (rbLogRow, bool) {
	var best rbLogRow
	found := false
	for _, row := range rbChangeLog(st) {
		if row.role < 0 {
			continue
		}
		if !found || row.date.After(best.date) || (row.date.Equal(best.date) && row.order > best.order) {
			best, found = row, true
		}
	}
	return best, found
}

// rbCountRole counts the Change Log rows that complete role.
func rbCountRole(st *workflow.Story, role int) int {
	n := 0
	for _, row := range rbChangeLog(st) {
		if row.role == role {
			n++
		}
	}
	return n
}

// knownStories are the salvaged stories that have a story file, in the
// order the text names them; when there is none, the reason is noted.
func (b *rbBuilder) knownStories() []rbHit {
	hits := b.salvage()
	known := rbKnownStories(hits)
	if len(known) == 0 {
		b.noStories(hits)
	}
	return known
}

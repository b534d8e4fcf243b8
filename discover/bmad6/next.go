package bmad6

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/orchestrate-dev/orchestrate/internal/lazyre"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// BMAD's own "what next", as BMAD 6.x computes it from the ledger alone.
//
// The rule is the sprint-status workflow's step 3, "Select next action
// recommendation" (bmad-code-org/BMAD-METHOD,
// src/bmm-skills/4-implementation/bmad-sprint-status/workflow.md; the
// sprint-planning skill's scripts/sprint_plan.py `status` subcommand gives
// the same order):
//
//  1. a story in-progress → dev-story, the first in-progress story;
//  2. else a story in review → code-review, the first review story;
//  3. else a story ready-for-dev → dev-story;
//  4. else a story in backlog → create-story;
//  5. else a retrospective still optional → retrospective;
//
// where "first" sorts stories by epic number, then story number ("1-1
// before 1-2 before 2-1"). Only the ledger is read, and only what the
// script recognises: story keys shaped "N-M[a]-name" (STORY_KEY_RE), the
// v6 story statuses, with the legacy "drafted" read as ready-for-dev and
// "contexted" as in-progress (LEGACY_STATUS); any other value is illegal
// and skipped. The script loads the ledger with ruamel.yaml, which refuses
// a mapping with a duplicated key: then BMAD has no answer at all.
//
// The 6.0 alphas (the alpha spelling, /bmad:bmm:workflows:…) ran an
// earlier version of the same step
// (src/modules/bmm/workflows/4-implementation/sprint-status/instructions.md):
// "drafted" was a status of its own, recommending story-ready after the
// ready-for-dev stories and before the backlog ones, and an epic still in
// backlog recommended epic-tech-context before the retrospectives.

// bmadStoryKey is sprint_plan.py's STORY_KEY_RE.
var bmadStoryKey = lazyre.New(`^(\d+)-(\d+)([a-z]?)-.+`)

// bmadLegacy is sprint_plan.py's LEGACY_STATUS.
var bmadLegacy = map[string]string{"drafted": "ready-for-dev", "contexted": "in-progress"}

// bmadTier is a story status of the rule and the workflow it recommends.
type bmadTier struct{ status, workflow string }

// bmadTiers are the rule's story statuses, in its order; bmadAlphaTiers
// the alphas'.
var (
	bmadTiers = []bmadTier{
		{"in-progress", "dev-story"},
		{"review", "code-review"},
		{"ready-for-dev", "dev-story"},
		{"backlog", "create-story"},
	}
	bmadAlphaTiers = []bmadTier{
		{"in-progress", "dev-story"},
		{"review", "code-review"},
		{"ready-for-dev", "dev-story"},
		{"drafted", "story-ready"},
		{"backlog", "create-story"},
	}
)

// bmadStoryStatuses are the v6 story statuses (the tiers and done).
var bmadStoryStatuses = map[string]bool{"backlog": true, "ready-for-dev": true, "in-progress": true, "review": true, "done": true}

// frameworkAnswer is BMAD's answer for one ledger.
type frameworkAnswer struct {
	key     string // the story it names; "" for none
	status  string // the tier that named it ("in-progress", …, "retrospective")
	command string // the slash command, with its target
	nothing string // why there is no story to name
	dup     string // a duplicated key the script stops on
	dupN    int
}

// bmadStatus is the status BMAD reads in a ledger value: the v6 status
// after the legacy mapping (for an alpha, "drafted" as itself), "" for a
// value it does not recognise.
func bmadStatus(raw string, alpha bool) string {
	v := strings.TrimSpace(raw)
	if alpha && v == "drafted" {
		return v
	}
	if m, ok := bmadLegacy[v]; ok && !alpha {
		v = m
	}
	if bmadStoryStatuses[v] {
		return v
	}
	return ""
}

// answer computes BMAD's answer for the ledger (once).
func (s *ledgerScan) answer() *frameworkAnswer {
	if s.next != nil {
		return s.next
	}
	a := &frameworkAnswer{}
	s.next = a
	alpha := s.spell == SpellAlpha
	tiers := bmadTiers
	if alpha {
		tiers = bmadAlphaTiers
	}
	for _, e := range s.l.Entries {
		if len(e.Values) > 1 {
			a.dup, a.dupN = e.Key, len(e.Values)
			a.nothing = fmt.Sprintf("nothing (its sprint-status script stops on the ledger's duplicated key %s)", e.Key)
			return a
		}
	}
	type ranked struct {
		epic, story int
		suffix      string
		order       int
		e           Entry
	}
	byStatus := map[string][]ranked{}
	for i, e := range s.stories {
		m := bmadStoryKey().FindStringSubmatch(e.Key)
		st := bmadStatus(e.Raw, alpha)
		if m == nil || st == "" || e.Archive {
			continue
		}
		ep, err1 := strconv.Atoi(m[1])
		sn, err2 := strconv.Atoi(m[2])
		if err1 != nil || err2 != nil {
			continue
		}
		byStatus[st] = append(byStatus[st], ranked{ep, sn, m[3], i, e})
	}
	for _, t := range tiers {
		rs := byStatus[t.status]
		if len(rs) == 0 {
			continue
		}
		sort.SliceStable(rs, func(i, j int) bool {
			a, b := rs[i], rs[j]
			switch {
			case a.epic != b.epic:
				return a.epic < b.epic
			case a.story != b.story:
				return a.story < b.story
			case a.suffix != b.suffix:
				return a.suffix < b.suffix
			}
			return a.order < b.order
		})
		e := rs[0].e
		target := e.Key
		if f := s.files[e.Key]; f != "" && t.workflow != "create-story" {
			target = f
		}
		a.key, a.status, a.command = e.Key, t.status, s.spell.Command(t.workflow)+" "+target
		return a
	}
	if alpha {
		for _, e := range s.epics {
			if strings.TrimSpace(e.Raw) == "backlog" {
				a.status, a.command = "epic backlog", s.spell.Command("epic-tech-context")+" ("+e.Key+")"
				return a
			}
		}
	}
	for _, e := range s.l.Entries {
		if strings.HasSuffix(e.Key, "-retrospective") && strings.TrimSpace(e.Raw) == "optional" {
			a.status, a.command = "retrospective", s.spell.Command("retrospective")+" ("+e.Key+")"
			return a
		}
	}
	a.nothing = "nothing (every story in the ledger is done)"
	return a
}

// compare sets the framework's own answer on rp, the resume point of story
// entry e (effective status eff), and, when it names another story or
// none, why the two differ. Orchestrate's pick stands either way: BMAD's
// answer is shown beside it.
func (s *ledgerScan) compare(rp *workflow.ResumePoint, e Entry, eff workflow.Status) {
	a := s.answer()
	if a.key == e.Key {
		rp.FrameworkNext = a.command
		if a.command != rp.FrameworkCommand {
			// the same story, another workflow: BMAD goes by the ledger's
			// status, orchestrate by the story file's or by what is there
			rp.Differs = true
			rp.DiffersWhy = fmt.Sprintf("BMAD goes by the ledger, where %s is %q (%s); orchestrate's command follows where the story stands (%s)", e.Key, e.Raw, a.status, strings.ToLower(string(eff)))
		}
		return
	}
	rp.Differs = true
	rp.FrameworkNext = a.command
	if a.command == "" {
		rp.FrameworkNext = a.nothing
	}
	own := bmadStatus(e.Raw, s.spell == SpellAlpha)
	switch {
	case a.dup != "":
		rp.DiffersWhy = fmt.Sprintf("BMAD's sprint-status stops on this ledger: %s is listed %d times and YAML allows a key once; orchestrate reads the last value, as PyYAML does", a.dup, a.dupN)
	case own == "":
		rp.DiffersWhy = fmt.Sprintf("the ledger's %q for %s is not a BMAD v6 story status, so BMAD's rule skips this story", e.Raw, e.Key)
	case bmadStoryKey().FindStringSubmatch(e.Key) == nil:
		rp.DiffersWhy = fmt.Sprintf("BMAD's rule orders only keys shaped epic-story-name (\"2-4-login\"); %s is not one", e.Key)
	case ledgerTier(own) != tierOf(eff):
		rp.DiffersWhy = fmt.Sprintf("BMAD reads only the ledger, where %s is %q; its story file says the story is %s", e.Key, e.Raw, strings.ToLower(string(eff)))
	case a.key != "":
		rp.DiffersWhy = fmt.Sprintf("BMAD's rule (in-progress, then review, then ready-for-dev, then backlog, each by epic and story number) names %s (%s); this story is %s in the ledger", a.key, a.status, own)
	default:
		rp.DiffersWhy = "BMAD's rule finds no story to work on in the ledger"
	}
}

// ledgerTier and tierOf put a v6 status and a canonical status on one
// scale, to tell a story in flight by its file only.
func ledgerTier(v6 string) workflow.Status {
	switch v6 {
	case "in-progress":
		return workflow.StatusInProgress
	case "review":
		return workflow.StatusInReview
	}
	return ""
}

func tierOf(st workflow.Status) workflow.Status {
	if inFlight(st) {
		return st
	}
	return ""
}

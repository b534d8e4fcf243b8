package validate

import (
	"cmp"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/internal/textfmt"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// ClassifyAge returns the age class of a state interrupted d ago: below
// a.Fresh fresh, below a.Recent recent, below a.Stale moderate,
// else stale. A negative age (a time in the future) is fresh; zero
// thresholds take the defaults.
func ClassifyAge(d time.Duration, a config.Age) string {
	def := defaults.Age
	a.Fresh, a.Recent = cmp.Or(max(a.Fresh, 0), def.Fresh), cmp.Or(max(a.Recent, 0), def.Recent)
	a.Stale = cmp.Or(max(a.Stale, 0), def.Stale)
	switch {
	case d < a.Fresh:
		return AgeFresh
	case d < a.Recent:
		return AgeRecent
	case d < a.Stale:
		return AgeModerate
	}
	return AgeStale
}

// age classifies how long ago the candidate was interrupted: moderate and
// stale are warnings; an unknown time is an info finding.
//
// The time is the last activity on the workflow's own files
// (Report.InterruptedAt: the state's time, or its own progress since).
func (v *validator) age() {
	at := v.rep.InterruptedAt
	if at.IsZero() {
		v.rep.AgeClass = AgeUnknown
		v.add(workflow.CheckAge, workflow.Info, "age-unknown", v.c.Source.Path, "",
			"the interruption time is unknown: the age of the state cannot be assessed")
		return
	}
	d := v.in.Now.Sub(at)
	if d < 0 {
		d = 0
	}
	v.rep.Age = d
	v.rep.AgeClass = ClassifyAge(d, v.cfg.Age)
	if v.rep.TimeCut != "" {
		v.ageAtLeast(d)
		return
	}
	switch v.rep.AgeClass {
	case AgeModerate:
		v.add(workflow.CheckAge, workflow.Warning, "age-moderate", v.c.Source.Path, "",
			"interrupted "+textfmt.Ago(d)+": resume with careful validation")
	case AgeStale:
		v.add(workflow.CheckAge, workflow.Warning, "age-stale", v.c.Source.Path, "",
			"interrupted "+textfmt.Ago(d)+": the state is stale, consider restarting")
	}
}

// ageAtLeast classifies an age that is only a lower bound: the candidate's
// time was dated from the commit where the clone's history ends (see
// timeFromCut), so it was interrupted at least d ago. The class is known
// only when the bound is already stale; otherwise it is unknown, and the
// findings say "at least".
func (v *validator) ageAtLeast(d time.Duration) {
	v.rep.AgeAtLeast = true
	ago := "at least " + textfmt.Ago(d)
	switch v.rep.AgeClass {
	case AgeStale:
		v.add(workflow.CheckAge, workflow.Warning, "age-stale", v.c.Source.Path, "",
			"interrupted "+ago+": the state is stale, consider restarting")
		return
	case AgeModerate:
		v.add(workflow.CheckAge, workflow.Warning, "age-moderate", v.c.Source.Path, "",
			"interrupted "+ago+": resume with careful validation")
	default:
		v.add(workflow.CheckAge, workflow.Info, "age-unknown", v.c.Source.Path, "",
			"interrupted "+ago+" (at or before "+display(v.rep.TimeCut)+", where the clone's history ends): the exact age of the state is unknown")
	}
	v.rep.AgeClass = AgeUnknown
}

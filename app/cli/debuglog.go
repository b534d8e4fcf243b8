package cli

import (
	"sort"
	"strings"

	"github.com/orchestrate-dev/orchestrate/discover"
	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
	"github.com/orchestrate-dev/orchestrate/internal/hugeheap"
)

// debugSession logs, at --log-level debug, what a command read: the
// configuration files and their trust, the git mode, and each source
// scanned with what it found.
func (a *app) debugSession(s *loadedRepo) {
	if a.log == nil || !a.log.Enabled("debug") || s == nil {
		return
	}
	a.debugf("repository: %s", s.Root)
	switch d := diskcache.Dir(a.sys.Getenv); {
	case d == "":
		a.debugf("cache: off")
	case insideFolder(s.Root, d) || insideFolder(s.Root, diskcache.KeyFile(a.sys.Getenv)):
		a.debugf("cache: off (%s or its key is inside the repository)", d)
	case !a.cacheOn:
		a.debugf("cache: off (%s, or its key, not usable)", d)
	case s.Seeding():
		a.debugf("cache: %s, this repository's first run with it: nothing read or kept there but a mark; the next run fills it (%s=off turns it off)", d, diskcache.EnvDir)
	default:
		a.debugf("cache: %s (%s=off turns it off)", d, diskcache.EnvDir)
	}
	if hugeheap.Held() > 0 {
		a.debugf("heap: %d MiB asked to be huge pages, the repository being large (GODEBUG=disablethp=1 turns it off)", hugeheap.Bytes>>20)
	}
	if s.conf != nil {
		if len(s.conf.Read) == 0 {
			a.debugf("config: no file read (defaults and environment)")
		}
		for _, f := range s.conf.Read {
			a.debugf("config: read %s", f)
		}
	}
	switch {
	case s.Git != nil && s.Git.Shallow():
		a.debugf("git: repository (shallow clone)")
	case s.Git != nil:
		a.debugf("git: repository")
	case s.GitErr != nil:
		a.debugf("git: none (%v)", s.GitErr)
	default:
		a.debugf("git: none")
	}
	counts := map[string]int{}
	resumable := map[string]int{}
	for _, c := range s.Res.Candidates {
		counts[c.Source.Kind]++
		if c.Resumable {
			resumable[c.Source.Kind]++
		}
	}
	seen := map[string]bool{}
	for _, src := range discover.DefaultSources() {
		k := src.Kind()
		seen[k] = true
		a.debugf("source %s: %d candidates, %d resumable", k, counts[k], resumable[k])
	}
	var other []string
	for k := range counts {
		if !seen[k] {
			other = append(other, k)
		}
	}
	sort.Strings(other)
	for _, k := range other {
		a.debugf("source %s: %d candidates, %d resumable", k, counts[k], resumable[k])
	}
	a.debugf("discovered: %d candidates, %d stories, %d findings outside candidates", len(s.Res.Candidates), len(s.Res.Stories), len(s.Res.Findings))
}

// debugDecision logs, at --log-level debug, what a resume decided: the
// workflow selected, the mode, the validation and the decision with its
// reason.
func (a *app) debugDecision(r *resumeRun) {
	if a.log == nil || !a.log.Enabled("debug") || r == nil {
		return
	}
	if r.selected != nil {
		how := "the most recent"
		switch {
		case r.opts != nil && r.opts.Workflow != "":
			how = "named"
		case r.chosen:
			how = "chosen at the prompt"
		}
		a.debugf("selected: %s (%s; %s, %d resumable in all)", r.selected.ID, how, r.selected.Source.Path, len(r.all))
	}
	a.debugf("mode: %s", r.mode)
	a.debugf("validation: %s, age %s, git mode %s, %d findings", orDash(r.report.Status), orDash(r.report.AgeClass), orDash(r.report.GitMode), len(r.findings))
	a.debugf("decision: %s (exit %d): %s", r.plan.Decision, r.code, strings.TrimSpace(r.plan.Reason))
}

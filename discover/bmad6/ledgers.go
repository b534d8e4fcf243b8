package bmad6

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// readLedger is one ledger read and turned into candidates.
type readLedger struct {
	path  string
	mtime time.Time
	l     *Ledger
	cands []workflow.Candidate
	when  time.Time // last change: last commit, else modification time
	how   string    // "last commit <hash> <time>" or "modification time <time>"
}

// liveLedgers settles stories listed by more than one ledger (an upgrade
// that left an older ledger behind, FORMATS rec. 3): every ledger is read,
// and on a shared story key the ledger that changed last (by its last
// commit, else its modification time) is live; the other ledgers' entries
// for that key yield no candidate and are reported stale, on the live
// candidate when there is one, else on their own.
func liveLedgers(r *source.Repo, ls []readLedger) ([]workflow.Candidate, []workflow.Finding) {
	if len(ls) < 2 {
		var out []workflow.Candidate
		for _, l := range ls {
			out = append(out, l.cands...)
		}
		return out, nil
	}
	var paths []string
	for _, l := range ls {
		paths = append(paths, l.path)
	}
	stamps := r.CommitTimes(paths)
	for i := range ls {
		l := &ls[i]
		l.when, l.how = l.mtime, "modification time "+l.mtime.Format(time.RFC3339)
		if st, ok := stamps[l.path]; ok {
			l.when, l.how = st.When.UTC(), "last commit "+strings.TrimPrefix(st.From, "git:")+" "+st.When.UTC().Format(time.RFC3339)
		}
	}
	// newest first; ties keep the search order (the config's ledger first)
	order := make([]int, len(ls))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return ls[order[a]].when.After(ls[order[b]].when) })

	owner := map[string]int{} // story key → the live ledger
	for _, i := range order {
		for _, e := range ls[i].l.Entries {
			if _, ok := owner[e.Key]; !ok {
				owner[e.Key] = i
			}
		}
	}
	var out []workflow.Candidate
	live := map[string]int{} // story key → index in out of the live ledger's candidate
	var stale []struct {
		key, raw string
		from     int
	}
	for _, i := range order {
		for _, c := range ls[i].cands {
			key, _ := c.Context["bmad_story_key"].(string)
			if o, ok := owner[key]; ok && o != i {
				stale = append(stale, struct {
					key, raw string
					from     int
				}{key, c.StatusRaw, i})
				continue
			}
			if key != "" {
				live[key] = len(out)
			}
			out = append(out, c)
		}
	}
	var findings []workflow.Finding
	for _, st := range stale {
		o := ls[owner[st.key]]
		old := ls[st.from]
		f := workflow.Finding{Check: workflow.CheckConsistency, Severity: workflow.Warning, Code: "stale-ledger", Path: old.path,
			Message: fmt.Sprintf("story %s: %s says %q, %s says %q: %s changed last (%s; the other %s), so its value counts and the other ledger is stale for this story",
				st.key, o.path, lastValue(o.l, st.key), old.path, st.raw, o.path, o.how, old.how)}
		if j, ok := live[st.key]; ok {
			out[j].Findings = append(out[j].Findings, f)
		} else {
			findings = append(findings, f)
		}
	}
	return out, findings
}

// lastValue is the value a ledger gives key (the last one when repeated).
func lastValue(l *Ledger, key string) string {
	v := ""
	for _, e := range l.Entries {
		if e.Key == key {
			v = e.Raw
		}
	}
	return v
}

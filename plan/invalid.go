package plan

import (
	"fmt"
	"strings"

	"github.com/orchestrate-dev/orchestrate/validate"
)

// InvalidReason is the reason a phase is invalid, from the file that
// validation found changed or missing: "src/x.go changed since by abc1234",
// "docs/spec.md is missing".
func InvalidReason(f validate.FileReport) string {
	switch f.State {
	case validate.FileMissing:
		return f.Path + " is missing"
	case validate.FileUnchanged, "":
		return ""
	}
	var by []string
	for _, b := range f.By {
		if b.Short != "" {
			by = append(by, b.Short)
		}
	}
	switch {
	case len(by) > 0:
		return fmt.Sprintf("%s changed since by %s", f.Path, strings.Join(by, ", "))
	case f.State == validate.FileChangedUncommitted:
		return f.Path + " changed since (uncommitted edit)"
	}
	return f.Path + " changed since"
}

// invalidReasons maps a normalised phase key to the reasons validation gives
// for it, in report order.
func invalidReasons(rep validate.Report) map[string][]string {
	out := map[string][]string{}
	for _, f := range rep.Files {
		r := InvalidReason(f)
		k := normKey(f.Phase)
		if r == "" || k == "" {
			continue
		}
		out[k] = appendUnique(out[k], r)
	}
	return out
}

// reason says why slot s is invalid: the files validation reports for one
// of its keys, else a missing output of its own, else a general reason.
func (s slot) reason(reasons map[string][]string) string {
	var rs []string
	for _, k := range append([]string{s.id}, s.keys...) {
		for _, r := range reasons[normKey(k)] {
			rs = appendUnique(rs, r)
		}
	}
	if len(rs) == 0 {
		return "its referenced files changed or are missing"
	}
	if len(rs) > 3 {
		rs = append(rs[:3], fmt.Sprintf("%d more", len(rs)-3))
	}
	return strings.Join(rs, "; ")
}

func appendInvalid(list []InvalidPhase, ip InvalidPhase) []InvalidPhase {
	for _, x := range list {
		if x.Phase == ip.Phase {
			return list
		}
	}
	return append(list, ip)
}

// InvalidReasonOf returns the reason phase id was invalidated, "" when it was not.
func (p Plan) InvalidReasonOf(id string) string {
	for _, ip := range p.Invalidated {
		if ip.Phase == id {
			return ip.Reason
		}
	}
	return ""
}

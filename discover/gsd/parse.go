package gsd

import (
	"strconv"
	"strings"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/lazyre"
	"github.com/orchestrate-dev/orchestrate/internal/tolerant"
)

// maxSegments bounds the segments of a phase id (07.2.1 has three).
const maxSegments = 6

// PhaseID is a GSD phase number: "07", or a decimal id for an inserted
// phase ("07.1", "07.2.1"). Segments compare as numbers, so "7" is "07".
type PhaseID struct {
	segs []int
}

var phaseIDRe = lazyre.New(`^\s*(\d{1,6}(?:\.\d{1,6}){0,5})(?:[^\d.]|$)`)

// ParsePhaseID reads the phase id at the start of s ("07.2-api-auth",
// "7", "Phase 07.2"); ok is false when s starts with none.
func ParsePhaseID(s string) (PhaseID, bool) {
	s = strings.TrimSpace(s)
	if len(s) > 6 && strings.EqualFold(s[:6], "phase ") {
		s = s[6:]
	}
	m := phaseIDRe().FindStringSubmatch(s)
	if m == nil {
		return PhaseID{}, false
	}
	var id PhaseID
	for _, p := range strings.Split(m[1], ".") {
		n, err := strconv.Atoi(p)
		if err != nil || len(id.segs) >= maxSegments {
			return PhaseID{}, false
		}
		id.segs = append(id.segs, n)
	}
	return id, true
}

// String is the canonical spelling: the first segment on two digits.
func (p PhaseID) String() string {
	if len(p.segs) == 0 {
		return ""
	}
	var b strings.Builder
	for i, n := range p.segs {
		if i == 0 {
			if n < 10 {
				b.WriteByte('0')
			}
		} else {
			b.WriteByte('.')
		}
		b.WriteString(strconv.Itoa(n))
	}
	return b.String()
}

// Arg is the spelling GSD's commands take ("7", "7.2").
func (p PhaseID) Arg() string {
	s := p.String()
	if len(s) > 1 && s[0] == '0' {
		return s[1:]
	}
	return s
}

// IsZero reports whether p is no phase id.
func (p PhaseID) IsZero() bool { return len(p.segs) == 0 }

// Compare orders phase ids segment-wise as numbers: 07 < 07.1 < 07.2.1 < 08.
func (p PhaseID) Compare(q PhaseID) int {
	for i := 0; i < len(p.segs) && i < len(q.segs); i++ {
		switch {
		case p.segs[i] < q.segs[i]:
			return -1
		case p.segs[i] > q.segs[i]:
			return 1
		}
	}
	switch {
	case len(p.segs) < len(q.segs):
		return -1
	case len(p.segs) > len(q.segs):
		return 1
	}
	return 0
}

// planFileRe matches a plan or summary file: <phase>-<plan>[-slug]-PLAN.md.
var planFileRe = lazyre.New(`(?i)^(\d{1,6}(?:\.\d{1,6}){0,5})-(\d{1,4})(?:-[^/]*)?-(PLAN|SUMMARY)\.md$`)

// PlanFile reads a plan or summary file name: its phase, plan number and
// whether it is a summary. A slug after the plan number is allowed
// ("07.2-03-api-auth-PLAN.md"); the (phase, plan) numbers identify it.
func PlanFile(name string) (phase PhaseID, plan int, summary, ok bool) {
	m := planFileRe().FindStringSubmatch(name)
	if m == nil {
		return PhaseID{}, 0, false, false
	}
	phase, ok = ParsePhaseID(m[1])
	if !ok {
		return PhaseID{}, 0, false, false
	}
	plan, err := strconv.Atoi(m[2])
	if err != nil {
		return PhaseID{}, 0, false, false
	}
	return phase, plan, strings.EqualFold(m[3], "SUMMARY"), true
}

// PlanItem names plan n of phase p as GSD does ("07-02").
func PlanItem(p PhaseID, n int) string {
	s := strconv.Itoa(n)
	if n < 10 {
		s = "0" + s
	}
	return p.String() + "-" + s
}

// oldPauseRe matches the old pause file name .continue-here-<phase>-<plan>.md.
var oldPauseRe = lazyre.New(`(?i)^\.continue-here-(\d{1,6}(?:\.\d{1,6}){0,5})-(\d{1,4})\.md$`)

// SplitFrontMatter separates a leading YAML front matter block from the
// body. fm is nil when the file has none.
func SplitFrontMatter(data []byte) (fm []byte, body string) {
	s := strings.TrimPrefix(string(data), "\ufeff")
	if !strings.HasPrefix(s, "---\n") && !strings.HasPrefix(s, "---\r\n") {
		return nil, s
	}
	rest := s[strings.IndexByte(s, '\n')+1:]
	for off := 0; off <= len(rest); {
		nl := strings.IndexByte(rest[off:], '\n')
		line := rest[off:]
		if nl >= 0 {
			line = rest[off : off+nl]
		}
		if strings.TrimRight(line, " \r") == "---" {
			body := ""
			if nl >= 0 {
				body = rest[off+nl+1:]
			}
			return []byte(rest[:off]), body
		}
		if nl < 0 {
			break
		}
		off += nl + 1
	}
	return nil, s
}

// decodeFrontMatter decodes a front matter block; a block that does not
// decode yields nil and the error.
func decodeFrontMatter(fm []byte) (map[string]any, error) {
	if len(strings.TrimSpace(string(fm))) == 0 {
		return nil, nil
	}
	return tolerant.DecodeYAMLMap(fm)
}

// tag returns the text of the first <name>…</name> element of body, trimmed.
func tag(body, name string) string {
	open := "<" + name
	i := 0
	for {
		j := strings.Index(body[i:], open)
		if j < 0 {
			return ""
		}
		i += j + len(open)
		if i < len(body) && (body[i] == '>' || body[i] == ' ') {
			break
		}
	}
	k := strings.IndexByte(body[i:], '>')
	if k < 0 {
		return ""
	}
	i += k + 1
	end := strings.Index(body[i:], "</"+name+">")
	if end < 0 {
		return ""
	}
	return strings.TrimSpace(body[i : i+end])
}

// firstLine is the first non-empty line of s, without emphasis, bounded.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		l = cleanText(l)
		if l != "" {
			return l
		}
	}
	return ""
}

// cleanText is one line of attacker text, trimmed and bounded.
func cleanText(s string) string {
	s = strings.TrimSpace(strings.ReplaceAll(s, "**", ""))
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	if len(s) > 200 {
		cut := 200
		for cut > 0 && !utf8Start(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// sections returns the "Key: value" lines of the markdown section headed
// heading (## level), keys lower-cased, emphasis stripped.
func sections(body, heading string) map[string]string {
	out := map[string]string{}
	in := false
	for _, l := range strings.Split(body, "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "#") {
			h := strings.TrimSpace(strings.TrimLeft(t, "#"))
			in = strings.EqualFold(h, heading)
			continue
		}
		if !in {
			continue
		}
		t = strings.TrimLeft(strings.ReplaceAll(t, "**", ""), "-* ")
		k, v, ok := strings.Cut(t, ":")
		if !ok || len(k) > 40 {
			continue
		}
		k = strings.ToLower(strings.TrimSpace(k))
		if _, seen := out[k]; !seen {
			out[k] = cleanText(v)
		}
	}
	return out
}

// ofRe reads "3 of 8 (Name)" / "2 of 4 — COMPLETE".
var ofRe = lazyre.New(`^\s*([0-9][0-9.]*)\s+of\s+(\d+)\s*(?:\(([^)]*)\))?(.*)$`)

// statusToken applies the shared status-token rule: strip emphasis,
// backticks and a leading emoji; cut at " — ", " (", " #", ","; trim;
// lower-case.
func statusToken(s string) string {
	s = strings.NewReplacer("**", "", "`", "", "_", "_").Replace(strings.TrimSpace(s))
	s = strings.TrimLeftFunc(s, func(r rune) bool { return r > 0x2000 || r == ' ' })
	for _, sep := range []string{" — ", " (", " #", ",", " - "} {
		if i := strings.Index(s, sep); i >= 0 {
			s = s[:i]
		}
	}
	return strings.ToLower(strings.TrimSpace(s))
}

// fieldTime reads a time field of a front matter map.
func fieldTime(m map[string]any, keys ...string) time.Time {
	f := &source.Fields{}
	t, _ := f.Time(m, keys...)
	return t
}

package bmad6

import (
	"strings"

	"github.com/orchestrate-dev/orchestrate/internal/lazyre"
	"github.com/orchestrate-dev/orchestrate/internal/refpath"
)

// Task is one checkbox line under Tasks / Subtasks.
type Task struct {
	Text     string
	Done     bool
	Section  string // the ### heading it stands under, "" for none
	Review   bool   // an [AI-Review] follow-up
	Line     int
	Labels   []string
	Followup int // 1-based number among the follow-ups, 0 otherwise
	Indent   int // leading spaces (a subtask is deeper than its task)
}

// StoryFile is what orchestrate reads of a v6 story file.
type StoryFile struct {
	Title       string
	HeadingID   string // the id a "# Story X.Y[.Z]:" heading names
	Status      string // raw status value, "" when none
	StatusLine  int
	StatusOther string // a second, disagreeing status line
	Tasks       []Task
	Reviewed    bool   // a Senior Developer Review (AI) section exists
	Outcome     string // its Outcome:
	FileList    []string
}

var (
	headingID  = lazyre.New(`(?i)^#\s*story\s+(\d{1,9}[a-z]?(?:\.\d{1,9}[a-z]?){1,3})\b`)
	checkbox   = lazyre.New(`^\s*[-*+]\s+\[([ xX])\]\s*(.*)$`)
	statusLine = lazyre.New(`(?i)^(?:#{2,3}\s*)?(?:\*\*|__)?status(?:\*\*|__)?\s*:\s*(?:\*\*|__)?\s*(.*)$`)
	tagRe      = lazyre.New(`^\[([^\]\n]{1,40})\]\s*`)
	outcomeRe  = lazyre.New(`(?i)^(?:[-*]\s*)?(?:\*\*)?outcome(?:\*\*)?\s*:\s*(?:\*\*)?\s*(.*)$`)
)

// MaxTasks bounds the checkboxes read from one story.
const MaxTasks = 2000

// ParseStoryFile reads a v6 story file. It never fails: what it cannot
// find stays empty.
func ParseStoryFile(data []byte) *StoryFile {
	sf := &StoryFile{}
	lines := strings.Split(string(data), "\n")
	fence := false
	seenH2 := false
	section := ""    // current ## section, lower-cased
	subsection := "" // current ### heading as written
	followups := 0
	for n, line := range lines {
		line = strings.TrimRight(line, "\r")
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = !fence
			continue
		}
		if fence {
			continue
		}
		switch {
		case strings.HasPrefix(t, "# "):
			if sf.Title == "" {
				sf.Title = strings.TrimSpace(t[2:])
				if m := headingID().FindStringSubmatch(t); m != nil {
					sf.HeadingID = strings.ToLower(m[1])
				}
			}
			continue
		case strings.HasPrefix(t, "## "):
			h := strings.TrimSpace(t[3:])
			if m := statusLine().FindStringSubmatch(t); m != nil && strings.TrimSpace(m[1]) != "" {
				sf.setStatus(m[1], n+1)
			}
			seenH2 = true
			section = strings.ToLower(h)
			subsection = ""
			continue
		case strings.HasPrefix(t, "### "):
			subsection = strings.TrimSpace(t[4:])
			if strings.EqualFold(subsection, "status") {
				section = "status"
			} else if m := statusLine().FindStringSubmatch(t); m != nil && strings.TrimSpace(m[1]) != "" && !seenH2 {
				sf.setStatus(m[1], n+1)
			}
			continue
		}
		if t == "" {
			continue
		}
		switch {
		case section == "status":
			if m := statusLine().FindStringSubmatch(t); m != nil {
				sf.setStatus(m[1], n+1)
			} else if !strings.HasPrefix(t, "#") {
				sf.setStatus(t, n+1)
			}
		case !seenH2:
			if m := statusLine().FindStringSubmatch(t); m != nil {
				sf.setStatus(m[1], n+1)
			}
		case strings.HasPrefix(section, "tasks"):
			m := checkbox().FindStringSubmatch(line)
			if m == nil || len(sf.Tasks) >= MaxTasks {
				continue
			}
			task := Task{Text: strings.TrimSpace(m[2]), Done: m[1] != " ", Section: subsection, Line: n + 1, Indent: len(line) - len(strings.TrimLeft(line, " \t"))}
			rest := task.Text
			for i := 0; i < 4; i++ {
				tm := tagRe().FindStringSubmatch(rest)
				if tm == nil {
					break
				}
				if strings.EqualFold(tm[1], "AI-Review") {
					task.Review = true
				} else {
					task.Labels = append(task.Labels, "["+tm[1]+"]")
				}
				rest = rest[len(tm[0]):]
			}
			if strings.Contains(strings.ToLower(subsection), "review follow-up") {
				task.Review = true
			}
			if task.Review {
				task.Text = rest
				followups++
				task.Followup = followups
			}
			sf.Tasks = append(sf.Tasks, task)
		case strings.HasPrefix(section, "senior developer review"):
			sf.Reviewed = true
			if m := outcomeRe().FindStringSubmatch(t); m != nil && sf.Outcome == "" {
				sf.Outcome = strings.TrimSpace(strings.Trim(m[1], "*_ "))
			}
		case strings.EqualFold(subsection, "file list"):
			if p, ok := fileListPath(t); ok && len(sf.FileList) < 500 {
				sf.FileList = append(sf.FileList, p)
			}
		}
		if strings.HasPrefix(section, "senior developer review") {
			sf.Reviewed = true
		}
	}
	return sf
}

func (sf *StoryFile) setStatus(v string, line int) {
	v = strings.TrimSpace(v)
	if v == "" {
		return
	}
	if sf.Status == "" {
		sf.Status, sf.StatusLine = v, line
		return
	}
	if sf.StatusOther == "" && Token(v) != Token(sf.Status) {
		sf.StatusOther = v
	}
}

// fileListPath takes the path of a File List bullet ("- `src/a.ts` (new)").
func fileListPath(t string) (string, bool) {
	if len(t) < 2 || (t[0] != '-' && t[0] != '*' && t[0] != '+') {
		return "", false
	}
	t = strings.TrimSpace(t[1:])
	if strings.HasPrefix(t, "`") {
		if j := strings.IndexByte(t[1:], '`'); j >= 0 {
			t = t[1 : j+1]
		}
	} else if i := strings.IndexAny(t, " \t"); i >= 0 {
		t = t[:i]
	}
	t = strings.TrimPrefix(strings.Trim(t, "*"), "/")
	for _, pre := range []string{"NEW:", "MODIFIED:", "new:", "modified:"} {
		t = strings.TrimPrefix(t, pre)
	}
	t = strings.TrimSpace(t)
	if !refpath.LooksLikePath(t) {
		return "", false
	}
	p, safe := refpath.Clean(t)
	if !safe || p == "" {
		return "", false // the story format ignores unsafe paths
	}
	return p, true
}

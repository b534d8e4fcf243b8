// Package ghactions writes what a GitHub Actions job shows of a resume:
// the summary as Markdown for $GITHUB_STEP_SUMMARY and findings as
// ::warning / ::error workflow commands. Every value is redacted first and
// escaped for where it goes, so that text from a repository can neither
// inject a workflow command, nor markup, links or mentions into the summary.
package ghactions

import (
	"fmt"
	"strings"

	"github.com/orchestrate-dev/orchestrate/internal/redact"
)

// MaxAnnotations bounds the annotations one run writes (GitHub shows at
// most 10 warnings and 10 errors per step anyway).
const MaxAnnotations = 20

// MaxSummaryRows bounds the findings listed in the summary.
const MaxSummaryRows = 50

// maxValue bounds one value written.
const maxValue = 2000

// Enabled reports whether the environment is a GitHub Actions job.
func Enabled(getenv func(string) string) bool { return getenv("GITHUB_ACTIONS") == "true" }

// clean redacts s, drops control characters and bounds it.
func clean(s string) string {
	s = redact.String(s)
	var b strings.Builder
	for _, r := range s {
		if b.Len() >= maxValue {
			b.WriteString("…")
			break
		}
		switch {
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == '\u2028' || r == '\u2029' || (r >= '\u202a' && r <= '\u202e') || (r >= '\u2066' && r <= '\u2069'):
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// escapeData escapes the message of a workflow command (GitHub's rule:
// %, CR and LF), so it stays on one line and cannot start another command.
func escapeData(s string) string {
	s = strings.ReplaceAll(s, "%", "%25")
	s = strings.ReplaceAll(s, "\r", "%0D")
	return strings.ReplaceAll(s, "\n", "%0A")
}

// escapeProperty escapes a property of a workflow command (also : and ,).
func escapeProperty(s string) string {
	s = escapeData(s)
	s = strings.ReplaceAll(s, ":", "%3A")
	return strings.ReplaceAll(s, ",", "%2C")
}

// Annotation is one workflow command line: level is "warning", "error" or
// "notice"; file (repository-relative) and title may be empty.
func Annotation(level, file, title, message string) string {
	switch level {
	case "warning", "error", "notice":
	default:
		level = "notice"
	}
	var props []string
	if file != "" {
		props = append(props, "file="+escapeProperty(clean(file)))
	}
	if title != "" {
		props = append(props, "title="+escapeProperty(clean(title)))
	}
	head := "::" + level
	if len(props) > 0 {
		head += " " + strings.Join(props, ",")
	}
	return head + "::" + escapeData(clean(message)) + "\n"
}

// Text escapes s for Markdown (a paragraph or a table cell): every ASCII
// punctuation character is backslash-escaped (CommonMark allows it for all
// of them), which also turns <, & and @ into plain text; line breaks
// become spaces.
func Text(s string) string {
	s = clean(s)
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t':
			b.WriteByte(' ')
		case r < 0x80 && strings.ContainsRune("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", r):
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Row is one line of the summary's table.
type Row struct{ Name, Value string }

// Finding is one finding for the summary and the annotations.
type Finding struct {
	Severity, Check, Message, Path string
}

// Summary is the Markdown summary of one resume.
type Summary struct {
	Title    string
	Rows     []Row
	Findings []Finding
}

// Markdown renders s: a heading, the table of rows, the findings.
func (s Summary) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "### %s\n\n", Text(s.Title))
	if len(s.Rows) > 0 {
		b.WriteString("| | |\n|---|---|\n")
		for _, r := range s.Rows {
			fmt.Fprintf(&b, "| %s | %s |\n", Text(r.Name), Text(r.Value))
		}
		b.WriteString("\n")
	}
	if len(s.Findings) > 0 {
		b.WriteString("| severity | check | finding | path |\n|---|---|---|---|\n")
		for i, f := range s.Findings {
			if i == MaxSummaryRows {
				fmt.Fprintf(&b, "| | | %d more (orchestrate resume --dry-run --json lists them) | |\n", len(s.Findings)-MaxSummaryRows)
				break
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", Text(f.Severity), Text(f.Check), Text(f.Message), Text(f.Path))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// Annotations are the findings as workflow commands: blocking ones as
// errors, warnings as warnings (info is left out), at most MaxAnnotations.
func (s Summary) Annotations() string {
	var b strings.Builder
	n := 0
	for _, f := range s.Findings {
		level := ""
		switch f.Severity {
		case "blocking":
			level = "error"
		case "warning":
			level = "warning"
		default:
			continue
		}
		if n == MaxAnnotations {
			break
		}
		n++
		b.WriteString(Annotation(level, f.Path, "orchestrate: "+f.Check, f.Message))
	}
	return b.String()
}

// Package templates holds every human-facing block orchestrate prints (the
// task's resume summary, multiple workflows, cannot resume, partial resume,
// confirmation, failure, the status table, the pre-flight report) as
// text/template files embedded in the binary. A file of the same name in the
// repository's templates folder (.orchestrate/templates/ by default)
// overrides the embedded one.
package templates

import (
	"embed"
	"fmt"
	"strings"
	"text/template"
	"time"
)

//go:embed *.tmpl
var files embed.FS

// Renderer renders named templates, preferring overrides from Dir.
type Renderer struct {
	// Dir is the override folder (absolute); empty means embedded only.
	Dir string
	// Root is the repository: an override folder inside it is read without
	// following any symlink below Root. Empty trusts Dir's own path.
	Root string
	// Warn, when set, is told why an override was not used (a symlink, a
	// FIFO, too large, over a rendering limit); the embedded template is
	// rendered instead.
	Warn func(msg string)
	// Color enables ANSI colour in the colour helpers.
	Color bool
}

// Names lists the embedded templates.
func Names() []string {
	entries, _ := files.ReadDir(".")
	var out []string
	for _, e := range entries {
		out = append(out, strings.TrimSuffix(e.Name(), ".tmpl"))
	}
	return out
}

// Render executes template name (without .tmpl) with data. Every string in
// data is shown through Safe (redacted, control characters escaped); the
// template's own text is used as it is.
func (r Renderer) Render(name string, data any) (string, error) {
	data = sanitizeData(data)
	text, src, err := r.source(name)
	if err != nil {
		return "", err
	}
	out, err := r.renderBounded(name, text, src, data)
	if err != nil && src != "embedded" && isLimit(err) {
		// an override over a limit: the embedded template instead
		r.warn(err.Error() + "; the built-in template is used")
		if text, src, err = r.embedded(name); err != nil {
			return "", err
		}
		return r.renderBounded(name, text, src, data)
	}
	return out, err
}

func (r Renderer) warn(msg string) {
	if r.Warn != nil {
		r.Warn(msg)
	}
}

func (r Renderer) source(name string) (string, string, error) {
	if r.Dir != "" {
		text, src, found, err := r.readOverride(name + ".tmpl")
		if found && err == nil {
			return text, src, nil
		}
		if err != nil {
			r.warn(err.Error() + "; the built-in template is used")
		}
	}
	return r.embedded(name)
}

// embedded returns the built-in template name.
func (r Renderer) embedded(name string) (string, string, error) {
	file := name + ".tmpl"
	data, err := files.ReadFile(file)
	if err != nil {
		return "", "", fmt.Errorf("no template %q", name)
	}
	return string(data), "embedded", nil
}

func (r Renderer) funcs() template.FuncMap {
	color := func(code string) func(string) string {
		return func(s string) string {
			if !r.Color {
				return s
			}
			return "\x1b[" + code + "m" + s + "\x1b[0m"
		}
	}
	return template.FuncMap{
		"bold":   color("1"),
		"red":    color("31"),
		"green":  color("32"),
		"yellow": color("33"),
		"dim":    color("2"),
		"pad": func(n int, s string) string {
			if w := len([]rune(s)); w < n {
				return s + strings.Repeat(" ", n-w)
			}
			return s
		},
		"ago":   Ago,
		"dur":   Duration,
		"add":   func(a, b int) int { return a + b },
		"join":  strings.Join,
		"upper": strings.ToUpper,
		"title": func(s string) string {
			if s == "" {
				return s
			}
			return strings.ToUpper(s[:1]) + s[1:]
		},
		"plural": func(n int, one, many string) string {
			if n == 1 {
				return one
			}
			return many
		},
	}
}

// Duration renders d the way people say it: "45 minutes", "2 hours",
// "3 days".
func Duration(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	unit := func(n int64, s string) string {
		if n == 1 {
			return fmt.Sprintf("1 %s", s)
		}
		return fmt.Sprintf("%d %ss", n, s)
	}
	switch {
	case d < time.Minute:
		return unit(int64(d/time.Second), "second")
	case d < time.Hour:
		return unit(int64(d/time.Minute), "minute")
	case d < 48*time.Hour:
		return unit(int64(d/time.Hour), "hour")
	default:
		return unit(int64(d/(24*time.Hour)), "day")
	}
}

// Ago renders d as "45 minutes ago"; a zero duration with unknown time is "-".
func Ago(d time.Duration) string {
	return Duration(d) + " ago"
}

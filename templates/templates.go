// Package templates holds every human-facing block orchestrate prints (the
// task's resume summary, multiple workflows, cannot resume, partial resume,
// confirmation, failure, the status table, the pre-flight report) as
// text/template files embedded in the binary. A file of the same name in the
// repository's templates folder (.orchestrate/templates/ by default)
// overrides the embedded one.
package templates

import (
	"bytes"
	"embed"
	"fmt"
	"os"
	"path/filepath"
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
	t, err := template.New(name).Funcs(r.funcs()).Parse(text)
	if err != nil {
		return "", fmt.Errorf("template %s (%s): %w", name, src, err)
	}
	var b bytes.Buffer
	if err := t.Execute(&b, data); err != nil {
		return "", fmt.Errorf("template %s (%s): %w", name, src, err)
	}
	return b.String(), nil
}

func (r Renderer) source(name string) (string, string, error) {
	file := name + ".tmpl"
	if r.Dir != "" {
		p := filepath.Join(r.Dir, file)
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() && fi.Size() < 1<<20 {
			data, err := os.ReadFile(p)
			if err == nil {
				return string(data), p, nil
			}
		}
	}
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

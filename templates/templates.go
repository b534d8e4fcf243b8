// Package templates holds every human-facing block orchestrate prints (the
// task's resume summary, multiple workflows, cannot resume, partial resume,
// confirmation, failure, the status table, the pre-flight report) as
// text/template files embedded in the binary. A file of the same name in the
// templates folder the command layer passes (Renderer.Dir: one the user
// configured, or the repository's once its .orchestrate.yaml is trusted)
// overrides the embedded one, except the built-in-only templates: the lines
// that state an outcome or what will run (builtinOnly, tails). Every
// rendering's output, override or not, is escaped for the terminal (only
// the colours of the colour helpers pass). See docs/SECURITY.md.
package templates

import (
	"crypto/rand"
	"embed"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"text/template"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/lazyre"
	"github.com/orchestrate-dev/orchestrate/internal/termsafe"
	"github.com/orchestrate-dev/orchestrate/internal/textfmt"
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
	// marks are the current rendering's colour marks (render sets them).
	marks *marks
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

// builtinOnly are the templates no override replaces, even from a trusted
// folder: each states an outcome (the resume's decision line, status's
// "nothing to resume") or what will run. An override file of that name is
// ignored.
var builtinOnly = map[string]bool{
	"decision":         true,
	"status_outcome":   true,
	"confirmation_run": true,
}

// tails are the built-in-only templates rendered after a block, with the
// same data, whatever overrides the block: status ends with its outcome
// lines, the confirmation with what is run.
var tails = map[string]string{
	"status":       "status_outcome",
	"confirmation": "confirmation_run",
}

// Overridable reports whether an override file may replace template name.
func Overridable(name string) bool { return !builtinOnly[name] }

// Render executes template name (without .tmpl) with data, followed by its
// built-in tail when it has one. Every string in data is shown through Safe
// (redacted, control characters escaped), and the output as a whole is
// escaped for the terminal (termsafe.Block): an override's own text can no
// more hide, clear or retitle than a value can. Only the colours of the
// colour helpers (bold, red, green, yellow, dim) reach the terminal.
func (r Renderer) Render(name string, data any) (string, error) {
	return r.RenderNative(name, data, nil)
}

// RenderNative is Render, with native rendering template name's built-in
// text when that is the one used (no override): native is given the data
// as the template is (every string through Safe) and returns what the
// built-in template renders of it, byte for byte, or false to have the
// template render it (a width or a size near the built-in limits, whose
// errors only the template gives). The output is escaped and the tail
// rendered as Render does. status renders its table so (1,000 rows: the
// template's reflection cost more than the rest of the rendering).
func (r Renderer) RenderNative(name string, data any, native func(data any) (string, bool)) (string, error) {
	data = sanitizeData(data)
	out, err := r.renderWith(name, data, native)
	if err != nil {
		return "", err
	}
	if tail, ok := tails[name]; ok {
		t, err := r.render(tail, data)
		if err != nil {
			return "", err
		}
		out += t
	}
	return out, nil
}

// render renders one template (an override when allowed, else the
// embedded one) and escapes its output.
func (r Renderer) render(name string, data any) (string, error) {
	return r.renderWith(name, data, nil)
}

// renderWith is render, with native instead of the embedded template when
// it renders the data (RenderNative).
func (r Renderer) renderWith(name string, data any, native func(data any) (string, bool)) (string, error) {
	r.marks = newMarks(r.Color)
	text, src, err := r.source(name)
	if err != nil {
		return "", err
	}
	if src == "embedded" && native != nil {
		if out, ok := native(data); ok && len(out) <= MaxBuiltinOutput {
			return r.marks.finish(out), nil
		}
	}
	out, err := r.renderBounded(name, text, src, data)
	if err != nil && src != "embedded" && isLimit(err) {
		// an override over a limit: the embedded template instead
		r.warn(err.Error() + "; the built-in template is used")
		if text, src, err = r.embedded(name); err != nil {
			return "", err
		}
		out, err = r.renderBounded(name, text, src, data)
	}
	if err != nil {
		return "", err
	}
	return r.marks.finish(out), nil
}

// sgrCodes are the SGR codes the colour helpers emit: the only escape
// sequences a rendering may print.
var sgrCodes = []string{"0", "1", "2", "31", "32", "33"}

// marks stands in for the colour helpers' escape sequences while a template
// renders: each code is a random mark no template text can know in advance,
// so after the output is escaped, only the marks become escape sequences.
type marks struct {
	on    bool
	nonce string
}

// newMarks returns the marks of one rendering (colour on or off).
func newMarks(on bool) *marks {
	m := &marks{on: on}
	if on {
		var b [16]byte
		if _, err := rand.Read(b[:]); err != nil {
			m.on = false // no colour rather than a guessable mark
		}
		m.nonce = hex.EncodeToString(b[:])
	}
	return m
}

// mark is the stand-in of SGR code c.
func (m *marks) mark(c string) string { return "\ue000" + m.nonce + ":" + c + "\ue001" }

// color wraps s in SGR code c (and a reset), as marks; s as it is without
// colour.
func (m *marks) color(c, s string) string {
	if m == nil || !m.on {
		return s
	}
	return m.mark(c) + s + m.mark("0")
}

// finish escapes a rendering's output for the terminal (line feeds and tabs
// kept) and turns the marks into their escape sequences.
func (m *marks) finish(out string) string {
	out = termsafe.Block(out)
	if m == nil || !m.on {
		return out
	}
	pairs := make([]string, 0, 2*len(sgrCodes))
	for _, c := range sgrCodes {
		pairs = append(pairs, m.mark(c), "\x1b["+c+"m")
	}
	return strings.NewReplacer(pairs...).Replace(out)
}

func (r Renderer) warn(msg string) {
	if r.Warn != nil {
		r.Warn(msg)
	}
}

func (r Renderer) source(name string) (string, string, error) {
	if r.Dir != "" && Overridable(name) {
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
		return func(s string) string { return r.marks.color(code, s) }
	}
	return template.FuncMap{
		"bold":   color("1"),
		"red":    color("31"),
		"green":  color("32"),
		"yellow": color("33"),
		"dim":    color("2"),
		"pad": func(n int, s string) string {
			// display columns (internal/termsafe), so wide text lines up
			if w := termsafe.Width(s); w < n {
				return s + strings.Repeat(" ", n-w)
			}
			return s
		},
		"ago":      Ago,
		"dur":      Duration,
		"add":      func(a, b int) int { return a + b },
		"numbered": Numbered,
		"join":     strings.Join,
		"upper":    strings.ToUpper,
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

// ownNumberRe is a list item's text that opens with its own number: "2.
// Feed generation", "3) Ship", "1.2 Wire", "4: Docs" (a number, then ".",
// ")" or ":" and a space; or a dotted number and a space). "2024 roadmap"
// is not one.
var ownNumberRe = lazyre.New(`^[0-9]{1,4}(?:(?:\.[0-9]{1,4})*[.):]|(?:\.[0-9]{1,4})+)\s`)

// Numbered writes item n of a numbered list: "n. text", or text alone when
// it opens with its own number (a Kiro or OpenSpec group "2. Feed
// generation" is not listed as "1. 2. Feed generation").
func Numbered(n int, text string) string {
	if ownNumberRe().MatchString(text) {
		return text
	}
	return strconv.Itoa(n) + ". " + text
}

// Duration renders d the way people say it: "45 minutes", "2 hours",
// "3 days" (textfmt.Duration, the one wording).
func Duration(d time.Duration) string { return textfmt.Duration(d) }

// Ago renders d as "45 minutes ago" (textfmt.Ago).
func Ago(d time.Duration) string { return textfmt.Ago(d) }

// Package command renders a handoff command template for sh (values travel
// as environment variables, never as shell text) and runs it in a process
// group of its own with signal forwarding, a timeout and terminal hand-over.
// See docs/SECURITY.md.
package command

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"text/template"
	"text/template/parse"
	"time"
	"unicode"
	"unicode/utf8"
)

// EnvHandoff is the environment variable that carries the envelope path to
// the orchestrator command (it is also what {{.EnvelopePath}} refers to).
const EnvHandoff = "ORCHESTRATE_HANDOFF"

// DefaultGrace is how long a command that was told to stop (a forwarded
// signal, a timeout) has to end before its process group is killed.
const DefaultGrace = 5 * time.Second

// Data is what a handoff.command template may use:
// {{.EnvelopePath}} {{.AISessionID}} {{.Agent}} {{.WorkflowID}} {{.Phase}}
// {{.Root}}.
type Data struct {
	EnvelopePath string
	AISessionID  string
	Agent        string
	WorkflowID   string
	Phase        string
	Root         string
}

// placeholder is one field of Data and the environment variable the
// rendered command reads its value from.
type placeholder struct {
	field string
	env   string
	value func(Data) string
}

// placeholders are the template fields, in a fixed order (their index is
// part of the sentinel).
var placeholders = []placeholder{
	{"EnvelopePath", EnvHandoff, func(d Data) string { return d.EnvelopePath }},
	{"AISessionID", "ORCHESTRATE_AI_SESSION_ID", func(d Data) string { return d.AISessionID }},
	{"Agent", "ORCHESTRATE_AGENT", func(d Data) string { return d.Agent }},
	{"WorkflowID", "ORCHESTRATE_WORKFLOW_ID", func(d Data) string { return d.WorkflowID }},
	{"Phase", "ORCHESTRATE_PHASE", func(d Data) string { return d.Phase }},
	{"Root", "ORCHESTRATE_ROOT", func(d Data) string { return d.Root }},
}

// FuncUnchecked is the template function that marks a spot as taking any
// value: {{unchecked .AISessionID}} passes a value that begins with "-" or
// holds control characters, which a bare {{.AISessionID}} refuses.
const FuncUnchecked = "unchecked"

// Reasons a handoff command did not succeed (Error.Reason).
const (
	ReasonFailed      = "failed"      // it exited with a non-zero status
	ReasonTimeout     = "timeout"     // handoff.timeout expired and it was stopped
	ReasonInterrupted = "interrupted" // orchestrate got a signal and stopped it
)

// Error is an orchestrator command that did not succeed: it failed
// (non-zero exit), timed out, or was interrupted; the resume was rolled
// back.
type Error struct {
	// Reason is ReasonFailed, ReasonTimeout or ReasonInterrupted.
	Reason string
	// Status is the command's exit status (128+n when it ended by signal
	// n; -1 when unknown).
	Status int
	// Signal names the signal orchestrate received (ReasonInterrupted).
	Signal string
	// Timeout is handoff.timeout (ReasonTimeout).
	Timeout time.Duration
	// Command is the command as shown to people (redacted).
	Command string
	// Cause is why the caller stopped it (ReasonInterrupted by the
	// context given to Run: context.Cause), nil otherwise.
	Cause error
}

// Unwrap is the Cause.
func (e *Error) Unwrap() error { return e.Cause }

// stoppedBy is the Cause worth naming: one the caller gave, not a bare
// cancellation.
func (e *Error) stoppedBy() error {
	if e.Cause == nil || errors.Is(e.Cause, context.Canceled) || errors.Is(e.Cause, context.DeadlineExceeded) {
		return nil
	}
	return e.Cause
}

// Error implements error.
func (e *Error) Error() string {
	cmd := ""
	if e.Command != "" {
		cmd = ": " + e.Command
	}
	switch e.Reason {
	case ReasonTimeout:
		return fmt.Sprintf("the orchestrator command timed out after %s (handoff.timeout) and was stopped (status %d)%s", e.Timeout, e.Status, cmd)
	case ReasonInterrupted:
		if cause := e.stoppedBy(); cause != nil && e.Signal == "" {
			return fmt.Sprintf("the orchestrator command was stopped (status %d): %s%s", e.Status, cause, cmd)
		}
		sig := e.Signal
		if sig == "" {
			sig = "a stop request"
		}
		return fmt.Sprintf("orchestrate received %s while the orchestrator command ran; the command was stopped (status %d)%s", sig, e.Status, cmd)
	}
	return fmt.Sprintf("the orchestrator command exited with status %d%s", e.Status, cmd)
}

// ValueError is a value refused for a spot of the handoff command: it
// begins with "-" (a program would read it as an option) or holds a control
// character, and the template does not mark the spot {{unchecked .Field}}.
// Nothing was run or written.
type ValueError struct {
	Template string // "handoff.command" or "handoff.fallback_command"
	Field    string
	Reason   string
}

// Error implements error.
func (e *ValueError) Error() string {
	return fmt.Sprintf("%s: the value of {{.%s}} %s: refused (write {{%s .%s}} where the command takes any value, e.g. after --)",
		e.Template, e.Field, e.Reason, FuncUnchecked, e.Field)
}

// TemplateError is a handoff command template that cannot be used: a syntax
// error or a construct outside the safe rules (docs/SECURITY.md).
type TemplateError struct {
	Template string
	Err      error
}

// Error implements error.
func (e *TemplateError) Error() string { return e.Template + " template: " + e.Err.Error() }

// Unwrap returns the cause.
func (e *TemplateError) Unwrap() error { return e.Err }

// Rendered is a handoff command rendered for sh.
type Rendered struct {
	// Script is the text run by sh -c. Every placeholder became a quoted
	// reference to an environment variable ("${ORCHESTRATE_AGENT}"), never
	// the value itself, so no value can become shell code.
	Script string
	// Display is the same command with the values shell-quoted in place,
	// for people and the log. It is never run.
	Display string
	// Env is NAME=value of every placeholder variable.
	Env []string
	// Args are sh's positional parameters ($1...): the argv of a preset
	// (FromArgv), run by the constant Script `exec "$@"`; nil for a
	// template.
	Args []string
}

// shellSafe reports whether s can go on a shell command line as it is.
func shellSafe(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case strings.ContainsRune("@%+=:,./_-", r):
		default:
			return false
		}
	}
	return true
}

// Quote single-quotes s for sh unless it is a plain word.
func Quote(s string) string {
	if s == "" || shellSafe(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// checkTree enforces the safe template rules: a field may appear only as a
// whole action ({{.Agent}}), as {{unchecked .Agent}}, or in the condition of
// an if ({{if .Agent}}, {{if not .Agent}}, {{if and .A .B}}); constant
// actions ({{"{{"}}) are allowed; range, with, template, variables, pipes
// and other functions are not, so a value can neither leak into the text
// through a function nor blow the output up.
func checkTree(n parse.Node) error {
	switch n := n.(type) {
	case nil:
		return nil
	case *parse.ListNode:
		if n == nil {
			return nil
		}
		for _, c := range n.Nodes {
			if err := checkTree(c); err != nil {
				return err
			}
		}
		return nil
	case *parse.TextNode, *parse.CommentNode:
		return nil
	case *parse.ActionNode:
		if okAction(n.Pipe) {
			return nil
		}
		return fmt.Errorf("%s is not allowed: a value may appear only as {{.Field}} or {{%s .Field}}", n, FuncUnchecked)
	case *parse.IfNode:
		if !okCondition(n.Pipe) {
			return fmt.Errorf("{{if %s}} is not allowed: a condition may only test fields ({{if .Field}}, not, and, or)", n.Pipe)
		}
		if err := checkTree(n.List); err != nil {
			return err
		}
		return checkTree(n.ElseList)
	}
	return fmt.Errorf("%s is not allowed in a handoff command (only {{.Field}}, {{%s .Field}} and {{if}})", n, FuncUnchecked)
}

func fieldOK(n parse.Node) bool {
	f, ok := n.(*parse.FieldNode)
	if !ok || len(f.Ident) != 1 {
		return false
	}
	for _, p := range placeholders {
		if p.field == f.Ident[0] {
			return true
		}
	}
	return false
}

func okAction(p *parse.PipeNode) bool {
	if p == nil || len(p.Decl) > 0 || len(p.Cmds) != 1 {
		return false
	}
	args := p.Cmds[0].Args
	switch len(args) {
	case 1:
		if _, ok := args[0].(*parse.StringNode); ok {
			return true
		}
		return fieldOK(args[0])
	case 2:
		id, ok := args[0].(*parse.IdentifierNode)
		return ok && id.Ident == FuncUnchecked && fieldOK(args[1])
	}
	return false
}

func okCondition(p *parse.PipeNode) bool {
	if p == nil || len(p.Decl) > 0 || len(p.Cmds) != 1 {
		return false
	}
	args := p.Cmds[0].Args
	if len(args) == 1 {
		return fieldOK(args[0])
	}
	id, ok := args[0].(*parse.IdentifierNode)
	if !ok || (id.Ident != "not" && id.Ident != "and" && id.Ident != "or") || (id.Ident == "not" && len(args) != 2) {
		return false
	}
	for _, a := range args[1:] {
		if !fieldOK(a) {
			return false
		}
	}
	return true
}

// sentinels are the unique words a template is executed with in place of
// the values: "ORCH<nonce>x" + the field's index + 'c' (checked) or 'u'
// (unchecked) + "x". Only letters and digits, so they never change the
// shell's quoting state.
type sentinels struct{ prefix string }

func newSentinels() sentinels {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return sentinels{prefix: "ORCH" + hex.EncodeToString(b[:]) + "x"}
}

func (s sentinels) word(i int, unchecked bool) string {
	mode := "c"
	if unchecked {
		mode = "u"
	}
	return fmt.Sprintf("%s%d%sx", s.prefix, i, mode)
}

// at reports the sentinel at the start of text: its field index and mode,
// and its length.
func (s sentinels) at(text string) (idx int, unchecked bool, n int, ok bool) {
	if !strings.HasPrefix(text, s.prefix) {
		return 0, false, 0, false
	}
	rest := text[len(s.prefix):]
	if len(rest) < 3 || rest[0] < '0' || rest[0] > '9' || (rest[1] != 'c' && rest[1] != 'u') || rest[2] != 'x' {
		return 0, false, 0, false
	}
	idx = int(rest[0] - '0')
	if idx >= len(placeholders) {
		return 0, false, 0, false
	}
	return idx, rest[1] == 'u', len(s.prefix) + 3, true
}

// checkValue refuses a value a program could misread: a leading "-" (an
// option) or a control character, unless the spot is unchecked. A NUL byte
// cannot be passed at all.
func checkValue(v string, unchecked bool) string {
	if strings.ContainsRune(v, 0) {
		return "holds a NUL byte"
	}
	if unchecked {
		return ""
	}
	if strings.HasPrefix(v, "-") {
		return `begins with "-" (a program would read it as an option)`
	}
	for i, r := range v {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(v[i:]); size == 1 {
				continue
			}
		}
		if unicode.IsControl(r) {
			return fmt.Sprintf("holds the control character %U", r)
		}
	}
	return ""
}

// Render expands a handoff.command template for sh. The template is
// executed with a unique sentinel word in place of every value; the output
// is then scanned with sh's quoting rules, and each sentinel is replaced by
// a reference to the value's environment variable that fits where it
// stands: unquoted "${VAR}", inside double quotes ${VAR}, inside single
// quotes '"${VAR}"'. The values travel in Rendered.Env and are never part of
// the script. An empty value renders as nothing (unquoted, no argument at
// all, as before). A value that begins with "-" or holds a control
// character is refused (*ValueError) unless the spot is written
// {{unchecked .Field}}. A template that breaks the safe rules is a
// *TemplateError. See docs/SECURITY.md.
func Render(tmpl string, data Data) (Rendered, error) {
	return RenderNamed("handoff.command", tmpl, data)
}

// RenderNamed is Render for the template called name (handoff.command or
// handoff.fallback_command), the name its errors carry.
func RenderNamed(name, tmpl string, data Data) (Rendered, error) {
	s := newSentinels()
	t, err := template.New(name).Option("missingkey=error").Funcs(template.FuncMap{
		FuncUnchecked: func(v string) string {
			if idx, _, n, ok := s.at(v); ok && n == len(v) {
				return s.word(idx, true)
			}
			return v
		},
	}).Parse(tmpl)
	if err != nil {
		return Rendered{}, &TemplateError{Template: name, Err: err}
	}
	if len(t.Templates()) > 1 {
		return Rendered{}, &TemplateError{Template: name, Err: errors.New("{{define}} and {{block}} are not allowed in a handoff command")}
	}
	if t.Tree == nil || t.Root == nil {
		return Rendered{}, nil
	}
	if err := checkTree(t.Root); err != nil {
		return Rendered{}, &TemplateError{Template: name, Err: err}
	}
	// the template sees sentinels, never values; an empty value stays empty
	// so {{if .Field}} still tests it
	words := map[string]string{}
	for i, p := range placeholders {
		w := ""
		if p.value(data) != "" {
			w = s.word(i, false)
		}
		words[p.field] = w
	}
	var b strings.Builder
	if err := t.Execute(&b, words); err != nil {
		return Rendered{}, &TemplateError{Template: name, Err: err}
	}
	cmd, err := substitute(b.String(), s, data, name)
	if err != nil {
		return Rendered{}, err
	}
	for _, p := range placeholders {
		cmd.Env = append(cmd.Env, p.env+"="+p.value(data))
	}
	return cmd, nil
}

// quoting states of the scanner
const (
	qNone   = 0
	qSingle = '\''
	qDouble = '"'
	qANSI   = 'a' // bash's $'...'
)

// frame is a nested command or arithmetic substitution the scanner is in.
type frame struct {
	kind  byte // '(' for $( ), '`' for backticks, 'A' for $(( ))
	depth int  // open parentheses
	quote byte // the quoting state outside it
}

// substitute replaces every sentinel in text with a reference fitting its
// quoting context (see Render), checking the values.
func substitute(text string, s sentinels, data Data, name string) (Rendered, error) {
	var script, display strings.Builder
	quote := byte(qNone)
	var stack []frame
	heredoc := false
	errAt := func(field, why string) error {
		return &TemplateError{Template: name, Err: fmt.Errorf("{{.%s}} %s", field, why)}
	}
	inArith := func() bool {
		for _, f := range stack {
			if f.kind == 'A' {
				return true
			}
		}
		return false
	}
	wordStart := func(i int) bool {
		if i == 0 {
			return true
		}
		return strings.IndexByte(" \t\n;&|()<>", text[i-1]) >= 0
	}
	for i := 0; i < len(text); {
		if idx, unchecked, n, ok := s.at(text[i:]); ok {
			p := placeholders[idx]
			v := p.value(data)
			switch {
			case quote == qANSI:
				return Rendered{}, errAt(p.field, "inside $'...' is not supported: use '...' or \"...\"")
			case inArith():
				return Rendered{}, errAt(p.field, "inside $((...)) is not allowed (a value would be read as arithmetic)")
			case heredoc:
				return Rendered{}, errAt(p.field, "after a here-document (<<) is not supported")
			case quote != qSingle && i > 0 && text[i-1] == '$' && !escapedAt(text, i-1):
				return Rendered{}, errAt(p.field, "right after $ is not allowed")
			}
			if why := checkValue(v, unchecked); why != "" {
				return Rendered{}, &ValueError{Template: name, Field: p.field, Reason: why}
			}
			ref := "${" + p.env + "}"
			switch quote {
			case qNone:
				if v != "" {
					script.WriteString(`"` + ref + `"`)
					display.WriteString(Quote(v))
				}
			case qDouble:
				script.WriteString(ref)
				if shellSafe(v) {
					display.WriteString(v)
				} else {
					display.WriteString(strings.NewReplacer(`\`, `\\`, `"`, `\"`, "$", `\$`, "`", "\\`").Replace(v))
				}
			case qSingle:
				if v != "" {
					script.WriteString(`'"` + ref + `"'`)
					display.WriteString(strings.ReplaceAll(v, "'", `'\''`))
				}
			}
			i += n
			continue
		}
		c := text[i]
		emit := func(k int) {
			script.WriteString(text[i : i+k])
			display.WriteString(text[i : i+k])
			i += k
		}
		switch quote {
		case qSingle:
			if c == '\'' {
				quote = qNone
			}
			emit(1)
			continue
		case qANSI:
			if c == '\\' && i+1 < len(text) {
				if _, _, _, ok := s.at(text[i+1:]); ok {
					return Rendered{}, &TemplateError{Template: name, Err: errors.New("a placeholder right after a backslash is not allowed")}
				}
				emit(2)
				continue
			}
			if c == '\'' {
				quote = qNone
			}
			emit(1)
			continue
		}
		// unquoted or double-quoted
		if c == '\\' {
			if i+1 < len(text) {
				if idx, _, _, ok := s.at(text[i+1:]); ok {
					return Rendered{}, errAt(placeholders[idx].field, "right after a backslash is not allowed")
				}
				emit(2)
			} else {
				emit(1)
			}
			continue
		}
		if c == '`' {
			if len(stack) > 0 && stack[len(stack)-1].kind == '`' {
				quote = stack[len(stack)-1].quote
				stack = stack[:len(stack)-1]
			} else {
				stack = append(stack, frame{kind: '`', quote: quote})
				quote = qNone
			}
			emit(1)
			continue
		}
		if c == '$' && i+1 < len(text) {
			switch {
			case strings.HasPrefix(text[i:], "$(("):
				stack = append(stack, frame{kind: 'A', depth: 2, quote: quote})
				quote = qNone
				emit(3)
				continue
			case text[i+1] == '(':
				stack = append(stack, frame{kind: '(', depth: 1, quote: quote})
				quote = qNone
				emit(2)
				continue
			case text[i+1] == '\'' && quote == qNone:
				quote = qANSI
				emit(2)
				continue
			}
		}
		if quote == qDouble {
			if c == '"' {
				quote = qNone
			}
			emit(1)
			continue
		}
		// unquoted
		switch c {
		case '\'':
			quote = qSingle
		case '"':
			quote = qDouble
		case '(':
			if len(stack) > 0 {
				stack[len(stack)-1].depth++
			}
		case ')':
			if len(stack) > 0 && stack[len(stack)-1].kind != '`' {
				top := &stack[len(stack)-1]
				top.depth--
				if top.depth <= 0 {
					quote = top.quote
					stack = stack[:len(stack)-1]
				}
			}
		case '#':
			if wordStart(i) {
				end := strings.IndexByte(text[i:], '\n')
				if end < 0 {
					end = len(text) - i
				}
				// a comment: placeholders in it are text the shell never
				// reads; they are written as their variable's name, never
				// the value (and never a sentinel, so the script is stable)
				for stop := i + end; i < stop; {
					if idx, _, n, ok := s.at(text[i:stop]); ok {
						ref := "${" + placeholders[idx].env + "}"
						script.WriteString(ref)
						display.WriteString(ref)
						i += n
						continue
					}
					emit(1)
				}
				continue
			}
		case '<':
			if strings.HasPrefix(text[i:], "<<") && !strings.HasPrefix(text[i:], "<<<") {
				heredoc = true
				emit(2)
				continue
			}
			if strings.HasPrefix(text[i:], "<<<") {
				emit(3)
				continue
			}
		}
		emit(1)
	}
	return Rendered{Script: script.String(), Display: display.String()}, nil
}

// escapedAt reports whether the byte at i is escaped by a backslash.
func escapedAt(text string, i int) bool {
	n := 0
	for j := i - 1; j >= 0 && text[j] == '\\'; j-- {
		n++
	}
	return n%2 == 1
}

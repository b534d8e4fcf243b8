package handoff

// The agent's own session: the AI agent's conversation that the handoff
// command resumes (its id is {{.AISessionID}}), not the work session it
// works in (discover/worksession) nor the loaded repository of a command
// (app/loaded). When the handoff command resumes the agent's session and
// fails because that session is gone, a new one is started with
// handoff.fallback_command and the context rebuilt from the saved
// breadcrumbs and metadata, its id is read from the fallback's output and
// recorded in the work-session file (worksession.RecordAISessionID), and
// both attempts are logged (see docs/ARCHITECTURE.md, handoff). The config
// keys, the envelope's JSON fields, the log events and the template field
// keep their "ai_session"/AISessionID names: they are a contract.

import (
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/worksession"
	"github.com/orchestrate-dev/orchestrate/handoff/command"
	"github.com/orchestrate-dev/orchestrate/internal/logging"
	"github.com/orchestrate-dev/orchestrate/internal/tolerant"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// Log events of a resume of the agent's session that fell back to a new
// session.
const (
	EventAgentSessionGone = "resume.ai_session_gone"
	EventAgentSessionNew  = "resume.ai_session_new"
)

// fallbackName names the fallback command's template in errors.
const fallbackName = "handoff.fallback_command"

// DefaultSessionIDPattern reads a new AI session id from the fallback
// command's output (the first capture group).
const DefaultSessionIDPattern = `(?i)session[_ -]?id[:= ]+([A-Za-z0-9_-]+)`

// captureMax bounds what is kept of a command's output: the first and the
// last captureMax bytes.
const captureMax = 256 << 10

// capture keeps the head and the tail of what a command prints.
type capture struct {
	head, tail []byte
	total      int
}

func (c *capture) add(p []byte) {
	c.total += len(p)
	if n := captureMax - len(c.head); n > 0 {
		k := min(n, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	if len(p) == 0 {
		return
	}
	c.tail = append(c.tail, p...)
	if over := len(c.tail) - captureMax; over > 0 {
		c.tail = append(c.tail[:0], c.tail[over:]...)
	}
}

func (c *capture) String() string {
	if len(c.tail) == 0 {
		return string(c.head)
	}
	return string(c.head) + "\n" + string(c.tail)
}

// teeWriter streams to w and copies into the shared capture; one mutex for
// stdout and stderr, so writers that are the same (or share a buffer) are
// never written at once.
type teeWriter struct {
	mu  *sync.Mutex
	w   io.Writer
	cap *capture
}

func (t teeWriter) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.cap.add(p)
	return t.w.Write(p)
}

// runOptions are the command.Options of a request's commands, writing to stdout
// and stderr.
func (req *Request) runOptions(stdout, stderr io.Writer) command.Options {
	return command.Options{
		Root: req.Root, Env: req.Env, Stdin: req.Stdin, Stdout: stdout, Stderr: stderr,
		Timeout: req.Timeout, Grace: req.Grace, OnStart: req.onStart,
	}
}

// runCaptured runs tmpl (the template called name) like command.Run,
// streaming its output and returning it (stdout and stderr together).
func runCaptured(req *Request, name, tmpl string, data command.Data) (int, string, error) {
	return captured(req, func(opts command.Options) (int, error) {
		return command.RunNamed(req.stopContext(), name, tmpl, data, opts)
	})
}

// captured runs run with the request's options, streaming its output and
// returning it (stdout and stderr together).
func captured(req *Request, run func(command.Options) (int, error)) (int, string, error) {
	var mu sync.Mutex
	c := &capture{}
	out := teeWriter{mu: &mu, w: req.Stdout, cap: c}
	errw := teeWriter{mu: &mu, w: req.Stderr, cap: c}
	status, err := run(req.runOptions(out, errw))
	mu.Lock()
	defer mu.Unlock()
	return status, c.String(), err
}

// resumesAgentSession reports whether a command template resumes the
// agent's session.
func resumesAgentSession(tmpl string) bool {
	return strings.Contains(tmpl, ".AISessionID")
}

// agentSessionGone is the configured test of a failed resume of the agent's
// session: every configured part must hold (an exit status listed, output matching the
// pattern); with nothing configured it never holds.
type agentSessionGone struct {
	codes   []int
	pattern *regexp.Regexp
}

func (g agentSessionGone) configured() bool { return len(g.codes) > 0 || g.pattern != nil }

func (g agentSessionGone) match(status int, output string) bool {
	if status == 0 || !g.configured() {
		return false
	}
	if len(g.codes) > 0 {
		found := false
		for _, c := range g.codes {
			found = found || c == status
		}
		if !found {
			return false
		}
	}
	return g.pattern == nil || g.pattern.MatchString(output)
}

// agentSessionConfig compiles the request's settings for the agent's
// session.
func agentSessionConfig(req *Request) (agentSessionGone, *regexp.Regexp, error) {
	g := agentSessionGone{codes: req.SessionGoneExitCodes}
	if p := strings.TrimSpace(req.SessionGonePattern); p != "" {
		re, err := regexp.Compile(p)
		if err != nil {
			return g, nil, fmt.Errorf("handoff.session_gone_pattern: %w", err)
		}
		g.pattern = re
	}
	p := req.SessionIDPattern
	if strings.TrimSpace(p) == "" {
		p = DefaultSessionIDPattern
	}
	idRe, err := regexp.Compile(p)
	if err != nil {
		return g, nil, fmt.Errorf("handoff.session_id_pattern: %w", err)
	}
	return g, idRe, nil
}

// newSessionID finds the first session id in output that is not old: the
// pattern's first capture group, or its whole match when it has none.
func newSessionID(re *regexp.Regexp, output, old string) string {
	for _, m := range re.FindAllStringSubmatch(output, -1) {
		id := m[0]
		if len(m) > 1 {
			id = m[1]
		}
		id = strings.TrimSpace(id)
		if id != "" && id != old {
			return id
		}
	}
	return ""
}

// runOrchestrator runs the handoff command of step 4 and returns its exit
// status. When the template resumes an AI session (it uses
// {{.AISessionID}} and the candidate has one) its output is captured while
// it streams; if it fails in the configured "session gone" way
// (handoff.session_gone_exit_codes and handoff.session_gone_pattern), the
// event resume.ai_session_gone is logged and, when
// handoff.fallback_command is set, the envelope is rewritten with the
// context rebuilt from the breadcrumbs and metadata, the fallback runs (its
// status is the result), the new session id is read from its output,
// recorded in the work-session file (keeping every other field), and
// resume.ai_session_new is logged. res.Command becomes the fallback's line;
// backup follows the recorded id so a later rollback still restores.
func runOrchestrator(req *Request, data command.Data, res *Result, backup *Backup) (int, error) {
	c := req.Candidate
	if !resumesAgentSession(req.Command) || strings.TrimSpace(c.AISessionID) == "" {
		return command.Run(req.stopContext(), req.Command, data, req.runOptions(req.Stdout, req.Stderr))
	}
	gone, idRe, err := agentSessionConfig(req)
	if err != nil {
		return -1, err
	}
	if !gone.configured() {
		return command.Run(req.stopContext(), req.Command, data, req.runOptions(req.Stdout, req.Stderr))
	}
	status, output, err := runCaptured(req, "handoff.command", req.Command, data)
	if err != nil || !gone.match(status, output) {
		return status, err
	}
	return afterSessionGone(req, data, res, backup, status, idRe, templateFallback(req))
}

// templateFallback is handoff.fallback_command as a fallbackRun, nil when
// it is not set.
func templateFallback(req *Request) *fallbackRun {
	if strings.TrimSpace(req.FallbackCommand) == "" {
		return nil
	}
	return &fallbackRun{
		display: func(fdata command.Data) (string, error) {
			rendered, err := command.RenderNamed(fallbackName, req.FallbackCommand, fdata)
			return rendered.Display, err
		},
		run: func(fdata command.Data) (int, string, error) {
			return runCaptured(req, fallbackName, req.FallbackCommand, fdata)
		},
	}
}

// fallbackRun is the new session started when the AI session resumed is
// gone: handoff.fallback_command, or a preset's new session.
type fallbackRun struct {
	display func(command.Data) (string, error)
	run     func(command.Data) (int, string, error)
}

// afterSessionGone carries on after the orchestrator's AI session resume failed
// with status because the session is gone: it logs resume.ai_session_gone
// and, with a fallback (nil: the failure stands), rewrites the envelope
// with the context rebuilt, runs the fallback, records the new session id
// read from its output with idRe, and logs resume.ai_session_new.
func afterSessionGone(req *Request, data command.Data, res *Result, backup *Backup, status int, idRe *regexp.Regexp, fb *fallbackRun) (int, error) {
	c := req.Candidate
	old := c.AISessionID
	goneMsg := fmt.Sprintf("AI session %s is gone (exit status %d)", old, status)
	if fb == nil {
		goneMsg += "; no handoff.fallback_command is configured, so the failure stands"
	} else {
		goneMsg += "; starting a new session with the context rebuilt from the saved breadcrumbs"
	}
	if err := logAgentSessionEvent(req, res, EventAgentSessionGone, goneMsg, logging.Fields{
		"ai_session_id": old, "exit_status": status, "command": res.Command,
	}); err != nil {
		fmt.Fprintf(req.Stderr, "orchestrate: warning: could not log the lost AI session: %v\n", err)
	}
	fmt.Fprintf(req.Stderr, "orchestrate: %s\n", goneMsg)
	if fb == nil {
		return status, nil
	}

	// the envelope, with the context rebuilt for a new session
	env := buildEnvelope(*req, res.IdempotencyKey)
	env.Context.AISessionID = ""
	env.Context.PreviousAISessionID = old
	env.Context.Rebuilt = rebuildContext(*req)
	if err := writeEnvelope(res.EnvelopePath, env); err != nil {
		return -1, err
	}

	fdata := data
	fdata.AISessionID = ""
	display, err := fb.display(fdata)
	if err != nil {
		return -1, err
	}
	res.Command = logging.Redact(display)
	fstatus, foutput, err := fb.run(fdata)
	if err != nil || fstatus != 0 {
		return fstatus, err
	}

	newID := newSessionID(idRe, foutput, old)
	fields := logging.Fields{"previous_ai_session_id": old, "ai_session_id": newID, "exit_status": fstatus, "command": res.Command}
	var msg string
	switch {
	case newID == "":
		msg = fmt.Sprintf("the fallback command ran in a new AI session, but its output names no session id (pattern %s); nothing recorded", idRe.String())
		fmt.Fprintf(req.Stderr, "orchestrate: warning: %s\n", msg)
	case isWorkSession(c):
		before, after, err := worksession.RecordAISessionID(req.Root, c.Source.Path, newID)
		if err != nil {
			return -1, fmt.Errorf("record the new AI session %s: %w", newID, err)
		}
		if backup != nil && backup.Path != "" && string(before) == string(backup.written) {
			backup.written = after
		}
		fields["recorded_in"] = c.Source.Path
		msg = fmt.Sprintf("new AI session %s (was %s) recorded in %s", newID, old, c.Source.Path)
		fmt.Fprintf(req.Stderr, "orchestrate: %s\n", msg)
	default:
		msg = fmt.Sprintf("new AI session %s (was %s)", newID, old)
		fmt.Fprintf(req.Stderr, "orchestrate: %s\n", msg)
	}
	if newID != "" {
		env.Context.AISessionID = newID
		if err := writeEnvelope(res.EnvelopePath, env); err != nil {
			return -1, err
		}
	}
	if err := logAgentSessionEvent(req, res, EventAgentSessionNew, msg, fields); err != nil {
		fmt.Fprintf(req.Stderr, "orchestrate: warning: could not log the new AI session: %v\n", err)
	}
	return fstatus, nil
}

// logAgentSessionEvent appends an event of the agent's session to the
// orchestration log.
func logAgentSessionEvent(req *Request, res *Result, event, msg string, extra logging.Fields) error {
	fields := eventFields(req, res, event)
	for k, v := range extra {
		if s, ok := v.(string); ok {
			v = logging.Redact(s)
		}
		fields[k] = v
	}
	return writeEvent(req, fields, msg)
}

// rebuildContext is the text a new AI session starts from when the old one
// is gone: the work session (its cookie, task, parent), its breadcrumbs,
// its completed and open subtasks, its metadata, the completed phases and
// where to pick up.
func rebuildContext(req Request) string {
	c := req.Candidate
	ctx := c.Context
	str := func(k string) string {
		s, _ := ctx[k].(string)
		return s
	}
	var b strings.Builder
	line := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	if ws := str(worksession.WorkSessionCtxID); ws != "" {
		task := str(worksession.WorkSessionCtxTaskID)
		if t := str(worksession.WorkSessionCtxTask); t != "" {
			task += " (" + t + ")"
		}
		if task != "" {
			line("Work session %s, task %s.", ws, task)
		} else {
			line("Work session %s.", ws)
		}
		line("Pass --cookie %s to every breadcrumb call of this session.", ws)
		if p := str(worksession.WorkSessionCtxParent); p != "" {
			line("It is a subtask of work session %s.", p)
		}
	} else {
		line("Workflow %s (%s).", c.ID, c.Type)
	}
	if c.AISessionID != "" {
		line("The previous AI session %s is no longer available; this is a new session: continue from the saved context below.", c.AISessionID)
	}
	if crumbs := restoredList(ctx, worksession.WorkSessionCtxBreadcrumbs); len(crumbs) > 0 {
		line("")
		line("Breadcrumbs (oldest first):")
		for _, it := range crumbs {
			m, _ := it.(map[string]any)
			head := ""
			if id, _ := m["id"].(string); id != "" {
				head = id
			}
			if ts, _ := m["timestamp"].(string); ts != "" {
				head = strings.TrimSpace(head + " " + ts)
			}
			if head != "" {
				head += ": "
			}
			line("- %s%s", head, messageText(m["message"]))
		}
	}
	if subs := restoredList(ctx, worksession.WorkSessionCtxSummaries); len(subs) > 0 {
		line("")
		line("Completed subtasks:")
		for _, it := range subs {
			m, _ := it.(map[string]any)
			name := firstText(m, "task_id", "wsession_id")
			if t := firstText(m, "task"); t != "" {
				name += " (" + t + ")"
			}
			line("- %s: %s", name, firstText(m, "summary"))
		}
	}
	if open, ok := ctx[worksession.WorkSessionCtxOpen].([]any); ok && len(open) > 0 {
		var ids []string
		for _, o := range open {
			ids = append(ids, fmt.Sprint(o))
		}
		line("")
		line("Open subtasks: %s", strings.Join(ids, ", "))
	}
	if meta, ok := ctx[worksession.WorkSessionCtxMetadata].(map[string]any); ok && len(meta) > 0 {
		keys := make([]string, 0, len(meta))
		for k := range meta {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		line("")
		line("Metadata:")
		for _, k := range keys {
			line("- %s: %s", k, messageText(meta[k]))
		}
	}
	if len(req.Plan.Completed) > 0 {
		var names []string
		for _, p := range req.Plan.Completed {
			names = append(names, orDash(p.Name))
		}
		line("")
		line("Completed phases: %s", strings.Join(names, ", "))
	}
	if req.Plan.ResumeFrom.Phase != "" || req.Plan.ResumeFrom.Agent != "" {
		line("")
		line("Resume from: %s (@%s)", orDash(req.Plan.ResumeFrom.Phase), strings.TrimPrefix(orDash(req.Plan.ResumeFrom.Agent), "@"))
	}
	return strings.TrimRight(b.String(), "\n")
}

func firstText(m map[string]any, keys ...string) string {
	for _, k := range keys {
		if s, ok := m[k].(string); ok && s != "" {
			return s
		}
	}
	return ""
}

// messageText renders a breadcrumb message or a metadata value as one line.
func messageText(v any) string {
	switch t := v.(type) {
	case nil:
		return ""
	case string:
		return strings.Join(strings.Fields(t), " ")
	case time.Time:
		return t.UTC().Format(time.RFC3339)
	}
	if s, err := worksession.MarshalOrdered(tolerant.JSONSafe(v, 0)); err == nil {
		return s
	}
	return fmt.Sprint(v)
}

// restoredList returns the list a candidate's context holds under key (the
// breadcrumbs or the subtask summaries of a work session), never nil.
func restoredList(saved map[string]any, key string) []any {
	if l, ok := saved[key].([]any); ok && l != nil {
		return l
	}
	return []any{}
}

// isWorkSession reports whether a candidate is a work session.
func isWorkSession(c workflow.Candidate) bool {
	return c.Source.Kind == workflow.KindWorkSession
}

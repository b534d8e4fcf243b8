// Package jsondoc holds the --json documents of every command (the stable
// contract of docs/ARCHITECTURE.md, schema orchestrate/v1): their types, the
// constructors that fill them from the domain values, the error document of
// a command that failed before writing its own, and Write, the one writer
// of a document (indented, redacted by internal/redact, escaped for a
// terminal by internal/termsafe).
package jsondoc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/orchestrate-dev/orchestrate/app/cli/cmdutil"
	"github.com/orchestrate-dev/orchestrate/app/resumeflow"
	"github.com/orchestrate-dev/orchestrate/handoff/cleanup"
	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/internal/redact"
	"github.com/orchestrate-dev/orchestrate/internal/sharedlife"
	"github.com/orchestrate-dev/orchestrate/internal/termsafe"
	"github.com/orchestrate-dev/orchestrate/plan"
	"github.com/orchestrate-dev/orchestrate/templates"
	"github.com/orchestrate-dev/orchestrate/validate"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// Schema is the version of the --json contract (docs/ARCHITECTURE.md).
const Schema = "orchestrate/v1"

// Candidate is one candidate in --json output.
type Candidate struct {
	ID          string              `json:"id"`
	Type        workflow.Type       `json:"type"`
	Source      workflow.SourceRef  `json:"source"`
	Stories     []string            `json:"stories"`
	Status      string              `json:"status"`
	StatusRaw   string              `json:"status_raw"`
	Resumable   bool                `json:"resumable"`
	UpdatedAt   *string             `json:"updated_at"`
	UpdatedFrom string              `json:"updated_from"`
	AgeSeconds  *int64              `json:"age_seconds"`
	AgeAtLeast  *int64              `json:"age_at_least_seconds,omitempty"` // replaces age_seconds (then null) when the age is a lower bound (validate.Report.AgeAtLeast)
	AgeClass    string              `json:"age_class"`
	Position    string              `json:"position"`
	Validation  *string             `json:"validation"`
	Findings    *[]workflow.Finding `json:"findings,omitempty"`
	// Lifecycle is set (status only) when the candidate was handed off, is
	// being handed off or is locked; absent means plainly interrupted.
	Lifecycle *Lifecycle `json:"lifecycle,omitempty"`
	// Framework and ResumePoint are set by the sources that know them
	// (BMAD v6, spec-kit, Taskmaster, GSD).
	Framework   string                `json:"framework,omitempty"`
	ResumePoint *workflow.ResumePoint `json:"resume_point,omitempty"`

	// InterruptedAt is set when validation dated the interruption later
	// than updated_at: the last activity on the workflow's own files (its
	// own progress since the state was saved); age_seconds counts from it.
	InterruptedAt *string `json:"interrupted_at,omitempty"`

	// HandoffAgent, HandoffCommand and HandoffRefused are set by status
	// for a resumable candidate when a hand-off preset runs (handoff.agent,
	// named as the log names it): the command line the preset would run at
	// the candidate's position, as the human status shows it, or why the
	// preset refuses to run.
	HandoffAgent   string `json:"handoff_agent,omitempty"`
	HandoffCommand string `json:"handoff_command,omitempty"`
	HandoffRefused string `json:"handoff_refused,omitempty"`
}

// Status is `status --json`.
type Status struct {
	Schema     string      `json:"schema"`
	Command    string      `json:"command"`
	Candidates []Candidate `json:"candidates"`
	Trust      *Trust      `json:"trust,omitempty"`
}

// Handoff is the handoff object of `resume --json`.
type Handoff struct {
	Envelope       string `json:"envelope"`
	IdempotencyKey string `json:"idempotency_key"`
	Command        string `json:"command"`
	Agent          string `json:"agent"`
}

// Resume is `resume --json`.
type Resume struct {
	Schema     string             `json:"schema"`
	Command    string             `json:"command"`
	Outcome    string             `json:"outcome"`
	ExitCode   int                `json:"exit_code"`
	Mode       string             `json:"mode"`
	DryRun     bool               `json:"dry_run"`
	Candidates []Candidate        `json:"candidates"`
	Selected   *string            `json:"selected"`
	Findings   []workflow.Finding `json:"findings"`
	Plan       *plan.Plan         `json:"plan"`
	Handoff    *Handoff           `json:"handoff"`
	Trust      *Trust             `json:"trust,omitempty"`
	// Command is set when the outcome is command_failed (exit 18).
	CommandResult *Command `json:"command_result,omitempty"`
	// Reason refines the outcome without adding outcomes to the documented
	// set: "already_handed_off" with "none" (resume --again hands it off once
	// more), "stale_lock" with "locked" (exit 16: the owner is gone),
	// "lease_lost" with "locked" (exit 16: another runner took the shared
	// lock over while the command ran; it was stopped, see command_result),
	// and "command_failed" with "error" (exit 18: see command_result).
	Reason string `json:"reason,omitempty"`
	// Error is the message printed on stderr when the run ended on one (an
	// unknown workflow, a lock, a failed command…), as every command's
	// error document carries it.
	Error string `json:"error,omitempty"`
	// Holder is the runner holding the workflow on the shared lifecycle
	// (reason "held_remotely" or "lease_lost", exit 16).
	Holder *Holder `json:"holder,omitempty"`
	// Changed lists what moved when a saved plan is refused (resume --plan,
	// exit 17): which input of the plan's digest, and its old and new value.
	Changed []Changed `json:"changed,omitempty"`
}

// Holder is another runner's live lease on the shared lifecycle.
type Holder struct {
	Runner   string `json:"runner"`
	Owner    string `json:"owner,omitempty"`
	Host     string `json:"host,omitempty"`
	CI       string `json:"ci,omitempty"`
	Acquired string `json:"acquired_at"`
	Expires  string `json:"expires_at"`
}

// Changed is one input of a saved plan's digest that moved: its kind
// (file, state, head, lock, phase, mode, decision, workflow, version), the
// path for a file or state file, the value the plan saved and the value now
// ("" when absent on that side; a file's value is its content digest,
// "missing" when deleted), and the sentence printed on stderr.
type Changed struct {
	Input   string `json:"input"`
	Path    string `json:"path,omitempty"`
	Old     string `json:"old"`
	New     string `json:"new"`
	Message string `json:"message"`
}

// Command is the orchestrator command's own result in `resume --json`
// when it failed, timed out or was interrupted (exit 18).
type Command struct {
	Reason     string `json:"reason"` // failed, timeout, interrupted
	ExitStatus int    `json:"exit_status"`
	Signal     string `json:"signal,omitempty"`
}

// NewCandidate renders c; rep is nil when c was not validated.
func NewCandidate(c workflow.Candidate, rep *validate.Report, now time.Time, withFindings bool, ageCfg func(time.Duration) string) Candidate {
	out := Candidate{
		ID: c.ID, Type: c.Type, Source: c.Source, Stories: c.Stories,
		Status: c.Status, StatusRaw: c.StatusRaw, Resumable: c.Resumable,
		UpdatedFrom: c.UpdatedFrom, Position: c.Position.String(),
		Framework: c.Framework, ResumePoint: c.Resume,
		AgeClass: "unknown",
	}
	if out.Stories == nil {
		out.Stories = []string{}
	}
	if !c.UpdatedAt.IsZero() {
		s := c.UpdatedAt.UTC().Format(time.RFC3339)
		out.UpdatedAt = &s
		age := int64(now.Sub(c.UpdatedAt) / time.Second)
		if age < 0 {
			age = 0
		}
		out.AgeSeconds = &age
		out.AgeClass = ageCfg(now.Sub(c.UpdatedAt))
	}
	if rep != nil {
		v := rep.Status
		out.Validation = &v
		if rep.AgeClass != "" {
			out.AgeClass = rep.AgeClass
		}
		if at := rep.InterruptedAt; !at.IsZero() && at.After(c.UpdatedAt) {
			s := at.UTC().Format(time.RFC3339)
			age := max(int64(now.Sub(at)/time.Second), 0)
			out.InterruptedAt, out.AgeSeconds = &s, &age
		}
		if rep.AgeAtLeast {
			out.AgeSeconds, out.AgeAtLeast = nil, out.AgeSeconds
		}
	}
	if withFindings {
		fs := c.Findings
		if rep != nil {
			fs = rep.Findings
		}
		if fs == nil {
			fs = []workflow.Finding{}
		}
		out.Findings = &fs
	}
	return out
}

// Write writes v as indented JSON with a trailing newline, redacted of
// secrets (internal/redact: string values, and the values of members named
// like secrets). encoding/json escapes C0 controls; termsafe.JSON escapes
// the C1 controls and bidi overrides it leaves, so the document is safe on
// a terminal too.
func Write(w io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("encode the JSON output: %w", err)
	}
	_, err := w.Write(termsafe.JSON(redact.JSON(b.Bytes())))
	return err
}

// ErrorDoc is the --json document of a command that failed before it could
// write its own (a usage or configuration error): on stdout, while the
// human message still goes to stderr.
type ErrorDoc struct {
	Schema   string `json:"schema"`
	Command  string `json:"command"`
	Outcome  string `json:"outcome"` // always "error"
	ExitCode int    `json:"exit_code"`
	Error    string `json:"error"`
}

// NewErrorDoc is the error document of err, exiting with code, for cmd
// (the command cobra found; "orchestrate" for the root or none).
func NewErrorDoc(cmd *cobra.Command, code int, err error) ErrorDoc {
	name := "orchestrate"
	if cmd != nil && cmd.HasParent() {
		name = strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
	}
	return ErrorDoc{Schema: Schema, Command: name, Outcome: "error", ExitCode: code, Error: cmdutil.SafeErr(err)}
}

// WantsJSON reports whether --json (or --json=<true>) appears among args
// before a "--".
func WantsJSON(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--json" {
			return true
		}
		if v, ok := strings.CutPrefix(a, "--json="); ok {
			if b, err := strconv.ParseBool(v); err == nil && b {
				return true
			}
		}
	}
	return false
}

// CountingWriter counts the bytes written through it, so Main knows
// whether a command already wrote its own document on stdout.
type CountingWriter struct {
	w io.Writer
	n int64
}

// NewCountingWriter counts what is written through it to w.
func NewCountingWriter(w io.Writer) *CountingWriter { return &CountingWriter{w: w} }

// N is the number of bytes written so far.
func (c *CountingWriter) N() int64 { return c.n }

// Write implements io.Writer.
func (c *CountingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// Lifecycle is the "lifecycle" object of a candidate in status --json.
type Lifecycle struct {
	State      string  `json:"state"`
	At         *string `json:"at,omitempty"`
	AgoSeconds *int64  `json:"ago_seconds,omitempty"`
	Agent      string  `json:"agent,omitempty"`
	PID        int     `json:"pid,omitempty"`
	Host       string  `json:"host,omitempty"`
	// By is the runner of a shared record or lease (lifecycle.remote).
	By string `json:"by,omitempty"`
	// Until is when another runner's shared lease ends.
	Until *string `json:"until,omitempty"`
}

// NewLifecycle is the lifecycle for status --json; nil for a plain
// interrupted one.
func NewLifecycle(l resumeflow.Lifecycle, now time.Time) *Lifecycle {
	if l.State == resumeflow.LifeInterrupted || l.State == "" {
		return nil
	}
	out := &Lifecycle{State: l.State, Agent: l.Agent, PID: l.PID, Host: l.Host, By: l.By}
	if !l.Until.IsZero() {
		u := l.Until.UTC().Format(time.RFC3339)
		out.Until = &u
	}
	if !l.At.IsZero() {
		at := l.At.UTC().Format(time.RFC3339)
		ago := int64(now.Sub(l.At) / time.Second)
		if ago < 0 {
			ago = 0
		}
		out.At, out.AgoSeconds = &at, &ago
	}
	return out
}

// Trust is the "trust" object of status --json and resume --json: the
// repository's config file, its trust, and the settings waiting for it.
type Trust struct {
	Config  string   `json:"config"`
	State   string   `json:"state"`
	ByEnv   bool     `json:"by_env,omitempty"`
	Waiting []string `json:"waiting"`
	// Ignored are the file's limits and thresholds looser than the
	// default, ignored while it is not trusted (the warning on stderr).
	Ignored []Ignored `json:"ignored,omitempty"`
}

// Ignored is one limit of an untrusted repository file that is ignored.
type Ignored struct {
	Key   string `json:"key"`
	Value string `json:"value"`
	Why   string `json:"why"` // "would loosen the 8 MiB read cap"
}

// NewTrust is the trust object of the repository's file rc, or nil when it
// sets nothing privileged and loosens no limit (or there is none).
func NewTrust(rc *config.RepoFile) *Trust {
	if rc == nil {
		return nil
	}
	var ignored []Ignored
	if !rc.Trusted() {
		for _, l := range rc.Loosened {
			ignored = append(ignored, Ignored{Key: l.Key, Value: l.Value, Why: l.Why})
		}
	}
	if !rc.HasPrivileged() && len(ignored) == 0 {
		return nil
	}
	return &Trust{Config: rc.Rel, State: rc.State.String(), ByEnv: rc.ByEnv, Waiting: rc.Waiting(), Ignored: ignored}
}

// Cleanup is `cleanup --json`: what was (or would be) archived and
// reset, the stories left alone and why, and a refusal or error. Outcome
// is cleaned, planned (dry run), nothing, refused, declined, locked or
// error.
type Cleanup struct {
	Schema   string                  `json:"schema"`
	Command  string                  `json:"command"`
	Outcome  string                  `json:"outcome"`
	ExitCode int                     `json:"exit_code"`
	DryRun   bool                    `json:"dry_run"`
	Workflow string                  `json:"workflow"`
	Archive  []CleanupMove           `json:"archive"`
	Resets   []CleanupReset          `json:"resets"`
	Skipped  []CleanupSkip           `json:"skipped"`
	Refusal  *cleanup.CleanupRefusal `json:"refusal"`
	Error    *string                 `json:"error"`
}

// CleanupMove is a file cleanup archives: from where, to where.
type CleanupMove struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// CleanupReset is a story cleanup resets: its file and its status before
// and after.
type CleanupReset struct {
	Story string `json:"story"`
	Path  string `json:"path"`
	From  string `json:"from"`
	To    string `json:"to"`
}

// CleanupSkip is a story cleanup leaves as it is, and why.
type CleanupSkip struct {
	Story string `json:"story"`
	Path  string `json:"path"`
	Why   string `json:"why"`
}

// NewCleanup is the --json document of plan p.
func NewCleanup(p cleanup.CleanupPlan, dryRun bool) Cleanup {
	d := Cleanup{Schema: Schema, Command: "cleanup", DryRun: dryRun, Workflow: p.Candidate.ID,
		Archive: []CleanupMove{}, Resets: []CleanupReset{}, Skipped: []CleanupSkip{}, Refusal: p.Refusal}
	for _, f := range p.Archive {
		d.Archive = append(d.Archive, CleanupMove{From: f, To: p.ArchiveDir + "/" + f})
	}
	for _, r := range p.Resets {
		d.Resets = append(d.Resets, CleanupReset{Story: r.ID, Path: r.Path, From: r.From, To: r.To})
	}
	for _, k := range p.Skipped {
		d.Skipped = append(d.Skipped, CleanupSkip{Story: k.ID, Path: k.Path, Why: k.Why})
	}
	return d
}

// Log is `log --json`: the events, oldest first, under the schema every
// command's document has.
type Log struct {
	Schema  string           `json:"schema"`
	Command string           `json:"command"`
	Events  []map[string]any `json:"events"`
	// Skipped counts the log lines that are not JSON (not shown).
	Skipped int `json:"skipped_lines"`
	// Truncated is true when the log is larger than what is read of its end.
	Truncated bool `json:"truncated"`
}

// ClaimHead opens the claim and release tools' documents.
type ClaimHead struct {
	Schema   string `json:"schema"`
	Command  string `json:"command"`
	Outcome  string `json:"outcome"`
	ExitCode int    `json:"exit_code"`
	Workflow string `json:"workflow"`
	Holder   string `json:"holder"`
}

// Claim is the claim tool's document.
type Claim struct {
	ClaimHead
	Agent          string          `json:"agent"`
	Phase          string          `json:"phase"`
	EnvelopePath   string          `json:"envelope_path"`
	IdempotencyKey string          `json:"idempotency_key"`
	Shared         string          `json:"shared_remote,omitempty"`
	Unconfirmed    bool            `json:"unconfirmed,omitempty"`
	Envelope       json.RawMessage `json:"envelope"`
}

// Release is the release tool's document.
type Release struct {
	ClaimHead
	Result string `json:"result"`
}

// NewHolder is a shared lock for --json.
func NewHolder(l sharedlife.Lock) *Holder {
	return &Holder{Runner: l.Runner.String(), Owner: l.Runner.Owner, Host: l.Runner.Host, CI: l.Runner.CI,
		Acquired: l.Acquired.UTC().Format(time.RFC3339), Expires: l.Expires.UTC().Format(time.RFC3339)}
}

// ChangedOf is the --json "changed" list of a refused saved plan (nil for
// any other error): what moved, each string made safe to print.
func ChangedOf(err error) []Changed {
	var rp *resumeflow.RefusedPlan
	if !errors.As(err, &rp) || len(rp.Changes) == 0 {
		return nil
	}
	out := make([]Changed, len(rp.Changes))
	for i, c := range rp.Changes {
		out[i] = Changed{Input: templates.Safe(c.Kind), Path: templates.Safe(c.Path), Old: templates.Safe(c.Saved), New: templates.Safe(c.Current), Message: templates.Safe(c.Message)}
	}
	return out
}

package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/redact"
	"github.com/orchestrate-dev/orchestrate/internal/termsafe"
	"github.com/orchestrate-dev/orchestrate/plan"
	"github.com/orchestrate-dev/orchestrate/validate"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// Schema is the version of the --json contract (docs/ARCHITECTURE.md).
const Schema = "orchestrate/v1"

// candidateJSON is one candidate in --json output.
type candidateJSON struct {
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
	Lifecycle *lifecycleJSON `json:"lifecycle,omitempty"`
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

// statusDoc is `status --json`.
type statusDoc struct {
	Schema     string          `json:"schema"`
	Command    string          `json:"command"`
	Candidates []candidateJSON `json:"candidates"`
	Trust      *trustJSON      `json:"trust,omitempty"`
}

// handoffJSON is the handoff object of `resume --json`.
type handoffJSON struct {
	Envelope       string `json:"envelope"`
	IdempotencyKey string `json:"idempotency_key"`
	Command        string `json:"command"`
	Agent          string `json:"agent"`
}

// resumeDoc is `resume --json`.
type resumeDoc struct {
	Schema     string             `json:"schema"`
	Command    string             `json:"command"`
	Outcome    string             `json:"outcome"`
	ExitCode   int                `json:"exit_code"`
	Mode       string             `json:"mode"`
	DryRun     bool               `json:"dry_run"`
	Candidates []candidateJSON    `json:"candidates"`
	Selected   *string            `json:"selected"`
	Findings   []workflow.Finding `json:"findings"`
	Plan       *plan.Plan         `json:"plan"`
	Handoff    *handoffJSON       `json:"handoff"`
	Trust      *trustJSON         `json:"trust,omitempty"`
	// Command is set when the outcome is command_failed (exit 18).
	CommandResult *commandJSON `json:"command_result,omitempty"`
	// Reason refines the outcome without adding outcomes to the documented
	// set: "already_handed_off" with "none" (resume --again hands it off once
	// more), "stale_lock" with "locked" (exit 16: the owner is gone), and
	// "command_failed" with "error" (exit 18: see command_result).
	Reason string `json:"reason,omitempty"`
	// Error is the message printed on stderr when the run ended on one (an
	// unknown workflow, a lock, a failed command…), as every command's
	// error document carries it.
	Error string `json:"error,omitempty"`
	// Holder is the runner holding the workflow on the shared lifecycle
	// (reason "held_remotely", exit 16).
	Holder *holderJSON `json:"holder,omitempty"`
	// Changed lists what moved when a saved plan is refused (resume --plan,
	// exit 17): which input of the plan's digest, and its old and new value.
	Changed []changedJSON `json:"changed,omitempty"`
}

// holderJSON is another runner's live lease on the shared lifecycle.
type holderJSON struct {
	Runner   string `json:"runner"`
	Owner    string `json:"owner,omitempty"`
	Host     string `json:"host,omitempty"`
	CI       string `json:"ci,omitempty"`
	Acquired string `json:"acquired_at"`
	Expires  string `json:"expires_at"`
}

// changedJSON is one input of a saved plan's digest that moved: its kind
// (file, state, head, lock, phase, mode, decision, workflow, version), the
// path for a file or state file, the value the plan saved and the value now
// ("" when absent on that side; a file's value is its content digest,
// "missing" when deleted), and the sentence printed on stderr.
type changedJSON struct {
	Input   string `json:"input"`
	Path    string `json:"path,omitempty"`
	Old     string `json:"old"`
	New     string `json:"new"`
	Message string `json:"message"`
}

// commandJSON is the orchestrator command's own result in `resume --json`
// when it failed, timed out or was interrupted (exit 18).
type commandJSON struct {
	Reason     string `json:"reason"` // failed, timeout, interrupted
	ExitStatus int    `json:"exit_status"`
	Signal     string `json:"signal,omitempty"`
}

// toCandidateJSON renders c; rep is nil when c was not validated.
func toCandidateJSON(c workflow.Candidate, rep *validate.Report, now time.Time, withFindings bool, ageCfg func(time.Duration) string) candidateJSON {
	out := candidateJSON{
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

// writeJSON writes v as indented JSON with a trailing newline, redacted of
// secrets (internal/redact: string values, and the values of members named
// like secrets). encoding/json escapes C0 controls; termsafe.JSON escapes
// the C1 controls and bidi overrides it leaves, so the document is safe on
// a terminal too.
func writeJSON(w io.Writer, v any) error {
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

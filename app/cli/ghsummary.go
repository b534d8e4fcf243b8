package cli

import (
	"fmt"
	"os"
	"strings"

	"github.com/orchestrate-dev/orchestrate/app/cli/cmdutil"
	"github.com/orchestrate-dev/orchestrate/internal/ghactions"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// githubSummary, in a GitHub Actions job (GITHUB_ACTIONS=true), appends the
// resume's summary as Markdown to $GITHUB_STEP_SUMMARY and prints its
// findings as ::warning / ::error annotations on stderr (stdout stays the
// data: the --json document). Values are redacted and escaped
// (internal/ghactions). Once per run.
func (a *app) githubSummary(r *resumeRun) {
	if r == nil || r.ghDone || !ghactions.Enabled(a.sys.Getenv) {
		return
	}
	r.ghDone = true
	sum := ghactions.Summary{Title: fmt.Sprintf("orchestrate resume: %s (exit %d)", r.outcome, r.exit)}
	add := func(name, value string) {
		if value != "" {
			sum.Rows = append(sum.Rows, ghactions.Row{Name: name, Value: value})
		}
	}
	if r.selected != nil {
		add("Workflow", r.selected.ID)
		add("State", r.selected.Source.Path)
	}
	add("Mode", string(r.mode))
	if r.opts != nil && r.opts.DryRun {
		add("Dry run", "yes: nothing was changed")
	}
	if r.report.Status != "" {
		add("Validation", r.report.Status)
		if r.plan.ResumeFrom.Phase != "" {
			add("Resume point", strings.TrimSpace(r.plan.ResumeFrom.Phase+" @"+strings.TrimPrefix(r.plan.ResumeFrom.Agent, "@")))
		}
		add("Decision", strings.TrimSpace(string(r.plan.Decision)+": "+r.plan.Reason))
	}
	add("Reason", r.reason)
	if r.holder != nil {
		add("Held by", r.holder.Runner+" (lease until "+r.holder.Expires+")")
	}
	if r.handoff != nil {
		add("Envelope", r.handoff.Envelope)
		add("Idempotency key", r.handoff.IdempotencyKey)
	}
	if r.shared != nil && r.shared.view != nil {
		add("Shared lifecycle", "refs/orchestrate/ on "+r.shared.view.Remote)
	}
	findings := append([]workflow.Finding(nil), r.findings...)
	workflow.SortFindings(findings)
	for _, f := range findings {
		sum.Findings = append(sum.Findings, ghactions.Finding{Severity: string(f.Severity), Check: f.Check, Message: f.Message, Path: f.Path})
	}
	fmt.Fprint(a.sys.IO.ErrOut, sum.Annotations())
	path := a.sys.Getenv("GITHUB_STEP_SUMMARY")
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		fmt.Fprintf(a.sys.IO.ErrOut, "warning: could not write the job summary: %s\n", cmdutil.SafeErr(err))
		return
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return
	}
	if _, err := f.WriteString(sum.Markdown()); err != nil {
		fmt.Fprintf(a.sys.IO.ErrOut, "warning: could not write the job summary: %s\n", cmdutil.SafeErr(err))
	}
}

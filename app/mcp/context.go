package mcp

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/orchestrate-dev/orchestrate/handoff"
	"github.com/orchestrate-dev/orchestrate/internal/redact"
	"github.com/orchestrate-dev/orchestrate/internal/termsafe"
)

// ContextText is the resume_context prompt: the envelope's content as
// instructions an agent can act on — where the workflow stopped, what was
// done, what to do next with which inputs — followed by the envelope
// itself as JSON. Every value is redacted and terminal-safe: the state
// files it comes from are the repository's, hostile until proven not.
func ContextText(env handoff.Envelope) string {
	var b strings.Builder
	line := func(format string, args ...any) {
		fmt.Fprintf(&b, format, args...)
		b.WriteByte('\n')
	}
	line("You are resuming the interrupted workflow %s (%s) in this repository.", safe(env.Workflow.ID), safe(env.Workflow.Type))
	if env.Workflow.Definition != "" {
		line("Workflow definition: %s.", safe(env.Workflow.Definition))
	}
	line("State file: %s (status %s, position %s).", safe(orDash(env.StateSource)), safe(orDash(env.Candidate.Status)), safe(orDash(env.Candidate.Position)))
	if len(env.Candidate.Stories) > 0 {
		line("Stories: %s.", safe(strings.Join(env.Candidate.Stories, ", ")))
	}
	if env.Framework != "" {
		line("Framework: %s.", safe(env.Framework))
	}
	b.WriteByte('\n')
	line("## Where to pick up")
	next := env.Next
	line("Next phase: %s, by agent %s.", safe(orDash(next.Phase)), safe(orDash(next.Agent)))
	if len(next.Inputs) > 0 {
		line("Its inputs:")
		for _, in := range next.Inputs {
			line("- %s", safe(in))
		}
	}
	if rp := env.ResumePoint; rp != nil {
		if rp.Item != "" {
			line("Resume point: %s %s (%d/%d done).", safe(rp.Item), safe(rp.Title), rp.Done, rp.Total)
		}
		if rp.FrameworkCommand != "" {
			line("The framework's own command to continue: %s.", safe(rp.FrameworkCommand))
		}
	}
	if env.Plan.Reason != "" {
		line("orchestrate's decision in autopilot: %s (%s).", safe(orDash(env.Plan.Decision)), safe(env.Plan.Reason))
	}
	if env.Plan.Decision != "" && env.Plan.Decision != "resume" {
		line("A claim would be refused as it stands: resolve the findings below first (the plan tool shows the details).")
	}
	if len(env.Plan.RemainingPhases) > 0 {
		line("Remaining phases: %s.", safe(strings.Join(env.Plan.RemainingPhases, ", ")))
	}
	if len(env.Plan.Findings) > 0 {
		line("Findings to keep in mind:")
		for _, f := range env.Plan.Findings {
			line("- %s", safe(f.Error()))
		}
	}
	b.WriteByte('\n')
	line("## What was done")
	if len(env.Context.CompletedPhases) == 0 {
		line("No phase is recorded as completed.")
	}
	for _, p := range env.Context.CompletedPhases {
		outs := ""
		if len(p.Outputs) > 0 {
			outs = ": " + strings.Join(p.Outputs, ", ")
		}
		line("- %s (agent %s)%s", safe(p.Phase), safe(orDash(p.Agent)), safe(outs))
	}
	if id := env.Context.AISessionID; id != "" {
		line("The agent session that did the work: %s (resume it when your tool can).", safe(id))
	}
	if len(env.Context.Breadcrumbs) > 0 {
		line("Breadcrumbs (newest last):")
		for _, c := range env.Context.Breadcrumbs {
			line("- %s", safe(compact(c)))
		}
	}
	if len(env.Context.SubtaskSummaries) > 0 {
		line("Completed subtasks:")
		for _, c := range env.Context.SubtaskSummaries {
			line("- %s", safe(compact(c)))
		}
	}
	b.WriteByte('\n')
	line("To take it over, call the claim tool with this workflow: it records you as the holder and hands you this envelope; call release with done, failed or abandoned when you stop.")
	b.WriteByte('\n')
	line("## The handoff envelope")
	raw, err := json.MarshalIndent(env, "", "  ")
	if err == nil {
		line("```json")
		b.Write(termsafe.JSON(redact.JSON(raw)))
		line("")
		line("```")
	}
	return b.String()
}

// compact is a breadcrumb or summary on one line: a string as it is,
// anything else as compact JSON.
func compact(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

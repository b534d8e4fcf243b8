package cli

// Hand-off presets (handoff.agent) and --find-session in the command
// layer: the command line a preset would run, shown by status and the
// pre-flight report, and the agent session found for a workflow whose
// state names none. The renderers and the handoff call each one line.

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/orchestrate-dev/orchestrate/app/cli/jsondoc"
	"github.com/orchestrate-dev/orchestrate/handoff"
	"github.com/orchestrate-dev/orchestrate/internal/agentsession"
	"github.com/orchestrate-dev/orchestrate/modes"
	"github.com/orchestrate-dev/orchestrate/plan"
	"github.com/orchestrate-dev/orchestrate/templates"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// addFindSessionFlag registers resume's --find-session.
func addFindSessionFlag(f *pflag.FlagSet, opts *ResumeOptions) {
	f.BoolVar(&opts.FindSession, "find-session", false,
		"when the state names no agent session, offer the handoff.agent's (claude, codex) most recent session of this repository that touched the workflow's files")
}

// preset is the handoff.agent preset that runs for s, "" when none does
// (none set, or handoff.command set: the command wins).
func preset(s *loadedRepo) string {
	h := s.Cfg.Handoff
	if strings.TrimSpace(h.Command) != "" {
		return ""
	}
	return strings.TrimSpace(h.Agent)
}

// presetHow says how the preset runs: "interactive" on a terminal,
// "headless" without one.
func (a *app) presetHow() string {
	if a.sys.IO.InTTY {
		return "interactive: a terminal is attached"
	}
	return "headless: no terminal"
}

// presetLine is the command line the preset would run for c at p, or
// the reason it would not run.
func (a *app) presetLine(s *loadedRepo, name string, c workflow.Candidate, p plan.Plan) string {
	line, err := handoff.PresetCommand(s.Root, c, p, name, a.sys.IO.InTTY)
	if err != nil {
		return "refused: " + templates.Safe(err.Error())
	}
	return line
}

// printPresetCommand prints, in the pre-flight report, the command the
// preset would run for the selected workflow (with the session
// --find-session would offer, when it is on).
func (a *app) printPresetCommand(w io.Writer, r *resumeRun) {
	name := preset(r.s)
	if name == "" || r.selected == nil {
		return
	}
	c, note := handoff.PresetSession(a.sys.Getenv, r.s.Root, name, *r.selected)
	if note != "" {
		note = " (" + note + ")"
	}
	if found, ok := a.findSession(r, c); ok {
		c.AISessionID = found.ID
		note = fmt.Sprintf(" (%s session found by find-session)", found.Agent)
	}
	fmt.Fprintf(w, "\nHand-off command (handoff.agent %s, %s)%s:\n  %s\n", name, a.presetHow(), note, a.presetLine(r.s, name, c, r.plan))
}

// statusPresetJSON fills, in status --json, the hand-off preset's command
// for a resumable candidate cj of c (what printStatusPresets prints).
func (a *app) statusPresetJSON(s *loadedRepo, c workflow.Candidate, cj *jsondoc.Candidate) {
	name := preset(s)
	if name == "" || !c.Resumable {
		return
	}
	cj.HandoffAgent = name
	c, _ = handoff.PresetSession(a.sys.Getenv, s.Root, name, c)
	line, err := handoff.PresetCommand(s.Root, c, statusPresetPlan(c), name, a.sys.IO.InTTY)
	if err != nil {
		cj.HandoffRefused = templates.Safe(err.Error())
		return
	}
	cj.HandoffCommand = line
}

// statusPresetPlan is the plan status shows a preset's command at: the
// candidate's position and agent (resume --dry-run shows the plan's).
func statusPresetPlan(c workflow.Candidate) plan.Plan {
	p := plan.Plan{}
	p.ResumeFrom.Phase, p.ResumeFrom.Agent = c.Position.At, c.Agent
	return p
}

// printStatusPresets prints, under status's table, the command the preset
// would run for each resumable workflow shown (its phase as the position
// names it; resume --dry-run shows the plan's).
func (a *app) printStatusPresets(w io.Writer, s *loadedRepo, shown []workflow.Candidate) {
	name := preset(s)
	if name == "" {
		return
	}
	var lines []string
	for _, c := range shown {
		if !c.Resumable {
			continue
		}
		own, note := handoff.PresetSession(a.sys.Getenv, s.Root, name, c)
		if note != "" {
			note = "  (" + note + ")"
		}
		lines = append(lines, fmt.Sprintf("  %s  %s%s", templates.Safe(c.ID), a.presetLine(s, name, own, statusPresetPlan(c)), note))
	}
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(w, "\nHand-off (handoff.agent %s, %s):\n%s\n", name, a.presetHow(), strings.Join(lines, "\n"))
}

// findSessionOn reports whether finding an agent session is asked for:
// --find-session or handoff.find_session, with a preset whose agent keeps
// its sessions where agentsession reads them.
func findSessionOn(r *resumeRun) bool {
	return (r.opts.FindSession || r.s.Cfg.Handoff.FindSession) && agentsession.Supported(preset(r.s))
}

// workflowFiles are the files a found session must have touched: the
// workflow's state file, its evidence and its referenced files.
func workflowFiles(c workflow.Candidate) []string {
	files := []string{c.Source.Path}
	for _, e := range c.Evidence {
		files = append(files, e.Path)
	}
	for _, f := range c.Files {
		files = append(files, f.Path)
	}
	return files
}

// findSession looks for the agent session of c when c names none and it is
// asked for; a folder that cannot be read is a warning, not a failure.
func (a *app) findSession(r *resumeRun, c workflow.Candidate) (agentsession.Session, bool) {
	if !findSessionOn(r) || strings.TrimSpace(c.AISessionID) != "" {
		return agentsession.Session{}, false
	}
	found, ok, err := agentsession.Find(preset(r.s), agentsession.Query{Getenv: a.sys.Getenv, Root: r.s.Root, Files: workflowFiles(c)})
	if err != nil {
		fmt.Fprintf(a.sys.IO.ErrOut, "warning: find-session: %s\n", templates.Safe(err.Error()))
	}
	return found, ok
}

// applyFoundSession first drops the request's AI session when it is
// another agent's than the preset's (handoff.PresetSession; stderr says
// so), then sets it to the one found for a workflow whose state names
// none: on a terminal (not autopilot) the user confirms it; otherwise it
// is used and stderr says so. A prompt that was interrupted is the error.
func (a *app) applyFoundSession(r *resumeRun, req *handoff.Request) error {
	if c, note := handoff.PresetSession(a.sys.Getenv, r.s.Root, preset(r.s), req.Candidate); note != "" {
		req.Candidate = c
		fmt.Fprintf(a.sys.IO.ErrOut, "orchestrate: %s\n", note)
	}
	found, ok := a.findSession(r, req.Candidate)
	if !ok {
		return nil
	}
	desc := fmt.Sprintf("%s session %s (last active %s", found.Agent, templates.Safe(found.ID), templates.Ago(r.s.Now.Sub(found.Time)))
	if found.FirstLine != "" {
		desc += `, "` + found.FirstLine + `"`
	}
	desc += ")"
	if a.sys.IO.CanPrompt() && r.mode != modes.ModeAutopilot && !r.opts.JSON {
		yes, err := a.prompter().Confirm(fmt.Sprintf("The state names no agent session. Resume %s, the most recent of this repository that touched %s?", desc, templates.Safe(found.Touched)), true)
		if err != nil {
			return err
		}
		if !yes {
			return nil
		}
	} else {
		fmt.Fprintf(a.sys.IO.ErrOut, "orchestrate: find-session: resuming %s, the most recent of this repository that touched %s\n", desc, templates.Safe(found.Touched))
	}
	req.Candidate.AISessionID = found.ID
	return nil
}

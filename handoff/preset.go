package handoff

// Hand-off presets (handoff.agent, handoff/agent): with no handoff.command,
// the preset's argv for the agent CLI runs in its place — interactive when
// the command's standard input is a terminal, headless otherwise; resuming
// the agent's own session when the candidate carries an AI session id,
// else a new session told where the envelope is. handoff.command, when
// set, wins (docs/drafts/presets.md).

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/orchestrate-dev/orchestrate/handoff/agent"
	"github.com/orchestrate-dev/orchestrate/handoff/command"
	"github.com/orchestrate-dev/orchestrate/internal/logging"
	"github.com/orchestrate-dev/orchestrate/internal/termsafe"
	"github.com/orchestrate-dev/orchestrate/plan"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// usesPreset reports whether the request runs its handoff.agent preset:
// one is set and handoff.command is not.
func (req *Request) usesPreset() bool {
	return strings.TrimSpace(req.Command) == "" && strings.TrimSpace(req.Preset) != ""
}

// runsCommand reports whether the request runs anything (a template or a
// preset).
func (req *Request) runsCommand() bool {
	return strings.TrimSpace(req.Command) != "" || req.usesPreset()
}

// presetInput is the preset input of a candidate and plan handed off with
// the envelope at path.
func presetInput(c workflow.Candidate, p plan.Plan, path string, interactive bool) agent.Input {
	return agent.Input{
		EnvelopePath: path, SessionID: c.AISessionID, WorkflowID: c.ID,
		Phase: p.ResumeFrom.Phase, Agent: p.ResumeFrom.Agent, Interactive: interactive,
	}
}

// presetArgv is the request's preset argv for the envelope at path.
func presetArgv(req *Request, path string) ([]string, error) {
	return agent.Argv(strings.TrimSpace(req.Preset), presetInput(req.Candidate, req.Plan, path, command.IsTerminal(req.Stdin)))
}

// runPreset runs the preset's argv (step 4 with handoff.agent).
func runPreset(req *Request, argv []string, data command.Data) (int, error) {
	return command.RunArgv(context.Background(), "handoff.agent "+req.Preset, argv, data, req.runOptions(req.Stdout, req.Stderr))
}

// PresetCommand is the command line handoff.agent preset would run to hand
// candidate c off at plan p from the repository at root — interactive
// when a terminal is attached — shell-quoted, redacted and terminal-safe,
// for status and the pre-flight report. The envelope path is the one the
// next handoff would write (its number may differ if another handoff
// writes first). An unknown preset or a refused value is the error.
func PresetCommand(root string, c workflow.Candidate, p plan.Plan, preset string, interactive bool) (string, error) {
	path, err := nextEnvelopePath(root, c.ID)
	if err != nil {
		path = filepath.Join(HandoffsDir(root), SafeID(c.ID)+"-1.json")
	}
	argv, err := agent.Argv(strings.TrimSpace(preset), presetInput(c, p, path, interactive))
	if err != nil {
		return "", err
	}
	r, err := command.FromArgv(argv, command.Data{})
	if err != nil {
		return "", err
	}
	return termsafe.String(logging.Redact(r.Display)), nil
}

package handoff

// Hand-off presets (handoff.agent, handoff/agent): with no handoff.command,
// the preset's argv for the agent CLI runs in its place — interactive when
// the command's standard input is a terminal, headless otherwise; resuming
// the agent's own session when the candidate carries an AI session id,
// else a new session told where the envelope is. handoff.command, when
// set, wins (docs/drafts/presets.md).

import (
	"os"
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

// presetArgv is the request's preset argv for the envelope at path. Its
// program must not be found through a relative PATH entry (the command
// runs in the repository: that would run the repository's own file).
func presetArgv(req *Request, path string) ([]string, error) {
	name := strings.TrimSpace(req.Preset)
	argv, err := agent.Argv(name, presetInput(req.Candidate, req.Plan, path, command.IsTerminal(req.Stdin)))
	if err != nil {
		return nil, err
	}
	if err := agent.CheckPath(name, commandPath(req.Env), req.Root); err != nil {
		return nil, err
	}
	return argv, nil
}

// commandPath is the PATH the command runs with: the last PATH of env, or
// orchestrate's own when env is nil (the stricter guess).
func commandPath(env []string) string {
	if env == nil {
		return os.Getenv("PATH")
	}
	path := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	return path
}

// runPreset runs the preset's argv (step 4 with handoff.agent). When it
// resumes the candidate's AI session headless and fails the configured
// "session gone" way (handoff.session_gone_exit_codes and
// handoff.session_gone_pattern, whose default matches Claude Code's "No
// conversation found"), a new session starts as aisession.go does for a
// template: handoff.fallback_command when set, else the preset itself
// without the session, told to read the envelope with the rebuilt context.
// An interactive session is never captured (its output must stay the
// terminal), so it has no fallback.
func runPreset(req *Request, argv []string, data command.Data, res *Result, backup *Backup) (int, error) {
	name := "handoff.agent " + req.Preset
	runArgv := func(argv []string, d command.Data) func(command.Options) (int, error) {
		return func(opts command.Options) (int, error) {
			return command.RunArgv(req.stopContext(), name, argv, d, opts)
		}
	}
	interactive := command.IsTerminal(req.Stdin)
	if strings.TrimSpace(req.Candidate.AISessionID) == "" || interactive {
		return runArgv(argv, data)(req.runOptions(req.Stdout, req.Stderr))
	}
	gone, idRe, err := agentSessionConfig(req)
	if err != nil {
		return -1, err
	}
	if !gone.configured() {
		return runArgv(argv, data)(req.runOptions(req.Stdout, req.Stderr))
	}
	status, output, err := captured(req, runArgv(argv, data))
	if err != nil || !gone.match(status, output) {
		return status, err
	}
	newArgv := func(fdata command.Data) ([]string, error) {
		c := req.Candidate
		c.AISessionID = ""
		return agent.Argv(strings.TrimSpace(req.Preset), presetInput(c, req.Plan, fdata.EnvelopePath, false))
	}
	fb := &fallbackRun{
		display: func(fdata command.Data) (string, error) {
			a, err := newArgv(fdata)
			if err != nil {
				return "", err
			}
			r, err := command.FromArgv(a, fdata)
			return r.Display, err
		},
		run: func(fdata command.Data) (int, string, error) {
			a, err := newArgv(fdata)
			if err != nil {
				return -1, "", err
			}
			return captured(req, runArgv(a, fdata))
		},
	}
	if t := templateFallback(req); t != nil {
		fb = t
	}
	return afterSessionGone(req, data, res, backup, status, idRe, fb)
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

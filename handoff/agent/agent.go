// Package agent builds the command line of a hand-off preset
// (handoff.agent): the argv that starts or resumes one of the agent CLIs
// people run — Claude Code, Codex CLI, Gemini CLI, Cursor's agent,
// OpenCode — interactively when a terminal is attached, headless without
// one. Values (the envelope path, the session id, the workflow and phase)
// travel only as whole argv elements, never as shell text; a value that
// holds a control character, or a session id that begins with "-" (the
// agent would read it as an option), is refused with *ValueError. It
// imports nothing of orchestrate: handoff runs what it builds.
package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"
)

// The presets: the values handoff.agent takes.
const (
	Claude   = "claude"
	Codex    = "codex"
	Gemini   = "gemini"
	Cursor   = "cursor"
	OpenCode = "opencode"
)

// Names are the presets in the order messages list them.
var Names = []string{Claude, Codex, Gemini, Cursor, OpenCode}

// NamesText lists the presets for messages ("claude, codex, ...").
var NamesText = strings.Join(Names, ", ")

// Known reports whether name is a preset.
func Known(name string) bool {
	for _, n := range Names {
		if n == name {
			return true
		}
	}
	return false
}

// Program is the executable a preset runs (looked up on PATH).
func Program(name string) string {
	if name == Cursor {
		return "cursor-agent"
	}
	return name
}

// Input is what one hand-off gives a preset.
type Input struct {
	// EnvelopePath is the handoff envelope (absolute).
	EnvelopePath string
	// SessionID is the agent's own session to resume; "" starts a new
	// session whose prompt names the envelope and the resume point.
	SessionID string
	// WorkflowID, Phase and Agent are where the work resumes (Agent is
	// the workflow's agent, "@dev" or "dev").
	WorkflowID, Phase, Agent string
	// Interactive: a terminal is attached, so the agent's own interactive
	// session starts; otherwise its headless mode runs and exits.
	Interactive bool
}

// Resumes reports whether in resumes the agent's own session.
func (in Input) Resumes() bool { return strings.TrimSpace(in.SessionID) != "" }

// ValueError is a value refused for a preset's command line. Nothing was
// run.
type ValueError struct {
	Preset string
	Field  string // "session id", "envelope path", "workflow id", "phase", "agent"
	Reason string
}

// Error implements error.
func (e *ValueError) Error() string {
	return fmt.Sprintf("handoff.agent %s: the %s %s: refused", e.Preset, e.Field, e.Reason)
}

// UnknownError is a handoff.agent value that names no preset.
type UnknownError struct{ Name string }

// Error implements error.
func (e *UnknownError) Error() string {
	return fmt.Sprintf("handoff.agent %q is not a preset (%s; use handoff.command for any other program)", e.Name, NamesText)
}

// checkValue refuses a control character anywhere in v (a prompt or an
// argument must not carry terminal escapes or line breaks from a state
// file) and, when option is set, a leading "-".
func checkValue(preset, field, v string, option bool) error {
	for _, r := range v {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return &ValueError{Preset: preset, Field: field, Reason: "holds a control character"}
		}
	}
	if option && strings.HasPrefix(v, "-") {
		return &ValueError{Preset: preset, Field: field, Reason: fmt.Sprintf("%q begins with \"-\" (the agent would read it as an option)", v)}
	}
	return nil
}

// Prompt is the first message the agent gets: a new session is told which
// workflow to resume where and to read the envelope first; a resumed
// session is told it is being handed the work back.
func Prompt(in Input) string {
	where := orDash(in.Phase)
	if a := strings.TrimPrefix(strings.TrimSpace(in.Agent), "@"); a != "" {
		where += " (agent @" + a + ")"
	}
	if in.Resumes() {
		return fmt.Sprintf("orchestrate is handing workflow %s back to this session: continue at %s. "+
			"The handoff envelope %s holds the plan and the restored context; read it before you go on.",
			orDash(in.WorkflowID), where, in.EnvelopePath)
	}
	return fmt.Sprintf("orchestrate is handing you the interrupted workflow %s: resume it at %s. "+
		"Read the handoff envelope %s first: it holds the plan, the completed phases and the restored context.",
		orDash(in.WorkflowID), where, in.EnvelopePath)
}

func orDash(s string) string {
	if strings.TrimSpace(s) == "" {
		return "-"
	}
	return s
}

// Argv is the command line of preset name for in: its program first, then
// its arguments, every value one whole element.
//
// The flags, from each agent's documentation:
//
//   - claude: https://docs.anthropic.com/en/docs/claude-code/cli-reference
//     — `claude "query"` starts the interactive session with a prompt,
//     `-p/--print` is the headless mode, `-r/--resume <session-id>` resumes
//     a session by id (with -p too).
//   - codex: https://developers.openai.com/codex/cli/reference and the
//     Codex docs' "Resuming non-interactive sessions" (docs/advanced.md) —
//     `codex "prompt"` (interactive), `codex exec "prompt"` (headless),
//     `codex resume <SESSION_ID> [PROMPT]`, `codex exec resume <SESSION_ID>
//     [PROMPT]`.
//   - gemini: https://geminicli.com/docs/cli/cli-reference.md and
//     https://geminicli.com/docs/cli/session-management — `-i/--prompt-
//     interactive` runs a prompt and stays interactive, `-p/--prompt` is
//     headless, `-r/--resume <session-id>` resumes by id.
//   - cursor: https://docs.cursor.com/en/cli/using — `cursor-agent
//     "prompt"` (interactive), `-p/--print` (non-interactive), `--resume
//     [chat id]` continues an existing chat.
//   - opencode: https://opencode.ai/docs/cli — the TUI takes `--prompt`
//     and `-s/--session <id>` (its positional argument is a project
//     folder, so the prompt must be the flag), `opencode run [message..]`
//     is headless and takes `-s/--session <id>` too.
func Argv(name string, in Input) ([]string, error) {
	if !Known(name) {
		return nil, &UnknownError{Name: name}
	}
	for _, f := range []struct{ field, v string }{
		{"envelope path", in.EnvelopePath}, {"workflow id", in.WorkflowID}, {"phase", in.Phase}, {"agent", in.Agent},
	} {
		if err := checkValue(name, f.field, f.v, false); err != nil {
			return nil, err
		}
	}
	id := strings.TrimSpace(in.SessionID)
	if id != "" {
		if err := checkValue(name, "session id", id, true); err != nil {
			return nil, err
		}
	}
	prompt := Prompt(in)
	resume := id != ""
	argv := []string{Program(name)}
	add := func(a ...string) { argv = append(argv, a...) }
	switch name {
	case Claude, Codex, Cursor:
		// headless: -p (codex: its exec subcommand); a session: --resume ID
		// (codex: its resume subcommand)
		headless, resumeWord := "-p", "--resume"
		if name == Codex {
			headless, resumeWord = "exec", "resume"
		}
		if !in.Interactive {
			add(headless)
		}
		if resume {
			add(resumeWord, id)
		}
		add(prompt)
	case Gemini:
		if resume {
			add("--resume", id)
		}
		if in.Interactive {
			add("--prompt-interactive", prompt)
		} else {
			add("--prompt", prompt)
		}
	case OpenCode:
		// the TUI takes the prompt as --prompt; headless is its run subcommand
		if !in.Interactive {
			add("run")
		}
		if resume {
			add("--session", id)
		}
		if in.Interactive {
			add("--prompt")
		}
		add(prompt)
	}
	return argv, nil
}

// CheckPath refuses to run preset name when its program would be found
// through a relative or empty entry of pathList (".", "", "bin"): the
// command runs in the repository, dir, so such an entry finds the
// repository's own file — a `claude` committed at its root — before or
// instead of the user's. PATH is searched in order, as sh does; the first
// entry holding an executable program decides. A program found nowhere is
// not refused here (the shell reports it).
func CheckPath(name, pathList, dir string) error {
	prog := Program(name)
	for _, entry := range filepath.SplitList(pathList) {
		base := entry
		relative := entry == "" || !filepath.IsAbs(entry)
		if relative {
			base = filepath.Join(dir, entry)
		}
		fi, err := os.Stat(filepath.Join(base, prog))
		if err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			continue
		}
		if relative {
			shown := entry
			if shown == "" {
				shown = "(empty)"
			}
			return &ValueError{Preset: name, Field: "program", Reason: fmt.Sprintf("%s would be found through the relative PATH entry %q, inside the repository (%s)", prog, shown, filepath.Join(base, prog))}
		}
		return nil
	}
	return nil
}

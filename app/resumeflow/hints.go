package resumeflow

import (
	"github.com/orchestrate-dev/orchestrate/discover/rebuild"
	"github.com/orchestrate-dev/orchestrate/modes"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// NoTerminalFlags names the flags that answer an interactive confirmation
// when there is no terminal to ask on: "--approve", or "--force --approve"
// over conflicts --force may override. Both are needed there: --force alone
// still asks for the confirmation.
func NoTerminalFlags(sit modes.Situation) string {
	if onlyConflicts(sit) {
		return "--force --approve (resume over the conflicts, confirmed)"
	}
	return "--approve"
}

// WithoutAutopilotOnly drops the findings only autopilot raises (a rebuilt
// state it never resumes): once a person decides, they do not apply.
func WithoutAutopilotOnly(fs []workflow.Finding) []workflow.Finding {
	var out []workflow.Finding
	for _, f := range fs {
		if f.Check == rebuild.CheckRebuild && f.Code == rebuild.CodeRebuiltNeedsConfirmation {
			continue
		}
		out = append(out, f)
	}
	return out
}

// InterruptedStatus reports whether an orchestrator command's exit status
// says it ended by SIGINT or SIGQUIT (130, 131): Ctrl-C at the terminal
// reaches the command's process group, not orchestrate, so the command's
// status is the only sign the run was interrupted rather than failed.
func InterruptedStatus(status int) bool {
	return status == 128+2 || status == 128+3
}

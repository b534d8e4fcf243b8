package handoff

import (
	"fmt"
	"slices"
	"strings"

	"github.com/orchestrate-dev/orchestrate/handoff/agent"
	"github.com/orchestrate-dev/orchestrate/internal/agentsession"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// PresetSession is c as the handoff.agent preset hands it off from the
// repository at root: with its AI session id cleared when that session is
// known to be another agent's — found in that agent's own session folder
// for root (internal/agentsession.Owners), never in the preset's — and a
// note saying so; c as it is, with no note, otherwise (no id, the
// preset's own session, or an owner not known). A state file records an
// id without naming its agent, and `codex resume` of a Claude Code session
// (or the reverse) resumes nothing: a new session of the preset's agent,
// told where the envelope is, does the work instead. getenv is the
// injected environment (HOME, CLAUDE_CONFIG_DIR, CODEX_HOME).
func PresetSession(getenv func(string) string, root, preset string, c workflow.Candidate) (workflow.Candidate, string) {
	preset = strings.TrimSpace(preset)
	id := strings.TrimSpace(c.AISessionID)
	if id == "" || !slices.Contains(agent.Names, preset) {
		return c, "" // no preset, or one refused before it runs (its name is not shown here)
	}
	owners := agentsession.Owners(id, agentsession.Query{Getenv: getenv, Root: root})
	if len(owners) == 0 || slices.Contains(owners, preset) {
		return c, ""
	}
	owner := owners[0]
	c.AISessionID = ""
	// Owner found the id as a file name matching agentsession's id
	// pattern: letters, digits, "_", "." and "-" only.
	return c, fmt.Sprintf("AI session %s is a %s session, not %s's: a new %s session starts", id, owner, preset, preset)
}

package agentsession

import (
	"errors"
	"path/filepath"
	"strings"
)

// Owners names the agents whose session folders hold the session id for
// the repository q.Root (q.Files is not used): Claude Code when
// projects/<the root's project folder>/<id>.jsonl is a regular file there,
// Codex when a rollout of the newest maxDays day folders is named
// rollout-<time>-<id>.jsonl. It reads file names only, never a transcript,
// with the confinement of Find (no symlink followed, regular files only).
// None when no folder holds it (no such folder, an id that is not one, a
// folder that cannot be read): the id's owner is then unknown.
//
// A state file records an AI session id without saying which agent's it
// is; handing another agent's id to a preset would resume nothing, so the
// caller starts a new session instead when the id is known to be another
// agent's and not the preset's.
func Owners(id string, q Query) []string {
	getenv := q.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	root := filepath.Clean(q.Root)
	if !idRe().MatchString(id) || !filepath.IsAbs(root) {
		return nil
	}
	opened := &tracker{}
	defer opened.closeAll()
	var out []string
	if claudeHolds(opened, agentBase(getenv, "CLAUDE_CONFIG_DIR", ".claude"), root, id) {
		out = append(out, Claude)
	}
	if codexHolds(opened, agentBase(getenv, "CODEX_HOME", ".codex"), id) {
		out = append(out, Codex)
	}
	return out
}

// agentBase is the agent's folder: the environment variable env when set,
// else $HOME/name.
func agentBase(getenv func(string) string, env, name string) string {
	if base := getenv(env); base != "" {
		return base
	}
	return homeDir(getenv, name)
}

// claudeHolds reports whether one of root's Claude project folders holds
// the transcript <id>.jsonl.
func claudeHolds(t *tracker, base, root, id string) bool {
	cands, err := claudeTranscripts(t, base, root)
	if err != nil {
		return false
	}
	for _, c := range cands {
		if c.name == id+".jsonl" {
			return true
		}
	}
	return false
}

// codexHolds reports whether a Codex rollout file is named for id (Codex
// names them rollout-<time>-<id>.jsonl).
func codexHolds(t *tracker, base, id string) bool {
	cands, err := codexTranscripts(t, base)
	if err != nil && !errors.Is(err, errSkip) {
		return false
	}
	for _, c := range cands {
		if rolloutID(c.name) == id {
			return true
		}
	}
	return false
}

// rolloutID is the session id in a Codex rollout's name,
// rollout-YYYY-MM-DDThh-mm-ss-<id>.jsonl ("" when the name is not one).
func rolloutID(name string) string {
	rest, ok := strings.CutPrefix(name, "rollout-")
	if !ok || len(rest) < len(rolloutTime)+1 {
		return ""
	}
	for i := range len(rolloutTime) {
		digit := rest[i] >= '0' && rest[i] <= '9'
		if rolloutTime[i] == '0' && !digit || rolloutTime[i] != '0' && rest[i] != rolloutTime[i] {
			return ""
		}
	}
	if rest[len(rolloutTime)] != '-' {
		return ""
	}
	id, _ := strings.CutSuffix(rest[len(rolloutTime)+1:], ".jsonl")
	return id
}

// rolloutTime is the shape of a rollout name's time: '0' stands for a
// digit.
const rolloutTime = "0000-00-00T00-00-00"

package bmad6

import (
	"strconv"
	"strings"

	"github.com/orchestrate-dev/orchestrate/discover/source"
)

// Spelling is how a user invokes a BMAD v6 workflow in this repository:
// the 6.0 alphas install `/bmad:bmm:workflows:dev-story` commands, 6.0
// betas and 6.0.x `/bmad-bmm-dev-story`, 6.1 and later the skill
// `/bmad-dev-story`. The installed IDE files decide when the repository
// holds them, then the BMAD version, then the config's folder (bmad/ and
// .bmad/ are alphas); else the current skill name.
type Spelling int

// The spellings, oldest first.
const (
	SpellSkill   Spelling = iota // /bmad-dev-story (6.1 and later)
	SpellAlpha                   // /bmad:bmm:workflows:dev-story
	SpellCommand                 // /bmad-bmm-dev-story (6.0 betas, 6.0.x)
)

// Command is the slash command that runs workflow (dev-story, code-review,
// create-story, quick-spec) in spelling s.
func (s Spelling) Command(workflow string) string {
	switch s {
	case SpellAlpha:
		return "/bmad:bmm:workflows:" + workflow
	case SpellCommand:
		return "/bmad-bmm-" + workflow
	}
	return "/bmad-" + workflow
}

// skillDirs are where installers put skills, commands are where 6.0 put
// slash commands (Claude Code first; the others are the same shape).
var (
	skillDirs   = []string{".claude/skills/", ".agents/skills/", ".cursor/skills/", ".windsurf/skills/"}
	commandDirs = []string{".claude/commands/", ".opencode/command/", ".opencode/commands/", ".cursor/commands/"}
)

// spelling picks the repository's spelling (see Spelling).
func spelling(r *source.Repo, cfg Config) Spelling {
	for _, d := range skillDirs {
		if r.Exists(d + "bmad-dev-story") {
			return SpellSkill
		}
	}
	for _, d := range commandDirs {
		if r.Exists(d + "bmad-bmm-dev-story.md") {
			return SpellCommand
		}
		if r.Exists(d + "bmad/bmm/workflows/dev-story.md") {
			return SpellAlpha
		}
	}
	if s, ok := versionSpelling(cfg.Version); ok {
		return s
	}
	if strings.HasPrefix(cfg.Path, "bmad/") || strings.HasPrefix(cfg.Path, ".bmad/") {
		return SpellAlpha
	}
	return SpellSkill
}

// versionSpelling maps a BMAD version ("6.0.0-alpha.12", "6.0.0-Beta.8",
// "v6.0.3", "6.2.1") to its spelling; false when it is not a v6 version.
func versionSpelling(v string) (Spelling, bool) {
	v = strings.TrimPrefix(strings.ToLower(strings.TrimSpace(v)), "v")
	core, pre, _ := strings.Cut(v, "-")
	parts := strings.Split(core, ".")
	if len(parts) < 2 || parts[0] != "6" {
		return SpellSkill, false
	}
	minor, err := strconv.Atoi(parts[1])
	if err != nil {
		return SpellSkill, false
	}
	switch {
	case minor >= 1:
		return SpellSkill, true
	case strings.HasPrefix(pre, "alpha"):
		return SpellAlpha, true
	}
	return SpellCommand, true
}

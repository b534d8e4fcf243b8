// Package config holds orchestrate's configuration as a plain value with its
// defaults (this file), and loads it (Load): flags, the injected
// environment, the user's file and the repository's .orchestrate.yaml with
// its trust (docs/SECURITY.md), type checks and unknown-key warnings. It is
// the one package that imports viper; every stage takes a Config value.
package config

import "time"

// Config is the whole configuration (README.md, Configuration).
type Config struct {
	Sources      Sources             `mapstructure:"sources"`
	StoriesDir   string              `mapstructure:"stories_dir"`
	Statuses     map[string][]string `mapstructure:"statuses"` // canonical status -> extra spellings
	Age          Age                 `mapstructure:"age"`
	WorkflowDirs []string            `mapstructure:"workflow_dirs"`
	AgentDirs    []string            `mapstructure:"agent_dirs"`
	Agents       []string            `mapstructure:"agents"` // agents configured here (ids without @)
	Resume       Resume              `mapstructure:"resume"`
	Handoff      Handoff             `mapstructure:"handoff"`
	LogPath      string              `mapstructure:"log_path"`
	TemplatesDir string              `mapstructure:"templates_dir"`
	// MaxFileSize is the largest file a parser reads, in bytes.
	MaxFileSize int64 `mapstructure:"max_file_size"`
	// MaxRefFiles caps the referenced files checked per candidate.
	MaxRefFiles int `mapstructure:"max_ref_files"`
	// Lifecycle is the lifecycle shared through a git remote.
	Lifecycle Lifecycle `mapstructure:"lifecycle"`
}

// Lifecycle holds the shared lifecycle (internal/sharedlife): with Remote
// set, the lock and the handoff records live in refs/orchestrate/ on that
// git remote instead of .orchestrate/ alone.
type Lifecycle struct {
	// Remote is the git remote's name ("origin"); "" keeps the lifecycle
	// local. ORCHESTRATE_REMOTE sets it too.
	Remote string `mapstructure:"remote"`
	// Lease is how long a lock on the remote holds without its runner; 0
	// is handoff.timeout plus a margin, or 2h without a timeout.
	Lease time.Duration `mapstructure:"lease"`
}

// Sources lists the globs (relative to the repository root, slash-separated,
// "**" for any depth) searched for each kind of saved state.
type Sources struct {
	Epic          []string `mapstructure:"epic"`
	QALoop        []string `mapstructure:"qa_loop"`
	QALoopIndex   []string `mapstructure:"qa_loop_index"`
	WorkflowState []string `mapstructure:"workflow_state"`
	Progress      []string `mapstructure:"progress"`
	WorkSession   []string `mapstructure:"work_session"`
	Tasks         []string `mapstructure:"tasks"`
	Stories       []string `mapstructure:"stories"`
	Spec          []string `mapstructure:"spec"`
}

// Age holds the thresholds of the age classes (validate/age.go).
type Age struct {
	Fresh  time.Duration `mapstructure:"fresh"`  // below: fresh
	Recent time.Duration `mapstructure:"recent"` // below: recent
	Stale  time.Duration `mapstructure:"stale"`  // below: moderate; above: stale
}

// Resume holds resume defaults.
type Resume struct {
	Mode string `mapstructure:"mode"`
	// RehandoffAfter is how long after a handoff autopilot leaves the
	// workflow alone (it moves on to the next one), and after which it hands
	// it off again; 0 means never again by itself (--again does).
	RehandoffAfter time.Duration `mapstructure:"rehandoff_after"`
}

// Handoff holds the orchestrator command.
type Handoff struct {
	Command string `mapstructure:"command"`
	// Agent is a hand-off preset (handoff/agent: claude, codex, gemini,
	// cursor, opencode) run when Command is not set; Command, when set,
	// wins.
	Agent string `mapstructure:"agent"`
	// FindSession offers, when the state names no AI session, the agent's
	// most recent session of this repository that touched the workflow's
	// files (as --find-session does).
	FindSession bool `mapstructure:"find_session"`
	// SessionGone detects an AI-session resume that failed because the session no longer exists.
	SessionGoneExitCodes []int  `mapstructure:"session_gone_exit_codes"`
	SessionGonePattern   string `mapstructure:"session_gone_pattern"`
	FallbackCommand      string `mapstructure:"fallback_command"`
	// SessionIDPattern finds the new AI session id in the fallback command's
	// output (first group); empty uses handoff.DefaultSessionIDPattern.
	SessionIDPattern string `mapstructure:"session_id_pattern"`
	// Timeout stops the command (its process group: SIGTERM, then SIGKILL)
	// and rolls the resume back when it runs longer; 0 means no limit.
	Timeout time.Duration `mapstructure:"timeout"`
}

// Default returns the configuration used when nothing is configured: the
// layouts the frameworks use.
func Default() Config {
	return Config{
		Sources: Sources{
			Epic:        []string{".aiox/epic-*-state.yaml", ".aios/epic-*-state.yaml", ".nexos/epic-*-state.yaml"},
			QALoop:      []string{"qa/loop-status.json", "qa/*/loop-status.json"},
			QALoopIndex: []string{".aiox/qa-loops-index.json"},
			WorkflowState: []string{
				".orchestrate/workflows/*.yaml",
				".nexos/workflow-state/*.yaml",
				".aios/workflow-state/*.yaml",
				".aiox/*-state.yaml",
				"docs/stories/.session-state.yaml",
			},
			Progress:    []string{"progress.md", ".orchestrate/progress/*.md"},
			WorkSession: []string{"docs/maestro/work_sessions/*.json"},
			Tasks:       []string{"docs/maestro/tasks/*.json"},
			Stories:     []string{"docs/stories/**/*.md"},
			Spec:        []string{"docs/stories/*/spec", "docs/specs/*"},
		},
		StoriesDir: "docs/stories",
		Age: Age{
			Fresh:  time.Hour,
			Recent: 24 * time.Hour,
			Stale:  7 * 24 * time.Hour,
		},
		WorkflowDirs: []string{".nexos/workflows", ".aiox/workflows", ".aios/workflows", ".aiox-core/development/workflows", ".aios-core/development/workflows", ".bmad-core/workflows", "workflows"},
		AgentDirs:    []string{".nexos/agents", ".aiox/agents", ".aios/agents", ".aiox-core/development/agents", ".aios-core/development/agents", ".bmad-core/agents", ".claude/agents", "agents"},
		Handoff: Handoff{
			SessionGoneExitCodes: nil,
			SessionGonePattern:   `(?i)(no conversation found|session (not found|expired|does not exist))`,
		},
		Resume:       Resume{RehandoffAfter: time.Hour},
		LogPath:      ".orchestrate/log.jsonl",
		TemplatesDir: ".orchestrate/templates",
		MaxFileSize:  8 << 20,
		MaxRefFiles:  20000,
	}
}

package cli

import (
	"github.com/orchestrate-dev/orchestrate/internal/logging"
)

// Deps are what a command's run function is given instead of reaching for
// the process (the shape of gh's per-command options): the streams, the
// prompter, the clock, the environment and working directory (System), the
// global flags that say where the repository and its configuration are, and
// the diagnostics logger. A run function built from Deps runs without a
// terminal and without cobra: see runResume, runStatus and the other run functions.
type Deps struct {
	System
	// Repo and Config are --repo and --config.
	Repo, Config string
	// NoColor is --no-color.
	NoColor bool
	// Log takes diagnostics (--log-level); nil discards them.
	Log logging.Logger
}

// deps are the dependencies of this invocation, for a command's options.
func (a *app) deps() Deps {
	return Deps{System: a.sys, Repo: a.global.Repo, Config: a.global.Config, NoColor: a.global.NoColor, Log: a.log}
}

// app is the invocation a run function works in: its dependencies, and a
// fresh set of configuration flags.
func (d Deps) app() *app {
	l := d.Log
	if l == nil {
		l = logging.Discard()
	}
	return &app{sys: d.System, v: newSettings(), log: l,
		global: globalOptions{Repo: d.Repo, Config: d.Config, NoColor: d.NoColor}}
}

package cli

import (
	"errors"
	"fmt"

	"github.com/orchestrate-dev/orchestrate/app/cli/cmdutil"
	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/modes"
)

// settings are the configuration keys this invocation's flags set (--mode
// sets resume.mode): internal/config applies them over every other layer.
type settings struct{ overrides map[string]any }

// newSettings returns the settings of an invocation, none set yet.
func newSettings() *settings { return &settings{overrides: map[string]any{}} }

// Set sets flat configuration key k to val, over every other layer.
func (s *settings) Set(k string, val any) { s.overrides[k] = val }

// loadConfig reads the configuration of the repository at root
// (config.Load) with this invocation's flags, --config and injected
// environment. It prints nothing (loadConf prints the warnings).
func (a *app) loadConfig(root string) (*config.Loaded, error) {
	cl, err := config.Load(config.LoadOptions{
		Root:      root,
		Explicit:  a.global.Config,
		Getenv:    a.sys.Getenv,
		Overrides: a.v.overrides,
	})
	return cl, configErr(err)
}

// configErr makes a configuration problem the user must fix (a
// config.UsageError) a usage error, exit 2; other errors pass unchanged.
func configErr(err error) error {
	var ue *config.UsageError
	if errors.As(err, &ue) {
		return &cmdutil.ExitErr{Code: cmdutil.ExitUsage, Err: err}
	}
	return err
}

// resumeMode is the mode configured for a resume and an error saying where
// a bad one came from: the --mode flag (flag, its value), else the
// environment or a configuration file (the layer that set resume.mode
// last). It returns "" when nothing sets a mode (the workflow's own mode,
// else interactive, applies).
func resumeMode(cl *config.Loaded, flag string) (modes.Mode, error) {
	if flag != "" {
		m, err := modes.ParseMode(flag)
		if err != nil {
			return "", cmdutil.Usagef("--mode %q is not a mode (%s)", flag, config.ModeNames)
		}
		return m, nil
	}
	s := cl.Get("resume.mode")
	if s == "" {
		return "", nil
	}
	m, err := modes.ParseMode(s)
	if err != nil {
		where := "resume.mode"
		if o, ok := cl.Source("resume.mode"); ok {
			where = o
		}
		return "", &cmdutil.ExitErr{Code: cmdutil.ExitUsage, Err: fmt.Errorf("%s: %q is not a mode (%s)", where, s, config.ModeNames)}
	}
	return m, nil
}

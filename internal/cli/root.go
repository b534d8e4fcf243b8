// Package cli is orchestrate's command layer: one file per command, each
// with an options struct and a run function, over injected streams, clock
// and prompter. It is the only place (with handoff) that touches the
// terminal, the environment and the process exit code.
package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/orchestrate-dev/orchestrate/internal/logging"
	"github.com/orchestrate-dev/orchestrate/templates"
)

// Version is set at build time (-ldflags "-X …/internal/cli.Version=v1.2.3").
var Version = "dev"

// globalOptions are the flags every command has.
type globalOptions struct {
	Repo     string
	Config   string
	LogLevel string
	NoColor  bool
}

// app is one invocation: the system, the configuration its flags set and the
// global flags.
type app struct {
	sys    System
	v      *settings
	global globalOptions
	log    logging.Logger // diagnostics on stderr, at --log-level
}

// debugf logs at debug level what was read or decided (--log-level debug).
func (a *app) debugf(format string, args ...any) {
	if a.log != nil {
		a.log.Debugf(format, args...)
	}
}

// color reports whether diagnostics on stderr may use colour: stderr is a
// terminal, --no-color is not given and NO_COLOR is unset.
func (a *app) color() bool { return a.colorFor(a.sys.IO.ErrOut) }

// colorFor reports whether output written to w may use colour: w is the
// stdout or stderr of the streams and a terminal, --no-color is not given
// and NO_COLOR is unset.
func (a *app) colorFor(w io.Writer) bool {
	if a.global.NoColor || a.sys.Getenv("NO_COLOR") != "" {
		return false
	}
	switch w {
	case a.sys.IO.Out:
		return a.sys.IO.OutTTY
	case a.sys.IO.ErrOut:
		return a.sys.IO.ErrTTY
	}
	return false
}

// Main runs orchestrate with args and returns the exit code.
func Main(args []string, sys System) int {
	a := &app{sys: sys, v: newSettings(), log: logging.Discard()}
	root := a.newRootCmd()
	root.SetArgs(args)
	root.SetIn(sys.IO.In)
	root.SetOut(sys.IO.Out)
	root.SetErr(sys.IO.ErrOut)
	err := root.Execute()
	if err == nil {
		return ExitOK
	}
	code := codeOf(err)
	var ee *ExitErr
	if errors.As(err, &ee) && ee.Err == nil {
		return code
	}
	// an error can quote a file, git or the environment: redact and escape it
	fmt.Fprintf(sys.IO.ErrOut, "orchestrate: %s\n", safeErr(err))
	if code == ExitUsage {
		fmt.Fprintln(sys.IO.ErrOut, "Run 'orchestrate --help' for usage.")
	}
	return code
}

// safeErr is an error's message as it may be printed: redacted, with its
// control characters escaped (templates.Safe).
func safeErr(err error) string { return templates.Safe(err.Error()) }

func (a *app) newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "orchestrate",
		Short: "Resume interrupted AI-agent development workflows",
		Long: `orchestrate finds the saved state agent frameworks leave behind (epic executions,
QA loops, workflow states, stories in progress or in review, spec pipelines), checks it
against the repository as it is now, works out where to pick up, and hands the work back
to the orchestrator.

` + ExitCodesHelp,
		Version:       Version,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			l, err := logging.Human(a.sys.IO.ErrOut, a.global.LogLevel, a.color())
			if err != nil {
				return &usageError{err}
			}
			a.log = l
			return nil
		},
	}
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error { return &usageError{err} })
	pf := root.PersistentFlags()
	pf.StringVar(&a.global.Repo, "repo", "", "repository to work on (default: the git top-level above the working directory)")
	pf.StringVar(&a.global.Config, "config", "", "configuration file (default: .orchestrate.yaml at the repository root)")
	pf.StringVar(&a.global.LogLevel, "log-level", "", "diagnostics on stderr: debug, info, warn, error (default warn)")
	pf.BoolVar(&a.global.NoColor, "no-color", false, "never colour output (also NO_COLOR)")
	root.SetVersionTemplate("orchestrate {{.Version}}\n")
	root.AddCommand(
		a.newStatusCmd(),
		a.newResumeCmd(),
		a.newCleanupCmd(),
		a.newUnlockCmd(),
		a.newLogCmd(),
		a.newBreadcrumbCmd(),
		a.newWorkCmd(),
		a.newVersionCmd(),
		a.newTrustCmd(),
	)
	root.CompletionOptions.HiddenDefaultCmd = false
	return root
}

func (a *app) newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			_, err := fmt.Fprintf(a.sys.IO.Out, "orchestrate %s\n", Version)
			return err
		},
	}
}

// positional checks the number of arguments and reports a usage error.
func positional(max int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) > max {
			return usagef("%s: too many arguments (%d), at most %d", cmd.Name(), len(args), max)
		}
		return nil
	}
}

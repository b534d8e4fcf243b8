// Package cli is orchestrate's command layer: one file per command, each
// with an options struct and a run function, over injected streams, clock
// and prompter. It is the only place (with handoff) that touches the
// terminal, the environment and the process exit code.
package cli

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/orchestrate-dev/orchestrate/app/cli/cmdutil"
	"github.com/orchestrate-dev/orchestrate/app/cli/completion"
	"github.com/orchestrate-dev/orchestrate/app/cli/iostreams"
	"github.com/orchestrate-dev/orchestrate/app/cli/jsondoc"
	"github.com/orchestrate-dev/orchestrate/internal/logging"
	"github.com/orchestrate-dev/orchestrate/templates"
)

// Version is set at build time (-ldflags "-X …/app/cli.Version=v1.2.3").
// Left at "dev", the version is read from the binary's build information
// (version()).
var Version = "dev"

// version is Version, or when it is "dev" what the Go toolchain recorded:
// the module version of a `go install …@version` build, else the VCS
// revision it was built from.
func version() string {
	if Version != "dev" {
		return Version
	}
	return versionFrom(debug.ReadBuildInfo)
}

// untaggedPseudo matches the pseudo-version Go 1.24+ stamps on a build in
// a clone with no release tag behind it (v0.0.0-yyyymmddhhmmss-revision):
// it says no more than the revision does.
var untaggedPseudo = regexp.MustCompile(`^v0\.0\.0-[0-9]{14}-[0-9a-f]{12}(\+dirty)?$`)

// versionFrom is version() over a build-information reader (a seam for
// tests): the main module's version — a release of `go install
// …@version`, or the pseudo-version Go 1.24+ stamps on `go build` and `go
// install ./cmd/orchestrate` in a clone after a tag — else, when there is
// no tag behind it or it is "(devel)", "dev" with the first 12 characters of
// vcs.revision and "modified" when vcs.modified is true, else "dev". The Go
// toolchain records no revision in a git worktree (.git is a file there),
// nor with -buildvcs=false: `make build` stamps the version with -ldflags.
func versionFrom(read func() (*debug.BuildInfo, bool)) string {
	bi, ok := read()
	if !ok || bi == nil {
		return Version
	}
	var rev string
	modified := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" && (rev == "" || !untaggedPseudo.MatchString(v)) {
		return v
	}
	if rev == "" {
		return Version
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if modified || strings.HasSuffix(bi.Main.Version, "+dirty") {
		return fmt.Sprintf("%s (%s, modified)", Version, rev)
	}
	return fmt.Sprintf("%s (%s)", Version, rev)
}

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
	loaded *loadedRepo    // the session load built, if any (its caches are saved at the end)
	// cacheWarned is set once the cache's warning was printed, cacheOn
	// when the repository located has a cache (locate)
	cacheWarned, cacheOn bool
}

// debugf logs at debug level what was read or decided (--log-level debug).
func (a *app) debugf(format string, args ...any) {
	if a.log != nil {
		a.log.Debugf(format, args...)
	}
}

// color reports whether diagnostics on stderr may use colour (colorFor).
func (a *app) color() bool { return a.colorFor(a.sys.IO.ErrOut) }

// colorFor reports whether output written to w may use colour: w is the
// stdout or stderr of the streams and a terminal, and neither --no-color,
// NO_COLOR, CLICOLOR=0 nor TERM=dumb turns it off; CLICOLOR_FORCE forces it
// (iostreams.ColorEnabled).
func (a *app) colorFor(w io.Writer) bool {
	tty := false
	switch w {
	case a.sys.IO.Out:
		tty = a.sys.IO.OutTTY
	case a.sys.IO.ErrOut:
		tty = a.sys.IO.ErrTTY
	}
	return iostreams.ColorEnabled(a.global.NoColor, a.getenv, tty)
}

// getenv reads the injected environment ("" when the System has none).
func (a *app) getenv(k string) string {
	if a.sys.Getenv == nil {
		return ""
	}
	return a.sys.Getenv(k)
}

// Main runs orchestrate with args and returns the exit code. A usage or
// configuration error is printed on stderr; with --json anywhere in args it
// is also an error document on stdout (jsondoc.NewErrorDoc), unless the command
// already wrote its own.
func Main(args []string, sys System) int {
	// with --json, stdout carries one document (the orchestrator command's
	// output goes to stderr): count it, to know whether one was written
	var out *jsondoc.CountingWriter
	if jsondoc.WantsJSON(args) {
		out = jsondoc.NewCountingWriter(sys.IO.Out)
		sys.IO.Out = out
	}
	a := &app{sys: sys, v: newSettings(), log: logging.Discard()}
	root := a.newRootCmd()
	root.SetArgs(args)
	root.SetIn(sys.IO.In)
	root.SetOut(sys.IO.Out)
	root.SetErr(sys.IO.ErrOut)
	cmd, err := root.ExecuteC()
	if a.loaded != nil {
		a.loaded.SaveCaches() // what the command's git walks derived (a no-op when saved)
	}
	if err == nil {
		return cmdutil.ExitOK
	}
	err = cmdutil.UnknownCommand(err)
	code := cmdutil.CodeOf(err)
	var ee *cmdutil.ExitErr
	if errors.As(err, &ee) && ee.Err == nil {
		return code
	}
	if out != nil && out.N() == 0 {
		_ = jsondoc.Write(out, jsondoc.NewErrorDoc(cmd, code, err))
	}
	// an error can quote a file, git or the environment: redact and escape it
	fmt.Fprintf(sys.IO.ErrOut, "orchestrate: %s\n", cmdutil.SafeErr(err))
	var ue *cmdutil.UsageError
	if errors.As(err, &ue) && ue.Hint() {
		path := "orchestrate"
		if cmd != nil {
			path = cmd.CommandPath()
		}
		fmt.Fprintf(sys.IO.ErrOut, "Run '%s --help' for usage.\n", templates.Safe(path))
	}
	return code
}

func (a *app) newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "orchestrate",
		Short: "Resume interrupted AI-agent development workflows",
		Long: `orchestrate finds the saved state agent frameworks leave behind (epic executions,
QA loops, workflow states, stories in progress or in review, spec pipelines), checks it
against the repository as it is now, works out where to pick up, and hands the work back
to the orchestrator.

` + cmdutil.ExitCodesHelp,
		Version:       version(),
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			l, err := logging.Human(a.sys.IO.ErrOut, a.global.LogLevel, a.color())
			if err != nil {
				return cmdutil.CmdLineError(err)
			}
			a.log = l
			return nil
		},
	}
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error { return cmdutil.CmdLineError(cmdutil.PlainFlagError(err)) })
	pf := root.PersistentFlags()
	pf.StringVar(&a.global.Repo, "repo", "", "repository to work on (default: the git top-level above the working directory)")
	pf.StringVar(&a.global.Config, "config", "", "configuration file (default: .orchestrate.yaml at the repository root)")
	pf.StringVar(&a.global.LogLevel, "log-level", "", "diagnostics on stderr: debug, info, warn, error (default warn)")
	pf.BoolVar(&a.global.NoColor, "no-color", false, "never colour output (also NO_COLOR, CLICOLOR=0, TERM=dumb; CLICOLOR_FORCE=1 forces it)")
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
		completion.NewCmd(a.sys.IO.Out),
		a.newMCPCmd(),
	)
	root.CompletionOptions.DisableDefaultCmd = true // ours refuses unknown shells (app/cli/completion)
	root.SetHelpCommand(a.newHelpCmd(root))
	root.InitDefaultHelpCmd()
	a.conventions(root)
	return root
}

// conventions applies to every command what every command shares: a bad
// argument count is a usage error (exit 2, with the --help hint), its
// Examples section (templates/examples.go), and its completion functions
// (completion.go) so shells never offer file names for workflow ids, modes
// or phases.
func (a *app) conventions(root *cobra.Command) {
	cmdutil.Walk(root, func(c *cobra.Command) {
		if args := c.Args; args != nil {
			c.Args = func(cmd *cobra.Command, as []string) error {
				if err := args(cmd, as); err != nil {
					return cmdutil.CmdLineError(err)
				}
				return nil
			}
		}
		if ex, ok := templates.Examples[c.CommandPath()]; ok {
			c.Example = ex
		}
	})
	for _, name := range []string{"resume", "cleanup", "unlock"} {
		if c := cmdutil.Subcommand(root, name); c != nil {
			c.ValidArgsFunction = a.completeWorkflows(name == "resume")
		}
	}
	cmdutil.Walk(root, func(c *cobra.Command) {
		if c.Flags().Lookup("mode") != nil {
			_ = c.RegisterFlagCompletionFunc("mode", completion.Modes)
		}
		if c.Flags().Lookup("from-phase") != nil {
			_ = c.RegisterFlagCompletionFunc("from-phase", a.completePhases)
		}
	})
}

// newHelpCmd is `orchestrate help [command]`: cobra's help command, except
// that an unknown topic is a usage error (exit 2) with suggestions, not the
// root's usage and exit 0.
func (a *app) newHelpCmd(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		Long:  "Help provides help for any command in the application.\nSimply type orchestrate help [path to command] for full details.",
		ValidArgsFunction: func(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			cmd, _, err := root.Find(args)
			if err != nil || cmd == nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var names []string
			for _, sub := range cmd.Commands() {
				if sub.IsAvailableCommand() && strings.HasPrefix(sub.Name(), toComplete) {
					names = append(names, sub.Name())
				}
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			cmd, rest, err := root.Find(args)
			if err != nil || cmd == nil || len(rest) > 0 {
				msg := fmt.Sprintf("unknown help topic %q", strings.Join(args, " "))
				if len(args) > 0 {
					if sugg := root.SuggestionsFor(args[0]); len(sugg) > 0 {
						msg += "; did you mean " + strings.Join(sugg, " or ") + "?"
					}
				}
				return cmdutil.CmdLineError(errors.New(msg))
			}
			cmd.InitDefaultHelpFlag()
			cmd.InitDefaultVersionFlag()
			return cmd.Help()
		},
	}
}

func (a *app) newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			_, err := fmt.Fprintf(a.sys.IO.Out, "orchestrate %s\n", version())
			return err
		},
	}
}

//END

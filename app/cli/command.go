package cli

import (
	"github.com/orchestrate-dev/orchestrate/app/cli/cmdutil"
	"github.com/spf13/cobra"
)

// cmdSpec is what a command says about itself: its usage line, its help
// and the exit codes that end its help, and the positional arguments it
// takes.
type cmdSpec struct {
	Use, Short, Long string
	// Exit, when set, ends Long as its own paragraph: "Exit codes: " + Exit.
	Exit string
	// Args checks the positional arguments (a usage error otherwise; see
	// conventions); nil takes none (cmdutil.Positional(0)).
	Args cobra.PositionalArgs
}

// newCmd is the cobra command of spec, the shape every command shares
// (gh's NewCmdX): when it runs, it fills *deps with this invocation's
// dependencies and calls run with the app those make (the command's xRun)
// and the positional arguments. A nil run is a command that only groups
// subcommands.
func (a *app) newCmd(spec cmdSpec, deps *Deps, run func(a *app, args []string) error) *cobra.Command {
	cmd := &cobra.Command{Use: spec.Use, Short: spec.Short, Long: spec.Long, Args: spec.Args}
	if spec.Exit != "" {
		cmd.Long += "\n\nExit codes: " + spec.Exit
	}
	if cmd.Args == nil {
		cmd.Args = cmdutil.Positional(0)
	}
	if run != nil {
		cmd.RunE = func(_ *cobra.Command, args []string) error {
			*deps = a.deps()
			return run(deps.app(), args)
		}
	}
	return cmd
}

//END

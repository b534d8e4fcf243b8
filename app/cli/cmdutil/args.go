package cmdutil

import (
	"github.com/spf13/cobra"
)

// Positional checks the number of arguments and reports a usage error.
func Positional(max int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) > max {
			return Usagef("%s: too many arguments (%d), at most %d", cmd.Name(), len(args), max)
		}
		return nil
	}
}

// OneWorkflow checks that the command is given one WORKFLOW (at most one
// when it is not required).
func OneWorkflow(required bool) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) > 1 || (required && len(args) != 1) {
			return Usagef("%s: want exactly one WORKFLOW, got %d", cmd.Name(), len(args))
		}
		return nil
	}
}

// Walk calls f on c and every command below it.
func Walk(c *cobra.Command, f func(*cobra.Command)) {
	f(c)
	for _, sub := range c.Commands() {
		Walk(sub, f)
	}
}

// Subcommand is root's direct subcommand name, or nil.
func Subcommand(root *cobra.Command, name string) *cobra.Command {
	for _, c := range root.Commands() {
		if c.Name() == name {
			return c
		}
	}
	return nil
}

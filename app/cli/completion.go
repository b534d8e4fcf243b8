package cli

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/orchestrate-dev/orchestrate/app/cli/completion"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// completeWorkflows completes a WORKFLOW argument with the ids discovery
// finds (only the resumable ones when resumable is set), each with its type
// as description. Only the first argument is a workflow.
func (a *app) completeWorkflows(resumable bool) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		s, err := a.completionSession()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []string
		for _, c := range s.Res.Candidates {
			if resumable && !c.Resumable {
				continue
			}
			if !completion.Completable(c.ID) || !strings.HasPrefix(c.ID, toComplete) {
				continue
			}
			out = append(out, c.ID+"\t"+completion.Describe(c))
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// completePhases completes --from-phase with the phases of the workflow
// named by the first argument (nothing without one, or when it matches
// more than one workflow).
func (a *app) completePhases(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) == 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	s, err := a.completionSession()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var c *workflow.Candidate
	for i := range s.Res.Candidates {
		if s.Res.Candidates[i].ID == args[0] {
			c = &s.Res.Candidates[i]
		}
	}
	if c == nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var ids []string
	for _, p := range c.Phases {
		if completion.Completable(p.ID) {
			ids = append(ids, p.ID)
		}
	}
	return completion.Prefixed(ids, toComplete), cobra.ShellCompDirectiveNoFileComp
}

// completionSession runs discovery for a completion, quietly.
func (a *app) completionSession() (*loadedRepo, error) { return a.load() }

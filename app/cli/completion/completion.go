// Package completion is the shell completion of orchestrate that needs no
// repository: the `completion SHELL` command (NewCmd; bash's script made
// independent of the bash-completion package), the --mode values (Modes),
// and the rules for what a repository-given word may be offered to a shell
// (Completable, Describe). app/cli completes workflow ids and phases with
// them.
package completion

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode"

	"github.com/spf13/cobra"

	"github.com/orchestrate-dev/orchestrate/app/cli/cmdutil"
	"github.com/orchestrate-dev/orchestrate/templates"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// shells are the shells `completion` writes a script for.
var shells = []string{"bash", "zsh", "fish", "powershell"}

// modeNamesList are the values of --mode, for completion.
var modeNamesList = []string{"autopilot", "interactive", "preflight"}

// NewCmd is `orchestrate completion SHELL`, writing the script to out.
// Unlike cobra's own, it refuses a shell it does not know (exit 2, naming
// the ones it does) rather than printing its help and succeeding.
func NewCmd(out io.Writer) *cobra.Command {
	var noDesc bool
	cmd := &cobra.Command{
		Use:   "completion SHELL",
		Short: "Print the shell completion script (bash, zsh, fish, powershell)",
		Long: `Print the completion script for SHELL (bash, zsh, fish or powershell) on stdout.
It completes commands, flags, workflow ids (resume, cleanup, unlock), --mode values and
the phases of the named workflow for --from-phase.

What each shell needs:
  bash        bash 4 or later. The bash-completion package is used when it is loaded
              (it splits words the way other commands' completions do) but is not
              required. For the current shell:  source <(orchestrate completion bash)
              For every new shell, add that line to ~/.bashrc, or install the script:
              orchestrate completion bash > ~/.local/share/bash-completion/completions/orchestrate
              (read by the bash-completion package: apt install bash-completion,
              brew install bash-completion@2).
  zsh         compinit must be enabled (autoload -U compinit; compinit in ~/.zshrc).
              orchestrate completion zsh > "${fpath[1]}/_orchestrate", then a new shell.
  fish        orchestrate completion fish > ~/.config/fish/completions/orchestrate.fish
  powershell  orchestrate completion powershell | Out-String | Invoke-Expression
              (add that line to your PowerShell profile to keep it).

Exit codes: 0 printed, 2 usage (no shell, or one it does not know).`,
		ValidArgs: shells,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return cmdutil.Usagef("completion: want one shell (bash, zsh, fish or powershell), got %d arguments", len(args))
			}
			for _, s := range shells {
				if args[0] == s {
					return nil
				}
			}
			return cmdutil.Usagef("completion: unknown shell %q: want bash, zsh, fish or powershell", args[0])
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			root := cmd.Root()
			switch args[0] {
			case "bash":
				return writeBashCompletion(root, out, !noDesc)
			case "zsh":
				if noDesc {
					return root.GenZshCompletionNoDesc(out)
				}
				return root.GenZshCompletion(out)
			case "fish":
				return root.GenFishCompletion(out, !noDesc)
			default:
				if noDesc {
					return root.GenPowerShellCompletion(out)
				}
				return root.GenPowerShellCompletionWithDesc(out)
			}
		},
	}
	cmd.Flags().BoolVar(&noDesc, "no-descriptions", false, "completions without descriptions")
	return cmd
}

// bashWordsCall is the line of cobra's bash script (V2) that needs the
// bash-completion package: without it, bash prints
// "_get_comp_words_by_ref: command not found" at every Tab.
const bashWordsCall = `    _get_comp_words_by_ref "$@" cur prev words cword`

// bashWordsFallback replaces bashWordsCall: the package's function when it
// is loaded, else the line up to the cursor split on blanks (so an id such
// as sdc:1-2 or --mode=x stays one word, as the package's -n =: asks), else
// COMP_WORDS as bash split it.
const bashWordsFallback = `    if declare -F _get_comp_words_by_ref >/dev/null 2>&1; then
        _get_comp_words_by_ref "$@" cur prev words cword
        return
    fi
    # no bash-completion package: split the line ourselves
    if [[ -n ${COMP_LINE-} ]]; then
        local line=${COMP_LINE:0:${COMP_POINT:-${#COMP_LINE}}}
        read -r -a words <<< "$line"
        if [[ -z $line || $line =~ [[:space:]]$ ]]; then
            words+=("")
        fi
    else
        words=("${COMP_WORDS[@]}")
    fi
    cword=$(( ${#words[@]} - 1 ))
    if [[ -z ${COMP_LINE-} && -n ${COMP_CWORD-} ]]; then
        cword=$COMP_CWORD
    fi
    cur=${words[cword]-}
    prev=
    if (( cword > 0 )); then
        prev=${words[cword-1]}
    fi`

// writeBashCompletion writes cobra's bash completion script (V2) with the
// word splitting made independent of the bash-completion package.
func writeBashCompletion(root *cobra.Command, out io.Writer, desc bool) error {
	var buf bytes.Buffer
	if err := root.GenBashCompletionV2(&buf, desc); err != nil {
		return err
	}
	script := buf.String()
	if strings.Count(script, bashWordsCall) != 1 {
		return fmt.Errorf("completion: the bash script of this cobra version has no single %q to make optional", strings.TrimSpace(bashWordsCall))
	}
	_, err := io.WriteString(out, strings.Replace(script, bashWordsCall, bashWordsFallback, 1))
	return err
}

// Modes completes --mode.
func Modes(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	return Prefixed(modeNamesList, toComplete), cobra.ShellCompDirectiveNoFileComp
}

// Completable reports whether a repository-given word may be offered to a
// shell: not empty, no spaces, no control or formatting characters (a
// newline or tab would inject completions of its own).
func Completable(s string) bool {
	if s == "" || len(s) > 200 {
		return false
	}
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\'' || r == '"' || r == '`' || r == '$' || r == '\\' {
			return false
		}
	}
	return true
}

// Describe is a candidate's completion description: its type and status,
// made safe and kept on one line.
func Describe(c workflow.Candidate) string {
	d := c.Type.Label()
	if c.Status != "" {
		d += ", " + c.Status
	}
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return ' '
		}
		return r
	}, templates.Safe(d))
}

// Prefixed are the words starting with prefix.
func Prefixed(words []string, prefix string) []string {
	var out []string
	for _, w := range words {
		if strings.HasPrefix(w, prefix) {
			out = append(out, w)
		}
	}
	return out
}

package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/orchestrate-dev/orchestrate/app/cli/cmdutil"
	"github.com/orchestrate-dev/orchestrate/app/cli/jsondoc"
	"github.com/orchestrate-dev/orchestrate/app/cli/views"
	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/internal/trust"
	"github.com/orchestrate-dev/orchestrate/modes"
)

// TrustOptions are the dependencies and flags of `orchestrate trust`.
type TrustOptions struct {
	Deps   Deps
	Revoke bool
	Show   bool
}

// trustHelp is the help of `orchestrate trust`.
const trustHelp = `Show what the repository's own .orchestrate.yaml makes orchestrate run or write
(handoff.command, handoff.fallback_command, the settings that steer them, log_path,
templates_dir) and the limits it would loosen, and trust that exact file: its path and the
SHA-256 of its bytes are recorded in $XDG_CONFIG_HOME/orchestrate/trusted.json (else
~/.config/orchestrate/trusted.json). Until then those settings are ignored (a resume that
needs the command asks on a terminal, else exits 19), limits and thresholds apply only when
stricter than the default, and the repository's templates folder (.orchestrate/templates)
is not used; any later edit of the file makes it untrusted again. Your own config, the
environment and flags always win over the repository's file.

ORCHESTRATE_TRUST_REPO_CONFIG=1 trusts the file for one run, for CI that runs the
repository's code anyway.`

func (a *app) newTrustCmd() *cobra.Command {
	opts := &TrustOptions{}
	cmd := a.newCmd(cmdSpec{Use: "trust", Short: "Trust the repository's .orchestrate.yaml (the commands and paths it sets)", Long: trustHelp}, &opts.Deps, func(a *app, _ []string) error { return a.runTrust(opts) })
	cmd.Flags().BoolVar(&opts.Revoke, "revoke", false, "forget the trust of the file")
	cmd.Flags().BoolVar(&opts.Show, "show", false, "only show what the file sets and whether it is trusted")
	return cmd
}

func (a *app) runTrust(opts *TrustOptions) error {
	if opts.Revoke && opts.Show {
		return cmdutil.Usagef("--revoke and --show cannot be used together")
	}
	loc, err := a.locate()
	root := loc.Root
	if err != nil {
		return err
	}
	out := a.sys.IO.Out
	store, err := trust.Open(a.sys.Getenv)
	if err != nil {
		return fmt.Errorf("trust: %w", err)
	}
	path := filepath.Join(root, config.RepoFileName)
	if opts.Revoke {
		found, err := store.Revoke(path)
		if err != nil {
			return err
		}
		if found {
			_, err = fmt.Fprintf(out, "Revoked: %s is no longer trusted.\n", path)
		} else {
			_, err = fmt.Fprintf(out, "%s was not trusted: nothing to revoke.\n", path)
		}
		return err
	}
	cl, err := config.Load(config.LoadOptions{Root: root, Getenv: a.sys.Getenv})
	if err != nil {
		return configErr(err)
	}
	rc := cl.Repo
	if rc == nil {
		if _, serr := config.ReadFile(path, root); serr != nil && !errors.Is(serr, fs.ErrNotExist) {
			return fmt.Errorf("config %s: %w", path, serr)
		}
		_, err := fmt.Fprintf(out, "No %s in %s: nothing to trust.\n", config.RepoFileName, root)
		return err
	}
	state, serr := store.Check(rc.Path, rc.Data)
	if err := describeRepoConfig(out, rc); err != nil {
		return err
	}
	if opts.Show {
		word := "not trusted"
		switch {
		case serr != nil:
			word = fmt.Sprintf("unknown (%v)", serr)
		case state == trust.Trusted:
			word = "trusted"
		case state == trust.Changed:
			word = "changed since it was trusted (not trusted)"
		}
		_, err := fmt.Fprintf(out, "State: %s\nStore: %s\n", word, store.Path)
		return err
	}
	if err := store.Trust(rc.Path, rc.Data); err != nil {
		return err
	}
	_, err = fmt.Fprintf(out, "Trusted %s (sha256 %s) in %s.\nIts settings apply until the file changes; 'orchestrate trust --revoke' undoes this.\n", rc.Path, trust.Hash(rc.Data)[:16], store.Path)
	return err
}

// describeRepoConfig writes what the repository's file makes orchestrate
// run or write (views.RepoConfig).
func describeRepoConfig(w io.Writer, rc *config.RepoFile) error {
	_, err := io.WriteString(w, views.RepoConfig(rc))
	return err
}

// loadConf reads the configuration of the repository at root and prints
// its warnings (an untrusted file's ignored settings, a refused path) on
// stderr.
func (a *app) loadConf(root string) (*config.Loaded, error) {
	cl, err := a.loadConfig(root)
	if err != nil {
		return nil, err
	}
	for _, w := range cl.Warnings {
		fmt.Fprintf(a.sys.IO.ErrOut, "warning: %s\n", w)
	}
	return cl, nil
}

// trustDoc is the trust object of s (jsondoc.NewTrust), or nil.
func trustDoc(s *loadedRepo) *jsondoc.Trust {
	if s == nil || s.conf == nil {
		return nil
	}
	return jsondoc.NewTrust(s.conf.Repo)
}

// trustNotice says on stderr that a repository command waits for trust
// (status and resume --dry-run).
func (a *app) trustNotice(s *loadedRepo) {
	if s == nil || s.conf == nil || s.conf.Repo == nil {
		return
	}
	rc := s.conf.Repo
	if w := rc.Waiting(); len(w) > 0 {
		fmt.Fprintf(a.sys.IO.ErrOut, "Trust: %s %s: %s waiting for trust (review it with 'orchestrate trust --show', trust it with 'orchestrate trust').\n", rc.Rel, rc.StateWords(), strings.Join(w, ", "))
	}
}

// requireRepoTrust stops a resume that would run a program named by the
// untrusted repository file: on a terminal it shows what would run and asks
// (yes records the trust and applies the file's settings), without one it
// exits 19 naming 'orchestrate trust' and ORCHESTRATE_TRUST_REPO_CONFIG=1.
// Nothing has been written when it stops the run.
func (a *app) requireRepoTrust(r *resumeRun) error {
	s := r.s
	if s.conf == nil || !s.conf.Repo.NeedsTrust() {
		return nil
	}
	rc := s.conf.Repo
	errOut := a.sys.IO.ErrOut
	if !a.sys.IO.CanPrompt() {
		var cmds []string
		for _, kv := range rc.Values {
			if config.PrivilegeOf(kv.Key) == config.RunsProgram && kv.Refused == "" && !kv.Overridden {
				cmds = append(cmds, kv.Key+" "+config.QuoteValue(kv.Value))
			}
		}
		fmt.Fprintf(errOut, "orchestrate: %s %s and would run %s: nothing was run or written.\n", rc.Rel, rc.StateWords(), strings.Join(cmds, " and "))
		fmt.Fprintf(errOut, "Review it and run 'orchestrate trust' to trust it, or set %s=1 to trust it for one run (CI that runs the repository's code anyway).\n", config.EnvTrustRepoConfig)
		return a.finishQuiet(r, "error", cmdutil.ExitNoTTY)
	}
	fmt.Fprintf(errOut, "%s %s. It would make orchestrate:\n", rc.Rel, rc.StateWords())
	if err := describeRepoConfig(errOut, rc); err != nil {
		return err
	}
	ok, err := a.prompter().Confirm("Trust this file and run it?", false)
	if err != nil && !errors.Is(err, modes.ErrInterrupted) && !errors.Is(err, modes.ErrDeclined) {
		return err
	}
	if err != nil || !ok {
		fmt.Fprintln(errOut, "Not trusted: nothing was run or changed.")
		return a.finishQuiet(r, "declined", cmdutil.ExitDeclined)
	}
	store, err := trust.Open(a.sys.Getenv)
	if err != nil {
		return fmt.Errorf("trust: %w", err)
	}
	if err := store.Trust(rc.Path, rc.Data); err != nil {
		return err
	}
	cfg, err := s.conf.ApplyTrusted()
	if err != nil {
		return configErr(err)
	}
	s.Cfg = cfg
	fmt.Fprintf(errOut, "Trusted %s.\n", rc.Rel)
	return nil
}

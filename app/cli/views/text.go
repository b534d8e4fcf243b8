package views

import (
	"fmt"
	"strings"

	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/internal/trust"
)

// LogLine renders one event of the orchestration log: time, event, workflow, then the fields that
// matter. The line is to be printed through templates.Safe (redacted, control
// characters escaped): the log is a file anyone with the repository can edit.
func LogLine(ev map[string]any) string {
	str := func(k string) string {
		if v, ok := ev[k]; ok && v != nil {
			return fmt.Sprint(v)
		}
		return ""
	}
	parts := []string{str("time"), str("event"), str("workflow")}
	if rp := str("resume_point"); rp != "" {
		parts = append(parts, "at "+rp)
	}
	for _, k := range []string{"mode", "validation", "decision"} {
		if v := str(k); v != "" {
			parts = append(parts, k+"="+v)
		}
	}
	if str("forced") == "true" {
		parts = append(parts, "forced")
	}
	if str("command_configured") == "false" {
		parts = append(parts, "no-command")
	} else if v := str("exit_status"); v != "" && v != "0" {
		parts = append(parts, "exit="+v)
	}
	if m := str("msg"); m != "" {
		parts = append(parts, "-- "+m)
	}
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, "  ")
}

// RepoConfig is what the repository's file rc makes orchestrate run or
// write, one setting a line, values escaped for the terminal.
func RepoConfig(rc *config.RepoFile) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (sha256 %s)\n", rc.Path, trust.Hash(rc.Data)[:16])
	if len(rc.Values) == 0 && len(rc.Loosened) == 0 {
		b.WriteString("  sets nothing that makes orchestrate run or write anything.\n")
	}
	for _, kv := range rc.Values {
		what := ""
		switch config.PrivilegeOf(kv.Key) {
		case config.RunsProgram:
			what = "runs this command (sh -c)"
			if kv.Key == "handoff.agent" {
				what = "runs this agent's CLI (a hand-off preset)"
			}
		case config.SteersProgram:
			what = "steers the handoff command"
		case config.PathSetting:
			what = "a path orchestrate reads or writes"
		case config.WritesRemote:
			what = "pushes the shared lifecycle (refs/orchestrate/*: runner, host, times) to this git remote"
		}
		note := ""
		switch {
		case kv.Refused != "":
			note = " [ignored even when trusted: " + kv.Refused + "]"
		case kv.Overridden:
			note = " [your config or environment overrides it]"
		}
		fmt.Fprintf(&b, "  %s: %s\n      %s%s\n", kv.Key, config.QuoteValue(kv.Value), what, note)
	}
	for _, l := range rc.Loosened {
		fmt.Fprintf(&b, "  %s: %s\n      a limit looser than the default: it %s\n", l.Key, config.QuoteValue(l.Value), l.Why)
	}
	return b.String()
}

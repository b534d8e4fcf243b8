package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/app/cli/cmdutil"
	"github.com/orchestrate-dev/orchestrate/modes"
	"github.com/orchestrate-dev/orchestrate/modes/prompttest"
)

// fakeDeps are a command's dependencies with fake streams (a terminal only
// when p is set), a pinned clock, the test prompter and a trusted
// repository configuration: no cobra, no terminal, no process state.
func fakeDeps(dir string, p modes.Prompter, out, errOut *bytes.Buffer) Deps {
	d := Deps{System: System{
		IO:     IOStreams{In: strings.NewReader(""), Out: out, ErrOut: errOut, InTTY: p != nil, ErrTTY: p != nil},
		Getenv: func(k string) string { return map[string]string{"ORCHESTRATE_TRUST_REPO_CONFIG": "1"}[k] },
		Now:    func() time.Time { return time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC) },
		Getwd:  func() (string, error) { return dir, nil },
	}}
	if p != nil {
		d.Prompter = p
	}
	return d
}

func TestRunResume(t *testing.T) {
	tests := []struct {
		name     string
		opts     ResumeOptions
		prompter *prompttest.Prompter
		want     int
		stdout   []string
		asked    int  // questions the prompter must have been asked
		resumed  bool // the state file is marked resumed
	}{
		{name: "dry run, autopilot", opts: ResumeOptions{Workflow: "sdc-1", Mode: "autopilot", DryRun: true}, want: cmdutil.ExitOK,
			stdout: []string{"sdc-1", "Implement"}},
		{name: "dry run --json", opts: ResumeOptions{Workflow: "sdc-1", Mode: "autopilot", DryRun: true, JSON: true}, want: cmdutil.ExitOK,
			stdout: []string{`"outcome": "planned"`, `"mode": "autopilot"`, `"selected": "workflow:sdc-1"`}},
		{name: "autopilot resumes", opts: ResumeOptions{Workflow: "sdc-1", Mode: "autopilot"}, want: cmdutil.ExitOK, resumed: true},
		{name: "interactive, yes", opts: ResumeOptions{Workflow: "sdc-1"}, prompter: prompttest.Answering(modes.OptionYes), want: cmdutil.ExitOK, asked: 1, resumed: true},
		{name: "interactive, cancel", opts: ResumeOptions{Workflow: "sdc-1"}, prompter: prompttest.Answering(modes.OptionCancel), want: cmdutil.ExitDeclined, asked: 1},
		{name: "interactive, no terminal", opts: ResumeOptions{Workflow: "sdc-1"}, want: cmdutil.ExitNoTTY},
		{name: "interactive, --approve without a terminal", opts: ResumeOptions{Workflow: "sdc-1", Approve: true}, want: cmdutil.ExitOK, resumed: true},
		{name: "pre-flight, proceed typed", opts: ResumeOptions{Workflow: "sdc-1", Mode: "preflight"}, prompter: prompttest.Answering("proceed"), want: cmdutil.ExitOK, asked: 1, resumed: true},
		{name: "unknown workflow", opts: ResumeOptions{Workflow: "nope"}, want: cmdutil.ExitNotFound},
		{name: "finished workflow", opts: ResumeOptions{Workflow: "done-1"}, want: cmdutil.ExitTerminal},
		{name: "bad mode", opts: ResumeOptions{Workflow: "sdc-1", Mode: "turbo"}, want: cmdutil.ExitUsage},
		{name: "--restart with --from-phase", opts: ResumeOptions{Workflow: "sdc-1", Restart: true, FromPhase: "create"}, want: cmdutil.ExitUsage},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := exitRepo(t)
			var out, errOut bytes.Buffer
			opts := tc.opts
			var p modes.Prompter
			if tc.prompter != nil {
				p = tc.prompter
			}
			opts.Deps = fakeDeps(dir, p, &out, &errOut)
			got := cmdutil.CodeOf(runResume(&opts))
			if got != tc.want {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", got, tc.want, out.String(), errOut.String())
			}
			for _, s := range tc.stdout {
				if !strings.Contains(out.String(), s) {
					t.Errorf("stdout lacks %q:\n%s", s, out.String())
				}
			}
			if tc.prompter != nil && len(tc.prompter.Asked) != tc.asked {
				t.Errorf("asked %q, want %d questions", tc.prompter.Messages(), tc.asked)
			}
			data, _ := os.ReadFile(filepath.Join(dir, ".orchestrate/workflows/sdc-1.yaml"))
			if resumed := bytes.Contains(data, []byte("status: active")); resumed != tc.resumed {
				t.Errorf("state resumed = %v, want %v:\n%s", resumed, tc.resumed, data)
			}
		})
	}
}

func TestRunStatus(t *testing.T) {
	tests := []struct {
		name   string
		opts   StatusOptions
		stdout []string
		absent []string
	}{
		{name: "table", stdout: []string{"workflow:sdc-1", "30 minutes", "1 hour"}, absent: []string{"done-1"}},
		{name: "--all", opts: StatusOptions{All: true}, stdout: []string{"workflow:sdc-1", "workflow:done-1"}},
		{name: "--json", opts: StatusOptions{JSON: true}, stdout: []string{`"command": "status"`, `"id": "workflow:sdc-1"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := exitRepo(t)
			var out, errOut bytes.Buffer
			opts := tc.opts
			opts.Deps = fakeDeps(dir, nil, &out, &errOut)
			if err := runStatus(&opts); err != nil {
				t.Fatalf("runStatus: %v\nstderr:\n%s", err, errOut.String())
			}
			for _, s := range tc.stdout {
				if !strings.Contains(out.String(), s) {
					t.Errorf("stdout lacks %q:\n%s", s, out.String())
				}
			}
			for _, s := range tc.absent {
				if strings.Contains(out.String(), s) {
					t.Errorf("stdout has %q:\n%s", s, out.String())
				}
			}
			if tc.opts.JSON && !json.Valid(out.Bytes()) {
				t.Errorf("not one JSON document:\n%s", out.String())
			}
		})
	}
}

// runStatus runs `orchestrate status` with opts (no terminal needed: the
// streams and clock are opts.Deps').
func runStatus(opts *StatusOptions) error {
	return opts.Deps.app().runStatus(opts)
}

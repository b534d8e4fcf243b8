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

// rbRun calls Main with fake streams (terminals when tty), a pinned clock
// and prompter p.
func rbRun(t *testing.T, dir string, tty bool, p modes.Prompter, args ...string) *fakeRun {
	t.Helper()
	r := &fakeRun{}
	sys := System{
		IO:       IOStreams{In: strings.NewReader(""), Out: &r.out, ErrOut: &r.err, InTTY: tty, OutTTY: tty, ErrTTY: tty},
		Getenv:   func(string) string { return "" },
		Now:      func() time.Time { return time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC) },
		Getwd:    func() (string, error) { return dir, nil },
		Prompter: p,
	}
	r.code = Main(args, sys)
	return r
}

// rbSnapshot reads every file under dir.
func rbSnapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func rbSame(t *testing.T, before, after map[string]string) {
	t.Helper()
	for p, v := range after {
		if w, ok := before[p]; !ok {
			t.Errorf("%s was created", p)
		} else if w != v {
			t.Errorf("%s changed", p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			t.Errorf("%s was removed", p)
		}
	}
}

const (
	rbTornState = "execution_id: sdc-1\nworkflow: story-development-cycle\nstory: \"4.2\"\nupdated_at: 2026-11-20T11:30:00Z\nphases_completed:\n  - {phase: create, agent: sm, output: docs/stories/4.2.s.md\n"
	rbGoodState = "execution_id: sdc-1\nworkflow: story-development-cycle\nstory: \"4.2\"\nupdated_at: 2026-11-20T11:00:00Z\ncurrent_phase: implement\nstatus: interrupted\nphases_completed:\n  - {phase: create, agent: sm, output: docs/stories/4.2.s.md}\n  - {phase: validate, agent: po, output: docs/stories/4.2.s.md}\n"
)

func rbTornRepo(t *testing.T, withBak bool) string {
	files := map[string]string{
		".orchestrate/workflows/sdc-1.yaml": rbTornState,
		"docs/stories/4.2.s.md":             story42,
	}
	if withBak {
		files[".orchestrate/workflows/sdc-1.yaml.bak"] = rbGoodState
	}
	return testRepo(t, files)
}

// The user is shown the rebuilt state and declines: exit 10, nothing
// written (no lock, no log, no envelope, the corrupt file as it was).
func TestRebuiltStateDeclined(t *testing.T) {
	dir := rbTornRepo(t, true)
	before := rbSnapshot(t, dir)
	p := prompttest.Answering(modes.OptionCancel)
	r := rbRun(t, dir, true, p, "resume", "workflow:sdc-1")
	if r.code != cmdutil.ExitDeclined {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, cmdutil.ExitDeclined, r.out.String(), r.err.String())
	}
	out := r.out.String()
	for _, want := range []string{
		"=== Corrupt State File: .orchestrate/workflows/sdc-1.yaml ===",
		"Line 5: invalid YAML",
		"state: .orchestrate/workflows/sdc-1.yaml.bak -- the backup parses",
		"=== Resume: SDC for story 4.2 ===",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if strings.Index(out, "Corrupt State File") > strings.Index(out, "=== Resume:") {
		t.Errorf("the rebuilt block must come before the summary")
	}
	if len(p.Messages()) != 1 || p.Messages()[0] != modes.QuestionResume {
		t.Errorf("questions asked: %q", p.Messages())
	}
	if !strings.Contains(r.err.String(), "nothing was changed") {
		t.Errorf("stderr: %s", r.err.String())
	}
	rbSame(t, before, rbSnapshot(t, dir))
}

type rbDoc struct {
	Outcome    string `json:"outcome"`
	ExitCode   int    `json:"exit_code"`
	Candidates []struct {
		ID, Status, UpdatedFrom string
		Resumable               bool
	} `json:"candidates"`
	Findings []struct{ Check, Severity, Code, Message string } `json:"findings"`
	Plan     struct{ Decision, Reason string }                 `json:"plan"`
}

func rbJSON(t *testing.T, r *fakeRun) rbDoc {
	t.Helper()
	var d rbDoc
	dec := json.NewDecoder(bytes.NewReader(r.out.Bytes()))
	if err := dec.Decode(&d); err != nil {
		t.Fatalf("not JSON (exit %d): %v\n%s\n%s", r.code, err, r.out.String(), r.err.String())
	}
	return d
}

// Autopilot never resumes a rebuilt state, dry run or not; interactive would
// ask; --json shows the candidate as rebuilt and the human block on stderr.
func TestRebuiltStateModes(t *testing.T) {
	dir := rbTornRepo(t, true)
	before := rbSnapshot(t, dir)

	r := rbRun(t, dir, false, nil, "resume", "workflow:sdc-1", "--dry-run", "--json", "--mode", "autopilot")
	d := rbJSON(t, r)
	if r.code != cmdutil.ExitCannot || d.Plan.Decision != modes.DecisionHalt || len(d.Candidates) != 1 {
		t.Fatalf("autopilot dry run: exit %d decision %s candidates %+v", r.code, d.Plan.Decision, d.Candidates)
	}
	var rebuilt bool
	for _, c := range d.Candidates {
		rebuilt = rebuilt || (c.ID == "workflow:sdc-1" && c.Status == "rebuilt" && c.Resumable)
	}
	blocking := ""
	for _, f := range d.Findings {
		if f.Severity == "blocking" {
			blocking += f.Check + "/" + f.Code + " "
		}
	}
	if !rebuilt || blocking != "rebuild/rebuilt-needs-confirmation " {
		t.Errorf("candidates %+v blocking %q", d.Candidates, blocking)
	}
	if !strings.Contains(r.err.String(), "Corrupt State File") {
		t.Errorf("the rebuilt block belongs on stderr under --json:\n%s", r.err.String())
	}

	for _, args := range [][]string{
		{"resume", "workflow:sdc-1", "--mode", "autopilot"},
		{"resume", "workflow:sdc-1", "--mode", "autopilot", "--force"},
	} {
		r = rbRun(t, dir, false, nil, args...)
		if r.code != cmdutil.ExitCannot || !strings.Contains(r.out.String(), "autopilot never resumes a rebuilt state") {
			t.Errorf("%v: exit %d\n%s", args, r.code, r.out.String())
		}
	}
	// with a terminal, autopilot falls back to interactive: a person
	// confirms the rebuilt state (here: cancels, nothing changes)
	r = rbRun(t, dir, true, prompttest.Answering(modes.OptionCancel), "resume", "workflow:sdc-1", "--mode", "autopilot")
	if r.code != cmdutil.ExitDeclined || !strings.Contains(r.err.String(), "switching to interactive mode") {
		t.Errorf("autopilot with a terminal: exit %d\n%s", r.code, r.err.String())
	}

	r = rbRun(t, dir, false, nil, "resume", "workflow:sdc-1", "--dry-run", "--json")
	if d = rbJSON(t, r); r.code != cmdutil.ExitNoTTY || d.Plan.Decision != modes.DecisionAsk {
		t.Errorf("interactive dry run without a terminal: exit %d (want 19, as the real run) decision %s", r.code, d.Plan.Decision)
	}
	r = rbRun(t, dir, false, nil, "resume", "workflow:sdc-1")
	if r.code != cmdutil.ExitNoTTY || !strings.Contains(r.err.String(), "--approve") {
		t.Errorf("interactive without a terminal: exit %d\n%s", r.code, r.err.String())
	}
	r = rbRun(t, dir, false, nil, "resume", "workflow:sdc-1", "--mode", "preflight")
	if r.code != cmdutil.ExitNoTTY || !strings.Contains(r.out.String(), "Corrupt State File") {
		t.Errorf("pre-flight without a terminal: exit %d\n%s", r.code, r.out.String())
	}
	r = rbRun(t, dir, true, prompttest.Answering("no"), "resume", "workflow:sdc-1", "--mode", "preflight")
	if r.code != cmdutil.ExitDeclined {
		t.Errorf("pre-flight not approved: exit %d", r.code)
	}
	rbSame(t, before, rbSnapshot(t, dir))
}

// Nothing to rebuild from: the halt names the file and says so (exit 17).
func TestCorruptStateNotRebuilt(t *testing.T) {
	dir := testRepo(t, map[string]string{".orchestrate/workflows/sdc-1.yaml": "status: [\n"})
	before := rbSnapshot(t, dir)
	r := rbRun(t, dir, false, nil, "resume", "--dry-run")
	out := r.out.String()
	if r.code != cmdutil.ExitCannot {
		t.Fatalf("exit %d\n%s", r.code, out)
	}
	for _, want := range []string{
		"Could not rebuild it:",
		".orchestrate/workflows/sdc-1.yaml.bak: no backup",
		"Reason: 1 blocking finding (--force does not override these):",
		"the state file .orchestrate/workflows/sdc-1.yaml is corrupt and could not be rebuilt (line 1: invalid YAML",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	rbSame(t, before, rbSnapshot(t, dir))
}

// A rebuilt state recorded as started in pre-flight resumes in pre-flight
// when no mode is asked for; one started in autopilot is not promoted.
func TestRebuiltStateMode(t *testing.T) {
	for mode, want := range map[string]string{"preflight": "preflight", "autopilot": "interactive"} {
		dir := testRepo(t, map[string]string{
			".orchestrate/workflows/sdc-1.yaml":     rbTornState,
			".orchestrate/workflows/sdc-1.yaml.bak": rbGoodState + "mode: " + mode + "\n",
			"docs/stories/4.2.s.md":                 story42,
		})
		r := rbRun(t, dir, false, nil, "resume", "workflow:sdc-1", "--dry-run", "--json")
		if got := modeOf(t, r); got != want || r.code != cmdutil.ExitNoTTY { // as the real run: no terminal to ask on
			t.Errorf("started in %s: mode %s exit %d, want %s", mode, got, r.code, want)
		}
	}
}

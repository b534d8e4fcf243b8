//go:build linux

package cli

// Real pseudo-terminal tests of the interactive resume, the way survey tests
// itself: the program runs as a separate process with stdin, stdout and
// stderr on the slave side of a pty; the test reads the master through a
// go-expect console whose output also feeds a vt10x terminal emulator (which
// answers survey's cursor-position queries), and types keys into it. Keys
// are typed only once the prompt has put the terminal in raw mode.
//
// The process is this test binary itself, re-executed with
// ORCHESTRATE_PTY_CHILD=1: the init function below then runs Main exactly as
// cmd/orchestrate does, so no go toolchain and no file outside the tests'
// temporary folders are needed.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	expect "github.com/Netflix/go-expect"
	"github.com/creack/pty"
	"github.com/hinshun/vt10x"
	"golang.org/x/sys/unix"

	"github.com/orchestrate-dev/orchestrate/app/cli/iostreams"
	"github.com/orchestrate-dev/orchestrate/internal/prompt"
	"github.com/orchestrate-dev/orchestrate/modes"
)

const (
	ptyChildEnv = "ORCHESTRATE_PTY_CHILD"
	ptyNow      = "2026-11-20T12:00:00Z"
	// ptyTimeout bounds every expect, every wait for the terminal mode and
	// the wait for the exit status.
	ptyTimeout = 20 * time.Second
	// ptyWatchdog kills a run that is still going after this long.
	ptyWatchdog = 2 * time.Minute

	keyUp    = "\x1b[A"
	keyDown  = "\x1b[B"
	keyEnter = "\r"
	keyCtrlC = "\x03"
)

func init() {
	if os.Getenv(ptyChildEnv) == "1" {
		os.Exit(Main(os.Args[1:], OSSystem()))
	}
}

// ptyRun is one orchestrate process on a pseudo-terminal.
type ptyRun struct {
	t       *testing.T
	c       *expect.Console
	replies *replyWriter
	screen  vt10x.Terminal
	raw     *lockedBuffer // everything the process wrote, as written
	cmd     *exec.Cmd
	done    chan struct{} // closed when the process has exited
	err     error         // cmd.Wait's error, once done
}

// lockedBuffer is a bytes.Buffer safe for the console's writer and the test.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// replyWriter types the terminal emulator's answers into the console, or
// holds them back while hold is set. It is only used from the goroutine of
// the test (the emulator answers inside the Expect that reads a query).
type replyWriter struct {
	c    *expect.Console
	hold bool
	held []byte
}

func (w *replyWriter) Write(p []byte) (int, error) {
	if w.hold || w.c == nil {
		w.held = append(w.held, p...)
		return len(p), nil
	}
	return w.c.Write(p)
}

// newTerminal opens a pseudo-terminal of 120 columns by 40 rows behind a
// console; the test closes it when it ends.
func newTerminal(t *testing.T) *ptyRun {
	t.Helper()
	return newTerminalSize(t, 120, 40)
}

// newTerminalSize is newTerminal with cols columns and rows rows.
func newTerminalSize(t *testing.T, cols, rows int) *ptyRun {
	t.Helper()
	// The emulator answers the queries survey makes (cursor position) by
	// typing the reply into the console, within the Expect that reads the
	// query: the reply always reaches the program before the next keys.
	replies := &replyWriter{}
	screen := vt10x.New(vt10x.WithWriter(replies), vt10x.WithSize(cols, rows))
	raw := &lockedBuffer{}
	c, err := expect.NewConsole(
		expect.WithStdout(screen, raw),
		expect.WithDefaultTimeout(ptyTimeout),
	)
	if err != nil {
		t.Skipf("no pseudo-terminal available: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	replies.c = c
	if err := pty.Setsize(c.Tty(), &pty.Winsize{Rows: uint16(rows), Cols: uint16(cols)}); err != nil {
		t.Fatalf("set the terminal size: %v", err)
	}
	return &ptyRun{t: t, c: c, replies: replies, screen: screen, raw: raw}
}

// startPTY runs `orchestrate args...` in dir on a new pseudo-terminal, with
// a pinned clock, NO_COLOR and a private HOME.
func startPTY(t *testing.T, dir string, args ...string) *ptyRun {
	t.Helper()
	return startPTYEnv(t, dir, nil, args...)
}

// startPTYEnv is startPTY with env (KEY=VALUE, an empty value unsets KEY)
// over the defaults.
func startPTYEnv(t *testing.T, dir string, env []string, args ...string) *ptyRun {
	t.Helper()
	return startPTYOn(t, newTerminal(t), dir, env, args...)
}

// startPTYOn is startPTYEnv on the terminal r (newTerminalSize).
func startPTYOn(t *testing.T, r *ptyRun, dir string, env []string, args ...string) *ptyRun {
	t.Helper()
	return startPTYCmd(t, r, dir, env, nil, args...)
}

// startPTYCmd is startPTYOn with edit, when not nil, changing the command
// before it starts (another stdout, …).
func startPTYCmd(t *testing.T, r *ptyRun, dir string, env []string, edit func(*exec.Cmd), args ...string) *ptyRun {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Skipf("cannot re-execute the test binary: %v", err)
	}
	home := t.TempDir()
	cmd := exec.Command(exe, args...)
	cmd.Dir = dir
	cmd.Env = []string{
		ptyChildEnv + "=1",
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"TERM=xterm",
		"NO_COLOR=1",
		"ORCHESTRATE_NOW=" + ptyNow,
		// under -race, do not pause a second at exit
		"GORACE=atexit_sleep_ms=0",
	}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		cmd.Env = slices.DeleteFunc(cmd.Env, func(e string) bool { return strings.HasPrefix(e, k+"=") })
		if v != "" {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	tty := r.c.Tty()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	// A session of its own with the pty as controlling terminal, as in a
	// shell: Ctrl-C outside a prompt would be a real SIGINT.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if edit != nil {
		edit(cmd)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start orchestrate: %v", err)
	}
	// Only the child holds the slave now: its exit ends the output (EOF).
	tty.Close()

	r.cmd, r.done = cmd, make(chan struct{})
	go func() {
		r.err = cmd.Wait()
		close(r.done)
	}()
	watchdog := time.AfterFunc(ptyWatchdog, func() { _ = cmd.Process.Kill() })
	t.Cleanup(func() { // runs before the console's cleanup
		watchdog.Stop()
		select {
		case <-r.done:
		default:
			_ = cmd.Process.Kill()
			<-r.done
		}
	})
	return r
}

// sgrRE matches a colour or style escape sequence.
var sgrRE = regexp.MustCompile(`\x1b\[[0-9;]*m`)

var ansiRE = regexp.MustCompile(`\x1b(\[[0-9;?]*[ -/]*[@-~]|[78=>]|\][^\x07]*\x07)`)

// text is everything written so far, without escape sequences and
// carriage returns.
func (r *ptyRun) text() string {
	return strings.ReplaceAll(ansiRE.ReplaceAllString(r.raw.String(), ""), "\r", "")
}

// fail stops the test with what the terminal showed.
func (r *ptyRun) fail(format string, args ...any) {
	r.t.Helper()
	r.t.Fatalf("%s\n--- output so far ---\n%s\n--- screen ---\n%s", fmt.Sprintf(format, args...), r.text(), strings.TrimRight(r.screen.String(), " \n"))
}

// expect waits (at most ptyTimeout between two bytes) until the output
// shows s.
func (r *ptyRun) expect(s string) {
	r.t.Helper()
	if _, err := r.c.Expect(expect.String(s), expect.WithTimeout(ptyTimeout)); err != nil {
		r.fail("waiting for %q: %v", s, err)
	}
}

// waitPrompt waits for a question and then until the prompt has put the
// terminal in raw mode, so that the keys typed next reach the prompt rather
// than the line discipline (keys typed earlier are dropped by the prompt).
func (r *ptyRun) waitPrompt(question string) {
	r.t.Helper()
	r.expect(question)
	deadline := time.Now().Add(ptyTimeout)
	for {
		// TCGETS on the master reports the slave's modes.
		tios, err := unix.IoctlGetTermios(int(r.c.Fd()), unix.TCGETS)
		if err == nil && tios.Lflag&unix.ICANON == 0 {
			return
		}
		if time.Now().After(deadline) {
			r.fail("the terminal never left canonical mode at %q (err %v)", question, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// answerLine answers a line question (Input, Confirm) with keys, once the
// prompt is in raw mode.
func (r *ptyRun) answerLine(question string, keys ...string) {
	r.t.Helper()
	r.waitPrompt(question)
	r.send(keys...)
}

// send types keys.
func (r *ptyRun) send(keys ...string) {
	r.t.Helper()
	for _, k := range keys {
		if _, err := r.c.Send(k); err != nil {
			r.fail("typing %q: %v", k, err)
		}
	}
}

// exit reads the output to its end and returns the exit code.
func (r *ptyRun) exit() int {
	r.t.Helper()
	if _, err := r.c.ExpectEOF(); err != nil {
		r.fail("waiting for the end of the output: %v", err)
	}
	select {
	case <-r.done:
	case <-time.After(ptyTimeout):
		r.fail("orchestrate did not exit")
	}
	var ee *exec.ExitError
	switch {
	case r.err == nil:
		return 0
	case errors.As(r.err, &ee) && ee.Exited():
		return ee.ExitCode()
	}
	r.fail("orchestrate did not exit normally: %v", r.err)
	return -1
}

// expectExit checks the exit code and that nothing looks like a crash.
func (r *ptyRun) expectExit(want int) {
	r.t.Helper()
	if got := r.exit(); got != want {
		r.fail("exit code %d, want %d", got, want)
	}
	out := r.text()
	for _, bad := range []string{"panic:", "goroutine ", "WARNING: DATA RACE"} {
		if strings.Contains(out, bad) {
			r.fail("the output shows %q", bad)
		}
	}
}

// shows checks that the whole output contains each of want.
func (r *ptyRun) shows(want ...string) {
	r.t.Helper()
	out := r.text()
	for _, w := range want {
		if !strings.Contains(out, w) {
			r.fail("the output does not show %q", w)
		}
	}
}

// hides checks that the whole output contains none of unwanted.
func (r *ptyRun) hides(unwanted ...string) {
	r.t.Helper()
	out := r.text()
	for _, w := range unwanted {
		if strings.Contains(out, w) {
			r.fail("the output shows %q", w)
		}
	}
}

// ---- repositories ----

// Several interrupted workflows: the list, the choice, then the chosen
// workflow's summary and its confirmation.
func TestPTYChooseOneOfSeveral(t *testing.T) {
	dir := multipleRepo(t)
	before := snapshot(t, dir)
	r := startPTY(t, dir, "resume")
	r.expect("=== Multiple Interrupted Workflows Found ===")
	r.waitPrompt("Which would you like to resume?")
	r.expect("Spec Pipeline -- login")
	r.expect("none (cancel)")
	r.send(keyDown, keyEnter) // the second: QA Loop for story 3.1
	r.expect("=== Resume: QA Loop for story 3.1 ===")
	// the list is shown once: as the prompt's options, not also as a block
	// before it or again after the pick
	if n := strings.Count(r.text(), "=== Multiple Interrupted Workflows Found ==="); n != 1 {
		r.fail("the list heading is shown %d times, want once", n)
	}
	r.waitPrompt("Resume this workflow?")
	r.send(keyEnter) // yes
	r.expect("Handing off to @")
	r.expect(".orchestrate/handoffs/")
	r.expectExit(0)
	r.hides("=== Resume: SDC for story 4.2 ===")

	resumedState(t, dir, "qa/3.1/loop-status.json")
	for _, p := range []string{".orchestrate/workflows/sdc-4.2.yaml", "docs/specs/login/.pipeline-state.json"} {
		if b, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p))); string(b) != before[p] {
			t.Errorf("%s changed, but another workflow was chosen", p)
		}
	}
	envelope(t, dir)
}

// One clean workflow: yes hands off.
func TestPTYYes(t *testing.T) {
	dir := cleanRepo(t)
	r := startPTY(t, dir, "resume")
	r.expect("=== Resume: SDC for story 4.2 ===")
	r.expect("2/4 done, at Implementation -- @dev")
	r.waitPrompt("Resume this workflow?")
	r.expect("cancel") // all three options are drawn
	r.send(keyEnter)
	r.expect("Handing off to @dev")
	r.expect(".orchestrate/handoffs/")
	r.expectExit(0)
	r.shows("yes", "restart from scratch")
	r.hides("resume anyway")

	resumedState(t, dir, ".orchestrate/workflows/sdc-4.2.yaml")
	envelope(t, dir)
	if _, err := os.Stat(filepath.Join(dir, ".orchestrate", "log.jsonl")); err != nil {
		t.Errorf("no orchestration log: %v", err)
	}
}

// Restart from scratch: handed off from the first phase.
func TestPTYRestartFromScratch(t *testing.T) {
	dir := cleanRepo(t)
	r := startPTY(t, dir, "resume")
	r.waitPrompt("Resume this workflow?")
	r.send(keyDown, keyEnter)
	r.expect("Restarting")
	r.expect("Handing off to @sm")
	r.expectExit(0)
	r.shows("Resume point: 0/4 done, at Story Creation", "Agent: @sm")

	resumedState(t, dir, ".orchestrate/workflows/sdc-4.2.yaml")
	env := envelope(t, dir)
	if b, _ := json.Marshal(env); !strings.Contains(string(b), `"create"`) {
		t.Errorf("the envelope does not plan the first phase (create):\n%s", b)
	}
}

// Cancel at the confirmation, or none at the choice: exit 10, nothing
// changed.
func TestPTYCancel(t *testing.T) {
	t.Run("cancel", func(t *testing.T) {
		dir := cleanRepo(t)
		before := snapshot(t, dir)
		r := startPTY(t, dir, "resume")
		r.waitPrompt("Resume this workflow?")
		r.send(keyDown, keyDown, keyEnter)
		r.expect("Cancelled")
		r.expectExit(10)
		r.hides("Handing off")
		unchanged(t, dir, before)
	})
	t.Run("none", func(t *testing.T) {
		dir := multipleRepo(t)
		before := snapshot(t, dir)
		r := startPTY(t, dir, "resume")
		r.waitPrompt("Which would you like to resume?")
		r.send(keyUp, keyEnter) // up from the first wraps to the last: none
		r.expect("Cancelled")
		r.expectExit(10)
		r.hides("=== Resume:", "Handing off")
		unchanged(t, dir, before)
	})
}

// Ctrl-C at any prompt: exit 10, no stack trace, nothing changed.
func TestPTYCtrlC(t *testing.T) {
	for _, tc := range []struct {
		name     string
		repo     func(*testing.T) string
		args     []string
		question string
		line     bool // an Input rather than a Select
	}{
		{"choice", multipleRepo, []string{"resume"}, "Which would you like to resume?", false},
		{"confirmation", cleanRepo, []string{"resume"}, "Resume this workflow?", false},
		{"proceed", cleanRepo, []string{"resume", "--mode", "preflight"}, `Type "proceed"`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := tc.repo(t)
			before := snapshot(t, dir)
			r := startPTY(t, dir, tc.args...)
			if tc.line {
				r.answerLine(tc.question, keyCtrlC)
			} else {
				r.waitPrompt(tc.question)
				r.send(keyCtrlC)
			}
			r.expect("Cancelled")
			r.expectExit(10)
			r.hides("Handing off", "interrupt\n")
			unchanged(t, dir, before)
		})
	}
}

// Pre-flight: the full report, then a typed proceed hands off; anything
// else declines.
func TestPTYPreflightProceed(t *testing.T) {
	t.Run("proceed", func(t *testing.T) {
		dir := cleanRepo(t)
		r := startPTY(t, dir, "resume", "--mode", "preflight")
		r.expect("=== Pre-Flight Report: ")
		r.expect("Plan to completion:")
		r.answerLine(`Type "proceed" to start (anything else cancels):`, "proceed", keyEnter)
		r.expect("Handing off to @dev")
		r.expectExit(0)
		r.shows("Referenced files", "src/search.ts")
		resumedState(t, dir, ".orchestrate/workflows/sdc-4.2.yaml")
		envelope(t, dir)
	})
	t.Run("anything else", func(t *testing.T) {
		dir := cleanRepo(t)
		before := snapshot(t, dir)
		r := startPTY(t, dir, "resume", "--mode", "preflight")
		r.answerLine(`Type "proceed"`, "yes", keyEnter)
		r.expect("nothing was changed")
		r.expectExit(10)
		r.hides("Handing off")
		unchanged(t, dir, before)
	})
}

// Warnings (3 days old, the story's Dev Notes edited since) are shown and
// accepted with yes.
func TestPTYWarningAccepted(t *testing.T) {
	dir := warningsRepo(t)
	r := startPTY(t, dir, "resume")
	r.expect("=== Resume: QA Loop for story 2.1 ===")
	r.expect("Warnings:")
	r.expect("interrupted 3 days ago")
	r.expect("Bruno Costa")
	r.waitPrompt("Resume this workflow?")
	r.send(keyEnter)
	r.expect("Handing off to @dev")
	r.expectExit(0)
	r.shows("Validation: 2 warnings")
	r.hides("resume anyway")

	resumedState(t, dir, "qa/loop-status.json")
	envelope(t, dir)
}

// Autopilot over a conflict with a terminal attached switches to
// interactive; "resume anyway (forced, logged)" proceeds and is logged.
func TestPTYAutopilotSwitchesToInteractive(t *testing.T) {
	dir := conflictRepo(t)
	r := startPTY(t, dir, "resume", "--mode", "autopilot")
	r.expect("Autopilot stopped")
	r.expect("=== Resume: SDC for story 4.2 ===")
	r.expect("src/search.ts")
	r.waitPrompt("Resume this workflow?")
	r.expect("resume anyway (forced, logged)")
	// cancel is the default over conflicts; the forced resume is two up
	r.send(keyUp, keyUp, keyEnter)
	r.expect("Handing off to @dev")
	r.expectExit(0)
	r.shows("Conflicts", "Bruno Costa")

	resumedState(t, dir, ".orchestrate/workflows/sdc-4.2.yaml")
	envelope(t, dir)
	log, err := os.ReadFile(filepath.Join(dir, ".orchestrate", "log.jsonl"))
	if err != nil {
		t.Fatalf("no orchestration log: %v", err)
	}
	if !strings.Contains(string(log), "forced") {
		t.Errorf("the log does not record a forced resume:\n%s", log)
	}
}

// Colour: the question is coloured on a terminal, and not at all under
// NO_COLOR or --no-color.
func TestPTYColour(t *testing.T) {
	for _, tc := range []struct {
		name   string
		env    []string
		args   []string
		colour bool
	}{
		{"terminal", []string{"NO_COLOR="}, []string{"resume"}, true},
		{"NO_COLOR", nil, []string{"resume"}, false},
		{"--no-color", []string{"NO_COLOR="}, []string{"--no-color", "resume"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := cleanRepo(t)
			r := startPTYEnv(t, dir, tc.env, tc.args...)
			r.waitPrompt("Resume this workflow?")
			r.send(keyCtrlC)
			r.expectExit(10)
			prompt := r.raw.String()
			if i := strings.Index(prompt, "Resume this workflow?"); i > 0 {
				prompt = prompt[max(0, i-40):]
			}
			if got := sgrRE.MatchString(prompt); got != tc.colour {
				t.Errorf("colour %v, want %v: %q", got, tc.colour, prompt)
			}
		})
	}
}

// ---- the terminal prompter itself ----

// TestSurveyPrompter drives the terminal prompter in this process on a pty:
// the answers, the defaults, Ctrl-C, questions on stderr only, and no
// colour under NO_COLOR.
func TestSurveyPrompter(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	r := newTerminal(t)
	var stdout bytes.Buffer
	p := iostreams.NewTerminalPrompter(IOStreams{In: r.c.Tty(), Out: &stdout, ErrOut: r.c.Tty(), InTTY: true, ErrTTY: true}, false)

	type result struct {
		what string
		val  any
		err  error
	}
	results := make(chan result, 8)
	go func() {
		i, err := p.Select("Pick one?", []string{"a", "b", "c"}, 1)
		results <- result{"select", i, err}
		ok, err := p.Confirm("Sure?", false)
		results <- result{"confirm y", ok, err}
		ok, err = p.Confirm("Really sure?", false)
		results <- result{"confirm default", ok, err}
		s, err := p.Input("Name?", "")
		results <- result{"input", s, err}
		_, err = p.Select("Interrupt me?", []string{"x", "y"}, 0)
		results <- result{"select ctrl-c", nil, err}
		_, err = p.Input("Interrupt me too?", "")
		results <- result{"input ctrl-c", nil, err}
		close(results)
	}()

	r.waitPrompt("Pick one?")
	r.send(keyDown, keyEnter)
	r.answerLine("Sure?", "y", keyEnter)
	r.answerLine("Really sure?", keyEnter)
	r.answerLine("Name?", "  proceed ", keyEnter)
	r.waitPrompt("Interrupt me?")
	r.send(keyCtrlC)
	r.answerLine("Interrupt me too?", keyCtrlC)

	want := []result{
		{"select", 2, nil},
		{"confirm y", true, nil},
		{"confirm default", false, nil},
		{"input", "  proceed ", nil},
		{"select ctrl-c", nil, modes.ErrInterrupted},
		{"input ctrl-c", nil, modes.ErrInterrupted},
	}
	for _, w := range want {
		var got result
		select {
		case got = <-results:
		case <-time.After(ptyTimeout):
			r.fail("no answer to %s", w.what)
		}
		if got.what != w.what || !errors.Is(got.err, w.err) || (w.err == nil && got.err != nil) || (w.val != nil && got.val != w.val) {
			r.fail("%s: got %v, %v; want %v, %v", w.what, got.val, got.err, w.val, w.err)
		}
	}
	if stdout.Len() > 0 {
		t.Errorf("questions written to stdout: %q", stdout.String())
	}
	if sgrRE.MatchString(r.raw.String()) {
		t.Errorf("colour with NO_COLOR set: %q", r.raw.String())
	}
}

// Without files for stdin and stderr there is no terminal to ask on.
func TestSurveyPrompterNeedsFiles(t *testing.T) {
	var out bytes.Buffer
	p := iostreams.NewTerminalPrompter(IOStreams{In: strings.NewReader("yes\n"), Out: &out, ErrOut: &out}, false)
	if _, err := p.Select("Pick?", []string{"a"}, 0); !errors.Is(err, prompt.ErrNoTerminal) {
		t.Errorf("Select: %v, want errNoTerminal", err)
	}
	if _, err := p.Confirm("Sure?", false); !errors.Is(err, prompt.ErrNoTerminal) {
		t.Errorf("Confirm: %v, want errNoTerminal", err)
	}
	f, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p = iostreams.NewTerminalPrompter(IOStreams{In: f, Out: &out, ErrOut: &out}, false)
	if _, err := p.Input("Name?", ""); !errors.Is(err, prompt.ErrNoTerminal) {
		t.Errorf("Input with stderr a buffer: %v, want errNoTerminal", err)
	}
	if out.Len() > 0 {
		t.Errorf("wrote %q", out.String())
	}
}

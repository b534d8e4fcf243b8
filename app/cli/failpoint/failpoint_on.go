//go:build failpoints

package failpoint

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/atomicfile"
	"github.com/orchestrate-dev/orchestrate/internal/exitcode"
)

// EnvFailpoint names the failpoints of a build with -tags failpoints (the
// crash-safety tests): a comma-separated list of STEP[#N]:ACTION where
//
//	STEP    is a handoff step (lock, state, envelope, command, log: the hook
//	        runs after the step), logwrite (before every append to the
//	        orchestration log: an error there writes half the line and fails
//	        the write, as a full disk does; #1 is resume.dispatched, just
//	        before the command would start), an atomic-write step (write,
//	        sync, rename: the hook runs before it, in every atomicfile.Write),
//	        or link (before every hard link a state update makes: the
//	        rollback handles, the .bak, a corrupt state's kept copy);
//	#N      is the occurrence of STEP in this process the failpoint fires at
//	        (default 1; "#*" fires at every occurrence);
//	ACTION  is kill (SIGKILL this process), sleep=DURATION (pause, then go
//	        on), error[=TEXT] (fail the step with an error), or full[=TEXT]
//	        (a disk that fills up there and stays full: fail the step, and
//	        from then on every write step — logwrite, write, sync, rename,
//	        link — fails too; TEXT defaults to "no space left on device").
//
// For example "state:kill", "rename#2:kill", "envelope:sleep=200ms",
// "log:error", "logwrite#1:error=no space left on device", "logwrite#1:full".
// A malformed value stops the process with exit status 2 before anything
// is written, so a typo cannot pass for a failpoint that never fired.
const EnvFailpoint = "ORCHESTRATE_FAILPOINT"

// failpointSteps are the steps a failpoint may name.
var failpointSteps = map[string]bool{
	"lock": true, "state": true, "envelope": true, "command": true, "log": true, "logwrite": true,
	"write": true, "sync": true, "rename": true, "link": true,
}

// writeSteps are the steps that need disk space (or, for link and rename,
// might): once a "full" failpoint fired, every one of them fails.
var writeSteps = map[string]bool{"logwrite": true, "write": true, "sync": true, "rename": true, "link": true}

// failpointRule is one parsed STEP[#N]:ACTION.
type failpointRule struct {
	step   string
	nth    int // 0: every occurrence
	action string
	sleep  time.Duration
	text   string
}

// parseFailpoints parses the value of ORCHESTRATE_FAILPOINT.
func parseFailpoints(spec string) ([]failpointRule, error) {
	var rules []failpointRule
	for _, part := range strings.Split(spec, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		where, action, ok := strings.Cut(part, ":")
		if !ok {
			return nil, fmt.Errorf("%q: want STEP[#N]:ACTION", part)
		}
		r := failpointRule{nth: 1}
		step, n, hasN := strings.Cut(where, "#")
		if !failpointSteps[step] {
			return nil, fmt.Errorf("%q: unknown step %q", part, step)
		}
		r.step = step
		if hasN {
			if n == "*" {
				r.nth = 0
			} else {
				v, err := strconv.Atoi(n)
				if err != nil || v < 1 {
					return nil, fmt.Errorf("%q: occurrence %q is not a positive number or *", part, n)
				}
				r.nth = v
			}
		}
		verb, arg, hasArg := strings.Cut(action, "=")
		switch verb {
		case "kill":
			if hasArg {
				return nil, fmt.Errorf("%q: kill takes no argument", part)
			}
		case "sleep":
			d, err := time.ParseDuration(arg)
			if err != nil || d < 0 {
				return nil, fmt.Errorf("%q: sleep needs a duration (sleep=200ms)", part)
			}
			r.sleep = d
		case "error":
			r.text = "failpoint"
			if hasArg && arg != "" {
				r.text = arg
			}
		case "full":
			r.text = "no space left on device"
			if hasArg && arg != "" {
				r.text = arg
			}
		default:
			return nil, fmt.Errorf("%q: unknown action %q (kill, sleep=DURATION, error[=TEXT], full[=TEXT])", part, verb)
		}
		r.action = verb
		rules = append(rules, r)
	}
	return rules, nil
}

// failpoints counts the occurrences of every step in this process and fires
// the rules that match.
type failpoints struct {
	mu    sync.Mutex
	seen  map[string]int
	rules []failpointRule
	full  string // set once a "full" rule fired: every write step fails with it
}

func (f *failpoints) hit(step string) error {
	f.mu.Lock()
	f.seen[step]++
	n := f.seen[step]
	if f.full != "" && writeSteps[step] {
		full := f.full
		f.mu.Unlock()
		return errors.New(full)
	}
	var fire []failpointRule
	for _, r := range f.rules {
		if r.step == step && (r.nth == 0 || r.nth == n) {
			fire = append(fire, r)
		}
	}
	f.mu.Unlock()
	for _, r := range fire {
		fmt.Fprintf(os.Stderr, "orchestrate: failpoint %s#%d: %s\n", step, n, r.action)
		switch r.action {
		case "kill":
			_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
			for { // SIGKILL cannot be caught; wait for it to land
				time.Sleep(time.Second)
			}
		case "sleep":
			time.Sleep(r.sleep)
		case "error":
			return errors.New(r.text)
		case "full":
			f.mu.Lock()
			f.full = r.text
			f.mu.Unlock()
			return errors.New(r.text)
		}
	}
	return nil
}

var (
	failpointOnce sync.Once
	failpointHook func(step string) error
)

// Hook returns the failpoint hook for the handoff stage, built from
// ORCHESTRATE_FAILPOINT, and installs the same counters as
// atomicfile.Failpoint. Without the variable there is no hook.
func Hook() func(step string) error {
	failpointOnce.Do(func() {
		spec := os.Getenv(EnvFailpoint)
		if strings.TrimSpace(spec) == "" {
			return
		}
		rules, err := parseFailpoints(spec)
		if err != nil {
			fmt.Fprintf(os.Stderr, "orchestrate: %s: %v\n", EnvFailpoint, err)
			os.Exit(int(exitcode.Usage))
		}
		f := &failpoints{seen: map[string]int{}, rules: rules}
		failpointHook = f.hit
		atomicfile.Failpoint = f.hit
	})
	return failpointHook
}

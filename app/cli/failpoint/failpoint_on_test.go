//go:build failpoints

package failpoint

import (
	"strings"
	"testing"
	"time"
)

// TestParseFailpoints checks the grammar of ORCHESTRATE_FAILPOINT: every
// form the crash suite uses parses to the rule it means, and every typo is an
// error naming the part (a failpoint that silently never fires would let a
// crash test pass without crashing anything).
func TestParseFailpoints(t *testing.T) {
	ok := []struct {
		spec string
		want []failpointRule
	}{
		{"state:kill", []failpointRule{{step: "state", nth: 1, action: "kill"}}},
		{"rename#2:kill", []failpointRule{{step: "rename", nth: 2, action: "kill"}}},
		{"logwrite#*:error", []failpointRule{{step: "logwrite", nth: 0, action: "error", text: "failpoint"}}},
		{"envelope:sleep=200ms", []failpointRule{{step: "envelope", nth: 1, action: "sleep", sleep: 200 * time.Millisecond}}},
		{"log:error=disk gone", []failpointRule{{step: "log", nth: 1, action: "error", text: "disk gone"}}},
		{"logwrite#1:full", []failpointRule{{step: "logwrite", nth: 1, action: "full", text: "no space left on device"}}},
		{" lock:kill , link#3:full=quota ", []failpointRule{
			{step: "lock", nth: 1, action: "kill"},
			{step: "link", nth: 3, action: "full", text: "quota"},
		}},
	}
	for _, tc := range ok {
		got, err := parseFailpoints(tc.spec)
		if err != nil {
			t.Errorf("parseFailpoints(%q): %v", tc.spec, err)
			continue
		}
		if len(got) != len(tc.want) {
			t.Errorf("parseFailpoints(%q) = %+v, want %+v", tc.spec, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("parseFailpoints(%q)[%d] = %+v, want %+v", tc.spec, i, got[i], tc.want[i])
			}
		}
	}
	// empty parts are skipped (a trailing comma is no typo; no value is no hook)
	bad := []string{"state", "nosuchstep:kill", "state:explode", "state#0:kill", "state#x:kill",
		"state#-1:kill", "state:kill=now", "state:sleep", "state:sleep=-1s", "state:sleep=soon", "state:kill,bogus"}
	for _, spec := range bad {
		if rules, err := parseFailpoints(spec); err == nil {
			t.Errorf("parseFailpoints(%q) = %+v, want an error", spec, rules)
		}
	}
}

// TestFailpointsFire checks when rules fire: at the named occurrence only,
// at every one for #*, and that a full disk, once it fired, fails every
// later write step but no other step.
func TestFailpointsFire(t *testing.T) {
	rules, err := parseFailpoints("state#2:error=second,lock#*:error,logwrite#2:full")
	if err != nil {
		t.Fatal(err)
	}
	f := &failpoints{seen: map[string]int{}, rules: rules}
	steps := []struct {
		step, want string
	}{
		{"state", ""}, {"state", "second"}, {"state", ""},
		{"lock", "failpoint"}, {"lock", "failpoint"},
		{"write", ""}, {"logwrite", ""}, {"logwrite", "no space left on device"},
		{"write", "no space left on device"}, {"rename", "no space left on device"},
		{"link", "no space left on device"}, {"envelope", ""}, {"command", ""},
	}
	for i, s := range steps {
		err := f.hit(s.step)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != s.want {
			t.Errorf("step %d (%s): error %q, want %q", i, s.step, got, s.want)
		}
	}
	if !strings.Contains(EnvFailpoint, "FAILPOINT") {
		t.Errorf("EnvFailpoint = %q", EnvFailpoint)
	}
}

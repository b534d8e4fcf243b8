package command

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/fastsys"
)

// argvAgent writes a script that records its arguments (NUL-terminated)
// in <dir>/argv and returns its path.
func argvAgent(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "agent.sh")
	script := "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done > \"" + filepath.Join(dir, "argv") + "\"\n"
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// plainTempDir is a temporary folder whose path is a plain word (t.TempDir
// carries the subtest's name, which here holds shell syntax).
func plainTempDir(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("", "handoff-run")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// alive reports whether process pid exists and is not a zombie (a
// container's init may not reap orphans).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return true
	}
	s := string(stat)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z'
	}
	return true
}

func readArgv(t *testing.T, dir string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "argv"))
	if err != nil {
		return nil
	}
	out := strings.Split(string(data), "\x00")
	return out[:len(out)-1]
}

func TestRenderCommandDisplay(t *testing.T) {
	data := Data{EnvelopePath: "/repo/.orchestrate/handoffs/sdc_4.2-1.json", AISessionID: "sess-123", Agent: "dev", WorkflowID: "sdc:4.2", Phase: "develop", Root: "/my repo"}
	for _, tt := range []struct{ tmpl, display, script string }{
		{"claude -p @{{.EnvelopePath}}", "claude -p @/repo/.orchestrate/handoffs/sdc_4.2-1.json", `claude -p @"${ORCHESTRATE_HANDOFF}"`},
		{"claude --resume {{.AISessionID}}", "claude --resume sess-123", `claude --resume "${ORCHESTRATE_AI_SESSION_ID}"`},
		{"run {{.Agent}} {{.WorkflowID}} {{.Phase}}", "run dev sdc:4.2 develop", `run "${ORCHESTRATE_AGENT}" "${ORCHESTRATE_WORKFLOW_ID}" "${ORCHESTRATE_PHASE}"`},
		{"cd {{.Root}}", "cd '/my repo'", `cd "${ORCHESTRATE_ROOT}"`},
		{`echo "{{.Root}}"`, `echo "/my repo"`, `echo "${ORCHESTRATE_ROOT}"`},
		{`echo '{{.Root}}'`, `echo '/my repo'`, `echo ''"${ORCHESTRATE_ROOT}"''`},
		{`{{if .AISessionID}}--resume {{.AISessionID}}{{else}}--new{{end}}`, "--resume sess-123", `--resume "${ORCHESTRATE_AI_SESSION_ID}"`},
	} {
		got, err := Render(tt.tmpl, data)
		if err != nil || got.Display != tt.display || got.Script != tt.script {
			t.Errorf("Render(%q) = %q / %q, %v; want %q / %q", tt.tmpl, got.Display, got.Script, err, tt.display, tt.script)
		}
	}
	// an empty value: no argument unquoted, an empty one quoted, and {{if}} sees it empty
	data.AISessionID = ""
	for tmpl, want := range map[string]string{
		"a {{.AISessionID}} b":   "a  b",
		`a "{{.AISessionID}}" b`: `a "" b`,
		`{{if .AISessionID}}--resume {{.AISessionID}}{{else}}--new{{end}}`: "--new",
		`{{if not .AISessionID}}new{{end}}`:                                "new",
	} {
		got, err := Render(tmpl, data)
		if err != nil || got.Script != want {
			t.Errorf("empty value: Render(%q) = %q, %v; want %q", tmpl, got.Script, err, want)
		}
	}
}

// The safe rules: anything but a bare field, {{unchecked .Field}} or an if
// on fields is a template error, and so are spots the quoting scan cannot
// place safely.
func TestRenderCommandRules(t *testing.T) {
	data := Data{AISessionID: "s", Agent: "dev", Phase: "p", Root: "/r", WorkflowID: "w", EnvelopePath: "/r/e.json"}
	for _, bad := range []string{
		`{{.Agent | printf "%s"}}`, `{{printf "%s" .Agent}}`, `{{len .Agent}}`, `{{.}}`,
		`{{range 4000000000}}x{{end}}`, `{{with .Agent}}{{.}}{{end}}`, `{{$x := .Agent}}{{$x}}`,
		`{{define "a"}}x{{end}}`, `{{template "x"}}`, `{{.Nope}}`, `{{.Agent.X}}`,
		`{{if eq .Agent "dev"}}x{{end}}`, `{{unchecked "lit"}}`, `{{.Agent`,
		`echo $(( {{.Phase}} + 1 ))`, "cat <<EOF\n{{.Agent}}\nEOF", `echo ${{.Agent}}`,
		`echo \{{.Agent}}`, `echo "\{{.Agent}}"`, `echo $'{{.Agent}}'`,
	} {
		_, err := Render(bad, data)
		var te *TemplateError
		if !errors.As(err, &te) {
			t.Errorf("Render(%q) = %v; want a *TemplateError", bad, err)
		}
	}
	for _, good := range []string{
		`{{"{{"}}`, `x {{/* note */}}`, `{{if and .Agent .Phase}}a{{end}}`, `{{if or .Agent .Phase}}a{{end}}`,
		`{{unchecked .Agent}}`, `echo '$'{{.Agent}}`, `echo \\{{.Agent}}`, "echo <<<{{.Agent}}", `# it's a comment
run {{.Agent}}`,
	} {
		if _, err := Render(good, data); err != nil {
			t.Errorf("Render(%q): %v", good, err)
		}
	}
}

// Every quoting context × every hostile value: the value arrives as data,
// exactly, and nothing it spells runs.
func TestRunCommandValuesAreData(t *testing.T) {
	hostile := []string{
		"$(touch pwned)", "`touch pwned`", "; touch pwned", "x'; touch pwned; echo '", `x"; touch pwned; echo "`,
		"a b  c", "$HOME", `\`, "*", "${IFS}touch${IFS}pwned", `"$(touch pwned)"`, "'$(touch pwned)'", "x|touch pwned", "&& touch pwned",
	}
	contexts := []struct {
		name string
		tmpl string // AGENT is the fake agent
		want func(v string) []string
	}{
		{"unquoted", "AGENT --id {{.AISessionID}}", func(v string) []string { return []string{"--id", v} }},
		{"glued", "AGENT x{{.AISessionID}}y", func(v string) []string { return []string{"x" + v + "y"} }},
		{"double", `AGENT "--id={{.AISessionID}}"`, func(v string) []string { return []string{"--id=" + v} }},
		{"single", `AGENT '--id={{.AISessionID}}'`, func(v string) []string { return []string{"--id=" + v} }},
		{"single in double", `AGENT "'{{.AISessionID}}'"`, func(v string) []string { return []string{"'" + v + "'"} }},
		{"double in single", `AGENT '"{{.AISessionID}}"'`, func(v string) []string { return []string{`"` + v + `"`} }},
		{"command substitution", `AGENT "$(printf %s {{.AISessionID}})"`, func(v string) []string { return []string{v} }},
		{"quoted in substitution", `AGENT "$(printf %s "{{.AISessionID}}")"`, func(v string) []string { return []string{v} }},
		{"backticks", "AGENT \"`printf %s {{.AISessionID}}`\"", func(v string) []string { return []string{v} }},
		{"comment", "AGENT {{.AISessionID}} # it's {{.AISessionID}}", func(v string) []string { return []string{v} }},
		{"unchecked", "AGENT -- {{unchecked .AISessionID}}", func(v string) []string { return []string{"--", v} }},
		{"twice", `AGENT {{.AISessionID}} "{{.AISessionID}}" '{{.AISessionID}}'`, func(v string) []string { return []string{v, v, v} }},
	}
	for _, c := range contexts {
		for _, v := range hostile {
			t.Run(c.name+"/"+v, func(t *testing.T) {
				root := plainTempDir(t)
				agent := argvAgent(t, root)
				tmpl := strings.Replace(c.tmpl, "AGENT", agent, 1)
				data := Data{EnvelopePath: filepath.Join(root, "e.json"), AISessionID: v, Agent: "dev", Root: root}
				status, err := Run(context.Background(), tmpl, data, Options{Root: root, Env: []string{"PATH=" + os.Getenv("PATH"), "HOME=/home/x"}})
				if err != nil || status != 0 {
					t.Fatalf("status %d, err %v", status, err)
				}
				if _, err := os.Stat(filepath.Join(root, "pwned")); err == nil {
					t.Fatal("a value ran as shell code")
				}
				if got, want := readArgv(t, root), c.want(v); !reflect.DeepEqual(got, want) {
					t.Errorf("argv = %q, want %q", got, want)
				}
			})
		}
	}
}

// A value that begins with "-" or holds a control character is refused
// unless the spot is {{unchecked}}; nothing runs.
func TestRunCommandRefusedValues(t *testing.T) {
	for _, tt := range []struct {
		value, tmpl string
		refused     bool
	}{
		{"-x", "AGENT {{.AISessionID}}", true},
		{"--dangerously-skip-permissions", `AGENT "{{.AISessionID}}"`, true},
		{"a\ntouch pwned", "AGENT {{.AISessionID}}", true},
		{"a\x1b]0;title\x07", "AGENT '{{.AISessionID}}'", true},
		{"a\x00b", "AGENT {{unchecked .AISessionID}}", true},
		{"-x", "AGENT -- {{unchecked .AISessionID}}", false},
		{"a\nb", "AGENT {{unchecked .AISessionID}}", false},
		{"a-x", "AGENT {{.AISessionID}}", false},
	} {
		root := plainTempDir(t)
		agent := argvAgent(t, root)
		data := Data{AISessionID: tt.value, Root: root}
		status, err := Run(context.Background(), strings.Replace(tt.tmpl, "AGENT", agent, 1), data, Options{Root: root})
		var ve *ValueError
		if tt.refused {
			if !errors.As(err, &ve) || ve.Field != "AISessionID" {
				t.Errorf("%q: err = %v; want a *ValueError", tt.value, err)
			}
			if _, err := os.Stat(filepath.Join(root, "argv")); err == nil {
				t.Errorf("%q: the command ran", tt.value)
			}
			continue
		}
		if err != nil || status != 0 {
			t.Errorf("%q: %d, %v", tt.value, status, err)
			continue
		}
		if got := readArgv(t, root); got[len(got)-1] != tt.value {
			t.Errorf("%q: argv %q", tt.value, got)
		}
	}
}

func TestRunCommand(t *testing.T) {
	root := t.TempDir()
	data := Data{EnvelopePath: filepath.Join(root, "env.json"), AISessionID: `x'; touch pwned; echo '`, Agent: "dev", Root: root}
	var out, errOut bytes.Buffer
	status, err := Run(context.Background(),
		`printf '%s|%s|%s|%s\n' "$ORCHESTRATE_HANDOFF" {{.AISessionID}} "$(pwd)" "$BASE"; echo oops >&2`,
		data, Options{Root: root, Env: []string{"BASE=kept", "ORCHESTRATE_HANDOFF=stale", "ORCHESTRATE_AGENT=stale", "PATH=" + os.Getenv("PATH")}, Stdout: &out, Stderr: &errOut})
	if err != nil || status != 0 {
		t.Fatalf("status %d, err %v, stderr %s", status, err, errOut.String())
	}
	realRoot, _ := filepath.EvalSymlinks(root)
	want := data.EnvelopePath + "|" + data.AISessionID + "|" + realRoot + "|kept\n"
	if out.String() != want {
		t.Errorf("stdout = %q, want %q", out.String(), want)
	}
	if errOut.String() != "oops\n" {
		t.Errorf("stderr = %q", errOut.String())
	}
	if _, err := os.Stat(filepath.Join(root, "pwned")); err == nil {
		t.Error("a template value was run as shell syntax")
	}
	opts := Options{Root: root}
	if status, err := Run(context.Background(), "exit 3", data, opts); err != nil || status != 3 {
		t.Errorf("exit 3: %d %v", status, err)
	}
	if status, err := Run(context.Background(), "kill -9 $$", data, opts); err != nil || status != 137 {
		t.Errorf("killed: %d %v", status, err)
	}
	if _, err := Run(context.Background(), "{{.Bad}}", data, opts); err == nil {
		t.Error("template error: want an error")
	}
	if _, err := Run(context.Background(), "   ", data, opts); err == nil {
		t.Error("empty command: want an error")
	}
	if _, err := Run(context.Background(), "true", data, Options{Root: filepath.Join(root, "missing")}); err == nil {
		t.Error("missing folder: want an error")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, "sleep 5", data, opts); err == nil || !strings.Contains(err.Error(), "canceled") {
		t.Errorf("cancelled: %v", err)
	}
}

// handoff.timeout ends the whole process group (a background child too)
// and reports a timeout.
func TestRunCommandTimeout(t *testing.T) {
	root := t.TempDir()
	start := time.Now()
	status, err := Run(context.Background(), `(trap '' TERM; sleep 30; touch late) & echo $! > child.pid; sleep 30`,
		Data{Root: root}, Options{Root: root, Timeout: 200 * time.Millisecond, Grace: 300 * time.Millisecond})
	var ce *Error
	if !errors.As(err, &ce) || ce.Reason != ReasonTimeout || status != 128+int(syscall.SIGTERM) {
		t.Fatalf("status %d, err %v; want a timeout", status, err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("took %s", d)
	}
	pid, _ := os.ReadFile(filepath.Join(root, "child.pid"))
	var n int
	for _, c := range strings.TrimSpace(string(pid)) {
		n = n*10 + int(c-'0')
	}
	if n > 0 && alive(n) {
		t.Errorf("the background child %d survived", n)
	}
}

// SIGTERM to orchestrate reaches the agent (a child of sh, not sh itself),
// and Run returns only after the agent ended.
func TestRunCommandForwardsSIGTERM(t *testing.T) {
	root := t.TempDir()
	agent := filepath.Join(root, "agent.sh")
	script := `#!/bin/sh
trap 'echo term > got-term; sleep 0.3; echo ended > ended; exit 143' TERM
echo $$ > started
while :; do sleep 0.05; done
`
	if err := os.WriteFile(agent, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	go func() {
		for i := 0; i < 200; i++ {
			if _, err := os.Stat(filepath.Join(root, "started")); err == nil {
				_ = syscall.Kill(os.Getpid(), syscall.SIGTERM)
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	status, err := Run(context.Background(), agent+"; echo after", Data{Root: root}, Options{Root: root, Grace: 3 * time.Second})
	var ce *Error
	if !errors.As(err, &ce) || ce.Reason != ReasonInterrupted || ce.Signal != "SIGTERM" {
		t.Fatalf("status %d, err %v; want interrupted by SIGTERM", status, err)
	}
	for _, f := range []string{"got-term", "ended"} {
		if _, err := os.Stat(filepath.Join(root, f)); err != nil {
			t.Errorf("%s: %v (the agent did not get the signal, or was not waited for)", f, err)
		}
	}
	if !strings.Contains(ce.Error(), "SIGTERM") {
		t.Errorf("message: %s", ce.Error())
	}
}

// A context that ends while the command runs stops it as a forwarded
// signal would — SIGTERM to its group, the grace period, then SIGKILL for
// what ignores it — and the *Error carries the context's cause (its
// message names it; errors.As finds it).
func TestRunCommandStoppedByContextCause(t *testing.T) {
	root := t.TempDir()
	cause := errors.New("the shared lock was taken over by eve@runner-9")
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	go func() {
		for i := 0; i < 400; i++ {
			if _, err := os.Stat(filepath.Join(root, "started")); err == nil {
				cancel(cause)
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	start := time.Now()
	status, err := Run(ctx, `(trap '' TERM; sleep 30; touch late) & echo $! > child.pid; touch started; sleep 30`,
		Data{Root: root}, Options{Root: root, Grace: 300 * time.Millisecond})
	var ce *Error
	if !errors.As(err, &ce) || ce.Reason != ReasonInterrupted || status != 128+int(syscall.SIGTERM) {
		t.Fatalf("status %d, err %v; want stopped by the context", status, err)
	}
	if !errors.Is(err, cause) || !strings.Contains(err.Error(), "was stopped (status 143): the shared lock was taken over by eve@runner-9") {
		t.Errorf("the cause is not carried: %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %s", d)
	}
	pid, _ := os.ReadFile(filepath.Join(root, "child.pid"))
	var n int
	for _, c := range strings.TrimSpace(string(pid)) {
		n = n*10 + int(c-'0')
	}
	if n <= 0 || alive(n) {
		t.Errorf("the child that ignores SIGTERM (%d) survived the grace period", n)
	}
	// a context that ended before: nothing runs, the cause is the error's
	if _, err := Run(ctx, "touch ran", Data{Root: root}, Options{Root: root}); !errors.Is(err, cause) {
		t.Errorf("a done context: %v, want its cause", err)
	}
	if _, err := os.Stat(filepath.Join(root, "ran")); err == nil {
		t.Error("a command ran under a done context")
	}
}

// While the agent's command runs, its signal handler is installed: the raw
// file-system calls are held off (internal/fastsys), and stay ordinary
// until the next Allow.
func TestRunCommandHoldsRawCalls(t *testing.T) {
	defer fastsys.Forbid()
	root := t.TempDir()
	fastsys.Allow()
	marker := filepath.Join(root, "ran")
	done := make(chan bool)
	go func() {
		// the command touches marker, then waits: look meanwhile
		for i := 0; i < 500; i++ {
			if _, err := os.Stat(marker); err == nil {
				fastsys.Allow()
				done <- fastsys.Allowed()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		done <- true
	}()
	if status, err := Run(context.Background(), `touch ran; sleep 0.5`, Data{Root: root}, Options{Root: root}); err != nil || status != 0 {
		t.Fatalf("status %d, err %v", status, err)
	}
	if <-done {
		t.Error("raw calls allowed while the command ran")
	}
	fastsys.Allow()
	if !fastsys.Allowed() {
		t.Error("raw calls still held after the command")
	}
}

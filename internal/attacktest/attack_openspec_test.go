package attacktest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// openspecTasks is a tasks.md in flight: one box done, two open.
const openspecTasks = "## 1. Core\n\n- [x] 1.1 Read the orders\n- [ ] 1.2 Write the rows\n\n## 2. Wire\n\n- [ ] 2.1 Expose it\n"

// openspecRepo writes an OpenSpec 1.x root with the change add-csv in
// flight (beside the sdc workflows of every attack repository).
func (e *env) openspecRepo() {
	e.t.Helper()
	e.writeTxtar("sdc.txtar")
	e.write("openspec/config.yaml", []byte("schema: spec-driven\n"))
	e.write("openspec/changes/add-csv/proposal.md", []byte("## Why\nExports.\n"))
	e.write("openspec/changes/add-csv/tasks.md", []byte(openspecTasks))
}

// noBidi fails the test if a bidi control (Trojan Source) or a raw
// line/paragraph separator reached stdout or stderr.
func noBidi(t *testing.T, r result) {
	t.Helper()
	for name, s := range map[string]string{"stdout": r.stdout, "stderr": r.stderr} {
		for _, c := range []string{"\u202e", "\u202d", "\u2066", "\u2067", "\u2068", "\u2069", "\u200f", "\u2028", "\u2029"} {
			if i := strings.Index(s, c); i >= 0 {
				t.Errorf("%s: a bidi or separator character %U reached %s: %q", r, []rune(c)[0], name, s[max(0, i-40):min(len(s), i+40)])
			}
		}
	}
}

// wantJSON fails the test unless stdout is one JSON document.
func wantJSON(t *testing.T, r result) {
	t.Helper()
	if !json.Valid([]byte(r.stdout)) {
		t.Errorf("%s: stdout is not one JSON document: %s", r, tail(r.stdout))
	}
}

// A change's tasks.md that is a FIFO, a symlink to /dev/zero, a symlink
// out of the repository (to a file of the user's) or a dangling symlink:
// status answers at once, names the change's tasks.md with a finding,
// prints nothing of the file outside, and a dry run writes nothing.
func TestAttackOpenSpecHostileTasksFile(t *testing.T) {
	t.Parallel()
	secret := "OUTSIDE-SECRET-LINE ghp_A1b2C3d4E5A1b2C3d4E5A1b2C3d4E5A1b2C3"
	for _, kind := range []string{"fifo", "devzero", "outside", "dangling", "folder-symlink"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			e.openspecRepo()
			outside := filepath.Join(e.dir, "outside")
			if err := os.MkdirAll(outside, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(outside, "tasks.md"), []byte("- [x] 1.1 "+secret+"\n- [ ] 1.2 "+secret+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(e.repo, "openspec/changes/evil/tasks.md")
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			var err error
			switch kind {
			case "fifo":
				err = syscall.Mkfifo(p, 0o644)
			case "devzero":
				err = os.Symlink("/dev/zero", p)
			case "outside":
				err = os.Symlink(filepath.Join(outside, "tasks.md"), p)
			case "dangling":
				err = os.Symlink(filepath.Join(e.dir, "nowhere", "tasks.md"), p)
			case "folder-symlink":
				if err = os.Remove(filepath.Dir(p)); err == nil {
					err = os.Symlink(outside, filepath.Dir(p))
				}
			}
			if err != nil {
				t.Fatal(err)
			}
			before := snapshot(t, e.repo, false)
			for _, args := range [][]string{{"status"}, {"status", "--all", "--json"}, {"resume", "--dry-run", "--mode", "autopilot", "openspec:add-csv"}} {
				r := e.run(args...)
				noEscapes(t, r)
				if strings.Contains(r.stdout+r.stderr, "OUTSIDE-SECRET") {
					t.Errorf("%s: the file outside the repository was read and shown", r)
				}
				if args[0] == "status" {
					wantCode(t, r, 0)
					wantOut(t, r, "add-csv")
				}
				if len(args) > 2 && args[2] == "--json" {
					wantJSON(t, r)
					if kind != "folder-symlink" && kind != "fifo" && !strings.Contains(r.stdout, "openspec/changes/evil/tasks.md") {
						t.Errorf("%s: no finding names the hostile tasks.md", r)
					}
				}
			}
			sameFiles(t, kind, before, snapshot(t, e.repo, false))
		})
	}
}

// 8 MiB of boxes (just under the read cap) in one tasks.md, and one of a
// single 8 MiB line: bounded work (the task lines are capped), answered
// within the time and memory bounds, few stderr lines.
func TestAttackOpenSpecBoxBomb(t *testing.T) {
	t.Parallel()
	for name, unit := range map[string]string{"boxes": "- [ ] 1.1 `src/a.go` x\n", "nested": "  - [x] a\n", "one-line": "[ ] "} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			e.openspecRepo()
			p := filepath.Join(e.repo, "openspec/changes/bomb/tasks.md")
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			f, err := os.Create(p)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString("- [x] 0.1 first\n")
			chunk := []byte(strings.Repeat(unit, (64<<10)/len(unit)))
			for written := 0; written+len(chunk) < 8<<20-(64<<10); written += len(chunk) {
				if _, err := f.Write(chunk); err != nil {
					t.Fatal(err)
				}
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			for _, args := range [][]string{{"status"}, {"status", "--all", "--json"}, {"resume", "--dry-run", "--mode", "preflight", "openspec:bomb"}} {
				r := e.run(args...)
				if args[0] == "status" {
					wantCode(t, r, 0)
				}
				if n := strings.Count(r.stderr, "\n"); n > 200 {
					t.Errorf("%s: %d stderr lines", r, n)
				}
				if len(r.stdout) > 2<<20 {
					t.Errorf("%s: %d bytes on stdout", r, len(r.stdout))
				}
			}
		})
	}
}

// Folders: 2,100 top-level folders each with a subfolder (past the 4,000
// folders the root search looks at), a folder chain 300 deep, and
// openspec/ roots nested in openspec/ 20 deep. The search stays bounded
// and the repository's own change is found.
func TestAttackOpenSpecFolderBombs(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.openspecRepo()
	for i := 0; i < 2100; i++ {
		if err := os.MkdirAll(filepath.Join(e.repo, fmt.Sprintf("d%05d", i), "x"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	deep := e.repo
	for i := 0; i < 300; i++ {
		deep = filepath.Join(deep, "a")
	}
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	nested := filepath.Join(e.repo, "apps")
	for i := 0; i < 20; i++ {
		nested = filepath.Join(nested, "openspec", "changes", "c")
	}
	if err := os.MkdirAll(nested, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(nested, "tasks.md"), []byte(openspecTasks), 0o644); err != nil {
		t.Fatal(err)
	}
	r := e.run("status", "--all", "--json")
	wantCode(t, r, 0)
	wantJSON(t, r)
	wantOut(t, r, `"id": "openspec:add-csv"`)
	r = e.run("status")
	wantCode(t, r, 0)
	wantOut(t, r, "add-csv")
}

// Thousands of change folders (2,000 active, 500 archived, each with a
// tasks.md in flight; 2,000 are read) under one root: the change bound holds, a warning
// names it, status answers within the bounds.
func TestAttackOpenSpecManyChanges(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.openspecRepo()
	for i := 0; i < 2500; i++ {
		dir := fmt.Sprintf("openspec/changes/c%04d", i)
		if i >= 2000 {
			dir = fmt.Sprintf("openspec/changes/archive/2026-01-01-c%04d", i)
		}
		p := filepath.Join(e.repo, filepath.FromSlash(dir))
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, "tasks.md"), []byte(openspecTasks), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := e.run("status", "--all", "--json")
	wantCode(t, r, 0)
	wantJSON(t, r)
	if !strings.Contains(r.stdout+r.stderr, "too-many-changes") {
		t.Errorf("%s: no too-many-changes warning", r)
	}
	r = e.run("status")
	wantCode(t, r, 0)
	if n := strings.Count(r.stderr, "\n"); n > 200 {
		t.Errorf("%s: %d stderr lines", r, n)
	}
}

// hostileIDs are change folder names: terminal escapes (OSC title, clear
// screen, C1 CSI), a bidi override, a newline forging a status line, a
// shell substitution and an option.
var hostileIDs = []string{
	"esc\x1b]0;pwned\x07\x1b[2Jtitle",
	"c1\u009b31mred",
	"bidi\u202etxt.exe",
	"nl\nworkflow:forged-1  Ready  autopilot",
	"$(touch PWNED-ID)",
	"-rf",
}

// Change ids with escape sequences, bidi controls, newlines, `$(...)` and
// `-rf`: status, status --json and the dry run print them terminal-safe
// (no ESC, BEL, C1 or bidi byte; no forged line), --json stays one
// document, and nothing runs.
func TestAttackOpenSpecHostileChangeIDs(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.openspecRepo()
	for _, id := range hostileIDs {
		e.write("openspec/changes/"+id+"/tasks.md", []byte(openspecTasks))
	}
	e.write("openspec/changes/archive/2026-01-01-\x1b[2Jarch/tasks.md", []byte("- [ ] open\n"))
	for _, args := range [][]string{{"status"}, {"status", "--all"}, {"status", "--all", "--json"}, {"resume", "--dry-run", "--mode", "preflight", "openspec:-rf"}, {"resume", "--dry-run", "--json", "openspec:nl"}} {
		r := e.run(args...)
		noEscapes(t, r)
		noBidi(t, r)
		if strings.Contains(r.stdout, "\nworkflow:forged-1") {
			t.Errorf("%s: a change id forged a line of its own", r)
		}
		if strings.Contains(strings.Join(args, " "), "--json") {
			wantJSON(t, r)
		}
		if args[0] == "status" {
			wantCode(t, r, 0)
		}
	}
	if _, err := os.Stat(filepath.Join(e.repo, "PWNED-ID")); err == nil {
		t.Error("a change id ran as shell code")
	}
}

// Task text with `$(touch PWNED)`, backticks and `-rf`, and a change named
// `-rf`, reach the hand-off (a template command and a preset) only as data:
// no marker file, the argv the agent got is whole, the envelope carries
// the text, tasks.md is unchanged.
func TestAttackOpenSpecTaskTextIsData(t *testing.T) {
	t.Parallel()
	needGit(t)
	tasks := "## 1. Core\n\n- [x] 1.1 done\n- [ ] 1.2 run $(touch PWNED) and `touch PWNED2` then rm -rf / --no-preserve-root; echo $HOME\n"
	for _, how := range []string{"template", "preset"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			e.openspecRepo()
			e.write("openspec/changes/-rf/tasks.md", []byte(tasks))
			argvFile := filepath.Join(e.dir, "argv.txt")
			bin := filepath.Join(e.dir, "bin")
			if err := os.MkdirAll(bin, 0o755); err != nil {
				t.Fatal(err)
			}
			script := "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done > '" + argvFile + "'\n"
			if err := os.WriteFile(filepath.Join(bin, "claude"), []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(bin, "agent"), []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			e.commitAll("openspec")
			e.extra = append(e.extra, "PATH="+bin+":"+os.Getenv("PATH"))
			if how == "template" {
				e.extra = append(e.extra, "ORCHESTRATE_HANDOFF_COMMAND=agent {{.WorkflowID}} {{.Phase}} {{.EnvelopePath}}")
			} else {
				e.extra = append(e.extra, "ORCHESTRATE_HANDOFF_AGENT=claude")
			}
			before := snapshot(t, filepath.Join(e.repo, "openspec"), false)
			r := e.run("resume", "--mode", "autopilot", "openspec:rf")
			wantCode(t, r, 0)
			noEscapes(t, r)
			for _, m := range []string{"PWNED", "PWNED2"} {
				if _, err := os.Stat(filepath.Join(e.repo, m)); err == nil {
					t.Errorf("%s: task text ran as shell code (%s created)", r, m)
				}
			}
			argv, err := os.ReadFile(argvFile)
			if err != nil {
				t.Fatalf("%s: the agent did not run: %v\nstderr: %s", r, err, r.stderr)
			}
			lines := strings.Split(strings.TrimSuffix(string(argv), "\n"), "\n")
			if how == "template" {
				if len(lines) != 3 || lines[0] != "openspec:rf" {
					t.Errorf("the agent's argv: %q", lines)
				}
			} else if len(lines) != 2 || lines[0] != "-p" || !strings.Contains(lines[1], "openspec:rf") {
				t.Errorf("the preset's argv: %q", lines)
			}
			envs, _ := filepath.Glob(filepath.Join(e.repo, ".orchestrate/handoffs/*.json"))
			if len(envs) != 1 {
				t.Fatalf("envelopes: %v", envs)
			}
			env, _ := os.ReadFile(envs[0])
			if !strings.Contains(string(env), "$(touch PWNED)") {
				t.Errorf("the envelope does not carry the task text as data:\n%s", env)
			}
			sameFiles(t, "openspec/", before, snapshot(t, filepath.Join(e.repo, "openspec"), false))
		})
	}
}

// Archive folders named to collide with an active change (dated, undated,
// doubly dated, with a calendar-impossible date, with a copy of the change
// inside), and two active changes whose names make the same key
// ("add auth" and "add-auth"): status answers, names the collisions, and
// a resume of the ambiguous key hands off nothing it cannot tell apart.
func TestAttackOpenSpecCollidingNames(t *testing.T) {
	t.Parallel()
	needGit(t)
	e := newEnv(t)
	e.openspecRepo()
	for _, d := range []string{"archive/2026-01-01-add-csv", "archive/add-csv", "archive/2026-01-01-2026-01-02-add-csv", "archive/2026-13-45-add-csv", "archive/2026-02-02-x/add-csv"} {
		e.write("openspec/changes/"+d+"/tasks.md", []byte("- [x] a\n- [ ] b\n"))
	}
	e.write("openspec/changes/add-auth/tasks.md", []byte(openspecTasks))
	e.commitAll("collisions")
	// the folder named to shadow add-auth comes in a later commit: it is
	// the current change
	e.when = commitTime.Add(time.Hour)
	e.write("openspec/changes/add auth/tasks.md", []byte("- [x] 1.1 a\n- [ ] 1.2 SHADOW task\n"))
	e.commitAll("shadow")
	e.extra = append(e.extra, "ORCHESTRATE_HANDOFF_COMMAND="+e.handoffCommand())
	r := e.run("status", "--all", "--json")
	wantCode(t, r, 0)
	wantJSON(t, r)
	for _, code := range []string{"openspec-active-and-archived", "openspec-archive-nested-copy", "openspec-key-collision"} {
		if !strings.Contains(r.stdout+r.stderr, code) {
			t.Errorf("%s: no %s finding", r, code)
		}
	}
	var doc struct {
		Candidates []struct {
			ID     string `json:"id"`
			Source struct {
				Path string `json:"path"`
			} `json:"source"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatal(err)
	}
	ids := map[string]int{}
	bySource := map[string]string{}
	for _, c := range doc.Candidates {
		ids[c.ID]++
		bySource[c.Source.Path] = c.ID
	}
	// both changes are candidates; the one named exactly add-auth keeps the key
	if bySource["openspec/changes/add-auth/tasks.md"] != "openspec:add-auth" || bySource["openspec/changes/add auth/tasks.md"] == "" {
		t.Errorf("%s: the colliding changes are not both listed, add-auth under its own key: %v", r, bySource)
	}
	for id, n := range ids {
		if n > 1 {
			t.Errorf("%s: %d candidates share the id %q (one lock and one handoff record for different changes)", r, n, id)
		}
	}
	before := snapshot(t, filepath.Join(e.repo, "openspec"), false)
	r = e.run("resume", "--mode", "autopilot", "openspec:add-auth")
	noEscapes(t, r)
	if n := e.agentStarts(); n != 1 {
		t.Errorf("%s: %d agents started, want 1", r, n)
	}
	envs, _ := filepath.Glob(filepath.Join(e.repo, ".orchestrate/handoffs/*.json"))
	for _, p := range envs {
		if b, _ := os.ReadFile(p); strings.Contains(string(b), "SHADOW") {
			t.Errorf("%s: openspec:add-auth handed off the folder named to shadow it:\n%s", r, b)
		}
	}
	sameFiles(t, "openspec/", before, snapshot(t, filepath.Join(e.repo, "openspec"), false))
}

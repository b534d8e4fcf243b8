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

// kiroTasks is a Kiro tasks.md in flight: one required task done, two open.
const kiroTasks = "# Implementation Plan\n\n- [x] 1. Set up\n  - [x] 1.1 Create the model in `src/a.ts`\n- [ ] 2. Build\n  - [ ] 2.1 Write the feed\n  - [ ] 2.2 Wire it\n"

// kiroRepo writes the Kiro spec feed in flight (beside the sdc workflows of
// every attack repository).
func (e *env) kiroRepo() {
	e.t.Helper()
	e.writeTxtar("sdc.txtar")
	e.kiroSpec("feed", kiroTasks)
}

// kiroSpec writes one spec folder with a requirements.md and tasks.
func (e *env) kiroSpec(name, tasks string) {
	e.t.Helper()
	e.write(".kiro/specs/"+name+"/requirements.md", []byte("# Requirements\n"))
	if tasks != "" {
		e.write(".kiro/specs/"+name+"/tasks.md", []byte(tasks))
	}
}

// A spec's tasks.md that is a FIFO, a symlink to /dev/zero, a symlink out
// of the repository or a dangling one, a spec folder that is a symlink
// out, and a tasks.meta.json that is a FIFO: status answers at once,
// prints nothing of the file outside, and nothing is written.
func TestAttackKiroHostileTasksFile(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"fifo", "devzero", "outside", "dangling", "folder-symlink", "meta-fifo"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			e.kiroRepo()
			outside := filepath.Join(e.dir, "outside")
			if err := os.MkdirAll(outside, 0o755); err != nil {
				t.Fatal(err)
			}
			secret := "- [x] 1.1 OUTSIDE-SECRET-LINE\n- [ ] 1.2 OUTSIDE-SECRET-LINE\n"
			for _, f := range []string{"tasks.md", "requirements.md"} {
				if err := os.WriteFile(filepath.Join(outside, f), []byte(secret), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			e.kiroSpec("evil", "")
			p := filepath.Join(e.repo, ".kiro/specs/evil/tasks.md")
			var err error
			switch kind {
			case "fifo":
				err = syscall.Mkfifo(p, 0o644)
			case "devzero":
				err = os.Symlink("/dev/zero", p)
			case "outside":
				err = os.Symlink(filepath.Join(outside, "tasks.md"), p)
			case "dangling":
				err = os.Symlink(filepath.Join(e.dir, "nowhere"), p)
			case "folder-symlink":
				if err = os.RemoveAll(filepath.Dir(p)); err == nil {
					err = os.Symlink(outside, filepath.Dir(p))
				}
			case "meta-fifo":
				if err = os.WriteFile(p, []byte(kiroTasks), 0o644); err == nil {
					err = syscall.Mkfifo(filepath.Join(filepath.Dir(p), "tasks.meta.json"), 0o644)
				}
			}
			if err != nil {
				t.Fatal(err)
			}
			before := snapshot(t, e.repo, false)
			for _, args := range [][]string{{"status"}, {"status", "--all", "--json"}, {"resume", "--dry-run", "--mode", "autopilot", "kiro:feed"}, {"resume", "--dry-run", "--mode", "preflight", "kiro:evil"}} {
				r := e.run(args...)
				noEscapes(t, r)
				if strings.Contains(r.stdout+r.stderr, "OUTSIDE-SECRET") {
					t.Errorf("%s: the file outside the repository was read and shown", r)
				}
				if args[0] == "status" {
					wantCode(t, r, 0)
					wantOut(t, r, "kiro:feed")
				}
				if len(args) > 2 && args[2] == "--json" {
					wantJSON(t, r)
				}
			}
			sameFiles(t, kind, before, snapshot(t, e.repo, false))
		})
	}
}

// 8 MiB of boxes (just under the read cap), deeply nested boxes, and one
// 8 MiB line, in one tasks.md: answered within the bounds, few stderr
// lines, a bounded stdout.
func TestAttackKiroBoxBomb(t *testing.T) {
	t.Parallel()
	for name, unit := range map[string]string{"boxes": "- [ ] 9.9 `src/a.ts` x (P)\n", "nested": "    - [x]* a _Requirements: 1.1_\n", "one-line": "[ ] "} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			e.kiroRepo()
			e.kiroSpec("bomb", "")
			f, err := os.Create(filepath.Join(e.repo, ".kiro/specs/bomb/tasks.md"))
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
			for _, args := range [][]string{{"status"}, {"status", "--all", "--json"}, {"resume", "--dry-run", "--mode", "preflight", "kiro:bomb"}} {
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

// Thousands of spec folders (2,100, each in flight; 2,000 are read) and 20 cc-sdd
// folders: the spec bound holds, a warning names it, status answers
// within the bounds.
func TestAttackKiroManySpecs(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.kiroRepo()
	for i := 0; i < 2100; i++ {
		p := filepath.Join(e.repo, ".kiro/specs", fmt.Sprintf("s%04d", i))
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, "tasks.md"), []byte(kiroTasks), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 20; i++ {
		e.write(fmt.Sprintf("k%02d/settings/templates/specs/tasks.md", i), []byte("template\n"))
		e.kiroSpec(fmt.Sprintf("../../k%02d/specs/x", i), kiroTasks)
	}
	r := e.run("status", "--all", "--json")
	wantCode(t, r, 0)
	wantJSON(t, r)
	if !strings.Contains(r.stdout+r.stderr, "kiro-too-many-specs") {
		t.Errorf("%s: no kiro-too-many-specs warning", r)
	}
	r = e.run("status")
	wantCode(t, r, 0)
	if n := strings.Count(r.stderr, "\n"); n > 200 {
		t.Errorf("%s: %d stderr lines", r, n)
	}
}

// Spec folder names with escape sequences, bidi controls, newlines,
// `$(...)` and `-rf`, and task text with `$(touch PWNED)`: status,
// --json and the dry run stay terminal-safe and one document, and an
// autopilot resume hands the text off as data (no marker file, the
// agent's argv whole, tasks.md unchanged).
func TestAttackKiroHostileNamesAndText(t *testing.T) {
	t.Parallel()
	needGit(t)
	e := newEnv(t)
	e.kiroRepo()
	for _, id := range hostileIDs {
		e.kiroSpec(id, kiroTasks)
	}
	e.kiroSpec("text", "- [x] 1. done\n- [ ] 2. run $(touch PWNED) and `touch PWNED2` then rm -rf / \x1b]0;pwned\x07 \u202eexe\n")
	argvFile := filepath.Join(e.dir, "argv.txt")
	bin := filepath.Join(e.dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "agent"), []byte("#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done > '"+argvFile+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.commitAll("kiro")
	e.extra = append(e.extra, "PATH="+bin+":"+os.Getenv("PATH"), "ORCHESTRATE_HANDOFF_COMMAND=agent {{.WorkflowID}} {{.Phase}}")
	for _, args := range [][]string{{"status"}, {"status", "--all"}, {"status", "--all", "--json"}, {"resume", "--dry-run", "--mode", "preflight", "kiro:rf"}, {"resume", "--dry-run", "--json", "kiro:text"}, {"resume", "--dry-run", "--mode", "preflight", "kiro:text"}} {
		r := e.run(args...)
		noEscapes(t, r)
		noBidi(t, r)
		if strings.Contains(r.stdout, "\nworkflow:forged-1") {
			t.Errorf("%s: a spec name forged a line of its own", r)
		}
		if strings.Contains(strings.Join(args, " "), "--json") {
			wantJSON(t, r)
		}
		if args[0] == "status" {
			wantCode(t, r, 0)
		}
	}
	before := snapshot(t, filepath.Join(e.repo, ".kiro"), false)
	r := e.run("resume", "--mode", "autopilot", "kiro:text")
	wantCode(t, r, 0)
	noEscapes(t, r)
	for _, m := range []string{"PWNED", "PWNED2", "PWNED-ID"} {
		if exists(filepath.Join(e.repo, m)) {
			t.Errorf("%s: text ran as shell code (%s created)", r, m)
		}
	}
	argv, err := os.ReadFile(argvFile)
	if err != nil {
		t.Fatalf("%s: the agent did not run: %v", r, err)
	}
	if lines := strings.Split(strings.TrimSuffix(string(argv), "\n"), "\n"); len(lines) != 2 || lines[0] != "kiro:text" {
		t.Errorf("the agent's argv: %q", lines)
	}
	sameFiles(t, ".kiro/", before, snapshot(t, filepath.Join(e.repo, ".kiro"), false))
}

// Spec folders whose names make the same id ("my spec" committed later
// than "my-spec", and "kiro-my-spec"): every spec is listed under an id
// of its own, the folder named exactly keeps kiro:my-spec, and a resume
// of kiro:my-spec never hands off the folder named to shadow it.
func TestAttackKiroCollidingNames(t *testing.T) {
	t.Parallel()
	needGit(t)
	e := newEnv(t)
	e.kiroRepo()
	e.kiroSpec("my-spec", kiroTasks)
	e.kiroSpec("kiro-my-spec", kiroTasks)
	e.commitAll("specs")
	e.when = commitTime.Add(time.Hour)
	e.kiroSpec("my spec", "- [x] 1. a\n- [ ] 2. SHADOW task\n")
	e.commitAll("shadow")
	e.extra = append(e.extra, "ORCHESTRATE_HANDOFF_COMMAND="+e.handoffCommand())
	r := e.run("status", "--all", "--json")
	wantCode(t, r, 0)
	wantJSON(t, r)
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
	for id, n := range ids {
		if n > 1 {
			t.Errorf("%s: %d candidates share the id %q", r, n, id)
		}
	}
	for _, src := range []string{".kiro/specs/my-spec/tasks.md", ".kiro/specs/my spec/tasks.md", ".kiro/specs/kiro-my-spec/tasks.md"} {
		if bySource[src] == "" {
			t.Errorf("%s: %s is not listed: %v", r, src, bySource)
		}
	}
	if bySource[".kiro/specs/my-spec/tasks.md"] != "kiro:my-spec" {
		t.Errorf("%s: my-spec is listed as %q, not under its own name", r, bySource[".kiro/specs/my-spec/tasks.md"])
	}
	r = e.run("resume", "--mode", "autopilot", "kiro:my-spec")
	noEscapes(t, r)
	envs, _ := filepath.Glob(filepath.Join(e.repo, ".orchestrate/handoffs/*.json"))
	for _, p := range envs {
		if b, _ := os.ReadFile(p); strings.Contains(string(b), "SHADOW") {
			t.Errorf("%s: kiro:my-spec handed off the folder named to shadow it", r)
		}
	}
}

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

// fakeAgent installs an agent program named name in folder dir that writes
// its arguments, one a line, to the file argv; it returns that file.
func (e *env) fakeAgent(dir, name string) string {
	e.t.Helper()
	argv := filepath.Join(e.dir, "argv-"+strings.ReplaceAll(strings.TrimPrefix(dir, e.dir), "/", "_")+".txt")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		e.t.Fatal(err)
	}
	script := "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done > '" + argv + "'\n"
	if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
		e.t.Fatal(err)
	}
	return argv
}

// exists reports whether p exists.
func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// workSession writes the Maestro work session id whose state names AI
// session aiID (as JSON: any byte may be in it).
func (e *env) workSession(id, aiID string) {
	e.t.Helper()
	e.write("docs/maestro/tasks/task-001.json", []byte(`{"id": "task-001", "title": "Build component Y"}`))
	ai, _ := json.Marshal(aiID)
	e.write("docs/maestro/work_sessions/"+id+".json", []byte(fmt.Sprintf(`{
  "id": %q,
  "task_id": "task-001",
  "ai_session_id": %s,
  "status": "paused",
  "created_at": "2026-11-20T10:00:00Z",
  "breadcrumbs": [{"id": "bc-001", "message": "Found 3 functions", "timestamp": "2026-11-20T10:30:00Z"}]
}
`, id, ai)))
}

// An AI session id from the state that an agent CLI would read as an
// option (`--dangerously-skip-permissions`, `-p`), or that holds a newline,
// an escape sequence or U+2028, reaches a handoff.agent preset: refused
// before anything is written (exit 17), the agent never runs, nothing of
// the repository changes, no escape reaches the terminal. A very long id
// (200,000 characters, over the system's limit for one argument) fails
// cleanly without a hang.
func TestAttackPresetHostileSessionID(t *testing.T) {
	t.Parallel()
	for name, id := range map[string]string{
		"skip-permissions": "--dangerously-skip-permissions",
		"dash-p":           "-p",
		"space-dash":       "  --dangerously-skip-permissions",
		"newline":          "abc\n--dangerously-skip-permissions",
		"escape":           "abc\x1b]0;pwned\x07",
		"line-separator":   "abc\u2028-p",
		"very-long":        strings.Repeat("a", 200000),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			needGit(t)
			e := newEnv(t)
			e.workSession("ws-evil", id)
			e.commitAll("work session")
			bin := filepath.Join(e.dir, "bin")
			argv := e.fakeAgent(bin, "claude")
			e.extra = append(e.extra, "PATH="+bin+":"+os.Getenv("PATH"), "ORCHESTRATE_HANDOFF_AGENT=claude")
			before := snapshot(t, e.repo, false)
			for _, args := range [][]string{{"status"}, {"resume", "--dry-run", "--mode", "autopilot", "work-session:ws-evil"}} {
				r := e.run(args...)
				noEscapes(t, r)
				noBidi(t, r)
			}
			sameFiles(t, "after status and dry run", before, snapshot(t, e.repo, false))
			r := e.run("resume", "--mode", "autopilot", "work-session:ws-evil")
			noEscapes(t, r)
			if name == "very-long" {
				if r.code == 0 && !exists(argv) {
					t.Errorf("%s: exit 0 but the agent did not run", r)
				}
				if b, err := os.ReadFile(argv); err == nil && !strings.Contains(string(b), "\n"+id+"\n") {
					t.Errorf("%s: the long id did not reach the agent whole", r)
				}
				return
			}
			wantCode(t, r, 17)
			if exists(argv) {
				b, _ := os.ReadFile(argv)
				t.Errorf("%s: the agent ran with %q", r, b)
			}
			sameFiles(t, "after the refused resume", before, snapshot(t, e.repo, false))
		})
	}
}

// A repository's own .orchestrate.yaml setting handoff.agent (and
// handoff.find_session), untrusted, with the agent on PATH: status and the
// dry run say the config waits for trust; a resume without a terminal
// exits 19 and runs nothing, writes nothing.
func TestAttackPresetUntrustedRepoAgent(t *testing.T) {
	t.Parallel()
	needGit(t)
	e := newEnv(t)
	e.workSession("ws-1", "5d0c-ok")
	e.write(".orchestrate.yaml", []byte("handoff:\n  agent: claude\n  find_session: true\n"))
	e.commitAll("untrusted preset")
	bin := filepath.Join(e.dir, "bin")
	argv := e.fakeAgent(bin, "claude")
	e.extra = append(e.extra, "PATH="+bin+":"+os.Getenv("PATH"))
	before := snapshot(t, e.repo, false)
	r := e.run("status")
	wantCode(t, r, 0)
	r = e.run("resume", "--mode", "autopilot", "work-session:ws-1")
	wantCode(t, r, 19)
	if !strings.Contains(r.stderr, "orchestrate trust") {
		t.Errorf("%s: the refusal does not name orchestrate trust: %s", r, r.stderr)
	}
	if exists(argv) {
		t.Errorf("%s: the repository's preset ran", r)
	}
	sameFiles(t, "the repository", before, snapshot(t, e.repo, false))
}

// PATH tricks: a `claude` committed at the repository's root (and in a
// bin/ folder) is not on PATH, so the user's handoff.agent claude runs the
// one on PATH — or, when there is none, fails with "not found" — never the
// repository's. The program is looked up by sh in the repository root, so
// a PATH whose first entry holding the program is relative or empty
// (".", "", "bin") would run the repository's: that is refused before the
// lock (exit 17, nothing written); a relative entry after the user's
// program does not matter.
func TestAttackPresetPathTricks(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name     string
		path     func(userBin string) string
		wantUser bool // the user's claude runs
	}{
		{"user-claude-on-path", func(u string) string { return u + ":/usr/bin:/bin" }, true},
		{"no-claude-on-path", func(string) string { return "/usr/bin:/bin" }, false},
		{"dot-first", func(u string) string { return ".:" + u + ":/usr/bin:/bin" }, false},
		{"empty-entry-first", func(u string) string { return ":" + u + ":/usr/bin:/bin" }, false},
		{"relative-bin", func(u string) string { return "bin:" + u + ":/usr/bin:/bin" }, false},
		{"dot-after-user", func(u string) string { return u + ":.:/usr/bin:/bin" }, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			needGit(t)
			e := newEnv(t)
			e.workSession("ws-1", "5d0c-ok")
			repoArgv := e.fakeAgent(e.repo, "claude")
			repoBinArgv := e.fakeAgent(filepath.Join(e.repo, "bin"), "claude")
			e.commitAll("a claude in the repository")
			userBin := filepath.Join(e.dir, "userbin")
			userArgv := e.fakeAgent(userBin, "claude")
			e.extra = append(e.extra, "ORCHESTRATE_HANDOFF_AGENT=claude")
			r := e.runEnv([]string{"PATH=" + c.path(userBin)}, "resume", "--mode", "autopilot", "work-session:ws-1")
			noEscapes(t, r)
			for _, p := range []string{repoArgv, repoBinArgv} {
				if exists(p) {
					t.Errorf("%s: the repository's claude ran", r)
				}
			}
			if c.wantUser != exists(userArgv) {
				t.Errorf("%s: the user's claude ran: %v, want %v\nstderr: %s", r, exists(userArgv), c.wantUser, r.stderr)
			}
			if c.wantUser {
				wantCode(t, r, 0)
			} else if c.name == "no-claude-on-path" {
				if r.code == 0 {
					t.Errorf("%s: exit 0 without the agent", r)
				}
			} else {
				// refused before the lock: exit 17, nothing handed off
				wantCode(t, r, 17)
				if !strings.Contains(r.stderr, "relative PATH entry") {
					t.Errorf("%s: the refusal does not say why: %s", r, r.stderr)
				}
				if exists(filepath.Join(e.repo, ".orchestrate/handoffs")) {
					t.Errorf("%s: an envelope was written", r)
				}
			}
		})
	}
}

// --find-session against a hostile home: a project folder that is a
// symlink to another repository's sessions, a transcript that is a FIFO,
// a symlink to a file outside, a 4 GiB sparse transcript, a transcript
// whose first line is an escape sequence and a token, 210 transcripts
// (over the 200 looked at), a session file named like an option. The
// search answers within the bounds, never follows a symlink, never blocks,
// and only a well-formed session of this repository is resumed; its first
// line is shown redacted and terminal-safe.
func TestAttackFindSessionHostileHome(t *testing.T) {
	t.Parallel()
	needGit(t)
	e := newEnv(t)
	e.workSession("ws-1", "")
	e.commitAll("a work session without AI session")
	bin := filepath.Join(e.dir, "bin")
	argv := e.fakeAgent(bin, "claude")
	e.extra = append(e.extra, "PATH="+bin+":"+os.Getenv("PATH"), "ORCHESTRATE_HANDOFF_AGENT=claude")

	touch := `{"type":"assistant","message":{"content":[{"type":"tool_use","input":{"file_path":"docs/maestro/work_sessions/ws-1.json"}}]}}` + "\n"
	root, err := filepath.EvalSymlinks(e.repo)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, r := range root {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	projects := filepath.Join(e.home, ".claude", "projects")
	proj := filepath.Join(projects, b.String())
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, data string, age time.Duration) string {
		p := filepath.Join(proj, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		when := commitTime.Add(2*time.Hour - age)
		if err := os.Chtimes(p, when, when); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// the genuine session, the oldest
	write("good-1.jsonl", `{"type":"user","message":{"role":"user","content":"Continue Y"}}`+"\n"+touch, 50*time.Minute)
	// newer hostile ones: its first line an escape sequence and a token
	write("esc-2.jsonl", `{"type":"user","message":{"role":"user","content":"\u001b]0;pwned\u0007\u001b[2J token ghp_A1b2C3d4E5A1b2C3d4E5A1b2C3d4E5A1b2C3 \u202eexe"}}`+"\n"+touch, 40*time.Minute)
	// named like an option
	write("--dangerously-skip-permissions.jsonl", touch, 1*time.Minute)
	write("-p.jsonl", touch, 1*time.Minute)
	// a FIFO and a symlink out, newest
	if err := syscall.Mkfifo(filepath.Join(proj, "fifo-3.jsonl"), 0o644); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(e.dir, "outside.jsonl")
	if err := os.WriteFile(outside, []byte(`{"type":"user","message":{"content":"OUTSIDE-SECRET"}}`+"\n"+touch), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(proj, "link-4.jsonl")); err != nil {
		t.Fatal(err)
	}
	// a 4 GiB sparse transcript
	f, err := os.Create(filepath.Join(proj, "sparse-5.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(4 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
	// 210 newer transcripts that touch nothing, 16 KiB each
	filler := strings.Repeat(`{"type":"user","message":{"content":"unrelated"}}`+"\n", 300)
	for i := 0; i < 210; i++ {
		write(fmt.Sprintf("filler-%03d.jsonl", i), filler, time.Duration(i)*time.Second)
	}
	r := e.run("resume", "--dry-run", "--mode", "autopilot", "--find-session", "work-session:ws-1")
	noEscapes(t, r)
	noBidi(t, r)
	if strings.Contains(r.stdout+r.stderr, "OUTSIDE-SECRET") || strings.Contains(r.stdout+r.stderr, "ghp_A1b2C3d4E5") {
		t.Errorf("%s: a secret or the outside file on the terminal", r)
	}
	// the project folder is a symlink to another repository's sessions:
	// skipped
	other := filepath.Join(e.dir, "other-sessions")
	if err := os.Rename(proj, other); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(other, proj); err != nil {
		t.Fatal(err)
	}
	r = e.run("resume", "--mode", "autopilot", "--find-session", "work-session:ws-1")
	noEscapes(t, r)
	if got, _ := os.ReadFile(argv); strings.Contains(string(got), "--resume") {
		t.Errorf("%s: a session was resumed through a symlinked project folder: %q", r, got)
	}
	// back in place (a real folder): the search over the hostile folder
	// resumes only a well-formed session
	if err := os.Remove(proj); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(other, proj); err != nil {
		t.Fatal(err)
	}
	_ = os.Remove(argv)
	r = e.run("resume", "--mode", "autopilot", "--again", "--find-session", "work-session:ws-1")
	noEscapes(t, r)
	noBidi(t, r)
	if strings.Contains(r.stdout+r.stderr, "OUTSIDE-SECRET") || strings.Contains(r.stdout+r.stderr, "ghp_A1b2C3d4E5") {
		t.Errorf("%s: a secret or the outside file on the terminal", r)
	}
	got, _ := os.ReadFile(argv)
	for _, bad := range []string{"--resume\n--dangerously-skip-permissions\n", "--resume\n-p\n", "fifo-3", "link-4", "sparse-5", "filler"} {
		if strings.Contains("\n"+string(got), bad) {
			t.Errorf("%s: the agent got %q: %q", r, bad, got)
		}
	}
}

// --find-session with Codex: a rollout whose session_meta names this
// repository but an id that is an option (`--dangerously-skip-permissions`)
// or holds an escape, a day folder that is a symlink to another home's
// sessions, a FIFO rollout, and 200 sparse 4 GiB rollouts newer than the
// genuine one (the search reads at most 16 MiB of each, 200 in all). The
// search stays within the time and memory bounds and never resumes a
// session with a hostile id.
func TestAttackFindSessionCodex(t *testing.T) {
	t.Parallel()
	needGit(t)
	e := newEnv(t)
	e.workSession("ws-1", "")
	e.commitAll("a work session without AI session")
	bin := filepath.Join(e.dir, "bin")
	argv := e.fakeAgent(bin, "codex")
	e.extra = append(e.extra, "PATH="+bin+":"+os.Getenv("PATH"), "ORCHESTRATE_HANDOFF_AGENT=codex")
	root, err := filepath.EvalSymlinks(e.repo)
	if err != nil {
		t.Fatal(err)
	}
	cwd, _ := json.Marshal(root)
	meta := func(id string) string {
		ids, _ := json.Marshal(id)
		return `{"timestamp":"2026-11-20T10:00:00Z","type":"session_meta","payload":{"id":` + string(ids) + `,"cwd":` + string(cwd) + `}}` + "\n"
	}
	touch := `{"type":"response_item","payload":{"type":"function_call","arguments":"{\"cmd\":\"cat docs/maestro/work_sessions/ws-1.json\"}"}}` + "\n"
	day := filepath.Join(e.home, ".codex", "sessions", "2026", "11", "20")
	if err := os.MkdirAll(day, 0o755); err != nil {
		t.Fatal(err)
	}
	n := 0
	write := func(dir, id, data string, age time.Duration) {
		n++
		p := filepath.Join(dir, fmt.Sprintf("rollout-2026-11-20T10-00-%02d-%s.jsonl", n%60, strings.Trim(id, "-\x1b")))
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		when := commitTime.Add(2*time.Hour - age)
		if err := os.Chtimes(p, when, when); err != nil {
			t.Fatal(err)
		}
	}
	write(day, "dash", meta("--dangerously-skip-permissions")+touch, time.Minute)
	write(day, "esc", meta("abc\x1b]0;pwned\x07")+touch, time.Minute)
	if err := syscall.Mkfifo(filepath.Join(day, "rollout-2026-11-20T10-00-59-fifo.jsonl"), 0o644); err != nil {
		t.Fatal(err)
	}
	// another home's day folder, symlinked in: never entered
	elsewhere := filepath.Join(e.dir, "elsewhere")
	if err := os.MkdirAll(elsewhere, 0o755); err != nil {
		t.Fatal(err)
	}
	write(elsewhere, "linked", meta("linked-session")+touch, 0)
	if err := os.Symlink(elsewhere, filepath.Join(e.home, ".codex", "sessions", "2026", "11", "21")); err != nil {
		t.Fatal(err)
	}
	// 200 sparse 4 GiB rollouts, newer than everything
	for i := 0; i < 200; i++ {
		p := filepath.Join(day, fmt.Sprintf("rollout-2026-11-20T11-00-00-sparse%03d.jsonl", i))
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString(meta(fmt.Sprintf("sparse%03d", i))); err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(4 << 30); err != nil {
			t.Fatal(err)
		}
		f.Close()
		when := commitTime.Add(2 * time.Hour)
		if err := os.Chtimes(p, when, when); err != nil {
			t.Fatal(err)
		}
	}
	r := e.run("resume", "--mode", "autopilot", "--find-session", "work-session:ws-1")
	noEscapes(t, r)
	got, _ := os.ReadFile(argv)
	for _, bad := range []string{"--dangerously-skip-permissions", "pwned", "linked-session", "fifo", "sparse"} {
		if strings.Contains(string(got), bad) {
			t.Errorf("%s: the agent got %q: %q", r, bad, got)
		}
	}
	if !exists(argv) {
		t.Errorf("%s: the agent did not run (a new session should start)\nstderr: %s", r, r.stderr)
	}
}

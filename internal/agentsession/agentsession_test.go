package agentsession

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)

func write(t *testing.T, path, data string, at time.Time) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, at, at); err != nil {
		t.Fatal(err)
	}
}

func claudeLine(text string) string {
	return `{"type":"user","message":{"role":"user","content":` + jsonString(text) + `},"cwd":"/x"}` + "\n"
}

func jsonString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\x1b", `\u001b`)
	return `"` + r.Replace(s) + `"`
}

func TestFindClaude(t *testing.T) {
	home, root := t.TempDir(), "/work/my.repo"
	proj := filepath.Join(home, ".claude", "projects", "-work-my-repo")
	touch := `{"type":"assistant","message":{"content":[{"type":"tool_use","input":{"file_path":"/work/my.repo/docs/stories/1.2.story.md"}}]}}` + "\n"
	write(t, filepath.Join(proj, "aaaa-old.jsonl"), claudeLine("old work")+touch, t0)
	write(t, filepath.Join(proj, "bbbb-unrelated.jsonl"), claudeLine("something else"), t0.Add(3*time.Hour))
	write(t, filepath.Join(proj, "cccc-new.jsonl"),
		`{"type":"user","isMeta":true,"message":{"content":"<command-name>/clear</command-name>"}}`+"\n"+
			claudeLine("Implement story 1.2 with token ghp_abcdefghijklmnopqrstuvwxyz0123456789 \x1b[31mred\nsecond line")+touch,
		t0.Add(2*time.Hour))
	// a newer transcript that is a symlink to a file outside: never read
	outside := filepath.Join(t.TempDir(), "x.jsonl")
	write(t, outside, claudeLine("outside")+touch, t0.Add(5*time.Hour))
	if err := os.Symlink(outside, filepath.Join(proj, "dddd-link.jsonl")); err != nil {
		t.Fatal(err)
	}
	// a FIFO named like a transcript: skipped without blocking
	if err := syscall.Mkfifo(filepath.Join(proj, "eeee-fifo.jsonl"), 0o600); err != nil {
		t.Fatal(err)
	}
	// an id that would read as an option
	write(t, filepath.Join(proj, "-rf.jsonl"), claudeLine("x")+touch, t0.Add(6*time.Hour))

	env := map[string]string{"HOME": home}
	s, ok, err := Find(Claude, Query{Getenv: func(k string) string { return env[k] }, Root: root, Files: []string{"docs/stories/1.2.story.md"}})
	if err != nil || !ok {
		t.Fatalf("found %v, %v", ok, err)
	}
	if s.ID != "cccc-new" || !s.Time.Equal(t0.Add(2*time.Hour)) || s.Touched != "docs/stories/1.2.story.md" {
		t.Errorf("session %+v", s)
	}
	if strings.Contains(s.FirstLine, "ghp_abcdefghij") || strings.Contains(s.FirstLine, "\x1b") || strings.Contains(s.FirstLine, "second line") {
		t.Errorf("first line not redacted, terminal-safe and cut to one line: %q", s.FirstLine)
	}
	if !strings.HasPrefix(s.FirstLine, "Implement story 1.2 with token ") {
		t.Errorf("first line %q", s.FirstLine)
	}

	// no workflow file named: nothing
	if _, ok, _ := Find(Claude, Query{Getenv: func(k string) string { return env[k] }, Root: root, Files: []string{"other.md"}}); ok {
		t.Error("found a session that touched none of the files")
	}
	// CLAUDE_CONFIG_DIR moves the folder
	env["CLAUDE_CONFIG_DIR"] = t.TempDir()
	if _, ok, err := Find(Claude, Query{Getenv: func(k string) string { return env[k] }, Root: root, Files: []string{"docs/stories/1.2.story.md"}}); ok || err != nil {
		t.Errorf("CLAUDE_CONFIG_DIR ignored: %v %v", ok, err)
	}
}

func TestFindClaudeProjectFolderSymlinkRefused(t *testing.T) {
	home, root := t.TempDir(), "/r"
	elsewhere := t.TempDir()
	write(t, filepath.Join(elsewhere, "s1.jsonl"), claudeLine("x")+"/r/a/b.go", t0)
	if err := os.MkdirAll(filepath.Join(home, ".claude", "projects"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, filepath.Join(home, ".claude", "projects", "-r")); err != nil {
		t.Fatal(err)
	}
	_, ok, err := Find(Claude, Query{Getenv: func(k string) string { return map[string]string{"HOME": home}[k] }, Root: root, Files: []string{"a/b.go"}})
	if ok || err != nil {
		t.Errorf("followed a symlinked project folder: %v %v", ok, err)
	}
}

func TestFindCodex(t *testing.T) {
	home, root := t.TempDir(), "/work/repo"
	meta := func(id, cwd string) string {
		return `{"timestamp":"2026-11-20T10:00:00Z","type":"session_meta","payload":{"id":"` + id + `","cwd":"` + cwd + `"}}` + "\n"
	}
	user := func(text string) string {
		return `{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":` + jsonString(text) + `}]}}` + "\n"
	}
	touch := `{"type":"response_item","payload":{"type":"function_call","arguments":"{\"cmd\":\"sed -n 1,20p src/app.go\"}"}}` + "\n"
	day := filepath.Join(home, ".codex", "sessions", "2026", "11", "20")
	write(t, filepath.Join(day, "rollout-2026-11-20T10-00-00-0199a.jsonl"), meta("0199a", root)+user("<environment_context>cwd</environment_context>")+user("fix the app")+touch, t0)
	write(t, filepath.Join(day, "rollout-2026-11-20T12-00-00-0199b.jsonl"), meta("0199b", "/other/repo")+user("other")+touch, t0.Add(2*time.Hour))
	write(t, filepath.Join(home, ".codex", "sessions", "2026", "10", "01", "rollout-x.jsonl"), meta("0100", root)+touch, t0.Add(-time.Hour*400))
	s, ok, err := Find(Codex, Query{Getenv: func(k string) string { return map[string]string{"HOME": home}[k] }, Root: root, Files: []string{"src/app.go"}})
	if err != nil || !ok {
		t.Fatalf("found %v, %v", ok, err)
	}
	if s.ID != "0199a" || s.FirstLine != "fix the app" || s.Agent != Codex {
		t.Errorf("session %+v", s)
	}
}

func TestFindNothing(t *testing.T) {
	get := func(k string) string { return map[string]string{"HOME": t.TempDir()}[k] }
	for _, a := range []string{Claude, Codex, "gemini"} {
		if _, ok, err := Find(a, Query{Getenv: get, Root: "/r", Files: []string{"a/b.go"}}); ok || err != nil {
			t.Errorf("%s: %v %v", a, ok, err)
		}
	}
	if Supported("gemini") || !Supported(Claude) || !Supported(Codex) {
		t.Error("Supported")
	}
}

func TestClaudeProjectDirs(t *testing.T) {
	got := ClaudeProjectDirs("/home/me/my_repo.v2")
	want := []string{"-home-me-my-repo-v2", "-home-me-my_repo-v2"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("%q, want %q", got, want)
	}
}

// TestFindBounded checks the bounds of one search: transcripts are read
// newest first up to MaxTotalRead bytes in all (nine sparse 4 GiB
// transcripts, newer than the one that touched the file, use it up), a
// Codex rollout of another cwd is skipped on its first line without
// counting, and a workflow naming thousands of files is looked for by its
// first ones only.
func TestFindBounded(t *testing.T) {
	home, root := t.TempDir(), "/work/repo"
	proj := filepath.Join(home, ".claude", "projects", "-work-repo")
	touch := `{"type":"assistant","message":{"content":[{"type":"tool_use","input":{"file_path":"/work/repo/docs/a.md"}}]}}` + "\n"
	write(t, filepath.Join(proj, "genuine.jsonl"), claudeLine("the work")+touch, t0)
	get := func(k string) string { return map[string]string{"HOME": home}[k] }
	files := []string{"docs/a.md"}
	for i := 0; i < 5000; i++ {
		files = append(files, fmt.Sprintf("src/f%04d.go", i))
	}
	q := Query{Getenv: get, Root: root, Files: files}
	if s, ok, err := Find(Claude, q); err != nil || !ok || s.ID != "genuine" {
		t.Fatalf("within the bounds: %+v %v %v", s, ok, err)
	}
	if n := needles(root, files); len(n) > 2*(maxNeedles+1) {
		t.Errorf("%d needles", len(n))
	}
	for i := 0; i < 9; i++ {
		p := filepath.Join(proj, fmt.Sprintf("sparse-%d.jsonl", i))
		write(t, p, "", t0.Add(time.Hour))
		if err := os.Truncate(p, 4<<30); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, t0.Add(time.Hour), t0.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	if s, ok, _ := Find(Claude, q); ok {
		t.Errorf("found %q past the read budget", s.ID)
	}
	t.Logf("9 sparse 4 GiB transcripts: %v", time.Since(start))
	// Codex: rollouts of another cwd are not read past their first line
	day := filepath.Join(home, ".codex", "sessions", "2026", "11", "20")
	meta := func(id, cwd string) string {
		return `{"timestamp":"2026-11-20T10:00:00Z","type":"session_meta","payload":{"id":"` + id + `","cwd":"` + cwd + `"}}` + "\n"
	}
	write(t, filepath.Join(day, "rollout-genuine.jsonl"), meta("genuine", root)+touch, t0)
	for i := 0; i < 20; i++ {
		p := filepath.Join(day, fmt.Sprintf("rollout-other-%d.jsonl", i))
		write(t, p, meta("other", "/elsewhere"), t0)
		if err := os.Truncate(p, 1<<30); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, t0.Add(time.Hour), t0.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	if s, ok, err := Find(Codex, q); err != nil || !ok || s.ID != "genuine" {
		t.Errorf("codex: %+v %v %v", s, ok, err)
	}
}

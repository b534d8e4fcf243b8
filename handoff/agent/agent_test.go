package agent

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/orchestrate-dev/orchestrate/internal/config"
)

func TestArgv(t *testing.T) {
	in := Input{EnvelopePath: "/repo/.orchestrate/handoffs/story-1.2-1.json", WorkflowID: "story:1.2", Phase: "implement", Agent: "@dev"}
	newP := Prompt(in)
	res := in
	res.SessionID = "0f8e-42"
	resP := Prompt(res)
	if !strings.Contains(newP, in.EnvelopePath) || !strings.Contains(newP, "story:1.2") || !strings.Contains(newP, "implement (agent @dev)") {
		t.Fatalf("new-session prompt lacks the envelope or the resume point: %q", newP)
	}
	if !strings.Contains(resP, in.EnvelopePath) || !strings.Contains(resP, "back to this session") {
		t.Fatalf("resume prompt: %q", resP)
	}
	type variant struct {
		interactive bool
		session     string
		want        []string
	}
	cases := map[string][]variant{
		Claude: {
			{true, "", []string{"claude", newP}},
			{false, "", []string{"claude", "-p", newP}},
			{true, "0f8e-42", []string{"claude", "--resume", "0f8e-42", resP}},
			{false, "0f8e-42", []string{"claude", "-p", "--resume", "0f8e-42", resP}},
		},
		Codex: {
			{true, "", []string{"codex", newP}},
			{false, "", []string{"codex", "exec", newP}},
			{true, "0f8e-42", []string{"codex", "resume", "0f8e-42", resP}},
			{false, "0f8e-42", []string{"codex", "exec", "resume", "0f8e-42", resP}},
		},
		Gemini: {
			{true, "", []string{"gemini", "--prompt-interactive", newP}},
			{false, "", []string{"gemini", "--prompt", newP}},
			{true, "0f8e-42", []string{"gemini", "--resume", "0f8e-42", "--prompt-interactive", resP}},
			{false, "0f8e-42", []string{"gemini", "--resume", "0f8e-42", "--prompt", resP}},
		},
		Cursor: {
			{true, "", []string{"cursor-agent", newP}},
			{false, "", []string{"cursor-agent", "-p", newP}},
			{true, "0f8e-42", []string{"cursor-agent", "--resume", "0f8e-42", resP}},
			{false, "0f8e-42", []string{"cursor-agent", "-p", "--resume", "0f8e-42", resP}},
		},
		OpenCode: {
			{true, "", []string{"opencode", "--prompt", newP}},
			{false, "", []string{"opencode", "run", newP}},
			{true, "0f8e-42", []string{"opencode", "--session", "0f8e-42", "--prompt", resP}},
			{false, "0f8e-42", []string{"opencode", "run", "--session", "0f8e-42", resP}},
		},
	}
	if len(cases) != len(Names) {
		t.Fatalf("a preset without its table: %d tables, %d presets", len(cases), len(Names))
	}
	for name, vs := range cases {
		for _, v := range vs {
			i := in
			i.Interactive, i.SessionID = v.interactive, v.session
			got, err := Argv(name, i)
			if err != nil {
				t.Fatalf("%s interactive=%v session=%q: %v", name, v.interactive, v.session, err)
			}
			if !reflect.DeepEqual(got, v.want) {
				t.Errorf("%s interactive=%v session=%q:\n got %q\nwant %q", name, v.interactive, v.session, got, v.want)
			}
		}
	}
}

func TestArgvRefuses(t *testing.T) {
	base := Input{EnvelopePath: "/r/e.json", WorkflowID: "w", Phase: "p"}
	cases := []struct {
		name  string
		in    func(Input) Input
		field string
	}{
		{"dash session", func(i Input) Input { i.SessionID = "--dangerously-skip-permissions"; return i }, "session id"},
		{"control in session", func(i Input) Input { i.SessionID = "abc\x1b[2J"; return i }, "session id"},
		{"newline in phase", func(i Input) Input { i.Phase = "p\nrm -rf /"; return i }, "phase"},
		{"escape in envelope", func(i Input) Input { i.EnvelopePath = "/r/\x1b]0;x\x07"; return i }, "envelope path"},
		{"line separator in workflow", func(i Input) Input { i.WorkflowID = "w\u2028x"; return i }, "workflow id"},
	}
	for _, tc := range cases {
		for _, name := range Names {
			_, err := Argv(name, tc.in(base))
			var ve *ValueError
			if !errors.As(err, &ve) || ve.Field != tc.field {
				t.Errorf("%s/%s: got %v, want a refused %s", tc.name, name, err, tc.field)
			}
		}
	}
	// a dash-leading phase or workflow is part of the prompt text, not an
	// option: it passes
	in := base
	in.Phase = "-x"
	if _, err := Argv(Claude, in); err != nil {
		t.Errorf("a dash-leading phase inside the prompt: %v", err)
	}
	var ue *UnknownError
	if _, err := Argv("aider", base); !errors.As(err, &ue) {
		t.Errorf("unknown preset: %v", err)
	}
}

// config checks handoff.agent against its own copy of the names.
func TestNamesMatchConfig(t *testing.T) {
	if !reflect.DeepEqual(config.AgentPresets, Names) {
		t.Fatalf("config.AgentPresets %q, agent.Names %q", config.AgentPresets, Names)
	}
}

// TestCheckPath checks that a preset's program found first through a
// relative or empty PATH entry — the repository's own `claude` when the
// command runs there — is refused, and that an absolute entry found first,
// or no program at all, is not.
func TestCheckPath(t *testing.T) {
	repo, user := t.TempDir(), t.TempDir()
	for _, d := range []string{repo, filepath.Join(repo, "bin"), user} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "claude"), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// a non-executable cursor-agent in the repository is not a program
	if err := os.WriteFile(filepath.Join(repo, "cursor-agent"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		preset, path string
		refused      bool
	}{
		{Claude, user + ":/usr/bin", false},
		{Claude, "/usr/bin:/bin", false},
		{Claude, "", false},
		{Claude, ".:" + user, true},
		{Claude, ":" + user, true},
		{Claude, user + ":", false},
		{Claude, "/nonexistent::" + user, true},
		{Claude, "bin:" + user, true},
		{Claude, user + ":.", false},
		{Cursor, ".:" + user, false},
		{Codex, ".:" + user, false},
	} {
		err := CheckPath(c.preset, c.path, repo)
		var ve *ValueError
		if got := errors.As(err, &ve); got != c.refused {
			t.Errorf("%s PATH=%q: refused %v (%v), want %v", c.preset, c.path, got, err, c.refused)
		}
		if c.refused && (ve.Field != "program" || !strings.Contains(err.Error(), "relative PATH entry")) {
			t.Errorf("%s PATH=%q: %v", c.preset, c.path, err)
		}
	}
}

package handoff

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRenderCommand(t *testing.T) {
	data := CommandData{EnvelopePath: "/repo/.orchestrate/handoffs/sdc_4.2-1.json", AISessionID: "sess-123", Agent: "dev", WorkflowID: "sdc:4.2", Phase: "develop", Root: "/my repo"}
	for tmpl, want := range map[string]string{
		"claude -p @{{.EnvelopePath}}":              "claude -p @/repo/.orchestrate/handoffs/sdc_4.2-1.json",
		"claude --resume {{.AISessionID}}":          "claude --resume sess-123",
		"run {{.Agent}} {{.WorkflowID}} {{.Phase}}": "run dev sdc:4.2 develop",
		"cd {{.Root}}": "cd '/my repo'",
	} {
		got, err := RenderCommand(tmpl, data)
		if err != nil || got != want {
			t.Errorf("RenderCommand(%q) = %q, %v; want %q", tmpl, got, err, want)
		}
	}
	data.AISessionID = `x'; touch pwned; echo '`
	got, _ := RenderCommand("echo {{.AISessionID}}", data)
	if got != `echo 'x'\''; touch pwned; echo '\'''` {
		t.Errorf("quoting: %s", got)
	}
	for _, bad := range []string{"{{.Nope}}", "{{.Agent", "{{template \"x\"}}"} {
		if _, err := RenderCommand(bad, data); err == nil {
			t.Errorf("RenderCommand(%q): want an error", bad)
		}
	}
}

func TestRunCommand(t *testing.T) {
	root := t.TempDir()
	data := CommandData{EnvelopePath: filepath.Join(root, "env.json"), AISessionID: `x'; touch pwned; echo '`, Agent: "dev", Root: root}
	var out, errOut bytes.Buffer
	status, err := RunCommand(context.Background(),
		`printf '%s|%s|%s|%s\n' "$ORCHESTRATE_HANDOFF" {{.AISessionID}} "$(pwd)" "$BASE"; echo oops >&2`,
		data, root, []string{"BASE=kept", "ORCHESTRATE_HANDOFF=stale", "PATH=" + os.Getenv("PATH")}, &out, &errOut)
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

	if status, err := RunCommand(context.Background(), "exit 3", data, root, nil, nil, nil); err != nil || status != 3 {
		t.Errorf("exit 3: %d %v", status, err)
	}
	if status, err := RunCommand(context.Background(), "kill -9 $$", data, root, nil, nil, nil); err != nil || status != 137 {
		t.Errorf("killed: %d %v", status, err)
	}
	if _, err := RunCommand(context.Background(), "{{.Bad}}", data, root, nil, nil, nil); err == nil {
		t.Error("template error: want an error")
	}
	if _, err := RunCommand(context.Background(), "   ", data, root, nil, nil, nil); err == nil {
		t.Error("empty command: want an error")
	}
	if _, err := RunCommand(context.Background(), "true", data, filepath.Join(root, "missing"), nil, nil, nil); err == nil {
		t.Error("missing folder: want an error")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := RunCommand(ctx, "sleep 5", data, root, nil, nil, nil); err == nil || !strings.Contains(err.Error(), "canceled") && !strings.Contains(err.Error(), "start") {
		t.Errorf("cancelled: %v", err)
	}
}

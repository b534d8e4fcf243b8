package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"

	"github.com/orchestrate-dev/orchestrate/handoff"
)

// fake is a Backend that records what it was asked.
type fake struct {
	holders []string
	closed  int
}

func (f *fake) Workflows(context.Context) Doc {
	return Doc{JSON: []byte(`{"schema":"orchestrate/v1","command":"status","candidates":[]}`)}
}

func (f *fake) Plan(_ context.Context, a PlanArgs) Doc {
	return Doc{JSON: []byte(`{"outcome":"not_found","exit_code":14,"error":"no workflow matches \"` + a.Workflow + `\" \u001b[31m"}`), ExitCode: 14, Failed: true}
}

func (f *fake) Log(context.Context, LogArgs) Doc {
	return Doc{JSON: []byte(`{"events":[{"msg":"token ghp_abcdefghijklmnopqrstuvwxyz0123456789"}]}`)}
}

func (f *fake) Context(_ context.Context, wf string) (*handoff.Envelope, Doc) {
	if wf != "sdc-1" {
		return nil, ErrorDoc("resume_context", 14, "no workflow matches", map[string]any{"workflow": wf})
	}
	env := handoff.Envelope{Workflow: handoff.EnvelopeWorkflow{ID: "workflow:sdc-1\x1b]0;x\x07", Type: "workflow"},
		Next: handoff.Next{Agent: "dev", Phase: "implement", Inputs: []string{"docs/stories/4.2.s.md"}}}
	env.Context.CompletedPhases = []handoff.CompletedPhase{{Phase: "create", Agent: "sm", Outputs: []string{"a.md"}}}
	env.Context.Breadcrumbs = []any{"tests pass", map[string]any{"step": "qa"}}
	return &env, Doc{}
}

func (f *fake) Claim(_ context.Context, a ClaimArgs) Doc {
	f.holders = append(f.holders, a.Holder)
	return Doc{JSON: []byte(`{"outcome":"claimed","holder":"` + a.Holder + `"}`)}
}

func (f *fake) Release(context.Context, ReleaseArgs) Doc { return Doc{} }

func (f *fake) Envelope(_ context.Context, wf string) Doc {
	if wf != "sdc-1" {
		return ErrorDoc("envelope", 14, "no claim of \""+wf+"\" is held by this server", nil)
	}
	return Doc{JSON: []byte(`{"workflow":{"id":"workflow:sdc-1\u001b]0;x\u0007"},"note":"token ghp_abcdefghijklmnopqrstuvwxyz0123456789"}`)}
}

func (f *fake) Close() { f.closed++ }

func connect(t *testing.T, b Backend, name string) *Client {
	t.Helper()
	c, err := ConnectInMemory(context.Background(), b, Options{Version: "v9"}, name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// The tools' annotations: the three reads are read-only, claim and
// release are not (and not destructive); the server names itself.
func TestToolsAndAnnotations(t *testing.T) {
	c := connect(t, &fake{}, "agent")
	if got := c.ServerName(); got != "orchestrate v9" {
		t.Errorf("serverInfo %q", got)
	}
	tools, err := c.Tools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{ToolWorkflows: true, ToolPlan: true, ToolLog: true, ToolClaim: false, ToolRelease: false}
	if len(tools) != len(want) {
		t.Errorf("%d tools, want %d", len(tools), len(want))
	}
	for _, tl := range tools {
		ro, ok := want[tl.Name]
		if !ok || tl.ReadOnly != ro {
			t.Errorf("tool %s: readOnly %v (known %v)", tl.Name, tl.ReadOnly, ok)
		}
		if !ro && (tl.Destructive == nil || *tl.Destructive) {
			t.Errorf("tool %s: destructiveHint should be false", tl.Name)
		}
	}
	for _, tl := range tools {
		if tl.Name == ToolClaim && !strings.Contains(string(tl.InputSchema), `"workflow"`) {
			t.Errorf("claim's input schema lacks workflow: %s", tl.InputSchema)
		}
	}
}

// A claim naming no holder is the MCP client's; a named one is kept. The
// end of the session closes the backend (claims released).
func TestClaimHolderIsTheClientName(t *testing.T) {
	f := &fake{}
	c := connect(t, f, "claude-code")
	ctx := context.Background()
	if _, err := c.Call(ctx, ToolClaim, map[string]any{"workflow": "sdc-1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Call(ctx, ToolClaim, map[string]any{"workflow": "sdc-1", "holder": "codex"}); err != nil {
		t.Fatal(err)
	}
	if strings.Join(f.holders, ",") != "claude-code,codex" {
		t.Errorf("holders %v", f.holders)
	}
	_ = c.Close()
	if f.closed != 1 {
		t.Errorf("backend closed %d times at the session's end, want 1", f.closed)
	}
}

// A failed Doc is a tool error (IsError) with the document as text and
// structured content; output is redacted and escaped for terminals.
func TestErrorsAndSafety(t *testing.T) {
	c := connect(t, &fake{}, "agent")
	ctx := context.Background()
	res, err := c.Call(ctx, ToolPlan, map[string]any{"workflow": "nope"})
	if err != nil {
		t.Fatalf("a protocol failure: %v", err)
	}
	if !res.IsError || !strings.Contains(res.Text, `"exit_code":14`) || strings.ContainsRune(res.Text, 0x1b) {
		t.Errorf("plan error: %v %q", res.IsError, res.Text)
	}
	var m map[string]any
	if json.Unmarshal(res.Structured, &m) != nil || m["exit_code"] != 14.0 {
		t.Errorf("structured %s", res.Structured)
	}
	res, _ = c.Call(ctx, ToolLog, nil)
	if strings.Contains(res.Text, "ghp_abcdefghij") || res.IsError {
		t.Errorf("log not redacted: %s", res.Text)
	}
	// a bad argument type: a tool error from the schema, not a crash
	res, err = c.Call(ctx, ToolLog, map[string]any{"lines": "many"})
	if err != nil || !res.IsError {
		t.Errorf("bad argument: %v %v", err, res)
	}
}

// The prompt renders the envelope as instructions, escaped; a refusal is
// its answer, not a protocol error.
func TestResumeContextPrompt(t *testing.T) {
	c := connect(t, &fake{}, "agent")
	ctx := context.Background()
	_, text, err := c.Prompt(ctx, PromptContext, map[string]string{"workflow": "sdc-1"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Next phase: implement, by agent dev.", "- docs/stories/4.2.s.md", "- create (agent sm): a.md", "- tests pass", `- {"step":"qa"}`, "```json"} {
		if !strings.Contains(text, want) {
			t.Errorf("prompt lacks %q:\n%s", want, text)
		}
	}
	if strings.ContainsAny(text, "\x1b\x07") {
		t.Error("control characters reached the prompt")
	}
	desc, text, err := c.Prompt(ctx, PromptContext, map[string]string{"workflow": "nope"})
	if err != nil || desc != "refused" || !strings.Contains(text, "no workflow matches") {
		t.Errorf("refusal: %v %q %q", err, desc, text)
	}
}

// A refused prompt's document is redacted and terminal-safe like a tool
// result: the workflow argument it names may hold a token or a bidi
// override (the refusal text once carried both as given).
func TestResumeContextRefusalIsSafe(t *testing.T) {
	c := connect(t, &fake{}, "agent")
	wf := "ghp_abcdefghijklmnopqrstuvwxyz0123456789\u202e\u009b31m"
	desc, text, err := c.Prompt(context.Background(), PromptContext, map[string]string{"workflow": wf})
	if err != nil || desc != "refused" || !strings.Contains(text, `"workflow"`) {
		t.Fatalf("refusal: %v %q %q", err, desc, text)
	}
	if strings.Contains(text, "ghp_abcdefghij") || strings.ContainsAny(text, "\u202e\u009b\x1b") {
		t.Errorf("the refusal carries the token or a control:\n%q", text)
	}
}

// The registration snippets of the README parse as their tools read them
// (JSON, TOML), start `orchestrate mcp`, and are the ones the
// documentation shows.
func TestClientSnippets(t *testing.T) {
	docs := readDocs(t)
	files, _ := filepath.Glob(filepath.Join("testdata", "clients", "*"))
	if len(files) != 4 {
		t.Fatalf("%d snippets, want 4 (Claude Code, Codex, Gemini CLI, Cursor)", len(files))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		var servers map[string]any
		if strings.HasSuffix(f, ".toml") {
			if err := toml.Unmarshal(data, &doc); err != nil {
				t.Errorf("%s: %v", f, err)
				continue
			}
			servers, _ = doc["mcp_servers"].(map[string]any)
		} else {
			dec := json.NewDecoder(bytes.NewReader(data))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&doc); err != nil {
				t.Errorf("%s: %v", f, err)
				continue
			}
			servers, _ = doc["mcpServers"].(map[string]any)
		}
		s, _ := servers["orchestrate"].(map[string]any)
		args, _ := s["args"].([]any)
		if s["command"] != "orchestrate" || len(args) == 0 || args[0] != "mcp" {
			t.Errorf("%s: the orchestrate server does not run `orchestrate mcp`: %v", f, s)
		}
		if !strings.Contains(docs, strings.TrimSpace(string(data))) {
			t.Errorf("%s: not shown as it is in the README (or docs/drafts/mcp.md)", f)
		}
	}
	if !strings.Contains(docs, "claude mcp add orchestrate -- orchestrate mcp") {
		t.Error("the Claude Code command is not documented")
	}
}

// readDocs is the README's text, with the draft of this section while it
// is one.
func readDocs(t *testing.T) string {
	t.Helper()
	var out []string
	for _, p := range []string{"../../README.md", "../../docs/drafts/mcp.md"} {
		if b, err := os.ReadFile(p); err == nil {
			out = append(out, string(b))
		}
	}
	if len(out) == 0 {
		t.Fatal("no README")
	}
	return strings.Join(out, "\n")
}

// The MCP SDK sits behind this package: no other file of the module
// imports it (tests included; they use Client).
func TestOnlyThisPackageImportsTheSDK(t *testing.T) {
	fset := token.NewFileSet()
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); n == "testdata" || n == ".git" || (strings.HasPrefix(n, ".") && n != "." && n != "..") {
				return filepath.SkipDir
			}
			if filepath.ToSlash(path) == "../../app/mcp" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			if strings.HasPrefix(strings.Trim(imp.Path.Value, `"`), "github.com/modelcontextprotocol/") {
				t.Errorf("%s imports %s: the MCP SDK is app/mcp's alone", path, imp.Path.Value)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Over-long string arguments are a usage error before the backend is
// asked (a 12 MiB workflow name once took seconds to match and echo);
// arguments at the bound go through.
func TestArgumentBounds(t *testing.T) {
	f := &fake{}
	c := connect(t, f, "agent")
	ctx := context.Background()
	long := strings.Repeat("A", maxArg+1)
	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		{ToolPlan, map[string]any{"workflow": long}},
		{ToolPlan, map[string]any{"workflow": "x", "mode": long}},
		{ToolPlan, map[string]any{"workflow": "x", "from_phase": long}},
		{ToolClaim, map[string]any{"workflow": long}},
		{ToolClaim, map[string]any{"workflow": "x", "holder": long}},
		{ToolRelease, map[string]any{"workflow": long, "outcome": "done"}},
		{ToolRelease, map[string]any{"workflow": "x", "outcome": "done", "note": strings.Repeat("n", maxNote+1)}},
	} {
		res, err := c.Call(ctx, call.tool, call.args)
		if err != nil || !res.IsError || !strings.Contains(res.Text, `"exit_code": 2,`) || !strings.Contains(res.Text, "at most") {
			t.Errorf("%s %.80v: %v %s", call.tool, call.args, err, res.Text)
		}
	}
	if len(f.holders) != 0 {
		t.Errorf("the backend was asked: %v", f.holders)
	}
	desc, text, err := c.Prompt(ctx, PromptContext, map[string]string{"workflow": long})
	if err != nil || desc != "refused" || !strings.Contains(text, "at most") || strings.Contains(text, long) {
		t.Errorf("prompt: %v %q %.200q", err, desc, text)
	}
	if res, _ := c.Call(ctx, ToolClaim, map[string]any{"workflow": strings.Repeat("w", maxArg)}); res.IsError {
		t.Errorf("a workflow at the bound: %s", res.Text)
	}
}

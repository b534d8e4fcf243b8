package progress

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/internal/sourcetest"
	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// progSeed is the progress file of the progress format, filled in.
const progSeed = "# Workflow Progress - 2025-06-30T14:35:22Z\n" +
	"\n## Execution Metadata\n" +
	"- **Workflow**: workflow.prompt.md\n" +
	"- **Started**: 2025-06-30T14:30:00Z\n" +
	"- **Last Checkpoint**: 2025-06-30T14:35:22Z\n" +
	"- **Status**: paused\n" +
	"- **Reason**: timeout\n" +
	"\n## Configuration\n```yaml\nmodel: \"gpt-4o\"\nprovider: \"github\"\ntemperature: 0.7\n```\n" +
	"\n## Conversation History\n### Message 1 (User)\nRun the workflow in workflow.prompt.md.\n" +
	"\n### Message 2 (Assistant)\nI will analyse the project, then build it.\n" +
	"\n### Message 3 (Tool Results)\n```json\n{\n  \"tool\": \"project-analysis\",\n  \"result\": { \"ok\": true },\n  \"timestamp\": \"2025-06-30T14:32:15Z\"\n}\n```\n" +
	"\n## Execution State\n" +
	"- Current step: 3 of 5\n" +
	"- Completed tools: [\"project-analysis\", \"build-test\"]\n" +
	"- Pending operations: [\"code-generation\", \"test-validation\"]\n" +
	"- Variable state: { \"project_path\": \"./MyApp.csproj\" }\n"

// progVariant is a progress file in other spellings: a session id, a
// definition id, bold lines without list markers, nested lists, an explicit
// current operation, a YAML list, comma-separated names and file lists.
const progVariant = "# Progress\n\n" +
	"**Session ID:** run-42\n" +
	"**Workflow ID:** sdc\n" +
	"**Status:** ⏸️ Failed (error: build broke)\n" +
	"**Last Updated:** 2025-07-01 10:00:00 UTC\n" +
	"**Agent:** @dev\n" +
	"**Mode:** YOLO\n" +
	"**Story:** docs/stories/4.2.login.md\n" +
	"**AI Session:** claude-abc\n" +
	"\n## Execution State\n" +
	"* Completed steps:\n" +
	"  * create\n" +
	"  * `validate`\n" +
	"* Current operation: implement\n" +
	"* Pending steps: review, implement\n" +
	"* Modified files: src/a.go, src/b.go, not a path\n" +
	"* Variables:\n" +
	"  ```json\n" +
	"  {\"out\": \"build/app.bin\", \"url\": \"https://example.com/x\"}\n" +
	"  ```\n"

// progExecBlockOnly has no metadata list and its execution state is a YAML block.
const progExecBlockOnly = "## Execution State\n```yaml\ncompleted_tools: [scan]\npending_operations: [fix, verify]\nstatus: interrupted\nfiles: [lib/x.py]\n```\n"

func progPhaseSummary(c workflow.Candidate) []string {
	var out []string
	for _, p := range c.Phases {
		out = append(out, p.Name+"="+p.Status)
	}
	return out
}

func progFileSummary(c workflow.Candidate) []string {
	var out []string
	for _, f := range c.Files {
		s := f.Path
		if f.Critical {
			s += "!"
		}
		out = append(out, s+"<"+f.From)
	}
	return out
}

func TestParseProgressSeed(t *testing.T) {
	c, fs := ParseProgress("progress.md", []byte(progSeed))
	if len(fs) != 0 || !reflect.DeepEqual(fs, c.Findings) {
		t.Fatalf("findings = %v", fs)
	}
	if c.ID != "progress:progress" || c.Key != "progress" || c.Type != workflow.TypeProgress || c.Workflow != "progress" {
		t.Errorf("id=%q key=%q type=%q workflow=%q", c.ID, c.Key, c.Type, c.Workflow)
	}
	if c.Source != (workflow.SourceRef{Kind: workflow.KindProgress, Path: "progress.md", Priority: 3}) {
		t.Errorf("source = %+v", c.Source)
	}
	if c.Status != "paused" || c.StatusRaw != "paused" || !c.Resumable {
		t.Errorf("status=%q raw=%q resumable=%v", c.Status, c.StatusRaw, c.Resumable)
	}
	if !c.UpdatedAt.Equal(sourcetest.MustTime(t, "2025-06-30T14:35:22Z")) || c.UpdatedFrom != "field:last_checkpoint" {
		t.Errorf("updated = %v from %q", c.UpdatedAt, c.UpdatedFrom)
	}
	if !c.StartedAt.Equal(sourcetest.MustTime(t, "2025-06-30T14:30:00Z")) {
		t.Errorf("started = %v", c.StartedAt)
	}
	wantPhases := []string{"project-analysis=completed", "build-test=completed", "code-generation=pending", "test-validation=pending"}
	if got := progPhaseSummary(c); !reflect.DeepEqual(got, wantPhases) {
		t.Errorf("phases = %v", got)
	}
	if c.Position != (workflow.Position{Kind: "step", Index: 3, Done: 2, Total: 5, Name: "code-generation", At: "code-generation"}) {
		t.Errorf("position = %+v", c.Position)
	}
	if got := progFileSummary(c); !reflect.DeepEqual(got, []string{"MyApp.csproj<execution_state.variable_state", "workflow.prompt.md<metadata.workflow"}) {
		t.Errorf("files = %v", got)
	}
	cfg, _ := c.Context[ProgressCtxConfiguration].(map[string]any)
	if cfg["model"] != "gpt-4o" || cfg["provider"] != "github" || cfg["temperature"] == nil {
		t.Errorf("configuration = %#v", c.Context[ProgressCtxConfiguration])
	}
	conv, _ := c.Context[ProgressCtxConversation].([]any)
	if len(conv) != 3 {
		t.Fatalf("conversation = %#v", c.Context[ProgressCtxConversation])
	}
	m3 := conv[2].(map[string]any)
	if m3["n"] != 3 || m3["role"] != "Tool Results" || !strings.Contains(m3["content"].(string), `"tool": "project-analysis"`) {
		t.Errorf("message 3 = %#v", m3)
	}
	if conv[0].(map[string]any)["role"] != "User" {
		t.Errorf("message 1 = %#v", conv[0])
	}
	if c.Context[ProgressCtxReason] != "timeout" || c.Context[ProgressCtxWorkflowFile] != "workflow.prompt.md" {
		t.Errorf("context = %#v", c.Context)
	}
	vars, _ := c.Context[ProgressCtxVariables].(map[string]any)
	if vars["project_path"] != "./MyApp.csproj" {
		t.Errorf("variables = %#v", c.Context[ProgressCtxVariables])
	}
	meta, _ := c.Context[ProgressCtxMetadata].(map[string]any)
	if meta["status"] != "paused" || meta["reason"] != "timeout" {
		t.Errorf("metadata = %#v", meta)
	}
	exec, _ := c.Context[ProgressCtxExecutionState].(map[string]any)
	if !reflect.DeepEqual(exec["completed_tools"], []any{"project-analysis", "build-test"}) || exec["current_step"] != "3 of 5" {
		t.Errorf("execution state = %#v", exec)
	}
	again, _ := ParseProgress("progress.md", []byte(progSeed))
	if !reflect.DeepEqual(c, again) {
		t.Error("parsing twice gives different candidates")
	}
	// CRLF line ends read the same
	crlf, _ := ParseProgress("progress.md", []byte(strings.ReplaceAll(progSeed, "\n", "\r\n")))
	if !reflect.DeepEqual(progPhaseSummary(crlf), wantPhases) || crlf.Position != c.Position || crlf.Status != "paused" {
		t.Errorf("CRLF: phases %v position %+v status %q", progPhaseSummary(crlf), crlf.Position, crlf.Status)
	}
}

func TestParseProgressVariants(t *testing.T) {
	c, fs := ParseProgress(".orchestrate/progress/p.md", []byte(progVariant))
	if !reflect.DeepEqual(fs, c.Findings) {
		t.Fatal("returned findings differ from the candidate's")
	}
	if c.ID != "progress:run-42" || c.Workflow != workflow.DefSDC || c.Type != workflow.TypeProgress {
		t.Errorf("id=%q workflow=%q type=%q", c.ID, c.Workflow, c.Type)
	}
	if c.Status != "failed" || !c.Resumable || !strings.Contains(c.StatusRaw, "Failed") {
		t.Errorf("status=%q raw=%q resumable=%v", c.Status, c.StatusRaw, c.Resumable)
	}
	if !c.UpdatedAt.Equal(sourcetest.MustTime(t, "2025-07-01T10:00:00Z")) || c.UpdatedFrom != "field:last_updated" {
		t.Errorf("updated = %v from %q", c.UpdatedAt, c.UpdatedFrom)
	}
	if c.Agent != "dev" || c.Mode != "autopilot" || c.AISessionID != "claude-abc" || !reflect.DeepEqual(c.Stories, []string{"4.2"}) {
		t.Errorf("agent=%q mode=%q ai=%q stories=%v", c.Agent, c.Mode, c.AISessionID, c.Stories)
	}
	want := []string{"create=completed", "validate=completed", "implement=current", "review=pending"}
	if got := progPhaseSummary(c); !reflect.DeepEqual(got, want) {
		t.Errorf("phases = %v, want %v", got, want)
	}
	if c.Position != (workflow.Position{Kind: "step", Index: 3, Done: 2, Total: 4, Name: "implement", At: "implement"}) {
		t.Errorf("position = %+v", c.Position)
	}
	// "implement" is both current and pending: reported, listed once
	if !sourcetest.HasFinding(c.Findings, "step-listed-twice", workflow.Warning) {
		t.Errorf("findings = %v", c.Findings)
	}
	wantFiles := []string{"build/app.bin<execution_state.variables", "src/a.go<execution_state.modified_files", "src/b.go<execution_state.modified_files"}
	if got := progFileSummary(c); !reflect.DeepEqual(got, wantFiles) {
		t.Errorf("files = %v, want %v", got, wantFiles)
	}
	for _, f := range c.Files {
		if f.Phase != "implement" || f.Critical {
			t.Errorf("file %+v: want phase implement, not critical", f)
		}
	}
	if vars, _ := c.Context[ProgressCtxVariables].(map[string]any); vars["out"] != "build/app.bin" {
		t.Errorf("variables = %#v", c.Context[ProgressCtxVariables])
	}

	b, fs := ParseProgress(".orchestrate/progress/scan-7.md", []byte(progExecBlockOnly))
	if len(fs) != 0 || b.ID != "progress:scan-7" || b.Status != "interrupted" {
		t.Errorf("block-only: id=%q status=%q findings=%v", b.ID, b.Status, fs)
	}
	if got := progPhaseSummary(b); !reflect.DeepEqual(got, []string{"scan=completed", "fix=pending", "verify=pending"}) {
		t.Errorf("block-only phases = %v", got)
	}
	if b.Position != (workflow.Position{Kind: "step", Index: 2, Done: 1, Total: 3, Name: "fix", At: "fix"}) || len(b.Files) != 1 || b.Files[0].Path != "lib/x.py" {
		t.Errorf("block-only position %+v files %v", b.Position, b.Files)
	}
}

func TestParseProgressStatusAndSteps(t *testing.T) {
	meta := func(lines ...string) string {
		return "## Execution Metadata\n- **Session**: s1\n" + strings.Join(lines, "\n") + "\n"
	}
	exec := func(lines ...string) string { return "\n## Execution State\n" + strings.Join(lines, "\n") + "\n" }
	tests := []struct {
		name      string
		doc       string
		status    string
		resumable bool
		phases    []string
		pos       workflow.Position
		finding   string
		sev       workflow.Severity
		check     func(t *testing.T, c workflow.Candidate)
	}{
		{name: "interrupted", doc: meta("- Status: interrupted"), status: "interrupted", resumable: true, finding: "no-execution-state", sev: workflow.Info},
		{name: "in progress", doc: meta("- Status: In Progress"), status: "in_progress", resumable: true},
		{name: "active", doc: meta("- Status: ACTIVE"), status: "active", resumable: true},
		{name: "completed is terminal", doc: meta("- Status: ✅ Completed - all steps ran"), status: "completed", resumable: false},
		{name: "done is terminal", doc: meta("- Status: done."), status: "done", resumable: false},
		{name: "unknown status", doc: meta("- Status: sleeping"), status: "sleeping", resumable: true, finding: "unknown-status", sev: workflow.Info},
		{name: "template status", doc: meta("- Status: paused | failed | interrupted"), status: "unknown", resumable: true, finding: "ambiguous-status", sev: workflow.Warning},
		{name: "no status", doc: meta("- Started: 2025-01-01"), status: "unknown", resumable: true, finding: "no-status", sev: workflow.Info},
		{name: "status is a list", doc: meta("- Status:", "  - paused"), status: "unknown", resumable: true, finding: "wrong-type", sev: workflow.Warning},
		{name: "bad timestamp", doc: meta("- Status: paused", "- Last Updated: yesterday"), status: "paused", resumable: true, finding: "wrong-type", sev: workflow.Warning,
			check: func(t *testing.T, c workflow.Candidate) {
				if !c.UpdatedAt.IsZero() || c.UpdatedFrom != "" {
					t.Errorf("updated = %v from %q", c.UpdatedAt, c.UpdatedFrom)
				}
			}},
		{name: "status in the execution state", doc: exec("- Status: paused", "- Completed: a"), status: "paused", resumable: true,
			phases: []string{"a=completed"}, pos: workflow.Position{Kind: "step", Index: 1, Done: 1, Total: 1, Name: "a"}},
		{name: "all done", doc: meta("- Status: completed") + exec("- Completed tools: [a, b]", "- Pending operations: []"), status: "completed",
			phases: []string{"a=completed", "b=completed"}, pos: workflow.Position{Kind: "step", Index: 2, Done: 2, Total: 2, Name: "b"}},
		{name: "current step by name", doc: meta("- Status: paused") + exec("- Current step: deploy", "- Completed: build"), status: "paused", resumable: true,
			phases: []string{"build=completed", "deploy=current"}, pos: workflow.Position{Kind: "step", Index: 2, Done: 1, Total: 2, Name: "deploy", At: "deploy"}},
		{name: "step with name", doc: meta("- Status: paused") + exec("- Current step: 2/4 (lint)", "- Completed: build"), status: "paused", resumable: true,
			phases: []string{"build=completed", "lint=current"}, pos: workflow.Position{Kind: "step", Index: 2, Done: 1, Total: 4, Name: "lint", At: "lint"}},
		{name: "step only", doc: meta("- Status: paused") + exec("- Current step: 3"), status: "paused", resumable: true,
			pos: workflow.Position{Kind: "step", Index: 3, Done: 2, Total: 0, At: "step 3"}},
		{name: "step past total", doc: meta("- Status: paused") + exec("- Current step: 7 of 5", "- Completed: a"), status: "paused", resumable: true,
			phases: []string{"a=completed"}, pos: workflow.Position{Kind: "step", Index: 7, Done: 6, Total: 7, At: "step 7"}, finding: "bad-step", sev: workflow.Warning},
		{name: "step not a number", doc: meta("- Status: paused") + exec("- Current step: 3rd-ish", "- Completed: a"), status: "paused", resumable: true,
			phases: []string{"a=completed"}, pos: workflow.Position{Kind: "step", Index: 1, Done: 1, Total: 1, Name: "a"}, finding: "bad-step", sev: workflow.Warning},
		{name: "step count not lining up", doc: meta("- Status: paused") + exec("- Current step: 4 of 6", "- Completed: [a]", "- Pending: [b]"), status: "paused", resumable: true,
			phases: []string{"a=completed", "b=pending"}, pos: workflow.Position{Kind: "step", Index: 4, Done: 3, Total: 6, At: "step 4"}},
		{name: "malformed list", doc: meta("- Status: paused") + exec("- Completed tools: [\"a\", b", "- Pending operations: none"), status: "paused", resumable: true,
			phases: []string{"a=completed", "b=completed"}, pos: workflow.Position{Kind: "step", Index: 2, Done: 2, Total: 2, Name: "b"}, finding: "bad-list", sev: workflow.Warning},
		{name: "list of wrong items", doc: meta("- Status: paused") + exec("- Completed tools: [[1, 2], {x: 1, y: 2}, ok]"), status: "paused", resumable: true,
			phases: []string{"ok=completed"}, pos: workflow.Position{Kind: "step", Index: 1, Done: 1, Total: 1, Name: "ok"}, finding: "wrong-type", sev: workflow.Warning},
		{name: "list items as mappings", doc: meta("- Status: paused") + exec("- Completed tools: [{tool: scan, ok: true}]", "- Pending operations:", "  - fix: the failing test"), status: "paused", resumable: true,
			phases: []string{"scan=completed", "fix=pending"}, pos: workflow.Position{Kind: "step", Index: 2, Done: 1, Total: 2, Name: "fix", At: "fix"}},
		{name: "multi-line flow list", doc: meta("- Status: paused") + exec("- Completed tools: [", "    \"a\",", "    \"b\"", "  ]"), status: "paused", resumable: true,
			phases: []string{"a=completed", "b=completed"}, pos: workflow.Position{Kind: "step", Index: 2, Done: 2, Total: 2, Name: "b"}},
		{name: "bad variables", doc: meta("- Status: paused") + exec("- Variable state: {\"a\": ", "- Completed: x"), status: "paused", resumable: true,
			phases: []string{"x=completed"}, pos: workflow.Position{Kind: "step", Index: 1, Done: 1, Total: 1, Name: "x"}, finding: "bad-variables", sev: workflow.Warning},
		{name: "bad configuration", doc: meta("- Status: paused") + "\n## Configuration\n```yaml\nmodel: [gpt\n```\n", status: "paused", resumable: true, finding: "bad-configuration", sev: workflow.Warning,
			check: func(t *testing.T, c workflow.Candidate) {
				for _, f := range c.Findings {
					if f.Code == "bad-configuration" && f.Line < 6 {
						t.Errorf("line = %d (%s)", f.Line, f.Message)
					}
				}
				if _, ok := c.Context[ProgressCtxConfiguration]; ok {
					t.Error("a bad configuration is kept")
				}
			}},
		{name: "configuration as a list", doc: meta("- Status: paused") + "\n## Configuration\n- model: gpt-4o\n- temperature: 0.2\n", status: "paused", resumable: true,
			check: func(t *testing.T, c workflow.Candidate) {
				if !reflect.DeepEqual(c.Context[ProgressCtxConfiguration], map[string]any{"model": "gpt-4o", "temperature": "0.2"}) {
					t.Errorf("configuration = %#v", c.Context[ProgressCtxConfiguration])
				}
			}},
		{name: "unclosed fence swallows nothing", doc: meta("- Status: paused") + "\n## Configuration\n```yaml\nmodel: x\n" + exec("- Completed: a"), status: "paused", resumable: true,
			phases: []string{"a=completed"}, pos: workflow.Position{Kind: "step", Index: 1, Done: 1, Total: 1, Name: "a"}},
		{name: "headings inside a message stay in it", doc: meta("- Status: paused") + "\n## Conversation History\n### Message 1 (Assistant)\nPlan:\n## Notes\n- Status: bogus\n" + exec("- Completed: a"), status: "paused", resumable: true,
			phases: []string{"a=completed"}, pos: workflow.Position{Kind: "step", Index: 1, Done: 1, Total: 1, Name: "a"},
			check: func(t *testing.T, c workflow.Candidate) {
				conv := c.Context[ProgressCtxConversation].([]any)
				if len(conv) != 1 || !strings.Contains(conv[0].(map[string]any)["content"].(string), "## Notes") {
					t.Errorf("conversation = %#v", conv)
				}
			}},
		{name: "fenced list inside the state is not a list", doc: meta("- Status: paused") + exec("```", "- Completed: a", "```", "- Completed: b"), status: "paused", resumable: true,
			phases: []string{"b=completed"}, pos: workflow.Position{Kind: "step", Index: 1, Done: 1, Total: 1, Name: "b"}},
		{name: "definition id names the workflow", doc: meta("- Status: paused", "- Workflow: brownfield-discovery"), status: "paused", resumable: true,
			check: func(t *testing.T, c workflow.Candidate) {
				if c.Workflow != "brownfield-discovery" || c.Files != nil || c.ID != "progress:s1" {
					t.Errorf("workflow=%q files=%v id=%q", c.Workflow, c.Files, c.ID)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, fs := ParseProgress("progress.md", []byte(tt.doc))
			if !reflect.DeepEqual(fs, c.Findings) {
				t.Fatal("returned findings differ from the candidate's")
			}
			if c.Status != tt.status || c.Resumable != tt.resumable {
				t.Errorf("status=%q resumable=%v, want %q %v (findings %v)", c.Status, c.Resumable, tt.status, tt.resumable, fs)
			}
			if got := progPhaseSummary(c); !reflect.DeepEqual(got, tt.phases) {
				t.Errorf("phases = %v, want %v", got, tt.phases)
			}
			if c.Position != tt.pos {
				t.Errorf("position = %+v, want %+v", c.Position, tt.pos)
			}
			if tt.finding != "" && !sourcetest.HasFinding(fs, tt.finding, tt.sev) {
				t.Errorf("want a %s %s finding, got %v", tt.sev, tt.finding, fs)
			}
			if tt.finding == "" {
				for _, f := range fs {
					if f.Severity != workflow.Info {
						t.Errorf("unexpected finding %v", f)
					}
				}
			}
			if tt.check != nil {
				tt.check(t, c)
			}
			progCheckCandidate(t, c, fs, len(tt.doc))
		})
	}
}

func TestParseProgressNotAProgressFile(t *testing.T) {
	tests := []struct {
		name, data, code string
	}{
		{"empty", "", "not-progress"},
		{"blank", "\n\n   \n", "not-progress"},
		{"readme", "# My project\n\nSome text.\n\n## Install\n- run make\n- **Note**: it is fast\n", "not-progress"},
		{"other list before sections", "- apples: 3\n- pears: 4\n", "not-progress"},
		{"empty execution state", "# Progress\n\n## Execution State\n\nnothing here\n", "not-progress"},
		{"invalid utf8", "## Execution Metadata\n- Status: \xff\xfe paused\n", "invalid-utf8"},
		{"binary", "\x00\x01\x02\x03binary\x00", "not-progress"},
		{"json", `{"status": "paused"}`, "not-progress"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, fs := ParseProgress(".orchestrate/progress/run 1.md", []byte(tt.data))
			if c.ID != "progress:run-1" || c.Status != "unreadable" || !c.Resumable || c.Type != workflow.TypeProgress {
				t.Errorf("candidate = %+v", c)
			}
			if len(fs) != 1 || fs[0].Severity != workflow.Blocking || fs[0].Check != workflow.CheckParse || fs[0].Code != tt.code {
				t.Fatalf("findings = %+v", fs)
			}
			if tt.code == "not-progress" && (!strings.Contains(fs[0].Message, "metadata") || !strings.Contains(fs[0].Message, "execution state")) {
				t.Errorf("message does not say what is missing: %q", fs[0].Message)
			}
			if tt.code == "invalid-utf8" && fs[0].Line != 2 {
				t.Errorf("line = %d", fs[0].Line)
			}
		})
	}
}

func TestParseProgressManySteps(t *testing.T) {
	var b strings.Builder
	b.WriteString("## Execution State\n- Completed tools: [")
	for i := 0; i < progMaxSteps+100; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("s" + strconv.Itoa(i))
	}
	b.WriteString("]\n")
	start := time.Now()
	c, fs := ParseProgress("progress.md", []byte(b.String()))
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %v", d)
	}
	if len(c.Phases) != progMaxSteps || !sourcetest.HasFinding(fs, "too-many-steps", workflow.Warning) {
		t.Errorf("%d phases, findings %v", len(c.Phases), fs)
	}
	// many unclosed fences stay linear
	big := strings.Repeat("```x\n", 200000/raceScale) + "## Execution State\n- Completed: a\n"
	start = time.Now()
	c, _ = ParseProgress("progress.md", []byte(big))
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("unclosed fences took %v", d)
	}
	if len(c.Phases) != 1 {
		t.Errorf("phases = %v", progPhaseSummary(c))
	}
	// a flow list continued over many lines stays linear too
	cont := "## Execution State\n- Completed: [\n" + strings.Repeat("  x,\n", 200000/raceScale) + "  y]\n"
	start = time.Now()
	c, _ = ParseProgress("progress.md", []byte(cont))
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("continuation lines took %v", d)
	}
	if got := progPhaseSummary(c); !reflect.DeepEqual(got, []string{"x=completed", "y=completed"}) {
		t.Errorf("phases = %v", got)
	}
}

func TestProgressSourceScan(t *testing.T) {
	root := t.TempDir()
	sourcetest.Write(t, root, map[string]string{
		"progress.md":                          progSeed,
		"progress.md.bak":                      progSeed,
		".orchestrate/progress/run-42.md":      progVariant,
		".orchestrate/progress/no-time.md":     "## Execution State\n- Completed: a\n",
		".orchestrate/progress/notes.md":       "# Notes\nnothing\n",
		".orchestrate/progress/bin.md":         "\x00\x01\x02binary",
		".orchestrate/progress/ignored.txt":    progSeed,
		".orchestrate/progress/sub/deeper.md":  progSeed,
		"docs/progress.md":                     progSeed,
		".orchestrate/workflows/progress.yaml": "status: active\n",
	})
	mtime := time.Date(2025, 5, 1, 12, 0, 0, 0, time.UTC)
	for _, p := range []string{".orchestrate/progress/no-time.md", ".orchestrate/progress/bin.md", ".orchestrate/progress/notes.md"} {
		if err := os.Chtimes(filepath.Join(root, filepath.FromSlash(p)), mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	r, _ := source.NewRepo(root, config.Default())
	src := ProgressSource
	if src.Kind() != workflow.KindProgress || src.Priority() != 3 {
		t.Errorf("kind=%q priority=%d", src.Kind(), src.Priority())
	}
	cs, loose := src.Scan(r)
	if len(loose) != 0 {
		t.Errorf("loose findings = %v", loose)
	}
	byPath := map[string]workflow.Candidate{}
	var paths []string
	for _, c := range cs {
		byPath[c.Source.Path] = c
		paths = append(paths, c.Source.Path)
	}
	want := []string{".orchestrate/progress/bin.md", ".orchestrate/progress/no-time.md", ".orchestrate/progress/notes.md", ".orchestrate/progress/run-42.md", "progress.md"}
	if !reflect.DeepEqual(paths, want) {
		t.Fatalf("candidates from %v, want %v", paths, want)
	}
	seed := byPath["progress.md"]
	if seed.BackupPath != "progress.md.bak" || seed.UpdatedFrom != "field:last_checkpoint" || len(seed.Phases) != 4 {
		t.Errorf("seed: backup %q updated from %q phases %d", seed.BackupPath, seed.UpdatedFrom, len(seed.Phases))
	}
	noTime := byPath[".orchestrate/progress/no-time.md"]
	if !noTime.UpdatedAt.Equal(mtime) || noTime.UpdatedFrom != "mtime" || noTime.Status != "unknown" {
		t.Errorf("no-time: %v from %q status %q", noTime.UpdatedAt, noTime.UpdatedFrom, noTime.Status)
	}
	for _, p := range []string{".orchestrate/progress/bin.md", ".orchestrate/progress/notes.md"} {
		c := byPath[p]
		if c.Status != "unreadable" || !c.Resumable || len(c.Findings) != 1 || c.Findings[0].Severity != workflow.Blocking || c.UpdatedFrom != "mtime" {
			t.Errorf("%s = %+v", p, c)
		}
	}
	if byPath[".orchestrate/progress/bin.md"].Findings[0].Code != "binary" {
		t.Errorf("bin finding = %v", byPath[".orchestrate/progress/bin.md"].Findings)
	}
	again, _ := src.Scan(r)
	if !reflect.DeepEqual(cs, again) {
		t.Error("scan is not deterministic")
	}
}

// progCheckCandidate checks what every progress candidate keeps, whatever
// the input.
func progCheckCandidate(t *testing.T, c workflow.Candidate, fs []workflow.Finding, n int) {
	t.Helper()
	sourcetest.CheckCandidate(t, c, fs, "progress:", n+8)
	if c.Type != workflow.TypeProgress || c.Source.Kind != workflow.KindProgress || c.Source.Priority != 3 {
		t.Fatalf("type %q source %+v", c.Type, c.Source)
	}
	if c.Workflow == "" {
		t.Fatal("no workflow")
	}
	if c.Position.Kind != "" && c.Position.Kind != workflow.PosStep {
		t.Fatalf("position kind %q", c.Position.Kind)
	}
	if len(c.Phases) > progMaxSteps {
		t.Fatalf("%d phases", len(c.Phases))
	}
	for _, p := range c.Phases {
		if p.Name == "" || len(p.Name) > progMaxName {
			t.Fatalf("bad phase name %q", p.Name)
		}
		switch p.Status {
		case workflow.PhaseCompleted, workflow.PhaseCurrent, workflow.PhasePending:
		default:
			t.Fatalf("phase status %q", p.Status)
		}
	}
	for _, f := range c.Files {
		if f.Critical {
			t.Fatalf("critical file %+v", f)
		}
	}
	for _, f := range fs {
		if f.Path != c.Source.Path {
			t.Fatalf("finding for another path: %+v", f)
		}
	}
}

func FuzzParseProgress(f *testing.F) {
	for _, s := range []string{progSeed, progVariant, progExecBlockOnly, "## Execution State\n- Completed tools: [\"a\", b\n```yaml\nx: [\n", "\xff\xfe"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, fs := ParseProgress("x/progress.md", data)
		progCheckCandidate(t, c, fs, len(data))
		again, _ := ParseProgress("x/progress.md", data)
		if !reflect.DeepEqual(c, again) {
			t.Fatal("not deterministic")
		}
	})
}

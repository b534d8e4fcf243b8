// Package mcp is `orchestrate mcp`: a Model Context Protocol server that
// lets an agent ask orchestrate what it knows — the interrupted workflows,
// the resume plan of one, the orchestration log, the restored context — and
// claim a workflow the way autopilot hands it off, then release it with an
// outcome. It is a front end like app/cli, and the one package that imports
// the MCP SDK (github.com/modelcontextprotocol/go-sdk): the answers come
// from a Backend the command layer implements with the CLI's own code, so
// every document is the one the matching command prints with --json.
// See docs/ARCHITECTURE.md.
package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/orchestrate-dev/orchestrate/handoff"
	"github.com/orchestrate-dev/orchestrate/internal/exitcode"
	"github.com/orchestrate-dev/orchestrate/internal/redact"
	"github.com/orchestrate-dev/orchestrate/internal/termsafe"
)

// Doc is one answer of the Backend: the JSON document the matching CLI
// command prints with --json (redacted and terminal-safe), the exit code
// the CLI exits with, and whether it is an error (a tool error, never a
// protocol failure).
type Doc struct {
	JSON     []byte
	ExitCode int
	Failed   bool
}

// PlanArgs are the arguments of the plan tool (resume WORKFLOW --dry-run --json).
type PlanArgs struct {
	Workflow  string `json:"workflow" jsonschema:"the workflow: a candidate id (sdc:4.2, epic:EPIC-ACT), its key, a unique prefix or a story id; empty: the most recent"`
	Mode      string `json:"mode,omitempty" jsonschema:"autopilot, interactive or preflight (default: as resume decides)"`
	Restart   bool   `json:"restart,omitempty" jsonschema:"plan a start from the first phase"`
	FromPhase string `json:"from_phase,omitempty" jsonschema:"plan a start from this phase"`
}

// LogArgs are the arguments of the log tool (log -n N --json).
type LogArgs struct {
	Lines *int `json:"lines,omitempty" jsonschema:"the last N events (default 20; 0: all)"`
}

// ClaimArgs are the arguments of the claim tool.
type ClaimArgs struct {
	Workflow string `json:"workflow" jsonschema:"the workflow to claim (as resume takes it)"`
	Holder   string `json:"holder,omitempty" jsonschema:"who claims it, recorded as the holder (default: the MCP client's name)"`
	Again    bool   `json:"again,omitempty" jsonschema:"hand the same workflow and phase off again although it was handed off before (resume --again)"`
	Force    bool   `json:"force,omitempty" jsonschema:"claim over conflicts and take a stale lock over (resume --force)"`
}

// ReleaseArgs are the arguments of the release tool.
type ReleaseArgs struct {
	Workflow string `json:"workflow" jsonschema:"the workflow claimed"`
	Outcome  string `json:"outcome" jsonschema:"done, failed or abandoned"`
	Note     string `json:"note,omitempty" jsonschema:"one line about the outcome, logged (redacted)"`
}

// Backend answers the server's tools and prompt. The command layer
// implements it (app/cli/mcp.go); tests may fake it.
type Backend interface {
	// Workflows is status --json --all.
	Workflows(ctx context.Context) Doc
	// Plan is resume WORKFLOW --dry-run --json.
	Plan(ctx context.Context, args PlanArgs) Doc
	// Log is log --json.
	Log(ctx context.Context, args LogArgs) Doc
	// Context is the envelope a claim of workflow would hand over, with
	// the autopilot decision in its plan; for an unknown or finished
	// workflow env is nil and the Doc says why.
	Context(ctx context.Context, workflow string) (env *handoff.Envelope, refusal Doc)
	// Claim claims a workflow for args.Holder (never empty here).
	Claim(ctx context.Context, args ClaimArgs) Doc
	// Release releases a claim with its outcome.
	Release(ctx context.Context, args ReleaseArgs) Doc
	// Envelope is the handoff envelope of a claim this server holds, the
	// workflow named as Release takes it; a workflow not claimed here is
	// refused with exit code 14 (not found).
	Envelope(ctx context.Context, workflow string) Doc
	// Close releases what is still claimed (the session ended): abandoned.
	Close()
}

// Options configure the server.
type Options struct {
	// Version is orchestrate's version, announced in serverInfo.
	Version string
	// ProgressEvery is how often a call that asked for progress hears it
	// is still running (progress.go); zero: DefaultProgressEvery.
	ProgressEvery time.Duration
}

// Names of the tools and the prompt.
const (
	ToolWorkflows = "workflows"
	ToolPlan      = "plan"
	ToolLog       = "log"
	ToolClaim     = "claim"
	ToolRelease   = "release"
	PromptContext = "resume_context"
)

// instructions tell the client what the server is for.
const instructions = `orchestrate knows where interrupted AI-agent workflows in this repository stopped, whether it is safe to continue, and whether someone already picked them up.
Read-only: "workflows" lists them (status --json --all), "plan" shows where one resumes and what blocks it (resume --dry-run --json), "log" the orchestration log; the "resume_context" prompt gives the restored context.
To take one over yourself, call "claim" (the same gates, lock and exactly-once record as orchestrate resume): you get the handoff envelope (while you hold the claim, also the resource orchestrate://envelope/{workflow}). When done, call "release" with the outcome (done, failed or abandoned).
Errors are tool results with "exit_code" and "error", as the CLI exits and prints them.`

// serialized is a Backend whose calls run one at a time, Close included:
// a claim, the reads around it and the release at the session's end each
// see one repository state.
type serialized struct {
	mu sync.Mutex
	b  Backend
}

func (s *serialized) do(f func() Doc) Doc {
	s.mu.Lock()
	defer s.mu.Unlock()
	return f()
}

// Close releases what is still claimed, after any call in flight.
func (s *serialized) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b.Close()
}

// NewServer builds the MCP server over b: the read-only tools and their
// resources (resources.go), the resume_context prompt, and claim/release,
// served one call at a time.
// Run and ConnectInMemory also close b when the session ends.
func NewServer(b Backend, opts Options) *sdk.Server {
	return newServer(&serialized{b: b}, opts)
}

func newServer(sb *serialized, opts Options) *sdk.Server {
	b := sb.b
	// call runs f through the queue, with progress when the request asks
	// for it (progress.go)
	call := func(ctx context.Context, req *sdk.CallToolRequest, name string, f func() Doc) Doc {
		if req == nil || req.Params == nil {
			return sb.do(f)
		}
		return withProgress(ctx, sb, req.Session, req.Params.GetProgressToken(), name, opts.ProgressEvery, f)
	}
	version := opts.Version
	if version == "" {
		version = "dev"
	}
	s := sdk.NewServer(&sdk.Implementation{Name: "orchestrate", Title: "orchestrate", Version: version},
		&sdk.ServerOptions{Instructions: instructions})
	readOnly := func(title string) *sdk.ToolAnnotations {
		closed := false
		return &sdk.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &closed, Title: title}
	}
	sdk.AddTool(s, &sdk.Tool{
		Name:        ToolWorkflows,
		Description: "The workflows of the repository: candidates with ids, types, statuses, positions, ages, validation, findings and lifecycle — the document of `orchestrate status --json --all`.",
		Annotations: readOnly("Interrupted workflows"),
	}, func(ctx context.Context, req *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
		return result(call(ctx, req, ToolWorkflows, func() Doc { return b.Workflows(ctx) })), nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{
		Name:        ToolPlan,
		Description: "The resume plan of a workflow without changing anything — the document of `orchestrate resume WORKFLOW --dry-run --json`: selected candidate, findings, plan (last completed phase, resume point, remaining phases, decision and reason) and exit_code (what the real run would exit with: 17 when it would halt).",
		Annotations: readOnly("Resume plan"),
	}, func(ctx context.Context, req *sdk.CallToolRequest, in PlanArgs) (*sdk.CallToolResult, any, error) {
		if d := tooLong(ToolPlan, arg{"workflow", in.Workflow, maxArg}, arg{"mode", in.Mode, maxArg}, arg{"from_phase", in.FromPhase, maxArg}); d != nil {
			return result(*d), nil, nil
		}
		return result(call(ctx, req, ToolPlan, func() Doc { return b.Plan(ctx, in) })), nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{
		Name:        ToolLog,
		Description: "The orchestration log, oldest first — the document of `orchestrate log --json`.",
		Annotations: readOnly("Orchestration log"),
	}, func(ctx context.Context, req *sdk.CallToolRequest, in LogArgs) (*sdk.CallToolResult, any, error) {
		return result(call(ctx, req, ToolLog, func() Doc { return b.Log(ctx, in) })), nil, nil
	})
	notDestructive, closed := false, false
	sdk.AddTool(s, &sdk.Tool{
		Name: ToolClaim,
		Description: "Claim a workflow to continue it yourself, as `orchestrate resume` would hand it off in autopilot: the same gates (conflicts, staleness, missing history, trust), the same lock (local, or lifecycle.remote) and the same exactly-once handoff record, with you as the holder. " +
			"Returns the handoff envelope (what was done, where to pick up, the next agent and its inputs). The lock is held until you call release. A second claim of the same phase is refused (again: true hands it off once more).",
		Annotations: &sdk.ToolAnnotations{Title: "Claim a workflow", DestructiveHint: &notDestructive, OpenWorldHint: &closed},
	}, func(ctx context.Context, req *sdk.CallToolRequest, in ClaimArgs) (*sdk.CallToolResult, any, error) {
		if d := tooLong(ToolClaim, arg{"workflow", in.Workflow, maxArg}, arg{"holder", in.Holder, maxArg}); d != nil {
			return result(*d), nil, nil
		}
		if strings.TrimSpace(in.Holder) == "" {
			in.Holder = clientName(req)
		}
		return result(call(ctx, req, ToolClaim, func() Doc { return b.Claim(ctx, in) })), nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{
		Name:        ToolRelease,
		Description: "Release a workflow you claimed, recording the outcome: done (the handoff stands), failed or abandoned (the workflow is interrupted again and can be handed off anew). Frees the lock.",
		Annotations: &sdk.ToolAnnotations{Title: "Release a claim", DestructiveHint: &notDestructive, OpenWorldHint: &closed},
	}, func(ctx context.Context, req *sdk.CallToolRequest, in ReleaseArgs) (*sdk.CallToolResult, any, error) {
		if d := tooLong(ToolRelease, arg{"workflow", in.Workflow, maxArg}, arg{"outcome", in.Outcome, maxArg}, arg{"note", in.Note, maxNote}); d != nil {
			return result(*d), nil, nil
		}
		return result(call(ctx, req, ToolRelease, func() Doc { return b.Release(ctx, in) })), nil, nil
	})
	addResources(s, b, sb, opts.ProgressEvery)
	s.AddPrompt(&sdk.Prompt{
		Name:        PromptContext,
		Title:       "Resume context",
		Description: "The restored context of an interrupted workflow — what the handoff envelope carries: completed phases and outputs, saved context, breadcrumbs, the AI session id, and where to pick up — as text an agent can act on. Nothing is claimed or written.",
		Arguments:   []*sdk.PromptArgument{{Name: "workflow", Description: "the workflow (as resume takes it)", Required: true}},
	}, func(ctx context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
		var wf string
		if req.Params != nil {
			wf = req.Params.Arguments["workflow"]
		}
		if d := tooLong(PromptContext, arg{"workflow", wf, maxArg}); d != nil {
			text := "orchestrate could not restore the context:\n" + string(safeDoc(*d))
			return &sdk.GetPromptResult{Description: "refused", Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: text}}}}, nil
		}
		var env *handoff.Envelope
		var ss *sdk.ServerSession
		var token any
		if req.Params != nil {
			ss, token = req.Session, req.Params.GetProgressToken()
		}
		d := withProgress(ctx, sb, ss, token, PromptContext, opts.ProgressEvery, func() Doc {
			e, refusal := b.Context(ctx, wf)
			env = e
			return refusal
		})
		if env == nil {
			// a refusal is the prompt's answer, not a protocol failure
			text := "orchestrate could not restore the context of " + quote(wf) + ":\n" + string(safeDoc(d))
			return &sdk.GetPromptResult{Description: "refused", Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: text}}}}, nil
		}
		return &sdk.GetPromptResult{
			Description: "Restored context of " + safe(env.Workflow.ID),
			Messages:    []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: ContextText(*env)}}},
		}, nil
	})
	return s
}

// Run serves the MCP protocol over t until the client disconnects or ctx
// ends, then releases what is still claimed (Backend.Close).
func Run(ctx context.Context, b Backend, opts Options, t sdk.Transport) error {
	sb := &serialized{b: b}
	defer sb.Close()
	return newServer(sb, opts).Run(ctx, t)
}

// Transport is a connection the server runs over (the SDK's).
type Transport = sdk.Transport

// StreamTransport is the transport of `orchestrate mcp` over in and out:
// newline-delimited JSON-RPC, each line that is not a JSON-RPC message
// answered with an error instead of ending the session (guardedTransport).
func StreamTransport(in io.Reader, out io.Writer) Transport {
	return guardedTransport(in, out)
}

// sdkIOTransport is the SDK's transport over a reader and a writer.
type sdkIOTransport = sdk.IOTransport

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// result is the tool result of d: the document as text and as structured
// content, IsError when d failed.
func result(d Doc) *sdk.CallToolResult {
	doc := safeDoc(d)
	return &sdk.CallToolResult{
		Content:           []sdk.Content{&sdk.TextContent{Text: string(doc)}},
		StructuredContent: json.RawMessage(doc),
		IsError:           d.Failed,
	}
}

// Bounds on the string arguments of a call: a workflow name, mode, phase
// or holder is short (the CLI's own arguments are bounded by the system's
// argument size; a call is not), a release note is one line.
const (
	maxArg  = 1024
	maxNote = 4096
)

// arg is one string argument of a call and its bound in bytes.
type arg struct {
	name, value string
	max         int
}

// tooLong is the usage error of the first argument over its bound, nil
// when none is: a 12 MiB workflow name once kept the server busy for
// seconds matching and echoing it.
func tooLong(command string, args ...arg) *Doc {
	for _, a := range args {
		if len(a.value) > a.max {
			d := ErrorDoc(command, int(exitcode.Usage), fmt.Sprintf("%s: the argument %s is %d bytes long; at most %d", command, a.name, len(a.value), a.max), nil)
			return &d
		}
	}
	return nil
}

// safeDoc is d's document redacted and terminal-safe, as every tool result
// and the prompt's refusal carry it (a refusal document names the workflow
// argument as given, which may hold a token or a bidi control).
func safeDoc(d Doc) []byte {
	doc := d.JSON
	if len(doc) == 0 || !json.Valid(doc) {
		doc = errorJSON(d.ExitCode, "orchestrate produced no document")
	}
	return termsafe.JSON(redact.JSON(doc))
}

// ErrorDoc is the document of a tool error orchestrate itself refused with
// no CLI document: {"exit_code": N, "error": "..."} plus extra members.
func ErrorDoc(command string, code int, msg string, extra map[string]any) Doc {
	m := map[string]any{"schema": "orchestrate/v1", "command": command, "outcome": "error", "exit_code": code, "error": msg}
	for k, v := range extra {
		m[k] = v
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		b = errorJSON(code, msg)
	}
	return Doc{JSON: append(b, '\n'), ExitCode: code, Failed: true}
}

func errorJSON(code int, msg string) []byte {
	b, _ := json.Marshal(map[string]any{"exit_code": code, "error": msg})
	return b
}

// clientName is the MCP client's name from its initialize request, the
// holder of a claim that names none.
func clientName(req *sdk.CallToolRequest) string {
	if req == nil || req.Session == nil {
		return "mcp-client"
	}
	p := req.Session.InitializeParams()
	if p == nil || p.ClientInfo == nil || strings.TrimSpace(p.ClientInfo.Name) == "" {
		return "mcp-client"
	}
	return p.ClientInfo.Name
}

func quote(s string) string { return fmt.Sprintf("%q", safe(s)) }

// safe is s redacted and with its control characters escaped.
func safe(s string) string { return termsafe.String(redact.String(s)) }

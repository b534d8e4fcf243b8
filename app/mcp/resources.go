package mcp

import (
	"context"
	"net/url"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/orchestrate-dev/orchestrate/internal/exitcode"
)

// The resources: what the read-only tools answer, for a client that reads
// context as resources rather than calling tools. Each is the same
// document as its tool (redacted and terminal-safe), application/json.
const (
	// ResourceWorkflows is the workflows tool's document (status --json --all).
	ResourceWorkflows = "orchestrate://workflows"
	// ResourceLog is the log tool's document, its last 20 events.
	ResourceLog = "orchestrate://log"
	// ResourcePlan is the plan tool's document of the workflow its
	// {workflow} names (percent-encoded as a URI path segment).
	ResourcePlan = "orchestrate://plan/{workflow}"
	// ResourceEnvelope is the handoff envelope of a claim this server
	// holds, as the claim wrote it (its {workflow} named as release takes
	// it, percent-encoded): an agent re-reads what it was handed without
	// claiming again.
	ResourceEnvelope = "orchestrate://envelope/{workflow}"
)

// What a plan and an envelope resource's URIs start with.
const (
	planPrefix     = "orchestrate://plan/"
	envelopePrefix = "orchestrate://envelope/"
)

// addResources adds the resources of the read-only tools to s, each read
// through the queue, with progress when asked, as the tools are.
func addResources(s *sdk.Server, b Backend, sb *serialized, every time.Duration) {
	serial := func(ctx context.Context, req *sdk.ReadResourceRequest, name string, f func() Doc) Doc {
		if req == nil || req.Params == nil {
			return sb.do(f)
		}
		return withProgress(ctx, sb, req.Session, req.Params.GetProgressToken(), name, every, f)
	}
	s.AddResource(&sdk.Resource{
		URI: ResourceWorkflows, Name: "workflows", Title: "Interrupted workflows", MIMEType: "application/json",
		Description: "The workflows of the repository, as the workflows tool gives them (status --json --all).",
	}, func(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
		return resourceOf(ResourceWorkflows, serial(ctx, req, ResourceWorkflows, func() Doc { return b.Workflows(ctx) })), nil
	})
	s.AddResource(&sdk.Resource{
		URI: ResourceLog, Name: "log", Title: "Orchestration log", MIMEType: "application/json",
		Description: "The last 20 events of the orchestration log, as the log tool gives them (log -n 20 --json).",
	}, func(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
		n := 20
		return resourceOf(ResourceLog, serial(ctx, req, ResourceLog, func() Doc { return b.Log(ctx, LogArgs{Lines: &n}) })), nil
	})
	// a resource of one workflow: its URI's one path segment, the
	// document name's Backend call gives for it; not found when that says
	// not found
	perWorkflow := func(prefix, name string, call func(ctx context.Context, wf string) Doc) sdk.ResourceHandler {
		return func(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			uri := ""
			if req != nil && req.Params != nil {
				uri = req.Params.URI
			}
			wf, ok := uriWorkflow(uri, prefix)
			if !ok {
				return nil, sdk.ResourceNotFoundError(uri)
			}
			if d := tooLong(name, arg{"workflow", wf, maxArg}); d != nil {
				return resourceOf(uri, *d), nil
			}
			d := serial(ctx, req, name, func() Doc { return call(ctx, wf) })
			if d.Failed && d.ExitCode == int(exitcode.NotFound) {
				return nil, sdk.ResourceNotFoundError(uri)
			}
			return resourceOf(uri, d), nil
		}
	}
	s.AddResourceTemplate(&sdk.ResourceTemplate{
		URITemplate: ResourcePlan, Name: "plan", Title: "Resume plan", MIMEType: "application/json",
		Description: "The resume plan of a workflow without changing anything, as the plan tool gives it (resume WORKFLOW --dry-run --json).",
	}, perWorkflow(planPrefix, ToolPlan, func(ctx context.Context, wf string) Doc { return b.Plan(ctx, PlanArgs{Workflow: wf}) }))
	s.AddResourceTemplate(&sdk.ResourceTemplate{
		URITemplate: ResourceEnvelope, Name: "envelope", Title: "Handoff envelope of a claim", MIMEType: "application/json",
		Description: "The handoff envelope a claim held by this server wrote (the plan, the completed phases and the restored context), as the claim returned it; a workflow not claimed here is not found.",
	}, perWorkflow(envelopePrefix, "envelope", b.Envelope))
}

// uriWorkflow is the workflow a plan or envelope resource's URI names: one
// non-empty, percent-decoded path segment after prefix.
func uriWorkflow(uri, prefix string) (string, bool) {
	rest, ok := strings.CutPrefix(uri, prefix)
	if !ok || rest == "" || strings.ContainsAny(rest, "/?#") {
		return "", false
	}
	wf, err := url.PathUnescape(rest)
	if err != nil || wf == "" {
		return "", false
	}
	return wf, true
}

// resourceOf is the resource contents of d at uri: its document, safe,
// whether it is an answer or a refusal (which says why, with exit_code and
// error, as a tool error does).
func resourceOf(uri string, d Doc) *sdk.ReadResourceResult {
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(safeDoc(d))}}}
}

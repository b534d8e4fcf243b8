package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/orchestrate-dev/orchestrate/app/cli/cmdutil"
	"github.com/orchestrate-dev/orchestrate/app/cli/jsondoc"
	"github.com/orchestrate-dev/orchestrate/app/mcp"
	"github.com/orchestrate-dev/orchestrate/app/resumeflow"
	"github.com/orchestrate-dev/orchestrate/handoff"
	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/internal/fastsys"
	"github.com/orchestrate-dev/orchestrate/internal/safefile"
)

// MCPOptions are the dependencies of `orchestrate mcp`.
type MCPOptions struct {
	Deps Deps
}

func (a *app) newMCPCmd() *cobra.Command {
	opts := &MCPOptions{}
	return &cobra.Command{
		Use:   "mcp",
		Short: "Serve the Model Context Protocol over stdio, for agents",
		Long: `Run a Model Context Protocol server on stdin and stdout for the repository given by
--repo or the working directory, so that an agent can ask where work stopped, whether it
is safe to continue and whether someone already picked it up, and claim a workflow itself.

Tools: workflows (status --json --all), plan (resume WORKFLOW --dry-run --json), log
(log --json) — read-only — and claim / release: the same gates, lock and exactly-once
handoff record as resume in autopilot, with the agent as the holder and the envelope
returned instead of a command run. Prompt: resume_context (the restored context).
Errors are tool results carrying "exit_code" and "error" as the CLI exits and prints them.
Only protocol messages go to stdout; diagnostics go to stderr.

Register it with an agent, e.g.: claude mcp add orchestrate -- orchestrate mcp`,
		Args: cmdutil.Positional(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Deps = a.deps()
			return runMCP(cmd.Context(), opts)
		},
	}
}

// runMCP serves the protocol on the streams of opts.Deps until the client
// closes them (or SIGINT/SIGTERM), then releases what is still claimed.
func runMCP(ctx context.Context, opts *MCPOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	defer fastsys.Hold()() // its handler runs while a call waits; its tools' Allow is outlasted
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	b := newMCPBackend(opts.Deps)
	err := mcp.Run(ctx, b, mcp.Options{Version: version()}, mcp.StreamTransport(opts.Deps.IO.In, opts.Deps.IO.Out))
	if err != nil && ctx.Err() == nil && !isEOF(err) {
		return fmt.Errorf("mcp: %w", err)
	}
	return nil
}

// isEOF reports whether err is the client closing the connection (stdin
// at its end), the normal end of a stdio session.
func isEOF(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) || strings.Contains(err.Error(), "EOF")
}

// mcpBackend answers the MCP server with the CLI's own code: the read-only
// tools run the commands in process with --json (the same documents, the
// same exit codes), claim/release run resumeflow's claim use case over a
// session loaded as every command loads it.
type mcpBackend struct {
	deps   Deps
	claims *resumeflow.Claims
}

func newMCPBackend(d Deps) *mcpBackend {
	return &mcpBackend{deps: d, claims: resumeflow.NewClaims()}
}

// globals are the global flags the server was started with, for each
// in-process command.
func (b *mcpBackend) globals() []string {
	var g []string
	if b.deps.Repo != "" {
		g = append(g, "--repo", b.deps.Repo)
	}
	if b.deps.Config != "" {
		g = append(g, "--config", b.deps.Config)
	}
	return g
}

// run runs orchestrate args in process, its stdout captured (never the
// protocol's stdout), its stderr passed to the server's stderr, with no
// terminal (nothing prompts: a question is exit 19 as in a pipeline).
func (b *mcpBackend) run(args []string, positional ...string) mcp.Doc {
	var out bytes.Buffer
	sys := b.deps.System
	sys.IO = IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: b.stderr()}
	sys.Prompter = nil
	argv := append(append(args, b.globals()...), "--")
	argv = append(argv, positional...)
	code := Main(argv, sys)
	return mcp.Doc{JSON: out.Bytes(), ExitCode: code}
}

func (b *mcpBackend) stderr() io.Writer {
	if b.deps.IO.ErrOut == nil {
		return io.Discard
	}
	return b.deps.IO.ErrOut
}

// failedOutcomes are the outcomes of a document that make it a tool error.
var failedOutcomes = map[string]bool{"error": true, "not_found": true, "locked": true, "terminal": true}

// judged marks d failed when the command failed: an error outcome or
// message, or an exit code other than 0 without an outcome (a dry run that
// planned a halt, exit 17, is an answer, not an error).
func judged(d mcp.Doc) mcp.Doc {
	var head struct {
		Outcome string `json:"outcome"`
		Error   string `json:"error"`
	}
	_ = json.Unmarshal(d.JSON, &head)
	switch {
	case failedOutcomes[head.Outcome], head.Error != "":
		d.Failed = true
	case head.Outcome == "" && d.ExitCode != cmdutil.ExitOK:
		d.Failed = true
	}
	return d
}

// Workflows implements mcp.Backend: status --json --all.
func (b *mcpBackend) Workflows(context.Context) mcp.Doc {
	return judged(b.run([]string{"status", "--json", "--all"}))
}

// Plan implements mcp.Backend: resume WORKFLOW --dry-run --json.
func (b *mcpBackend) Plan(_ context.Context, in mcp.PlanArgs) mcp.Doc {
	args := []string{"resume", "--dry-run", "--json"}
	// values joined to their flag: a value can never be read as a flag
	if in.Mode != "" {
		args = append(args, "--mode="+in.Mode)
	}
	if in.Restart {
		args = append(args, "--restart")
	}
	if in.FromPhase != "" {
		args = append(args, "--from-phase="+in.FromPhase)
	}
	var pos []string
	if strings.TrimSpace(in.Workflow) != "" {
		pos = []string{in.Workflow}
	}
	return judged(b.run(args, pos...))
}

// Log implements mcp.Backend: log -n N --json.
func (b *mcpBackend) Log(_ context.Context, in mcp.LogArgs) mcp.Doc {
	n := 20
	if in.Lines != nil {
		n = *in.Lines
	}
	return judged(b.run([]string{"log", "--json", "-n", strconv.Itoa(n)}))
}

// session loads the repository as every command does, with this server's
// global flags; an error is the CLI's error document.
func (b *mcpBackend) session(command string) (*app, *loadedRepo, *mcp.Doc) {
	d := b.deps
	d.IO = IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: b.stderr()}
	a := d.app()
	s, err := a.load()
	if err != nil {
		doc := mcp.ErrorDoc(command, cmdutil.CodeOf(err), cmdutil.SafeErr(err), nil)
		return nil, nil, &doc
	}
	return a, s, nil
}

// untrusted is the refusal of a claim in a repository whose untrusted
// configuration would run a program: the CLI's exit 19, naming
// `orchestrate trust` (no terminal to ask on over MCP).
func untrusted(command string, s *loadedRepo) *mcp.Doc {
	if s.conf == nil || !s.conf.Repo.NeedsTrust() {
		return nil
	}
	rc := s.conf.Repo
	var cmds []string
	for _, kv := range rc.Values {
		if config.PrivilegeOf(kv.Key) == config.RunsProgram && kv.Refused == "" && !kv.Overridden {
			cmds = append(cmds, kv.Key+" "+config.QuoteValue(kv.Value))
		}
	}
	msg := fmt.Sprintf("%s %s and would run %s: nothing was run or written. Review it and run 'orchestrate trust' to trust it, or set %s=1 to trust it for one run (CI that runs the repository's code anyway).",
		rc.Rel, rc.StateWords(), strings.Join(cmds, " and "), config.EnvTrustRepoConfig)
	doc := mcp.ErrorDoc(command, cmdutil.ExitNoTTY, cmdutil.SafeErr(fmt.Errorf("%s", msg)), map[string]any{"trust": trustDoc(s)})
	return &doc
}

// claimInput is the claim use case's input for workflow over session s.
func (b *mcpBackend) claimInput(a *app, s *loadedRepo, workflow, holder string, again, force bool) resumeflow.ClaimInput {
	in := resumeflow.ClaimInput{Session: s.Session, Workflow: workflow, Holder: holder, Again: again, Force: force, Stderr: b.stderr()}
	in.Lock = a.lockInfo()
	in.Lock.Command = resumeflow.ClaimCommand + holder
	sh := a.sharedLifecycle(s)
	if sh.err != nil {
		in.SharedErr = sharedUnusable(sh.err)
	} else if sh.store != nil {
		sh.store.Me.Owner = holder // the holder of the shared lock and records
		in.Store, in.View = sh.store, sh.view
	}
	return in
}

// refusal is the tool error of a refused claim (or context).
func refusal(command, workflow string, e *resumeflow.ClaimError) mcp.Doc {
	extra := map[string]any{}
	if workflow != "" {
		extra["workflow"] = workflow
	}
	if e.Reason != "" {
		extra["reason"] = e.Reason
	}
	if e.Holder != nil {
		extra["holder"] = jsondoc.NewHolder(*e.Holder)
	}
	if e.Plan != nil {
		extra["plan"] = e.Plan
		extra["findings"] = e.Findings
	}
	d := mcp.ErrorDoc(command, int(e.Code), cmdutil.SafeErr(e.Err), extra)
	return d
}

// Context implements mcp.Backend: the envelope a claim would hand over.
func (b *mcpBackend) Context(_ context.Context, workflow string) (*handoff.Envelope, mcp.Doc) {
	if strings.TrimSpace(workflow) == "" {
		return nil, mcp.ErrorDoc("resume_context", cmdutil.ExitUsage, "resume_context: name the workflow (argument workflow)", nil)
	}
	a, s, derr := b.session("resume_context")
	if derr != nil {
		return nil, *derr
	}
	in := b.claimInput(a, s, workflow, "resume_context", false, false)
	in.Store = nil // reads the shared view (a workflow held there is refused), takes nothing
	env, cerr := resumeflow.Context(in)
	if cerr != nil {
		return nil, refusal("resume_context", workflow, cerr)
	}
	return &env, mcp.Doc{}
}

// Claim implements mcp.Backend.
func (b *mcpBackend) Claim(_ context.Context, in mcp.ClaimArgs) mcp.Doc {
	holder, err := resumeflow.CleanHolder(in.Holder)
	if err != nil {
		return mcp.ErrorDoc("claim", cmdutil.ExitUsage, cmdutil.SafeErr(err), nil)
	}
	if strings.TrimSpace(in.Workflow) == "" {
		return mcp.ErrorDoc("claim", cmdutil.ExitUsage, "claim: name the workflow (argument workflow)", nil)
	}
	a, s, derr := b.session("claim")
	if derr != nil {
		return *derr
	}
	if d := untrusted("claim", s); d != nil {
		return *d
	}
	cl, cerr := resumeflow.ClaimWorkflow(b.claimInput(a, s, in.Workflow, holder, in.Again, in.Force))
	if cerr != nil {
		return refusal("claim", in.Workflow, cerr)
	}
	raw, err := safefile.Read(s.Root, rel(s.Root, cl.EnvelopePath), 16<<20)
	if err != nil || !json.Valid(raw) {
		raw = []byte("null")
	}
	b.claims.Add(cl, raw)
	doc := jsondoc.Claim{ClaimHead: jsondoc.ClaimHead{Schema: jsondoc.Schema, Command: "claim", Outcome: "claimed", Workflow: cl.Workflow, Holder: cl.Holder},
		Agent: cl.Agent, Phase: cl.Phase, EnvelopePath: rel(s.Root, cl.EnvelopePath), IdempotencyKey: cl.IdempotencyKey,
		Shared: cl.Shared, Unconfirmed: cl.Unconfirmed, Envelope: raw}
	return jsonDoc(doc, cmdutil.ExitOK)
}

// Release implements mcp.Backend.
func (b *mcpBackend) Release(_ context.Context, in mcp.ReleaseArgs) mcp.Doc {
	outcome, err := resumeflow.ParseOutcome(in.Outcome)
	if err != nil {
		return mcp.ErrorDoc("release", cmdutil.ExitUsage, cmdutil.SafeErr(err), nil)
	}
	cl, _, ok := b.claims.Named(in.Workflow)
	if !ok {
		return b.notHeld("release", cmdutil.ExitUsage, in.Workflow)
	}
	b.claims.Remove(cl.Workflow)
	if err := cl.Release(outcome, in.Note, b.now()); err != nil {
		return mcp.ErrorDoc("release", cmdutil.ExitError, cmdutil.SafeErr(err), map[string]any{"workflow": cl.Workflow})
	}
	return jsonDoc(jsondoc.Release{ClaimHead: jsondoc.ClaimHead{Schema: jsondoc.Schema, Command: "release", Outcome: "released", Workflow: cl.Workflow, Holder: cl.Holder}, Result: outcome}, cmdutil.ExitOK)
}

// Envelope implements mcp.Backend: the envelope a claim held here wrote,
// as the claim returned it.
func (b *mcpBackend) Envelope(_ context.Context, workflow string) mcp.Doc {
	_, env, ok := b.claims.Named(workflow)
	if !ok {
		return b.notHeld("envelope", cmdutil.ExitNotFound, workflow)
	}
	return mcp.Doc{JSON: env}
}

// notHeld is the error document of command naming a workflow this server
// holds no claim of, with the claims it holds.
func (b *mcpBackend) notHeld(command string, code int, workflow string) mcp.Doc {
	err := fmt.Errorf("no claim of %q is held by this server (held: %s)", workflow, orDash(strings.Join(b.claims.IDs(), ", ")))
	return mcp.ErrorDoc(command, code, cmdutil.SafeErr(err), nil)
}

// Close implements mcp.Backend: what is still claimed when the session
// ends is released as abandoned.
func (b *mcpBackend) Close() {
	for _, id := range b.claims.IDs() {
		cl, _, _ := b.claims.Named(id)
		if err := cl.Release(resumeflow.OutcomeAbandoned, "the MCP session ended without a release", b.now()); err != nil {
			fmt.Fprintf(b.stderr(), "orchestrate: warning: %s\n", cmdutil.SafeErr(err))
		}
		b.claims.Remove(id)
	}
}

func (b *mcpBackend) now() time.Time {
	if b.deps.Now == nil {
		return time.Now()
	}
	return b.deps.Now()
}

// jsonDoc is v as a document, as jsondoc.Write writes it (redacted, safe).
func jsonDoc(v any, code int) mcp.Doc {
	var buf bytes.Buffer
	if err := jsondoc.Write(&buf, v); err != nil {
		return mcp.ErrorDoc("mcp", cmdutil.ExitError, err.Error(), nil)
	}
	return mcp.Doc{JSON: buf.Bytes(), ExitCode: code}
}

package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Client is an MCP client session as the tests (and the end-to-end test of
// the built binary) drive the server: the SDK's client behind the seam, so
// no other package imports the SDK.
type Client struct {
	cs    *sdk.ClientSession
	done  chan error // the in-memory server's end, nil over a command
	once  sync.Once
	close error

	mu       sync.Mutex
	progress []Progress    // every notifications/progress received, in order
	heard    chan struct{} // closed and replaced at each one
}

// Progress is one notifications/progress the client received.
type Progress struct {
	Token    any
	Progress float64
	Total    float64
	Message  string
}

// newClient is a Client named name whose SDK client records progress
// notifications.
func newClient(name string) (*Client, *sdk.Client) {
	c := &Client{heard: make(chan struct{})}
	sc := sdk.NewClient(&sdk.Implementation{Name: name, Version: "test"}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			if req == nil || req.Params == nil {
				return
			}
			c.mu.Lock()
			c.progress = append(c.progress, Progress{Token: req.Params.ProgressToken, Progress: req.Params.Progress, Total: req.Params.Total, Message: req.Params.Message})
			close(c.heard)
			c.heard = make(chan struct{})
			c.mu.Unlock()
		},
	})
	return c, sc
}

// ToolResult is a tools/call result: the text content, the structured
// content as JSON, and whether it is a tool error.
type ToolResult struct {
	Text       string
	Structured json.RawMessage
	IsError    bool
}

// ToolInfo is a tool as tools/list announces it.
type ToolInfo struct {
	Name        string
	ReadOnly    bool
	Destructive *bool
	InputSchema json.RawMessage
}

// ConnectInMemory serves b over the SDK's in-memory transports and
// connects a client named clientName to it. Close ends both.
func ConnectInMemory(ctx context.Context, b Backend, opts Options, clientName string) (*Client, error) {
	st, ct := sdk.NewInMemoryTransports()
	done := make(chan error, 1)
	sb := &serialized{b: b}
	ss, err := newServer(sb, opts).Connect(ctx, st, nil)
	if err != nil {
		return nil, fmt.Errorf("mcp: serve in memory: %w", err)
	}
	go func() {
		err := ss.Wait()
		sb.Close()
		done <- err
	}()
	c, sc := newClient(clientName)
	cs, err := sc.Connect(ctx, ct, nil)
	if err != nil {
		_ = ss.Close()
		return nil, fmt.Errorf("mcp: connect in memory: %w", err)
	}
	c.cs, c.done = cs, done
	return c, nil
}

// ConnectCommand starts cmd (an `orchestrate mcp`) and connects a client
// named clientName to it over its stdin and stdout.
func ConnectCommand(ctx context.Context, cmd *exec.Cmd, clientName string) (*Client, error) {
	c, sc := newClient(clientName)
	cs, err := sc.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return nil, fmt.Errorf("mcp: connect to %s: %w", cmd.Path, err)
	}
	c.cs = cs
	return c, nil
}

// ServerName is the server's name and version from its initialize result.
func (c *Client) ServerName() string {
	r := c.cs.InitializeResult()
	if r == nil || r.ServerInfo == nil {
		return ""
	}
	return r.ServerInfo.Name + " " + r.ServerInfo.Version
}

// Tools lists the server's tools.
func (c *Client) Tools(ctx context.Context) ([]ToolInfo, error) {
	res, err := c.cs.ListTools(ctx, nil)
	if err != nil {
		return nil, err
	}
	var out []ToolInfo
	for _, t := range res.Tools {
		ti := ToolInfo{Name: t.Name}
		if t.Annotations != nil {
			ti.ReadOnly, ti.Destructive = t.Annotations.ReadOnlyHint, t.Annotations.DestructiveHint
		}
		ti.InputSchema, _ = json.Marshal(t.InputSchema)
		out = append(out, ti)
	}
	return out, nil
}

// Prompts lists the server's prompt names.
func (c *Client) Prompts(ctx context.Context) ([]string, error) {
	res, err := c.cs.ListPrompts(ctx, nil)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range res.Prompts {
		out = append(out, p.Name)
	}
	return out, nil
}

// Call calls tool name with args; a protocol failure is an error, a tool
// error is a result with IsError.
func (c *Client) Call(ctx context.Context, name string, args map[string]any) (ToolResult, error) {
	return c.call(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
}

// call sends params and converts the result.
func (c *Client) call(ctx context.Context, params *sdk.CallToolParams) (ToolResult, error) {
	res, err := c.cs.CallTool(ctx, params)
	if err != nil {
		return ToolResult{}, err
	}
	out := ToolResult{IsError: res.IsError, Text: texts(res.Content)}
	if res.StructuredContent != nil {
		out.Structured, _ = json.Marshal(res.StructuredContent)
	}
	return out, nil
}

// CallWithProgress is Call asking for progress under token: the server's
// notifications/progress for it are then in ProgressOf(token).
func (c *Client) CallWithProgress(ctx context.Context, name string, args map[string]any, token string) (ToolResult, error) {
	params := &sdk.CallToolParams{Name: name, Arguments: args}
	params.SetProgressToken(token)
	return c.call(ctx, params)
}

// ProgressOf is every progress notification received so far for token
// (all of them when token is nil), in the order received.
func (c *Client) ProgressOf(token any) []Progress {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []Progress
	for _, p := range c.progress {
		if token == nil || p.Token == token {
			out = append(out, p)
		}
	}
	return out
}

// WaitProgress waits until ok holds of ProgressOf(token), or ctx ends
// (its error).
func (c *Client) WaitProgress(ctx context.Context, token any, ok func([]Progress) bool) error {
	for {
		c.mu.Lock()
		heard := c.heard
		c.mu.Unlock()
		if ok(c.ProgressOf(token)) {
			return nil
		}
		select {
		case <-heard:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Prompt gets prompt name with args: its description and its messages'
// text.
func (c *Client) Prompt(ctx context.Context, name string, args map[string]string) (desc, text string, err error) {
	res, err := c.cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: name, Arguments: args})
	if err != nil {
		return "", "", err
	}
	var parts []string
	for _, m := range res.Messages {
		parts = append(parts, texts([]sdk.Content{m.Content}))
	}
	return res.Description, strings.Join(parts, "\n"), nil
}

// Close ends the session (and the in-memory server, waiting for it to
// release what is still claimed). Closing twice is closing once.
func (c *Client) Close() error {
	c.once.Do(func() {
		c.close = c.cs.Close()
		if c.done != nil {
			<-c.done // the server ends with the connection: not a failure
		}
	})
	return c.close
}

// texts joins the text contents of cs.
func texts(cs []sdk.Content) string {
	var out []string
	for _, c := range cs {
		if t, ok := c.(*sdk.TextContent); ok {
			out = append(out, t.Text)
		}
	}
	return strings.Join(out, "\n")
}

// Resources lists the server's resources' URIs, then its resource
// templates' (as resources/list and resources/templates/list give them).
func (c *Client) Resources(ctx context.Context) ([]string, error) {
	res, err := c.cs.ListResources(ctx, nil)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, r := range res.Resources {
		out = append(out, r.URI)
	}
	tres, err := c.cs.ListResourceTemplates(ctx, nil)
	if err != nil {
		return nil, err
	}
	for _, t := range tres.ResourceTemplates {
		out = append(out, t.URITemplate)
	}
	return out, nil
}

// ReadResource reads the resource at uri: its text and MIME type.
func (c *Client) ReadResource(ctx context.Context, uri string) (text, mime string, err error) {
	res, err := c.cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
	if err != nil {
		return "", "", err
	}
	for _, rc := range res.Contents {
		text += rc.Text
		mime = rc.MIMEType
	}
	return text, mime, nil
}

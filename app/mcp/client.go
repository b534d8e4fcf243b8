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
	cs, err := sdk.NewClient(&sdk.Implementation{Name: clientName, Version: "test"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		_ = ss.Close()
		return nil, fmt.Errorf("mcp: connect in memory: %w", err)
	}
	return &Client{cs: cs, done: done}, nil
}

// ConnectCommand starts cmd (an `orchestrate mcp`) and connects a client
// named clientName to it over its stdin and stdout.
func ConnectCommand(ctx context.Context, cmd *exec.Cmd, clientName string) (*Client, error) {
	cs, err := sdk.NewClient(&sdk.Implementation{Name: clientName, Version: "test"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return nil, fmt.Errorf("mcp: connect to %s: %w", cmd.Path, err)
	}
	return &Client{cs: cs}, nil
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
	res, err := c.cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return ToolResult{}, err
	}
	out := ToolResult{IsError: res.IsError, Text: texts(res.Content)}
	if res.StructuredContent != nil {
		out.Structured, _ = json.Marshal(res.StructuredContent)
	}
	return out, nil
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

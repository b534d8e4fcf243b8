package mcp

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// planFake knows one workflow, sdc:4.2.
type planFake struct{ fake }

func (f *planFake) Plan(ctx context.Context, a PlanArgs) Doc {
	if a.Workflow == "sdc:4.2" {
		return Doc{JSON: []byte(`{"command":"resume","selected":"sdc:4.2","exit_code":0}`)}
	}
	return f.fake.Plan(ctx, a)
}

// The read-only tools' documents are resources too: listed, the same
// documents (redacted, terminal-safe) as the tools', an unknown workflow's
// plan a resource-not-found error, a bad URI too.
func TestResources(t *testing.T) {
	ctx := context.Background()
	c := connect(t, &planFake{}, "reader")
	got, err := c.Resources(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{ResourceLog, ResourceWorkflows, ResourcePlan, ResourceEnvelope}; !reflect.DeepEqual(sorted2(got), sorted2(want)) {
		t.Errorf("resources %v, want %v", got, want)
	}
	for _, tc := range []struct{ uri, tool string }{{ResourceWorkflows, ToolWorkflows}, {ResourceLog, ToolLog}} {
		text, mime, err := c.ReadResource(ctx, tc.uri)
		if err != nil {
			t.Fatalf("%s: %v", tc.uri, err)
		}
		args := map[string]any{}
		if tc.tool == ToolLog {
			args["lines"] = 20
		}
		tr, err := c.Call(ctx, tc.tool, args)
		if err != nil {
			t.Fatal(err)
		}
		if text != tr.Text || mime != "application/json" || !json.Valid([]byte(text)) {
			t.Errorf("%s: %q (%s), want the %s tool's %q", tc.uri, text, mime, tc.tool, tr.Text)
		}
	}
	if text, _, _ := c.ReadResource(ctx, ResourceLog); strings.Contains(text, "ghp_") {
		t.Errorf("the log resource carries a token: %s", text)
	}
	text, _, err := c.ReadResource(ctx, "orchestrate://plan/sdc%3A4.2")
	if err != nil || !strings.Contains(text, `"selected":"sdc:4.2"`) {
		t.Errorf("plan of sdc:4.2: %q, %v", text, err)
	}
	for _, uri := range []string{"orchestrate://plan/nope", "orchestrate://plan/", "orchestrate://plan/a/b", "orchestrate://plan/%zz", "orchestrate://nothing"} {
		if text, _, err := c.ReadResource(ctx, uri); err == nil {
			t.Errorf("%s: %q, want an error", uri, text)
		}
	}
	// the envelope of a claim held: its document, safe; another workflow's,
	// or a bad URI, not found
	text, mime, err := c.ReadResource(ctx, "orchestrate://envelope/sdc-1")
	if err != nil || mime != "application/json" || !strings.Contains(text, "workflow:sdc-1") || strings.Contains(text, "ghp_") || strings.Contains(text, "\x1b") {
		t.Errorf("envelope of sdc-1: %q (%s), %v", text, mime, err)
	}
	for _, uri := range []string{"orchestrate://envelope/nope", "orchestrate://envelope/", "orchestrate://envelope/a/b", "orchestrate://envelope/%zz"} {
		if text, _, err := c.ReadResource(ctx, uri); err == nil {
			t.Errorf("%s: %q, want an error", uri, text)
		}
	}
	long := "orchestrate://plan/" + strings.Repeat("x", maxArg+1)
	if text, _, err := c.ReadResource(ctx, long); err != nil || !strings.Contains(text, `"exit_code": 2`) {
		t.Errorf("an over-long workflow: %q, %v; want the usage error document", text, err)
	}
}

func sorted2(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

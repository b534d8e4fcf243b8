package progress

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/statepatch"
)

const seedProgress = "# Workflow Progress - 2025-06-30T14:35:22Z\n" +
	"\n" +
	"## Execution Metadata\n" +
	"- **Workflow**: workflow.prompt.md\n" +
	"- **Started**: 2025-06-30T14:30:00Z\n" +
	"- **Last Checkpoint**: 2025-06-30T14:35:22Z\n" +
	"- **Status**: paused\n" +
	"- **Reason**: timeout\n" +
	"\n" +
	"## Configuration\n" +
	"```yaml\n" +
	"model: \"gpt-4o\"\n" +
	"status: not-this-one\n" +
	"```\n" +
	"\n" +
	"## Conversation History\n" +
	"### Message 1 (User)\n" +
	"- Status: not this one either\n" +
	"\n" +
	"## Execution State\n" +
	"- Current step: 3 of 5\n" +
	"- Completed tools: [\"project-analysis\", \"build-test\"]\n" +
	"- Pending operations: [\"code-generation\", \"test-validation\"]\n"

func TestPatchProgressSeed(t *testing.T) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	out, err := Patch("md", []byte(seedProgress), now)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(seedProgress, "- **Status**: paused\n- **Reason**: timeout\n",
		"- **Status**: active\n- **Reason**: timeout\n- **Resumed At**: 2026-11-20T12:00:00Z\n- **Resume Count**: 1\n", 1)
	if string(out) != want {
		t.Fatalf("got:\n%s\nwant:\n%s", out, want)
	}
	c, _ := ParseProgress("md", out)
	if c.Status != "active" {
		t.Errorf("status %q", c.Status)
	}

	// a second resume updates the lines in place
	later := now.Add(time.Hour)
	out2, err := Patch("md", out, later)
	if err != nil {
		t.Fatal(err)
	}
	want2 := strings.Replace(want, "2026-11-20T12:00:00Z\n- **Resume Count**: 1", "2026-11-20T13:00:00Z\n- **Resume Count**: 2", 1)
	if string(out2) != want2 {
		t.Fatalf("second resume:\n%s", out2)
	}
	if StateHash([]byte(seedProgress)) != StateHash(out) || StateHash(out) != StateHash(out2) {
		t.Error("the state hash changes with the resume fields")
	}
	if StateHash([]byte(seedProgress)) == StateHash([]byte(strings.Replace(seedProgress, "timeout", "error", 1))) {
		t.Error("the state hash ignores other fields")
	}
}

func TestPatchProgressStyles(t *testing.T) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	cases := []struct{ name, in, want string }{
		{
			"bold colon inside, no final newline",
			"# P\n\n**Status:** `failed`\n**Session ID:** run-7",
			"# P\n\n**Status:** `active`\n**Session ID:** run-7\n**Resumed At:** 2026-11-20T12:00:00Z\n**Resume Count:** 1",
		},
		{
			"plain lower-case keys, CRLF, existing count",
			"## Execution Metadata\r\n- status: interrupted (user_interrupt)\r\n- resume_count: 4\r\n- workflow: wf.md\r\n\r\n## Execution State\r\n- Current step: 1 of 2\r\n",
			"## Execution Metadata\r\n- status: active\r\n- resume_count: 5\r\n- workflow: wf.md\r\n- resumed_at: 2026-11-20T12:00:00Z\r\n\r\n## Execution State\r\n- Current step: 1 of 2\r\n",
		},
		{
			"nested list under the last item",
			"## Execution Metadata\n* **Status**: paused\n* **Files**:\n  - a.go\n  - b.go\nText after.\n",
			"## Execution Metadata\n* **Status**: active\n* **Files**:\n  - a.go\n  - b.go\n* **Resumed At**: 2026-11-20T12:00:00Z\n* **Resume Count**: 1\nText after.\n",
		},
		{
			"no status line",
			"## Execution Metadata\n- **Workflow**: wf.md\n\n## Execution State\n- Current step: 2 of 3\n",
			"## Execution Metadata\n- **Workflow**: wf.md\n- **Status**: active\n- **Resumed At**: 2026-11-20T12:00:00Z\n- **Resume Count**: 1\n\n## Execution State\n- Current step: 2 of 3\n",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, err := Patch("p.md", []byte(tc.in), now)
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tc.want {
				t.Errorf("got:\n%q\nwant:\n%q", out, tc.want)
			}
		})
	}
}

func TestPatchProgressRefuses(t *testing.T) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	for name, in := range map[string]string{
		"not a progress file": "# Notes\n\nJust prose.\n",
		"bad count":           "## Execution Metadata\n- Status: paused\n- Resume Count: many\n",
		"not utf-8":           "## Execution Metadata\n- Status: \xff\n",
	} {
		if _, err := Patch("p.md", []byte(in), now); err == nil {
			t.Errorf("%s: want an error", name)
		}
	}
	if _, err := Patch("p.md", []byte("# Notes\n\nJust prose.\n"), now); !errors.Is(err, statepatch.ErrNotPatchable) {
		t.Errorf("prose: err = %v, want statepatch.ErrNotPatchable", err)
	}
}

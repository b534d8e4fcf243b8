package source_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

func TestStemAndStateStem(t *testing.T) {
	for in, want := range map[string]string{
		"a/b/story.1.md": "story.1",
		".hidden":        "hidden",
		`dir\x.yaml`:     "x",
		"...":            "state",
		"":               "state",
		"plain":          "plain",
	} {
		if got := source.Stem(in); got != want {
			t.Errorf("Stem(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"a/b/state.yaml.bak": "state",
		"a/b/state.yaml":     "state",
		".env":               ".env",
		"x/":                 "x",
		"":                   "",
		"/":                  "",
	} {
		if got := source.StateStem(in); got != want {
			t.Errorf("StateStem(%q) = %q, want %q", in, got, want)
		}
	}
	if !source.IsBackup("s.yaml.bak") || source.IsBackup("s.bak.yaml") {
		t.Error("IsBackup: only a .bak suffix is a backup")
	}
}

func TestFileSetMergesAndBounds(t *testing.T) {
	s := source.NewFileSet([]workflow.RefFile{
		{Path: "./a/../b.md"},
		{Path: "b.md", Critical: true, Hash: "h1", Phase: "p1"},
		{Path: "b.md", Hash: "h2", Phase: "p2", Produced: true},
		{Path: ""},
		{Path: "a.md", Produced: true},
	})
	want := []workflow.RefFile{
		{Path: "a.md", Produced: true},
		{Path: "b.md", Critical: true, Produced: true, Hash: "h1", Phase: "p1"},
	}
	if got := s.Sorted(); !reflect.DeepEqual(got, want) {
		t.Errorf("Sorted = %+v\nwant %+v", got, want)
	}

	big := source.NewFileSet(nil)
	for i := 0; i < source.MaxFiles+3; i++ {
		big.Add(workflow.RefFile{Path: fmt.Sprintf("f/%05d.md", i)})
	}
	big.Add(workflow.RefFile{Path: "f/00000.md", Critical: true}) // a repeat still merges
	var c workflow.Candidate
	big.Finish(&c, "state.yaml")
	if len(c.Files) != source.MaxFiles || big.Dropped != 3 || !c.Files[0].Critical {
		t.Fatalf("files %d, dropped %d, first critical %v", len(c.Files), big.Dropped, c.Files[0].Critical)
	}
	if len(c.Findings) != 1 || c.Findings[0].Code != "too-many-files" || c.Findings[0].Path != "state.yaml" ||
		c.Findings[0].Message != "3 referenced files beyond the first 20000 were ignored" {
		t.Errorf("findings = %+v", c.Findings)
	}
	var c2 workflow.Candidate
	s.Finish(&c2, "x")
	if len(c2.Findings) != 0 || len(c2.Files) != 2 {
		t.Errorf("Finish without drops: %+v", c2)
	}

	files := []workflow.RefFile{{Path: "b", Phase: "1"}, {Path: "a"}, {Path: "b", Phase: "0"}}
	source.SortFiles(files)
	if files[0].Path != "a" || files[1].Phase != "1" || files[2].Phase != "0" {
		t.Errorf("SortFiles is not a stable sort by path: %+v", files)
	}
}

func TestFileListShapes(t *testing.T) {
	m := mustYAML(t, `
list: [a.md, {path: b.md, sha: abc}, {hash: x}, [1], 7]
changes:
  created: [c.md]
  deleted: [d.md]
  Removed: [e.md]
  modified: f.md
  n: 5
  notes: "see the review for details"
one: g.md
words: "not a path at all"
nums: 3.5
none: null
`)
	f := &source.Fields{Path: "s.yaml"}
	set := source.NewFileSet(nil)
	for _, k := range []string{"list", "changes", "one", "words", "none", "nums"} {
		source.FileList(f, set, k, m[k], "dev")
	}
	var got []string
	for _, rf := range set.Sorted() {
		got = append(got, rf.Path+"|"+rf.Hash+"|"+rf.From+"|"+rf.Phase)
	}
	want := []string{
		"7||list|dev",
		"a.md||list|dev",
		"b.md|abc|list|dev",
		"c.md||changes.created|dev",
		"f.md||changes|dev",
		"g.md||one|dev",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("files =\n%q\nwant\n%q", got, want)
	}
	wantMsgs := []string{
		"field list[]: want a mapping with a path, got a mapping",
		"field list[]: want a path, got a list",
		"field changes.n: want a list of paths, got a number",
		"field changes.notes: want a list of paths, got text",
		"field words: want a list of paths, got text",
		"field nums: want a list of paths, got text",
	}
	if msgs := findingMessages(f.Findings); !reflect.DeepEqual(msgs, wantMsgs) {
		t.Errorf("findings =\n%q\nwant\n%q", msgs, wantMsgs)
	}
}

func TestRefFilesAndAddFile(t *testing.T) {
	m := mustYAML(t, `
inputs: ["a.md", {file: b.md, sha: s1}, {name: '..\evil.md'}, [x], {path: ""}]
hashes: {c.md: h2, d.md: {blob: h3}, e.md: null}
one: a.md
bad: 5
none: null
`)
	f := &source.Fields{Path: "s.yaml"}
	got := source.RefFiles(f, m, "qa", "inputs", "hashes", "one", "bad", "none", "absent")
	want := []workflow.RefFile{
		{Path: "a.md", Phase: "qa", From: "inputs"},
		{Path: "b.md", Phase: "qa", Hash: "s1", From: "inputs"},
		{Path: `..\evil.md`, Phase: "qa", From: "inputs"},
		{Path: "c.md", Phase: "qa", Hash: "h2", From: "hashes"},
		{Path: "d.md", Phase: "qa", Hash: "h3", From: "hashes"},
		{Path: "e.md", Phase: "qa", From: "hashes"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("RefFiles =\n%+v\nwant\n%+v", got, want)
	}
	wantMsgs := []string{"field inputs[]: want a path, got a list", "field bad: want a list of paths, got a number"}
	if msgs := findingMessages(f.Findings); !reflect.DeepEqual(msgs, wantMsgs) {
		t.Errorf("findings = %q, want %q", msgs, wantMsgs)
	}

	files := source.AddFile(nil, workflow.RefFile{Path: "x"})
	files = source.AddFile(files, workflow.RefFile{Path: ""})
	files = source.AddFile(files, workflow.RefFile{Path: "x", Critical: true, Hash: "h"})
	files = source.AddFile(files, workflow.RefFile{Path: "x", Hash: "other"})
	if len(files) != 1 || !files[0].Critical || files[0].Hash != "h" {
		t.Errorf("AddFile = %+v", files)
	}
	if !source.HasRef(files, "x") || source.HasRef(files, "y") {
		t.Error("HasRef")
	}
}

func TestPathField(t *testing.T) {
	m := mustYAML(t, `
a: null
b: {path: ""}
c: [1]
d: ""
e: {file: x.md}
f: y.md
`)
	f := &source.Fields{}
	if s, k := source.PathField(f, m, "a", "b", "c", "d", "e", "f"); s != "x.md" || k != "e" {
		t.Errorf("PathField = %q %q, want x.md e", s, k)
	}
	if s, k := source.PathField(f, m, "f"); s != "y.md" || k != "f" {
		t.Errorf("PathField(f) = %q %q", s, k)
	}
	if s, k := source.PathField(f, m, "a", "d"); s != "" || k != "" {
		t.Errorf("PathField(empty) = %q %q", s, k)
	}
	if msgs := findingMessages(f.Findings); len(msgs) != 1 || msgs[0] != "field c: want a path, got a list" {
		t.Errorf("findings = %q", msgs)
	}
}

func TestDecodeMapByExtension(t *testing.T) {
	yml := []byte("a: 1\n")
	js := []byte(`{"a": 1}`)
	tests := []struct {
		path       string
		data       []byte
		preferJSON bool
		ok         bool
	}{
		{"s.json", js, false, true},
		{"s.json", yml, false, false},
		{"s.JSON.bak", js, false, true},
		{"s.YML.bak", yml, true, true},
		{"s.yaml", js, true, true}, // JSON is YAML
		{"state", js, true, true},
		{"state", yml, true, false},
		{"state", yml, false, true},
	}
	for _, tt := range tests {
		m, err := source.DecodeMap(tt.path, tt.data, tt.preferJSON)
		if (err == nil) != tt.ok {
			t.Errorf("DecodeMap(%s, %q, %v) err = %v, want ok %v", tt.path, tt.data, tt.preferJSON, err, tt.ok)
		}
		if err == nil && fmt.Sprint(m["a"]) != "1" {
			t.Errorf("DecodeMap(%s) = %v", tt.path, m)
		}
	}
}

func TestStateCommonAndReadStatus(t *testing.T) {
	st := mustYAML(t, `
updated_at: 2026-02-03T04:05:06Z
startedAt: "2026-02-01 00:00"
baseCommit: abc123
mode: yolo
currentAgent: "@qa"
context: {story: "1.2"}
`)
	f := &source.Fields{Path: "s.yaml"}
	var c workflow.Candidate
	source.StateCommon(f, st, &c)
	if !c.UpdatedAt.Equal(time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC)) || c.UpdatedFrom != "field:updated_at" ||
		!c.StartedAt.Equal(time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)) || c.Commit != "abc123" || c.Mode != "yolo" ||
		c.Agent != "qa" || c.Context["story"] != "1.2" {
		t.Errorf("StateCommon = %+v", c)
	}

	tests := []struct {
		name, in    string
		status, raw string
		finding     string
	}{
		{"finished reads as completed", "status: Finished\n", "completed", "Finished", ""},
		{"spelling normalised", "status: In Progress\n", "in_progress", "In Progress", ""},
		{"completion time decides", "completed_at: 2026-01-01\n", "completed", "", `the state is finished: completed_at is "2026-01-01T00:00:00Z"`},
		{"phase word decides", "currentPhase: WORKFLOW_COMPLETED\n", "completed", "", `the state is finished: currentPhase is "WORKFLOW_COMPLETED"`},
		{"null completion time does not", "finished_at: none\n", "", "", ""},
		{"status wins over completion time", "status: paused\ncompleted_at: 2026-01-01\n", "paused", "paused", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c workflow.Candidate
			source.ReadStatus(&source.Fields{}, mustYAML(t, tt.in), "s.yaml", &c)
			if c.Status != tt.status || c.StatusRaw != tt.raw {
				t.Errorf("status %q raw %q, want %q %q", c.Status, c.StatusRaw, tt.status, tt.raw)
			}
			switch {
			case tt.finding == "" && len(c.Findings) != 0:
				t.Errorf("unexpected findings %+v", c.Findings)
			case tt.finding != "" && (len(c.Findings) != 1 || c.Findings[0].Message != tt.finding ||
				c.Findings[0].Severity != workflow.Info || c.Findings[0].Path != "s.yaml"):
				t.Errorf("findings = %+v, want %q", c.Findings, tt.finding)
			}
		})
	}
}

func TestClipAndFinishedFinding(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"abc", 3, "abc"},
		{"abcd", 3, "abc…"},
		{"héllo", 2, "h…"}, // é is bytes 1-2: the cut moves back to a rune start
		{"日本語", 4, "日…"},
		{"日本語", 0, "…"},
	}
	for _, tt := range tests {
		if got := source.Clip(tt.in, tt.n); got != tt.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
	f := source.FinishedFinding("s.yaml", "phase", strings.Repeat("é", 60))
	if f.Code != "finished" || f.Path != "s.yaml" || f.Message != `the state is finished: phase is "`+strings.Repeat("é", 40)+`…"` {
		t.Errorf("FinishedFinding = %+v", f)
	}
}

func TestSortEvidenceAndUnreadable(t *testing.T) {
	ev := []workflow.SourceRef{{Path: "b", Priority: 2}, {Path: "z", Priority: 1}, {Path: "a", Priority: 2}}
	source.SortEvidence(ev)
	if got := []string{ev[0].Path, ev[1].Path, ev[2].Path}; !reflect.DeepEqual(got, []string{"z", "a", "b"}) {
		t.Errorf("SortEvidence = %v", got)
	}
	fd := workflow.Finding{Code: "syntax", Path: "s.yaml"}
	in := []workflow.Finding{fd}
	c := source.Unreadable(workflow.SourceRef{Path: "s.yaml"}, workflow.TypeQALoop, "qa", "s", "qa-loop", in...)
	if c.ID != "qa:s" || c.Status != source.UnreadableStatus || !c.Resumable || c.Stories == nil || len(c.Stories) != 0 ||
		c.Workflow != "qa-loop" || c.Type != workflow.TypeQALoop || !reflect.DeepEqual(c.Findings, in) {
		t.Errorf("Unreadable = %+v", c)
	}
	c.Findings[0].Code = "changed"
	if in[0].Code != "syntax" {
		t.Error("Unreadable shares the caller's findings slice")
	}
}

// Package sourcetest holds test helpers the format packages' tests share:
// writing repository files, and checking what every candidate keeps whatever
// the input.
package sourcetest

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/refpath"
	"github.com/orchestrate-dev/orchestrate/internal/tolerant"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// HasFinding reports whether fs holds a finding with code (and severity, when set).
func HasFinding(fs []workflow.Finding, code string, sev workflow.Severity) bool {
	for _, f := range fs {
		if f.Code == code && (sev == "" || f.Severity == sev) {
			return true
		}
	}
	return false
}

// File returns the referenced file of c with path p.
func File(c workflow.Candidate, p string) (workflow.RefFile, bool) {
	for _, f := range c.Files {
		if f.Path == p {
			return f, true
		}
	}
	return workflow.RefFile{}, false
}

// Write writes files (path -> content) below root.
func Write(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Newest is the latest modification time of the regular files below root:
// a scan clock pinned to it sees every file as written just now (within
// source.StatCacheRacy), however long the test took since writing them.
func Newest(t *testing.T, root string) time.Time {
	t.Helper()
	var newest time.Time
	err := filepath.WalkDir(root, func(_ string, d os.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		fi, err := d.Info()
		if err == nil && fi.ModTime().After(newest) {
			newest = fi.ModTime()
		}
		return err
	})
	if err != nil || newest.IsZero() {
		t.Fatalf("no file's time below %s: %v", root, err)
	}
	return newest
}

// EpicCheckCandidate asserts the invariants every parsed state candidate
// keeps, whatever the input: an id, sorted unique stories, bounded output.
func EpicCheckCandidate(t *testing.T, c workflow.Candidate, fs []workflow.Finding, inputLen int, typ workflow.Type, prefix string) {
	t.Helper()
	if c.Type != typ || !strings.HasPrefix(c.ID, prefix) || c.ID != prefix+c.Key || c.Key == "" {
		t.Fatalf("id %q key %q type %q", c.ID, c.Key, c.Type)
	}
	if c.Status == "unreadable" {
		blocking := false
		for _, f := range fs {
			blocking = blocking || (f.Severity == workflow.Blocking && f.Check == workflow.CheckParse)
		}
		if !blocking {
			t.Fatalf("unreadable without a blocking parse finding: %v", fs)
		}
	}
	for i := 1; i < len(c.Stories); i++ {
		if c.Stories[i-1] >= c.Stories[i] {
			t.Fatalf("stories not sorted unique: %q", c.Stories)
		}
	}
	if len(c.StoryRefs) != len(c.Stories) {
		t.Fatalf("story refs %d vs stories %d", len(c.StoryRefs), len(c.Stories))
	}
	limit := (inputLen + 2) * (tolerant.MaxAliases + 1)
	total := len(c.Files) + len(c.Stories) + len(c.Findings) + len(c.Phases)
	if c.Epic != nil {
		for _, w := range c.Epic.Waves {
			total += 1 + len(w.Stories)
		}
	}
	if c.QA != nil {
		total += len(c.QA.History)
	}
	if total > limit+8 {
		t.Fatalf("output %d items for %d bytes of input", total, inputLen)
	}
	for _, f := range c.Files {
		if f.Path == "" {
			t.Fatalf("empty file path")
		}
	}
}

// Watchdog turns a parse that hangs into a crash the fuzzer records: it
// panics if the returned stop function is not called within 10 seconds.
func Watchdog(p string, data []byte) func() {
	t := time.AfterFunc(10*time.Second, func() { panic(fmt.Sprintf("parser hangs on %q %q", p, data)) })
	return func() { t.Stop() }
}

// AliasBomb is a YAML document whose aliases expand exponentially.
func AliasBomb() string {
	var b strings.Builder
	b.WriteString("a: &a [x, x, x, x, x, x, x, x, x]\n")
	prev := "a"
	for i := 0; i < 12; i++ {
		name := string(rune('b' + i))
		b.WriteString(name + ": &" + name + " [")
		for j := 0; j < 9; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString("*" + prev)
		}
		b.WriteString("]\n")
		prev = name
	}
	b.WriteString("phases: [{id: x}]\n")
	return b.String()
}

// Sorted returns a sorted copy of s.
func Sorted(s []string) []string {
	out := append([]string(nil), s...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// PhasesWith lists the ids of the phases of c in status st.
func PhasesWith(c workflow.Candidate, st string) []string {
	var out []string
	for _, p := range c.Phases {
		if p.Status == st {
			out = append(out, p.ID)
		}
	}
	return out
}

// FileSummary renders the referenced files as "path[flags]" with flags
// c (critical), p (produced), #hash, @phase.
func FileSummary(c workflow.Candidate) []string {
	var out []string
	for _, f := range c.Files {
		s := f.Path + "["
		if f.Critical {
			s += "c"
		}
		if f.Produced {
			s += "p"
		}
		if f.Hash != "" {
			s += "#" + f.Hash
		}
		if f.Phase != "" {
			s += "@" + f.Phase
		}
		out = append(out, s+"]")
	}
	return out
}

// MustTime parses an RFC 3339 time or fails the test.
func MustTime(t *testing.T, s string) time.Time {
	t.Helper()
	tm, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return tm
}

// CheckCandidate asserts what every workflow-state-like candidate keeps,
// whatever the input: an id with prefix, bounded phases, files, stories
// and findings (n bounds them), clean referenced paths.
func CheckCandidate(t *testing.T, c workflow.Candidate, fs []workflow.Finding, prefix string, n int) {
	t.Helper()
	if !strings.HasPrefix(c.ID, prefix) || c.Key == "" || c.ID != prefix+c.Key {
		t.Fatalf("bad id %q key %q", c.ID, c.Key)
	}
	if c.Status == "" || c.Source.Path == "" || c.Source.Kind == "" {
		t.Fatalf("incomplete candidate %+v", c)
	}
	if !reflect.DeepEqual(fs, c.Findings) {
		t.Fatalf("findings returned differ from the candidate's")
	}
	if c.Status == "unreadable" {
		if !c.Resumable || len(fs) == 0 || fs[0].Severity != workflow.Blocking {
			t.Fatalf("unreadable candidate without a blocking finding: %+v", fs)
		}
	} else if c.Resumable == workflow.IsTerminalStatus(c.Status) {
		t.Fatalf("status %q but resumable %v", c.Status, c.Resumable)
	}
	if !sort.StringsAreSorted(c.Stories) {
		t.Fatalf("stories not sorted: %v", c.Stories)
	}
	for i := 1; i < len(c.Stories); i++ {
		if c.Stories[i] == c.Stories[i-1] {
			t.Fatalf("duplicate story %q", c.Stories[i])
		}
	}
	if len(c.Files) > source.MaxFiles || len(c.Files) > n || len(c.Phases) > n+8 || len(c.Stories) > n || len(c.Findings) > 2*n+4 {
		t.Fatalf("unbounded result from %d bytes: %d files %d phases %d stories %d findings", n, len(c.Files), len(c.Phases), len(c.Stories), len(c.Findings))
	}
	if c.Position.Index < 0 || c.Position.Total < 0 || (c.Position.Total > 0 && c.Position.Index > c.Position.Total) {
		t.Fatalf("bad position %+v", c.Position)
	}
	for _, f := range c.Files {
		if f.Path == "" || f.Path != refpath.CleanPath(f.Path) {
			t.Fatalf("uncleaned path %q", f.Path)
		}
	}
}

// KeepNothing has the stat table of kind k keep nothing for the rest of
// the test: its clock is set before every file, so each file is within
// the racy window. A draft table's hit would otherwise answer for the
// tasks cache a test counts, and whether a draft is stored would depend on
// how long the test took (the racy window is on the real clock).
func KeepNothing(t *testing.T, k *source.StatTableKind) {
	t.Helper()
	k.Now = func() time.Time { return time.Time{} }
	t.Cleanup(func() { k.Now = nil })
}

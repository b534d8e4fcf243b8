package validate

import (
	"encoding/json"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/internal/gitrepo"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

func TestAgeClasses(t *testing.T) {
	r := newRepo(t)
	st := r.story("4.2", "InProgress", "AC", "notes", time.Time{})
	cases := []struct {
		name   string
		age    time.Duration
		class  string
		code   string
		substr string
	}{
		{"fresh", 45 * time.Minute, AgeFresh, "", ""},
		{"recent", 2 * time.Hour, AgeRecent, "", ""},
		{"recent-edge", 23*time.Hour + 59*time.Minute, AgeRecent, "", ""},
		{"moderate", 3*24*time.Hour + 2*time.Hour, AgeModerate, "age-moderate", "interrupted 3 days ago"},
		{"moderate-edge", 24 * time.Hour, AgeModerate, "age-moderate", "interrupted 24 hours ago"},
		{"stale", 14 * 24 * time.Hour, AgeStale, "age-stale", "interrupted 14 days ago"},
		{"future", -3 * time.Hour, AgeFresh, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := sdc("4.2")
			in := input(r, c, st)
			in.Now = c.UpdatedAt.Add(tc.age)
			rep := Validate(in)
			if rep.AgeClass != tc.class {
				t.Errorf("class = %s, want %s", rep.AgeClass, tc.class)
			}
			if tc.age < 0 && rep.Age != 0 {
				t.Errorf("future age = %v, want 0", rep.Age)
			}
			var ages []workflow.Finding
			for _, f := range rep.Findings {
				if f.Check == workflow.CheckAge {
					ages = append(ages, f)
				}
			}
			if tc.code == "" {
				if len(ages) != 0 {
					t.Errorf("age findings = %v", ages)
				}
				return
			}
			if len(ages) != 1 || ages[0].Code != tc.code || ages[0].Severity != workflow.Warning || !strings.Contains(ages[0].Message, tc.substr) {
				t.Errorf("age findings = %+v, want %s %q", ages, tc.code, tc.substr)
			}
			if rep.Status != StatusWarnings {
				t.Errorf("status = %s, want warnings", rep.Status)
			}
		})
	}

	// Thresholds come from the config.
	in := input(r, sdc("4.2"), st)
	in.Config.Age.Fresh, in.Config.Age.Recent, in.Config.Age.Stale = time.Minute, 2*time.Minute, 3*time.Minute
	in.Now = t0.Add(5 * time.Minute)
	if rep := Validate(in); rep.AgeClass != AgeStale {
		t.Errorf("configured thresholds: class %s", rep.AgeClass)
	}

	// Unknown time.
	c := sdc("4.2")
	c.UpdatedAt = time.Time{}
	rep := Validate(input(r, c, st))
	if f := find(t, rep, "age-unknown"); f.Severity != workflow.Info || rep.AgeClass != AgeUnknown {
		t.Errorf("age-unknown = %+v, class %s", f, rep.AgeClass)
	}
}

func TestClassifyAge(t *testing.T) {
	a := config.Default().Age
	for d, want := range map[time.Duration]string{
		-time.Hour: AgeFresh, 0: AgeFresh, 59 * time.Minute: AgeFresh, time.Hour: AgeRecent,
		24 * time.Hour: AgeModerate, 7*24*time.Hour - 1: AgeModerate, 7 * 24 * time.Hour: AgeStale,
	} {
		if got := ClassifyAge(d, a); got != want {
			t.Errorf("ClassifyAge(%v) = %s, want %s", d, got, want)
		}
		if got := ClassifyAge(d, config.Age{}); got != want {
			t.Errorf("ClassifyAge(%v, zero thresholds) = %s, want %s", d, got, want)
		}
	}
}

// TestAggregation: the candidate's own findings are kept, everything is
// sorted (severity, check, path, code, message) and the status follows the
// worst severity.
func TestAggregation(t *testing.T) {
	r := newRepo(t)
	st := r.story("4.2", "InProgress", "AC", "notes", time.Time{})
	c := sdc("4.2", workflow.RefFile{Path: "docs/gone.md"})
	parse := workflow.Finding{Check: workflow.CheckParse, Severity: workflow.Warning, Code: "wrong-type", Message: "field x", Path: c.Source.Path}
	c.Findings = []workflow.Finding{parse, parse}
	rep := Validate(input(r, c, st))
	got := codes(rep)
	if want := []string{"missing-file", "wrong-type", "no-git"}; !reflect.DeepEqual(got, want) {
		t.Errorf("codes = %v, want %v", got, want)
	}
	if rep.Status != StatusWarnings {
		t.Errorf("status = %s", rep.Status)
	}
	sorted := append([]workflow.Finding(nil), rep.Findings...)
	workflow.SortFindings(sorted)
	if !reflect.DeepEqual(sorted, rep.Findings) {
		t.Error("findings are not sorted")
	}

	// Clean: nothing to say beyond info.
	c = sdc("4.2")
	rep = Validate(input(r, c, st))
	if rep.Status != StatusClean || rep.AgeClass != AgeRecent || rep.InterruptedAt != t0 {
		t.Errorf("clean: status %s age %s findings %v", rep.Status, rep.AgeClass, rep.Findings)
	}
	if rep.Files == nil || rep.Stories == nil || rep.Findings == nil {
		t.Error("nil slices in the report (JSON would print null)")
	}
	for _, code := range allCodes(t) {
		if strings.ToLower(code) != code || strings.ContainsAny(code, " _") {
			t.Errorf("code %q is not kebab-case", code)
		}
	}
}

// allCodes lists the codes named in the package documentation.
func allCodes(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, f := range []string{"validate.go"} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			if rest, ok := strings.CutPrefix(line, "//   - "); ok {
				out = append(out, strings.Fields(rest)[0])
			}
		}
	}
	if len(out) < 25 {
		t.Fatalf("found %d codes in the package doc", len(out))
	}
	return out
}

// TestDocumentedCodes: every code the tests saw is documented, and the
// package never emits an undocumented one (checked across a rich run).
func TestDocumentedCodes(t *testing.T) {
	documented := map[string]bool{}
	for _, c := range allCodes(t) {
		documented[c] = true
	}
	rep := richReport(t)
	for _, f := range rep.Findings {
		if f.Check != workflow.CheckParse && !documented[f.Code] {
			t.Errorf("code %q is not in the package documentation", f.Code)
		}
	}
}

// richReport validates an epic with a bit of everything.
func richReport(t *testing.T) Report {
	t.Helper()
	r := newRepo(t)
	in := richInput(r)
	return Validate(in)
}

func richInput(r *repo) Input {
	s1 := r.story("3.1", "Done", "AC", "n", time.Time{})
	s2 := r.story("3.2", "InProgress", "AC", "n", t0.Add(time.Hour))
	s3 := r.story("3.3", "Ready", "AC", "n", time.Time{})
	s9 := r.story("3.9", "Draft", "AC", "n", time.Time{})
	r.write("src/a.ts", "a", t0.Add(time.Hour))
	r.write("src/b.ts", "b", t0.Add(2*time.Hour))
	r.write("src/own.ts", "own", t0.Add(-time.Minute))
	c := workflow.Candidate{ID: "epic:3", Type: workflow.TypeEpic, Key: "3", UpdatedAt: t0, Resumable: true,
		Source:  workflow.SourceRef{Kind: workflow.KindEpicState, Path: ".aiox/epic-3-state.yaml", Priority: 1},
		Stories: []string{"3.1", "3.2", "3.3", "3.4", "3.5"},
		StoryRefs: []workflow.StoryRef{{ID: "3.1", Status: "in_progress"}, {ID: "3.2", Status: "in_progress"},
			{ID: "3.3", Status: "pending"}, {ID: "3.4", Status: "in_progress"}, {ID: "3.5", Status: "queued"}},
		Files: []workflow.RefFile{
			{Path: "src/a.ts", Phase: "waves"}, {Path: "src/b.ts", Phase: "waves"}, {Path: "src/own.ts", Phase: "waves"},
			{Path: "docs/stories/3.2.story.md", Phase: "waves", Critical: true},
			{Path: "/abs", Phase: "waves"}, {Path: "docs/missing.md", Phase: "final-gate", Critical: true},
			{Path: "docs/opt.md"},
		},
		Epic:     &workflow.Epic{EpicID: "3"},
		Findings: []workflow.Finding{{Check: workflow.CheckParse, Severity: workflow.Warning, Code: "wrong-type", Message: "m", Path: ".aiox/epic-3-state.yaml"}},
	}
	g := &fakeGit{base: baseCommit,
		states: map[string]gitrepo.PathState{
			"src/a.ts": committedChange(), "src/b.ts": uncommittedChange(), "src/own.ts": uncommittedChange(),
			"docs/stories/3.2.story.md": committedChange(),
		},
		commits: map[string][]gitrepo.Commit{"src/a.ts": {janeCommit}, "docs/stories/3.2.story.md": {janeCommit}},
		old:     map[string]string{"docs/stories/3.2.story.md": storyText("3.2", "InProgress", "old", "old n")},
	}
	in := input(r, c, s1, s2, s3, s9)
	in.Git = g
	in.Others = []workflow.Candidate{{ID: "qa-loop:3.2", Type: workflow.TypeQALoop, Stories: []string{"3.2"}, Resumable: true,
		UpdatedAt: t0.Add(time.Hour), Source: workflow.SourceRef{Kind: workflow.KindQALoop, Path: "qa/loop-status.json"}}}
	in.LiveLock = func(string) bool { return false }
	in.Now = t0.Add(3 * 24 * time.Hour)
	return in
}

func TestRichReport(t *testing.T) {
	rep := richReport(t)
	want := []string{
		// blocking
		"acceptance-changed", "another-workflow", "file-changed", "file-changed-uncommitted",
		"story-missing", "completed-outside", "unsafe-path", "missing-critical",
		// warning
		"age-moderate", "story-edited", "epic-stories-added", "missing-file", "wrong-type",
		// info
		"own-uncommitted-work", "story-not-created", "validated-while-paused",
	}
	if got := codes(rep); !reflect.DeepEqual(got, want) {
		t.Errorf("codes\n got %v\nwant %v", got, want)
	}
	if want := "[waves]"; strings.Join(rep.ChangedPhases, ",") != "waves" {
		t.Errorf("ChangedPhases = %v, want %s", rep.ChangedPhases, want)
	}
	if strings.Join(rep.MissingPhases, ",") != "final-gate" {
		t.Errorf("MissingPhases = %v", rep.MissingPhases)
	}
	if rep.Status != StatusConflicts || rep.GitMode != GitModeGit {
		t.Errorf("status %s mode %s", rep.Status, rep.GitMode)
	}
}

// TestDeterminism: the same input gives the same report, also when the
// referenced files, stories and other candidates come in another order.
func TestDeterminism(t *testing.T) {
	r := newRepo(t)
	in := richInput(r)
	first := Validate(in)
	again := Validate(richInput(r))
	if !reflect.DeepEqual(first, again) {
		t.Fatal("two runs differ")
	}
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 5; i++ {
		in := richInput(r)
		rng.Shuffle(len(in.Candidate.Files), func(a, b int) {
			in.Candidate.Files[a], in.Candidate.Files[b] = in.Candidate.Files[b], in.Candidate.Files[a]
		})
		rng.Shuffle(len(in.Candidate.StoryRefs), func(a, b int) {
			in.Candidate.StoryRefs[a], in.Candidate.StoryRefs[b] = in.Candidate.StoryRefs[b], in.Candidate.StoryRefs[a]
		})
		rng.Shuffle(len(in.Candidate.Stories), func(a, b int) {
			in.Candidate.Stories[a], in.Candidate.Stories[b] = in.Candidate.Stories[b], in.Candidate.Stories[a]
		})
		got := Validate(in)
		a, _ := json.Marshal(first)
		b, _ := json.Marshal(got)
		if string(a) != string(b) {
			t.Fatalf("shuffled input changed the report:\n%s\n%s", a, b)
		}
	}
}

// TestNeverWrites: validation leaves the repository exactly as it was.
func TestNeverWrites(t *testing.T) {
	r := newRepo(t)
	in := richInput(r)
	before := snapshot(t, r.root)
	Validate(in)
	in.Git = nil
	Validate(in)
	if after := snapshot(t, r.root); !reflect.DeepEqual(before, after) {
		t.Errorf("the repository changed:\nbefore %v\nafter  %v", before, after)
	}
}

func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		out[p] = fi.Mode().String() + " " + fi.ModTime().String() + " " + strconv.FormatInt(fi.Size(), 10)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestGarbageInput: empty and odd candidates give findings, not panics.
func TestGarbageInput(t *testing.T) {
	r := newRepo(t)
	for _, c := range []workflow.Candidate{
		{},
		{ID: "x", Files: []workflow.RefFile{{Path: ""}, {Path: "."}, {Path: "a/../../b"}, {Path: "C:\\x"}}},
		{ID: "y", Stories: []string{"", " ", "\x00"}, StoryRefs: []workflow.StoryRef{{ID: "1.1", Path: "/etc/passwd", Status: "in_progress"}}},
		{ID: "z", Type: workflow.TypeEpic, Epic: &workflow.Epic{}},
	} {
		for _, g := range []Git{nil, &fakeGit{base: baseCommit}} {
			in := Input{Root: r.root, Candidate: c, Git: g, Now: now, Stories: map[string]*workflow.Story{"1.1": nil}}
			rep := Validate(in)
			if rep.Status == "" || rep.AgeClass == "" {
				t.Errorf("incomplete report for %+v: %+v", c, rep)
			}
		}
	}
}

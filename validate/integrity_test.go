package validate

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/gitrepo"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

func TestIntegrityMissing(t *testing.T) {
	r := newRepo(t)
	st := r.story("4.2", "InProgress", "AC", "notes", time.Time{})
	r.write("docs/prd.md", "prd", time.Time{})
	c := sdc("4.2",
		workflow.RefFile{Path: "docs/stories/4.2.story.md", Phase: "implement", Critical: true},
		workflow.RefFile{Path: "docs/prd.md", Phase: "implement", Critical: true},
		workflow.RefFile{Path: "docs/architecture.md", Phase: "implement", Critical: true},
		workflow.RefFile{Path: "docs/notes.md", Phase: "review"},
		workflow.RefFile{Path: "src/out.ts", Phase: "create", Produced: true},
	)
	rep := Validate(input(r, c, st))

	f := find(t, rep, "missing-critical")
	if f.Severity != workflow.Blocking || f.Path != "docs/architecture.md" || f.Phase != "implement" || f.Check != workflow.CheckIntegrity {
		t.Errorf("missing-critical = %+v", f)
	}
	if !strings.Contains(f.Message, "docs/architecture.md") || !strings.Contains(f.Message, "phase implement") {
		t.Errorf("message %q does not name the path and the phase", f.Message)
	}
	var warnings []workflow.Finding
	for _, f := range rep.Findings {
		if f.Code == "missing-file" {
			warnings = append(warnings, f)
		}
	}
	if len(warnings) != 2 || warnings[0].Path != "docs/notes.md" || warnings[1].Path != "src/out.ts" || warnings[0].Severity != workflow.Warning {
		t.Fatalf("missing-file findings = %+v", warnings)
	}
	if !strings.Contains(warnings[1].Message, "output of phase create") {
		t.Errorf("produced file message = %q", warnings[1].Message)
	}
	if rep.Status != StatusConflicts {
		t.Errorf("Status = %s, want conflicts", rep.Status)
	}
	if got := fileReport(t, rep, "docs/architecture.md"); got.State != FileMissing || !got.Critical {
		t.Errorf("file report = %+v", got)
	}
	if got := fileReport(t, rep, "docs/prd.md"); got.State != FileUnchanged {
		t.Errorf("prd state = %s, want unchanged", got.State)
	}
	if want := []string{"create", "implement", "review"}; fmt.Sprint(rep.MissingPhases) != fmt.Sprint(want) {
		t.Errorf("MissingPhases = %v, want %v", rep.MissingPhases, want)
	}
	// Files are sorted by path.
	for i := 1; i < len(rep.Files); i++ {
		if rep.Files[i-1].Path >= rep.Files[i].Path {
			t.Fatalf("files not sorted: %+v", rep.Files)
		}
	}
}

func TestIntegrityUnsafePaths(t *testing.T) {
	r := newRepo(t)
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(r.root, "link")); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
	st := r.story("4.2", "InProgress", "AC", "notes", time.Time{})
	cases := map[string]string{
		"absolute": "/etc/passwd",
		"dotdot":   "../outside.txt",
		"inner":    "docs/../../outside.txt",
		"nul":      "docs/a\x00b.md",
		"newline":  "docs/a\nb.md",
		"symlink":  "link/secret",
	}
	for name, p := range cases {
		t.Run(name, func(t *testing.T) {
			c := sdc("4.2", workflow.RefFile{Path: p, Phase: "implement"})
			g := &fakeGit{base: baseCommit}
			in := input(r, c, st)
			in.Git = g
			rep := Validate(in)
			f := find(t, rep, "unsafe-path")
			if f.Severity != workflow.Blocking || f.Phase != "implement" {
				t.Errorf("finding = %+v", f)
			}
			if strings.ContainsAny(f.Path, "\x00\n") || strings.ContainsAny(f.Message, "\x00\n") {
				t.Errorf("control characters leak into the finding: %q / %q", f.Path, f.Message)
			}
			if len(rep.Files) != 1 || rep.Files[0].State != FileUnsafe {
				t.Errorf("files = %+v", rep.Files)
			}
			// Never handed to git either.
			for _, ps := range g.compared {
				for _, q := range ps {
					if q != "docs/stories/4.2.story.md" {
						t.Errorf("unsafe path %q was compared", q)
					}
				}
			}
		})
	}
}

func TestIntegrityUnreadable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads everything")
	}
	r := newRepo(t)
	st := r.story("4.2", "InProgress", "AC", "notes", time.Time{})
	r.write("docs/locked.md", "x", time.Time{})
	r.write("docs/locked-too.md", "x", time.Time{})
	for _, p := range []string{"docs/locked.md", "docs/locked-too.md"} {
		full := filepath.Join(r.root, p)
		if err := os.Chmod(full, 0); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(full, 0o644) })
	}
	c := sdc("4.2",
		workflow.RefFile{Path: "docs/locked.md", Phase: "implement", Critical: true},
		workflow.RefFile{Path: "docs/locked-too.md", Phase: "review"})
	rep := Validate(input(r, c, st))
	var sevs []string
	for _, f := range rep.Findings {
		if f.Code == "unreadable" {
			sevs = append(sevs, f.Path+"="+string(f.Severity))
		}
	}
	if want := "[docs/locked.md=blocking docs/locked-too.md=warning]"; fmt.Sprint(sevs) != want {
		t.Errorf("unreadable findings = %v, want %s", sevs, want)
	}
}

func TestIntegrityDeduplicates(t *testing.T) {
	r := newRepo(t)
	st := r.story("4.2", "InProgress", "AC", "notes", time.Time{})
	c := sdc("4.2",
		workflow.RefFile{Path: "docs/gone.md", Phase: "review"},
		workflow.RefFile{Path: "./docs/gone.md", Phase: "implement", Critical: true},
		workflow.RefFile{Path: "docs/gone.md", Phase: "review"},
	)
	rep := Validate(input(r, c, st))
	if len(rep.Files) != 1 {
		t.Fatalf("files = %+v, want one", rep.Files)
	}
	if f := rep.Files[0]; f.Path != "docs/gone.md" || !f.Critical || f.Phase != "implement" {
		t.Errorf("kept %+v, want the critical entry", f)
	}
	if got := codes(rep); fmt.Sprint(got) != "[missing-critical no-git]" {
		t.Errorf("codes = %v", got)
	}
}

func TestIntegrityTooManyRefs(t *testing.T) {
	r := newRepo(t)
	st := r.story("4.2", "InProgress", "AC", "notes", time.Time{})
	c := sdc("4.2")
	for i := 0; i < 30; i++ {
		c.Files = append(c.Files, workflow.RefFile{Path: fmt.Sprintf("gen/f%02d.txt", i)})
	}
	c.Files = append(c.Files, workflow.RefFile{Path: "gen/critical.txt", Critical: true})
	in := input(r, c, st)
	in.Config.MaxRefFiles = 10
	before := slices.Clone(c.Files)
	rep := Validate(in)
	if !slices.Equal(c.Files, before) {
		t.Error("the cap reordered the candidate's own references")
	}
	f := find(t, rep, "too-many-refs")
	if f.Severity != workflow.Warning || !strings.Contains(f.Message, "31 files") {
		t.Errorf("too-many-refs = %+v", f)
	}
	if len(rep.Files) != 10 {
		t.Fatalf("checked %d files, want 10", len(rep.Files))
	}
	if !has(rep, "missing-critical") {
		t.Error("the critical reference was dropped by the cap")
	}
}

// TestManyReferencedFiles: 10,000 referenced files, 100 of them present and
// changed in git, the rest missing — fast, no crash, one finding each up to
// workflow.MaxFindings warnings, then one finding counting the rest.
func TestManyReferencedFiles(t *testing.T) {
	r := newRepo(t)
	st := r.story("4.2", "InProgress", "AC", "notes", time.Time{})
	c := sdc("4.2")
	gf := &fakeGit{base: baseCommit, states: map[string]gitrepo.PathState{}}
	for i := 0; i < 10000; i++ {
		p := fmt.Sprintf("src/m%03d/f%05d.ts", i%100, i)
		if i%100 == 0 {
			r.write(p, "x", time.Time{})
			gf.states[p] = committedChange()
		}
		c.Files = append(c.Files, workflow.RefFile{Path: p, Phase: "implement"})
	}
	in := input(r, c, st)
	in.Git = gf
	start := time.Now()
	rep := Validate(in)
	elapsed := time.Since(start)
	if elapsed > 10*time.Second {
		t.Errorf("10,000 referenced files took %v", elapsed)
	}
	t.Logf("10,000 referenced files validated in %v", elapsed)
	if len(rep.Files) != 10000 {
		t.Fatalf("files = %d", len(rep.Files))
	}
	n := map[string]int{}
	more := ""
	for _, f := range rep.Findings {
		n[f.Code]++
		if f.Code == workflow.CodeMoreFindings {
			more = f.Message
		}
	}
	// the missing files past workflow.MaxFindings are one finding that counts them
	if n["missing-file"] != workflow.MaxFindings || n["file-changed"] != 100 || n[workflow.CodeMoreFindings] != 1 ||
		more != "… and 9,400 more warnings like these in all (not listed)" {
		t.Errorf("finding counts = %v, summary %q", n, more)
	}
	if len(gf.compared) != 1 || len(gf.touched) != 1 || len(gf.touched[0]) != 100 {
		t.Errorf("git calls: %d Compare, %d CommitsTouching", len(gf.compared), len(gf.touched))
	}
}

// TestControlCharactersEscaped: a safe path holding a terminal escape is
// reported escaped, never printed raw.
func TestControlCharactersEscaped(t *testing.T) {
	r := newRepo(t)
	st := r.story("4.2", "InProgress", "AC", "notes", time.Time{})
	c := sdc("4.2", workflow.RefFile{Path: "docs/\x1b[31mred.md", Phase: "impl\tement"})
	rep := Validate(input(r, c, st))
	f := find(t, rep, "missing-file")
	for _, s := range []string{f.Path, f.Message, f.Phase, rep.Files[0].Path} {
		if strings.ContainsAny(s, "\x1b\t") {
			t.Errorf("control character in %q", s)
		}
	}
	if f.Path != `docs/\x1b[31mred.md` {
		t.Errorf("path = %q", f.Path)
	}
}

// TestFolderReference: a referenced folder exists or not; it is never
// compared (git counts a folder as absent).
func TestFolderReference(t *testing.T) {
	r := newRepo(t)
	st := r.story("4.2", "InProgress", "AC", "notes", time.Time{})
	r.write("docs/specs/login/spec.md", "x", time.Time{})
	g := &fakeGit{base: baseCommit}
	in := input(r, sdc("4.2", workflow.RefFile{Path: "docs/specs/login", Phase: "spec", Critical: true}), st)
	in.Git = g
	rep := Validate(in)
	if rep.Status != StatusClean || rep.Files[0].State != FileUnknown {
		t.Errorf("status %s, files %+v, findings %v", rep.Status, rep.Files, rep.Findings)
	}
	for _, ps := range g.compared {
		for _, p := range ps {
			if p == "docs/specs/login" {
				t.Error("a folder was compared")
			}
		}
	}
}

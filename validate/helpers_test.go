package validate

import (
	"crypto/sha256"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/internal/gitrepo"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// t0 is the interruption time of the test candidates; now is one hour and a
// half later (a "recent" state).
var (
	t0  = time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	now = t0.Add(90 * time.Minute)
)

// fakeGit is a Git whose answers the test sets.
type fakeGit struct {
	shallow    bool
	base       gitrepo.Commit
	baseErr    error
	states     map[string]gitrepo.PathState // paths not listed are unchanged
	compareErr error
	commits    map[string][]gitrepo.Commit
	commitsErr error
	old        map[string]string // content at base; missing = not at base
	readErr    error             // ReadAt's error when set
	cuts       map[string]bool   // HistoryCut's answers by rev
	promisor   string            // Promisor's answer

	t    *testing.T // set with root: checks of what Compare is given
	root string

	compared [][]string // what Compare was asked
	touched  [][]string // what CommitsTouching was asked
}

func (g *fakeGit) Shallow() bool { return g.shallow }

func (g *fakeGit) InterruptionCommit(recorded string, at time.Time) (gitrepo.Commit, error) {
	if g.baseErr != nil {
		return gitrepo.Commit{}, g.baseErr
	}
	return g.base, nil
}

func (g *fakeGit) Compare(base gitrepo.Commit, paths []string) ([]gitrepo.PathState, error) {
	g.compared = append(g.compared, append([]string(nil), paths...))
	if g.compareErr != nil {
		return nil, g.compareErr
	}
	out := make([]gitrepo.PathState, 0, len(paths))
	for _, p := range paths {
		if ps, ok := g.states[p]; ok {
			ps.Path = p
			out = append(out, ps)
			continue
		}
		out = append(out, gitrepo.PathState{Path: p, BaseHash: "b", HeadHash: "b", DiskHash: "b", OnDisk: true})
	}
	return out, nil
}

func (g *fakeGit) CommitsTouching(base gitrepo.Commit, paths []string, limit int) (map[string][]gitrepo.Commit, error) {
	g.touched = append(g.touched, append([]string(nil), paths...))
	if g.commitsErr != nil {
		return nil, g.commitsErr
	}
	out := map[string][]gitrepo.Commit{}
	for _, p := range paths {
		cs := g.commits[p]
		if len(cs) > limit {
			cs = cs[:limit]
		}
		if len(cs) > 0 {
			out[p] = cs
		}
	}
	return out, nil
}

func (g *fakeGit) HistoryCut(rev string) bool { return g.cuts[rev] }

func (g *fakeGit) Promisor() string { return g.promisor }

func (g *fakeGit) ReadAt(c gitrepo.Commit, path string) ([]byte, error) {
	if g.readErr != nil {
		return nil, g.readErr
	}
	s, ok := g.old[path]
	if !ok {
		return nil, os.ErrNotExist
	}
	return []byte(s), nil
}

var (
	baseCommit = gitrepo.Commit{Hash: "0123456789abcdef0123456789abcdef01234567", Short: "0123456", Author: "Dev Bot", When: t0.Add(-time.Hour)}
	janeCommit = gitrepo.Commit{Hash: "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678", Short: "a1b2c3d", Author: "Jane Doe", Email: "jane@example.com", When: t0.Add(30 * time.Minute)}
)

// committedChange is a PathState for a file changed by commits since base.
func committedChange() gitrepo.PathState {
	return gitrepo.PathState{BaseHash: "b", HeadHash: "h", DiskHash: "h", OnDisk: true, Changed: true, Committed: true}
}

// uncommittedChange is a PathState for an uncommitted edit.
func uncommittedChange() gitrepo.PathState {
	return gitrepo.PathState{BaseHash: "b", HeadHash: "b", DiskHash: "d", OnDisk: true, Changed: true, Uncommited: true}
}

// parseStory is a small story parser for tests: "# Story ID: title",
// "**Status:** X", and "## Heading" sections hashed.
func parseStory(path string, data []byte) *workflow.Story {
	st := &workflow.Story{Path: path, Status: workflow.StatusUnknown}
	title := regexp.MustCompile(`^# Story ([0-9.]+)`)
	var cur string
	var buf []string
	flush := func() {
		if cur != "" {
			sum := sha256.Sum256([]byte(strings.TrimSpace(strings.Join(buf, "\n"))))
			st.Sections.Set(workflow.Section{Name: cur, Raw: strings.Join(buf, "\n"), Hash: sum})
		}
		buf = nil
	}
	for _, line := range strings.Split(string(data), "\n") {
		switch {
		case title.MatchString(line):
			st.ID = title.FindStringSubmatch(line)[1]
		case strings.HasPrefix(line, "**Status:**"):
			st.StatusRaw = strings.TrimSpace(strings.TrimPrefix(line, "**Status:**"))
			switch strings.ToLower(st.StatusRaw) {
			case "draft":
				st.Status = workflow.StatusDraft
			case "ready":
				st.Status = workflow.StatusReady
			case "inprogress", "in progress":
				st.Status = workflow.StatusInProgress
			case "inreview", "review":
				st.Status = workflow.StatusInReview
			case "done":
				st.Status = workflow.StatusDone
			case "blocked":
				st.Status = workflow.StatusBlocked
			}
		case strings.HasPrefix(line, "## "):
			flush()
			cur = strings.ReplaceAll(strings.ToLower(strings.TrimSpace(line[3:])), " ", "-")
		default:
			buf = append(buf, line)
		}
	}
	flush()
	return st
}

// storyText renders a story file for parseStory.
func storyText(id, status, ac, devNotes string) string {
	return "# Story " + id + ": A story\n\n**Status:** " + status + "\n\n## Acceptance Criteria\n" + ac +
		"\n\n## Scope\nThe scope.\n\n## Dependencies\nNone.\n\n## Dev Notes\n" + devNotes + "\n"
}

// repo is a temporary repository root.
type repo struct {
	t    *testing.T
	root string
}

func newRepo(t *testing.T) *repo {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return &repo{t: t, root: root}
}

// write writes a file with modification time mtime (zero: t0 - 1h, before
// the interruption).
func (r *repo) write(rel, content string, mtime time.Time) {
	r.t.Helper()
	p := filepath.Join(r.root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
	if mtime.IsZero() {
		mtime = t0.Add(-time.Hour)
	}
	if err := os.Chtimes(p, mtime, mtime); err != nil {
		r.t.Fatal(err)
	}
}

// story writes a story file and returns it parsed.
func (r *repo) story(id, status, ac, devNotes string, mtime time.Time) *workflow.Story {
	r.t.Helper()
	rel := "docs/stories/" + id + ".story.md"
	text := storyText(id, status, ac, devNotes)
	r.write(rel, text, mtime)
	st := parseStory(rel, []byte(text))
	st.ModTime = mtime
	return st
}

// sdc is an SDC workflow-state candidate for story id at phase implement.
func sdc(id string, files ...workflow.RefFile) workflow.Candidate {
	return workflow.Candidate{
		ID:        "workflow:sdc-" + id,
		Type:      workflow.TypeWorkflow,
		Key:       "sdc-" + id,
		Source:    workflow.SourceRef{Kind: workflow.KindWorkflowState, Path: ".orchestrate/workflows/sdc-" + id + ".yaml", Priority: workflow.PriorityWorkflow},
		Workflow:  workflow.DefSDC,
		Stories:   []string{id},
		StoryRefs: []workflow.StoryRef{{ID: id, Status: "in_progress", Path: "docs/stories/" + id + ".story.md"}},
		Status:    "paused",
		Resumable: true,
		UpdatedAt: t0,
		Position:  workflow.Position{Kind: workflow.PosPhase, Index: 3, Total: 4, Name: "implement"},
		Files:     files,
	}
}

func input(r *repo, c workflow.Candidate, stories ...*workflow.Story) Input {
	m := map[string]*workflow.Story{}
	for _, s := range stories {
		m[s.ID] = s
	}
	return Input{
		Root:       r.root,
		Candidate:  c,
		Stories:    m,
		Now:        now,
		Config:     config.Default(),
		ParseStory: parseStory,
	}
}

// codes returns the codes of the findings, in order.
func codes(rep Report) []string {
	out := make([]string, 0, len(rep.Findings))
	for _, f := range rep.Findings {
		out = append(out, f.Code)
	}
	return out
}

// find returns the first finding with code, failing the test when absent.
func find(t *testing.T, rep Report, code string) workflow.Finding {
	t.Helper()
	for _, f := range rep.Findings {
		if f.Code == code {
			return f
		}
	}
	t.Fatalf("no %s finding; findings: %v", code, rep.Findings)
	return workflow.Finding{}
}

// has reports whether rep holds a finding with code.
func has(rep Report, code string) bool {
	for _, f := range rep.Findings {
		if f.Code == code {
			return true
		}
	}
	return false
}

// fileReport returns the FileReport for path.
func fileReport(t *testing.T, rep Report, path string) FileReport {
	t.Helper()
	for _, f := range rep.Files {
		if f.Path == path {
			return f
		}
	}
	t.Fatalf("no file report for %q; files: %+v", path, rep.Files)
	return FileReport{}
}

// gitBlob is the git blob hash of content.
func gitBlob(content string) string {
	return plumbing.ComputeHash(plumbing.BlobObject, []byte(content)).String()
}

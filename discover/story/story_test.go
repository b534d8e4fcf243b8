package story

import (
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// storyCodes returns the codes of findings, in order.
func storyCodes(fs []workflow.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Code)
	}
	return out
}

// storyHasCode reports whether fs has a finding with code.
func storyHasCode(fs []workflow.Finding, code string) bool {
	for _, f := range fs {
		if f.Code == code {
			return true
		}
	}
	return false
}

func TestParseStoryStatusLayouts(t *testing.T) {
	filler := strings.Repeat("text\n", 45)
	tests := []struct {
		name   string
		doc    string
		status workflow.Status
		raw    string
		line   int
		codes  []string
	}{
		{"template line", "# Story 1.1: X\n\n**Status:** InProgress\n**Epic:** E\n", workflow.StatusInProgress, "InProgress", 3, nil},
		{"plain line", "# Story 1.1: X\nStatus: Done\n", workflow.StatusDone, "Done", 2, nil},
		{"bold key colon outside", "# Story 1.1: X\n**Status**: Ready for Review\n", workflow.StatusInReview, "Ready for Review", 2, nil},
		{"bullet line", "# Story 1.1: X\n- **Status:** Draft\n", workflow.StatusDraft, "Draft", 2, nil},
		{"emoji value", "# Story 1.1: X\n**Status:** ✅ COMPLETE  \n", workflow.StatusDone, "✅ COMPLETE", 2, nil},
		{"bold value", "# Story 1.1: X\n**Status:** **In Progress** 🚧\n", workflow.StatusInProgress, "**In Progress** 🚧", 2, nil},
		{"h2 heading", "# Story 1.1: X\n\n## Status\nReady for Done\n\n## Story\n", workflow.StatusInReview, "Ready for Done", 4, nil},
		{"heading blank lines", "# Story 1.1: X\n## Status\n\n\n  Approved  \n", workflow.StatusReady, "Approved", 5, nil},
		{"h3 heading", "# Story 1.1: X\n### Status\n✅ **COMPLETED** - 2025-09-01\n", workflow.StatusDone, "✅ **COMPLETED** - 2025-09-01", 3, nil},
		{"bold heading", "# Story 1.1: X\n## **Status**\nBlocked\n", workflow.StatusBlocked, "Blocked", 3, nil},
		{"heading with value", "# Story 1.1: X\n## Status: In Review\n", workflow.StatusInReview, "In Review", 2, nil},
		{"heading far down", "# Story 1.1: X\n" + filler + "## Status\nDone\n", workflow.StatusDone, "Done", 48, nil},
		{"first one wins", "# Story 1.1: X\n## Status\nDone\n\n## Dev Agent Record\n### Status\n**IMPLEMENTATION VERIFIED & APPROVED**\n", workflow.StatusDone, "Done", 3, nil},
		{"crlf", "# Story 1.1: X\r\n## Status\r\nIn Progress\r\n", workflow.StatusInProgress, "In Progress", 3, nil},
		{"extra spelling", "# Story 1.1: X\nStatus: Shipped\n", workflow.StatusDone, "Shipped", 2, nil},
		{"unknown", "# Story 1.1: X\n## Status\n95% Complete - one task remaining\n", workflow.StatusUnknown, "95% Complete - one task remaining", 3, []string{"unknown-status"}},
		{"none", "# Story 1.1: X\n\nJust text.\n", workflow.StatusUnknown, "", 0, []string{"no-status"}},
		{"heading without value", "# Story 1.1: X\n## Status\n\n## Story\ntext\n", workflow.StatusUnknown, "", 2, []string{"no-status"}},
		{"empty line value", "# Story 1.1: X\n**Status:**\n", workflow.StatusUnknown, "", 2, []string{"no-status"}},
		{"line past 40", "# Story 1.1: X\n" + filler + "**Status:** Done\n", workflow.StatusDone, "Done", 47, nil},
		{"in code fence", "# Story 1.1: X\n```\nStatus: Done\n## Status\nDone\n```\n", workflow.StatusUnknown, "", 0, []string{"no-status"}},
		{"fence as value", "# Story 1.1: X\n## Status\n```\nDone\n```\nDraft\n", workflow.StatusUnknown, "", 2, []string{"no-status"}},
		{"after code fence", "# Story 1.1: X\n~~~md\n## Status\nDraft\n~~~\n## Status\nDone\n", workflow.StatusDone, "Done", 7, nil},
	}
	extra := map[string][]string{"Done": {"shipped"}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, fs := ParseStory("docs/stories/1.1.x.md", []byte(tt.doc), extra)
			if st.Status != tt.status || st.StatusRaw != tt.raw || st.StatusLine != tt.line {
				t.Errorf("status = %s, %q, line %d; want %s, %q, line %d", st.Status, st.StatusRaw, st.StatusLine, tt.status, tt.raw, tt.line)
			}
			if got := storyCodes(fs); !reflect.DeepEqual(got, tt.codes) {
				t.Errorf("finding codes = %v, want %v", got, tt.codes)
			}
			for _, f := range fs {
				if f.Severity != workflow.Info || f.Check != workflow.CheckParse || f.Path != "docs/stories/1.1.x.md" {
					t.Errorf("finding %+v: want an info parse finding on the story", f)
				}
				if f.Code == "unknown-status" && !strings.Contains(f.Message, tt.raw) {
					t.Errorf("unknown-status message %q does not quote %q", f.Message, tt.raw)
				}
			}
		})
	}
}

func TestParseStoryIDAndTitle(t *testing.T) {
	tests := []struct {
		path, title string
		id, want    string
		codes       []string
	}{
		{"docs/stories/4.2.login.md", "# Story 4.2: Login Flow", "4.2", "Login Flow", nil},
		{"docs/stories/notes.md", "# Story 4.2: Login Flow", "4.2", "Login Flow", nil},
		{"docs/stories/notes.md", "# Story 4.2 - Login Flow", "4.2", "Login Flow", nil},
		{"docs/stories/notes.md", "# 4.2: Login Flow", "4.2", "Login Flow", nil},
		{"docs/stories/notes.md", "# 4.2 Login Flow", "4.2", "Login Flow", nil},
		{"docs/stories/notes.md", "# Story 1.2.3: Deep", "1.2.3", "Deep", nil},
		{"docs/stories/notes.md", "# Story EPIC-ACT.1: Lettered", "EPIC-ACT.1", "Lettered", nil},
		{"docs/stories/notes.md", "# **Story 7.1: Bold**", "7.1", "Bold", nil},
		{"docs/stories/4.2.story.md", "# Login", "4.2", "Login", nil},
		{"docs/stories/epic1/story-4.2.md", "# Login", "4.2", "Login", nil},
		{"docs/stories/story-7.md", "", "7", "", nil},
		{"docs/stories/1.2.3.deep.md", "", "1.2.3", "", nil},
		{"docs/stories/4.32.advanced.md", "# Story 4.4: Advanced", "4.32", "Advanced", []string{"id-mismatch"}},
		{"docs/stories/login-flow.md", "# Login Flow", "login-flow", "Login Flow", []string{"no-story-id"}},
		{"docs/stories/2024-notes.md", "# Story Bulk Operations", "2024-notes", "Story Bulk Operations", []string{"no-story-id"}},
		{"", "", "story", "", []string{"no-story-id"}},
	}
	for _, tt := range tests {
		doc := tt.title + "\n\n**Status:** Draft\n"
		st, fs := ParseStory(tt.path, []byte(doc), nil)
		if st.ID != tt.id || st.Title != tt.want {
			t.Errorf("%s %q: id, title = %q, %q; want %q, %q", tt.path, tt.title, st.ID, st.Title, tt.id, tt.want)
		}
		if got := storyCodes(fs); !reflect.DeepEqual(got, tt.codes) {
			t.Errorf("%s %q: codes = %v, want %v", tt.path, tt.title, got, tt.codes)
		}
	}
	for name, want := range map[string]string{
		"4.2.slug.md": "4.2", "4.2.story.md": "4.2", "story-4.2.md": "4.2", "Story_1.2.md": "1.2", "4.2.md": "4.2",
		"README.md": "", "index.md": "", "10.md": "", "4.2a.md": "", "v4.2.md": "", "docs\\stories\\3.1.x.md": "3.1",
	} {
		if got := StoryIDFromFileName("docs/stories/" + name); got != want {
			t.Errorf("StoryIDFromFileName(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestParseStoryFields(t *testing.T) {
	doc := `# Story 1.1: Fields

**Status:** Draft
**Epic:** **Epic 1 - Offline Assessment**
**Executor:** @dev (Dex)
**Quality Gate:** @QA
**Complexity:** 3
`
	st, _ := ParseStory("docs/stories/1.1.fields.md", []byte(doc), nil)
	if st.Executor != "dev" || st.QualityGate != "qa" || st.Epic != "Epic 1 - Offline Assessment" {
		t.Errorf("executor, gate, epic = %q, %q, %q", st.Executor, st.QualityGate, st.Epic)
	}
	st, _ = ParseStory("x.md", []byte("# Story 1.1: X\nExecutor: dev\nquality_gate: qa\n"), nil)
	if st.Executor != "dev" || st.QualityGate != "qa" {
		t.Errorf("plain fields: executor, gate = %q, %q", st.Executor, st.QualityGate)
	}
}

func TestParseStorySections(t *testing.T) {
	doc := "# Story 2.1: Sections\n\n## Status\nDraft\n\n" +
		"## Acceptance Criteria\n\n1. Given a, when b, then c\n2. Second\n\n" +
		"## Scope\n**IN:**\n- one\n\n### Scope detail\nstill scope\n\n" +
		"## 3. Dependencies:\n- Story 1.1\n\n" +
		"## Tasks / Subtasks\n- [ ] Task 1\n```\n## not a heading\n```\n" +
		"## Dev Notes\nnotes\n### Testing\nunit\n" +
		"## Dev Agent Record\n### File List\n- `src/a.ts`\n### Debug Log\nlog\n" +
		"## Change Log\n| Date | Agent | Change |\n|---|---|---|\n| 2025-01-01 | @sm | Created |\n"
	st, fs := ParseStory("docs/stories/2.1.sections.md", []byte(doc), nil)
	if len(fs) != 0 {
		t.Errorf("findings = %v", fs)
	}
	want := map[string]struct {
		raw  string
		line int
	}{
		workflow.SectionAcceptance:   {"\n1. Given a, when b, then c\n2. Second\n", 6},
		workflow.SectionScope:        {"**IN:**\n- one\n\n### Scope detail\nstill scope\n", 11},
		workflow.SectionDependencies: {"- Story 1.1\n", 18},
		workflow.SectionTasks:        {"- [ ] Task 1\n```\n## not a heading\n```", 21},
		workflow.SectionDevNotes:     {"notes\n### Testing\nunit", 26},
		workflow.SectionFileList:     {"- `src/a.ts`", 31},
		workflow.SectionChangeLog:    {"| Date | Agent | Change |\n|---|---|---|\n| 2025-01-01 | @sm | Created |", 35},
	}
	if len(st.Sections) != len(want) {
		t.Errorf("sections = %v", st.Sections)
	}
	for key, w := range want {
		sec, ok := st.Sections.Get(key)
		if !ok {
			t.Errorf("section %s missing", key)
			continue
		}
		if sec.Raw != w.raw || sec.Line != w.line {
			t.Errorf("section %s = %q line %d, want %q line %d", key, sec.Raw, sec.Line, w.raw, w.line)
		}
		if sec.Name != key || sec.Hash != StorySectionHash(w.raw) {
			t.Errorf("section %s hash = %s", key, sec.Hash)
		}
	}
	if !reflect.DeepEqual(st.FileList, []string{"src/a.ts"}) {
		t.Errorf("file list = %v", st.FileList)
	}

	// re-saving: trailing spaces, CRLF, blank lines around → same hashes
	resaved := strings.ReplaceAll(doc, "\n", "  \r\n")
	resaved = strings.ReplaceAll(resaved, "## Scope  \r\n", "## Scope\r\n\r\n\r\n")
	st2, _ := ParseStory("docs/stories/2.1.sections.md", []byte(resaved), nil)
	for _, sec := range st.Sections {
		if sec2, _ := st2.Sections.Get(sec.Name); sec2.Hash != sec.Hash {
			t.Errorf("section %s: hash changed by re-saving: %q vs %q", sec.Name, sec2.Raw, sec.Raw)
		}
	}
	if !slices.IsSortedFunc(st.Sections, func(a, b workflow.Section) int { return strings.Compare(a.Name, b.Name) }) {
		t.Errorf("sections not sorted by name: %v", st.Sections)
	}
	// a real edit changes the hash
	edited := strings.Replace(doc, "2. Second", "2. Second, changed", 1)
	st3, _ := ParseStory("docs/stories/2.1.sections.md", []byte(edited), nil)
	hash := func(st *workflow.Story, name string) workflow.SectionHash {
		sec, _ := st.Sections.Get(name)
		return sec.Hash
	}
	if hash(st3, workflow.SectionAcceptance) == hash(st, workflow.SectionAcceptance) {
		t.Error("edited acceptance criteria kept their hash")
	}
	if hash(st3, workflow.SectionScope) != hash(st, workflow.SectionScope) {
		t.Error("scope hash changed by an edit elsewhere")
	}
}

func TestStorySectionHash(t *testing.T) {
	base := StorySectionHash("a\n\nb")
	for _, s := range []string{"a\n\nb", "\n\na  \n\t\nb\t\n\n", "a\r\n\r\nb\r\n", "  \na\n\nb"} {
		if got := StorySectionHash(s); got != base {
			t.Errorf("StorySectionHash(%q) = %s, want %s", s, got, base)
		}
	}
	for _, s := range []string{"a\nb", "a\n\n\nb", " a\n\nb", "a\n\nB"} {
		if got := StorySectionHash(s); got == base {
			t.Errorf("StorySectionHash(%q) equals that of %q", s, "a\n\nb")
		}
	}
}

func TestParseStoryFileList(t *testing.T) {
	tests := []struct {
		name string
		body string
		want []string
	}{
		{"bullets", "- src/a.ts\n- src/b.ts - description\n* **src/c.ts**\n+ src/d.ts (modified)\n", []string{"src/a.ts", "src/b.ts", "src/c.ts", "src/d.ts"}},
		{"backticks preferred", "- `src/a.ts` - main\n- Extended `src/b.ts` - more\n- `react-dropzone` for uploads\n- `@radix-ui/react-radio-group` for radios\n", []string{"src/a.ts", "src/b.ts"}},
		{"leading slash", "- `/packages/frontend/src/x.tsx` - x\n- /lib/y.ts\n- `//etc/passwd`\n", []string{"packages/frontend/src/x.tsx", "lib/y.ts"}},
		{"sub-headings", "**Created Files:**\n- `a/b.go`\n\n#### Modified Files:\n- `a/c.go`\n**📁 Created Files:**\n- a/d.go\n", []string{"a/b.go", "a/c.go", "a/d.go"}},
		{"table", "| File | Action | Description |\n|------|--------|-------------|\n| `src/a.ts` | Created | x |\n| src/b.ts | Modified | y |\n", []string{"src/a.ts", "src/b.ts"}},
		{"table path column", "| Action | Path |\n|---|---|\n| Created | src/a.ts |\n", []string{"src/a.ts"}},
		{"table no header", "| src/a.ts | new |\n| src/b.ts | new |\n", []string{"src/a.ts", "src/b.ts"}},
		{"empty template", "| File | Action | Description |\n|------|--------|-------------|\n", nil},
		{"dedupe and clean", "- src/./a.ts\n- src/a.ts\n- `src/x/../b.ts`\n- ./c.md\n", []string{"src/a.ts", "src/b.ts", "c.md"}},
		{"not paths", "- Node runtime\n- https://example.com/a.ts\n- src/ui/* - all components\n- TBD\n_TBD - To be populated_\n", nil},
		{"next.js paths", "- `packages/app/(dashboard)/[id]/page.tsx` - page\n- packages/shared/types.ts (added X)\n", []string{"packages/app/(dashboard)/[id]/page.tsx", "packages/shared/types.ts"}},
		{"checkboxes and numbers", "- [x] src/a.ts\n1. src/b.ts\n2) `src/c.ts`\n", []string{"src/a.ts", "src/b.ts", "src/c.ts"}},
		{"links and dotfiles", "- [src/a.ts](src/a.ts)\n- .env\n- `.github/workflows/ci.yml`\n- Makefile\n", []string{"src/a.ts", ".env", ".github/workflows/ci.yml"}},
		{"escapes", "- src/my\\_file.ts\n", []string{"src/my_file.ts"}},
		{"code fence skipped", "```\n- src/in-code.ts\n```\n- src/a.ts\n", []string{"src/a.ts"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := "# Story 3.1: X\n**Status:** Draft\n\n## Dev Agent Record\n\n### File List\n" + tt.body + "\n### Debug Log\n- src/not-in-list.ts\n"
			st, _ := ParseStory("docs/stories/3.1.x.md", []byte(doc), nil)
			if !reflect.DeepEqual(st.FileList, tt.want) {
				t.Errorf("file list = %q, want %q", st.FileList, tt.want)
			}
		})
	}
}

func TestParseStoryUnsafeFileList(t *testing.T) {
	var b strings.Builder
	b.WriteString("# Story 3.1: X\n**Status:** Draft\n## File List\n- ../outside.ts\n- `C:/win/x.ts`\n- src/ok.ts\n")
	for i := 0; i < 20; i++ {
		b.WriteString("- ../../x" + strings.Repeat("y", i) + ".ts\n")
	}
	st, fs := ParseStory("docs/stories/3.1.x.md", []byte(b.String()), nil)
	if !reflect.DeepEqual(st.FileList, []string{"src/ok.ts"}) {
		t.Errorf("file list = %q", st.FileList)
	}
	n := 0
	for _, f := range fs {
		if f.Code == "unsafe-path" {
			n++
			if f.Severity != workflow.Warning {
				t.Errorf("unsafe-path severity = %s", f.Severity)
			}
		}
	}
	if n != storyMaxPathFindings+1 {
		t.Errorf("%d unsafe-path findings, want %d", n, storyMaxPathFindings+1)
	}
}

func TestParseStoryBadInput(t *testing.T) {
	// one 50 MB line (far over the 8 MB read limit) for the plain case; the
	// shapes that exercise each sub-parser use 8 MB, enough to expose any
	// quadratic behaviour without slowing the race detector down too much
	huge := strings.Repeat("x", 50<<20)
	big := huge[:8<<20]
	tests := []struct {
		name  string
		data  []byte
		codes []string
	}{
		{"empty", nil, []string{"no-status"}},
		{"binary", []byte("\x00\x01\x02\xff\xfe\x00## Status\x00\n"), []string{"invalid-utf8", "no-status"}},
		{"invalid utf8", []byte("# Story 1.1: Bad \xff\xfe\n\n**Status:** In Progress \xc3\n"), []string{"invalid-utf8"}},
		{"only newlines", []byte(strings.Repeat("\n", 100000)), []string{"no-status"}},
		{"huge line", []byte(huge), []string{"no-status"}},
		{"huge status", []byte("**Status:** Done - " + big), nil},
		{"huge heading", []byte("# Story 1.1: " + big + "\n## File List\n- `" + big + "`\n"), []string{"no-status"}},
		{"huge table row", []byte("## File List\n" + strings.Repeat("|", 8<<20)), []string{"no-status"}},
		{"huge backticks", []byte("## File List\n- " + strings.Repeat("`a", 4<<20)), []string{"no-status"}},
		{"huge parens", []byte("## File List\n- " + strings.Repeat("(", 8<<20)), []string{"no-status"}},
		{"huge hashes", []byte(strings.Repeat("#", 8<<20)), []string{"no-status"}},
		{"huge bullets", []byte(strings.Repeat("- a.ts\n", 1<<20)), []string{"no-status"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			st, fs := ParseStory("docs/stories/1.1.bad.md", tt.data, nil)
			if st == nil || st.ID != "1.1" {
				t.Fatalf("story = %+v", st)
			}
			if got := storyCodes(fs); !reflect.DeepEqual(got, tt.codes) {
				t.Errorf("codes = %v, want %v", got, tt.codes)
			}
			if len(st.StatusRaw) > workflow.MaxStatusLen || len(st.Title) > storyMaxFieldLen {
				t.Errorf("unbounded fields: status %d bytes, title %d bytes", len(st.StatusRaw), len(st.Title))
			}
			if d := time.Since(start); d > 20*time.Second {
				t.Errorf("took %s", d)
			}
		})
	}
	st, fs := ParseStory("x/1.1.bad.md", []byte("ok\n\xff\n**Status:** Done\n"), nil)
	if st.Status != workflow.StatusDone || fs[0].Line != 2 || fs[0].Severity != workflow.Warning || fs[0].Check != workflow.CheckParse {
		t.Errorf("invalid utf8: status %s, findings %+v", st.Status, fs)
	}
}

// storyWrite creates files under dir.
func storyWrite(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestStorySourceScan(t *testing.T) {
	dir := t.TempDir()
	storyWrite(t, dir, map[string]string{
		"docs/stories/4.2.login.md": "# Story 4.2: Login\n\n**Status:** In Progress\n**Executor:** @dev\n**Quality Gate:** @qa\n\n" +
			"## File List\n- `/src/login.ts`\n- src/login.test.ts\n- docs/stories/4.2.login.md\n",
		"docs/stories/4.3.review.md":      "# Story 4.3: Review\n\n## Status\nReady for Review\n",
		"docs/stories/4.4.done.md":        "# Story 4.4: Done\n\n## Status\nDone\n",
		"docs/stories/epic5/5.1.odd.md":   "# Story 5.1: Odd\n\n## Status\nhalf way there\n",
		"docs/stories/README.md":          "# Stories\n\nThe stories of the project.\n",
		"docs/stories/index.md":           "# Index\n- 4.2\n",
		"docs/stories/4.2/spec/spec.md":   "# Spec\n**Status:** In Progress\n",
		"docs/stories/notes.md":           "# Notes\n**Status:** Draft\n",
		"docs/stories/6.1.binary.md":      "# Story 6.1\x00binary",
		"docs/stories/z/4.2.duplicate.md": "# Story 4.2: Again\n**Status:** InReview\n",
	})
	mtime := time.Date(2025, 9, 1, 12, 0, 0, 0, time.UTC)
	if err := os.Chtimes(filepath.Join(dir, "docs/stories/4.2.login.md"), mtime, mtime); err != nil {
		t.Fatal(err)
	}
	r, _ := source.NewRepo(dir, config.Default())
	src := StorySource
	if src.Kind() != workflow.KindStory || src.Priority() != workflow.PriorityInProgress {
		t.Errorf("kind, priority = %s, %d", src.Kind(), src.Priority())
	}
	cs, fs := src.Scan(r)
	if len(fs) != 0 {
		t.Errorf("source findings = %v", fs)
	}
	byID := map[string]workflow.Candidate{}
	var ids []string
	for _, c := range cs {
		byID[c.ID] = c
		ids = append(ids, c.ID)
	}
	wantIDs := []string{"sdc:4.2", "qa-review:4.3", "story:4.4", "story:6.1", "story:5.1", "story:notes", "qa-review:4.2@docs/stories/z/4.2.duplicate.md"}
	if !reflect.DeepEqual(ids, wantIDs) {
		t.Fatalf("candidate ids = %v, want %v", ids, wantIDs)
	}

	c := byID["sdc:4.2"]
	def := r.Definition(workflow.DefSDC)
	wantC := workflow.Candidate{
		ID: "sdc:4.2", Type: workflow.TypeSDC, Key: "4.2",
		Source:    workflow.SourceRef{Kind: workflow.KindStory, Path: "docs/stories/4.2.login.md", Priority: workflow.PriorityInProgress},
		Workflow:  workflow.DefSDC,
		Stories:   []string{"4.2"},
		StoryRefs: []workflow.StoryRef{{ID: "4.2", Path: "docs/stories/4.2.login.md"}},
		Status:    "InProgress", StatusRaw: "In Progress", Resumable: true,
		UpdatedAt: mtime, UpdatedFrom: "mtime",
		Position: workflow.PhasePosition(3, 4, "Implementation"),
		Phases: []workflow.Phase{
			{ID: "create", Name: def.Phases[0].Name, Agent: "sm", Status: workflow.PhaseCompleted},
			{ID: "validate", Name: def.Phases[1].Name, Agent: "po", Status: workflow.PhaseCompleted},
			{ID: "implement", Name: "Implementation", Agent: "dev", Status: workflow.PhaseCurrent},
			{ID: "review", Name: def.Phases[3].Name, Agent: "qa", Status: workflow.PhasePending},
		},
		Files: []workflow.RefFile{
			{Path: "docs/stories/4.2.login.md", Phase: "implement", Critical: true, From: "story"},
			{Path: "src/login.ts", Phase: "implement", Produced: true, From: "file-list"},
			{Path: "src/login.test.ts", Phase: "implement", Produced: true, From: "file-list"},
		},
		Agent: "dev",
	}
	if !reflect.DeepEqual(c, wantC) {
		t.Errorf("sdc candidate =\n%+v\nwant\n%+v", c, wantC)
	}

	c = byID["qa-review:4.3"]
	if c.Type != workflow.TypeQAReview || c.Source.Priority != workflow.PriorityInReview || !c.Resumable ||
		c.Position != (workflow.PhasePosition(4, 4, def.Phases[3].Name)) ||
		c.Agent != "qa" || c.Status != "InReview" || c.StatusRaw != "Ready for Review" ||
		c.Phases[2].Status != workflow.PhaseCompleted || c.Phases[3].Status != workflow.PhaseCurrent ||
		c.Files[0] != (workflow.RefFile{Path: "docs/stories/4.3.review.md", Phase: "review", Critical: true, From: "story"}) {
		t.Errorf("qa-review candidate = %+v", c)
	}

	for _, id := range []string{"story:4.4", "story:5.1", "story:notes", "story:6.1"} {
		c := byID[id]
		// not in flight: no StoryRefs, and only the File List's files
		// (none here), not the story itself (see storyBuilder.fill)
		if c.Type != workflow.TypeStory || c.Resumable || c.Source.Priority != workflow.PriorityOtherStory || c.Phases != nil ||
			c.Files != nil || c.StoryRefs != nil || !reflect.DeepEqual(c.Stories, []string{c.Key}) {
			t.Errorf("%s = %+v", id, c)
		}
	}
	if c := byID["story:5.1"]; c.Status != "Unknown" || !storyHasCode(c.Findings, "unknown-status") {
		t.Errorf("odd story = %+v", c)
	}
	if c := byID["story:notes"]; !storyHasCode(c.Findings, "no-story-id") {
		t.Errorf("notes story findings = %v", c.Findings)
	}
	if c := byID["story:6.1"]; c.Status != "Unknown" || len(c.Findings) != 1 || c.Findings[0].Code != "binary" || c.Findings[0].Severity != workflow.Blocking {
		t.Errorf("binary story = %+v", c)
	}
	dup := byID["qa-review:4.2@docs/stories/z/4.2.duplicate.md"]
	if !storyHasCode(dup.Findings, "duplicate-story-id") || dup.Key != "4.2" {
		t.Errorf("duplicate = %+v", dup)
	}
	for _, f := range dup.Findings {
		if f.Code == "duplicate-story-id" && (f.Severity != workflow.Warning || !strings.Contains(f.Message, "docs/stories/4.2.login.md") || !strings.Contains(f.Message, "docs/stories/z/4.2.duplicate.md")) {
			t.Errorf("duplicate finding = %+v", f)
		}
	}

	var stories []string
	for id := range r.Stories {
		stories = append(stories, id)
	}
	if len(stories) != 5 || r.Stories["4.2"].Path != "docs/stories/4.2.login.md" || r.Stories["4.2"].ModTime != mtime {
		t.Errorf("r.Stories = %v", stories)
	}

	// deterministic
	r2, _ := source.NewRepo(dir, config.Default())
	cs2, _ := src.Scan(r2)
	if !reflect.DeepEqual(cs, cs2) {
		t.Error("a second scan gave a different result")
	}
}

func TestStorySourceConfig(t *testing.T) {
	dir := t.TempDir()
	storyWrite(t, dir, map[string]string{
		"stories/spec/1.1.a.md":     "# Story 1.1: A\n**Status:** Shipping\n",
		"stories/1.2.b.md":          "# Story 1.2: B\n**Status:** Doing\n",
		"docs/stories/1.3.other.md": "# Story 1.3: C\n**Status:** Draft\n",
	})
	cfg := config.Default()
	cfg.Sources.Stories = []string{"stories/**/*.md"}
	cfg.Statuses = map[string][]string{"InReview": {"shipping"}, "InProgress": {"doing"}}
	r, _ := source.NewRepo(dir, cfg)
	cs, _ := StorySource.Scan(r)
	var ids []string
	for _, c := range cs {
		ids = append(ids, c.ID)
	}
	// "spec" in the glob's fixed prefix does not hide stories; one below it does
	want := []string{"sdc:1.2"}
	if !reflect.DeepEqual(ids, want) {
		t.Errorf("ids = %v, want %v", ids, want)
	}
	cfg.Sources.Stories = []string{"stories/spec/*.md"}
	r, _ = source.NewRepo(dir, cfg)
	cs, _ = StorySource.Scan(r)
	if len(cs) != 1 || cs[0].ID != "qa-review:1.1" {
		t.Errorf("candidates = %+v", cs)
	}
}

func TestStorySourceCustomDefinition(t *testing.T) {
	dir := t.TempDir()
	storyWrite(t, dir, map[string]string{
		"docs/stories/1.1.a.md": "# Story 1.1: A\n**Status:** InProgress\n",
		".nexos/workflows/story-development-cycle.yaml": "workflow:\n  id: story-development-cycle\nphases:\n" +
			"  - {id: plan, name: Planning, agent: pm}\n  - {id: develop, name: Development, agent: dev}\n" +
			"  - {id: qa-gate, name: Gate, agent: qa}\n  - {id: ship, name: Ship, agent: devops}\n",
	})
	r, _ := source.NewRepo(dir, config.Default())
	cs, _ := StorySource.Scan(r)
	if len(cs) != 1 {
		t.Fatalf("candidates = %+v", cs)
	}
	c := cs[0]
	if c.Position != (workflow.PhasePosition(2, 4, "Development")) || c.Agent != "dev" ||
		c.Files[0].Phase != "develop" || c.Phases[0].Status != workflow.PhaseCompleted || c.Phases[3].Status != workflow.PhasePending {
		t.Errorf("candidate = %+v", c)
	}
}

func FuzzParseStory(f *testing.F) {
	f.Add("docs/stories/4.2.login.md", []byte("# Story 4.2: Login\n\n**Status:** In Progress\n\n## File List\n- `src/a.ts`\n"))
	f.Add("docs/stories/notes.md", []byte("## Status\n✅ **COMPLETED** - 2025\n## Acceptance Criteria\n1. x\n"))
	f.Add("", []byte("\xff\x00```\n# 1.2: x\n|a|b|\n|---|"))
	f.Add("docs/stories/4.3.tags.md", []byte("# Story 4.3: Tags\n\n## Dev Agent Record\n**Status**: In Progress\n### QA Results\nStatus: Done\n### Status\n\nReady for Review\n| Status | Validé |\n"))
	valid := map[workflow.Status]bool{workflow.StatusUnknown: true}
	for _, st := range workflow.StatusOrder {
		valid[st] = true
	}
	f.Fuzz(func(t *testing.T, p string, data []byte) {
		st, fs := ParseStory(p, data, map[string][]string{"Done": {"shipped"}})
		if st == nil {
			t.Fatal("nil story")
		}
		if st.ID == "" || !valid[st.Status] {
			t.Fatalf("id %q, status %q", st.ID, st.Status)
		}
		if st.Status == workflow.StatusUnknown && !storyHasCode(fs, "no-status") && !storyHasCode(fs, "unknown-status") {
			t.Fatalf("Unknown status without a finding: %v", fs)
		}
		if len(st.StatusRaw) > workflow.MaxStatusLen || len(st.Title) > storyMaxFieldLen || len(st.Epic) > storyMaxFieldLen {
			t.Fatalf("unbounded fields")
		}
		if !utf8.ValidString(st.StatusRaw) || !utf8.ValidString(st.Title) {
			t.Fatalf("invalid UTF-8 in fields: %q %q", st.StatusRaw, st.Title)
		}
		if len(fs) > 2*storyMaxPathFindings+10 {
			t.Fatalf("%d findings", len(fs))
		}
		lines := strings.Count(string(data), "\n") + 1
		if len(st.FileList) > lines || len(st.FileList) > storyMaxFileList {
			t.Fatalf("%d paths from %d lines", len(st.FileList), lines)
		}
		for _, fp := range st.FileList {
			if fp == "" || fp != path.Clean(fp) || strings.HasPrefix(fp, "/") || fp == ".." || strings.HasPrefix(fp, "../") || len(fp) > storyMaxPathLen {
				t.Fatalf("bad path %q", fp)
			}
		}
		for i, sec := range st.Sections {
			if sec.Hash == (workflow.SectionHash{}) || sec.Line < 1 || sec.Line > lines || (i > 0 && st.Sections[i-1].Name >= sec.Name) {
				t.Fatalf("section %s = %+v", sec.Name, sec)
			}
		}
		for _, f := range fs {
			if f.Path != p || f.Check == "" || f.Severity == "" || f.Code == "" {
				t.Fatalf("bad finding %+v", f)
			}
		}
		st2, fs2 := ParseStory(p, data, map[string][]string{"Done": {"shipped"}})
		if !reflect.DeepEqual(st, st2) || !reflect.DeepEqual(fs, fs2) {
			t.Fatal("not deterministic")
		}
		// a scan's parse of its own buffer: ParseStory's story with only the
		// storyScanRaw sections' text, and only those when not in flight
		wantScanned(st2)
		buf := append([]byte(nil), data...)
		scan := storyParse(p, buf, map[string][]string{"Done": {"shipped"}}, true).story
		if !reflect.DeepEqual(scan, st2) {
			t.Fatalf("a scan's parse differs from ParseStory's:\n got %+v\nwant %+v", scan, st2)
		}
		// a worker's: its state has parsed data before (the headings it
		// remembers), its buffer is written over with the next file
		var state storyState
		extra := map[string][]string{"Done": {"shipped"}}
		state.parse(p, append([]byte(nil), data...), extra, true)
		reused := state.parse(p, buf, extra, true).story
		for i := range buf {
			buf[i] = 'X'
		}
		if !reflect.DeepEqual(reused, st2) || !reflect.DeepEqual(scan, st2) {
			t.Fatalf("a worker's parse differs, or points into its overwritten buffer:\n got %+v\nwant %+v", reused, st2)
		}
	})
}

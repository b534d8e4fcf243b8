package story

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"unicode"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

func TestStoryInSpecFolder(t *testing.T) {
	tests := []struct {
		path   string
		prefix int
		want   bool
	}{
		{"docs/stories/1.1.md", 2, false},
		{"docs/stories/spec/1.1.md", 2, true},
		{"docs/stories/epic/spec/x.md", 2, true},
		{"docs/stories/spec.md", 2, false},
		{"docs/spec/stories/1.1.md", 2, false}, // inside the fixed prefix
		{"spec/1.1.md", 0, true},
		{"spec", 0, false},
		{"docs/stories/specs/1.1.md", 2, false},
	}
	for _, tt := range tests {
		if got := storyInSpecFolder(tt.path, tt.prefix); got != tt.want {
			t.Errorf("storyInSpecFolder(%q, %d) = %v, want %v", tt.path, tt.prefix, got, tt.want)
		}
	}
}

func TestStorySectionHashScratch(t *testing.T) {
	// one scratch buffer for many sections gives each the hash it has alone
	sections := []string{
		"a long section\nwith two lines  \n\n\nand a gap",
		"x",
		"",
		"\n\n  b  \r\n\tc\t\n\n",
		"a long section\nwith two lines\n\n\nand a gap\n\n",
	}
	var scratch []byte
	for _, raw := range sections {
		if got, want := storySectionHash(raw, &scratch), StorySectionHash(raw); got != want {
			t.Errorf("storySectionHash(%q) with a reused buffer = %s, want %s", raw, got, want)
		}
	}
	if StorySectionHash(sections[0]) != StorySectionHash(sections[4]) {
		t.Error("trailing whitespace and blank lines changed the hash")
	}
}

func TestStoryFoldKnown(t *testing.T) {
	tests := []struct{ word, want string }{
		{"Status", "status"},
		{"STATUS", "status"},
		{"story", "story"},
		{"Current", "current"},
		{"StoryStatus", "storystatus"},
		{"Acceptance", storyNoKey},
		{"", storyNoKey},
		{"État", "etat"}, // not ASCII: workflow.FoldStatus
	}
	for _, tt := range tests {
		if got := storyFoldKnown(tt.word); got != tt.want {
			t.Errorf("storyFoldKnown(%q) = %q, want %q", tt.word, got, tt.want)
		}
	}
}

func TestStoryAgent(t *testing.T) {
	tests := []struct{ in, want string }{
		{"@dev (Dex)", "dev"},
		{"  **@QA**  gate", "qa"},
		{"@sm,", "sm"},
		{"", ""},
		{"   ", ""},
	}
	for _, tt := range tests {
		if got := storyAgent(tt.in); got != tt.want {
			t.Errorf("storyAgent(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestStoryParseScanCompact checks that a scan's parse of a buffer gives
// the story ParseStory gives, except that only the sections of
// storyScanRaw keep their text (every section keeps its hash and line), and
// that the story no longer depends on the buffer: the buffer is written
// over after each parse (as a worker's reused read buffer is with the next
// file) and every story parsed so far must be unchanged.
func TestStoryParseScanCompact(t *testing.T) {
	files, err := filepath.Glob("testdata/realworld/*/docs/stories/*.md")
	if err != nil || len(files) == 0 {
		t.Fatalf("no story files: %v", err)
	}
	sample, _ := filepath.Glob("testdata/benchsample/*.md")
	files = append(files, sample...)
	inputs := map[string]string{
		"sections.md":  "# Story 1.2: A title\n\n**Status:** InProgress\n**Executor:** @dev\n\n" + strings.Repeat("intro line\n", 20) + "## Acceptance Criteria\n\n1. works\n\n## File List\n\n- `src/a.go`\n- src/b.go\n",
		"crlf.md":      "# Story 1.3: CRLF\r\n\r\n## Status\r\n\r\nDone\r\n\r\n## Tasks\r\n\r\n- [x] a\r\n",
		"empty.md":     "",
		"no-status.md": "# Story 4.4: only a title\n",
		"kept.md": "# Story 1.4: Kept\n\n**Status:** Draft\n\n## Dependencies\n\n- Story 1.1\n\n## Scope\n\nall of it\n\n" +
			"## Change Log\n\n| Date | Change |\n|---|---|\n| 2026-01-01 | created |\n\n## Dev Notes\n\nnone\n",
		"kept-crlf.md": "# Story 1.5: Kept\r\n\r\n## Scope  \r\n\r\nall  \r\nof it\r\n\r\n## Change Log\r\n\r\n- created\r\n",
		"invalid.md":   "# Story 1.6: Bad \xff\n\n**Status:** Done\n\n## Change Log\n\n- x\n\n## Tasks\n\n- [ ] y\n",
		// a lone "\r" in a kept section: no "\r\n" to replace, the text as it is
		"lone-cr.md": "# Story 1.7: Lone\n\n**Status:** InProgress\n\n## Change Log\n\n- a\rb\n\n## Dependencies\n\n- Story 1.1 \r x\n\n## Tasks\n\n- [ ] y\r\n",
		"fields.md": "---\nstatus: InReview\n---\n# 2.1: Front\n\n**Epic:** **E-7**\n**Executor:** @dev (Dex)\n**Quality Gate:** @qa\n\n## Status\n\nIn Review\n\n" +
			"## File List\n\n| File | Change |\n|---|---|\n| `src/x.go` | new |\n| /abs/y.go | edit |\n- ../escape.go\n\n## Dev Agent Record\n\n### Status\n\nDone\n",
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs[f] = string(data)
	}
	names := make([]string, 0, len(inputs))
	for name := range inputs {
		names = append(names, name)
	}
	sort.Strings(names)
	type parsed struct {
		name string
		got  storyParsed
		want storyParsed
	}
	var all []parsed
	var state storyState // reused, as a worker's
	buf := make([]byte, 0, 1<<16)
	for _, name := range names {
		text := inputs[name]
		path := "docs/stories/" + filepath.Base(name)
		want := storyParse(path, []byte(text), nil, false)
		wantScanned(want.story)
		buf = append(buf[:0], text...)
		got := state.parse(path, buf, nil, true)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: a scan's parse differs from ParseStory's:\n got %+v\nwant %+v", name, got.story, want.story)
		}
		all = append(all, parsed{name, got, want})
		for i := range buf[:cap(buf)] {
			buf[:cap(buf)][i] = 'X' // only in a test: a story still pointing into buf changes
		}
	}
	for _, p := range all {
		if !reflect.DeepEqual(p.got, p.want) {
			t.Errorf("%s: the story still points into its overwritten buffer:\n got %+v\nwant %+v", p.name, p.got.story, p.want.story)
		}
	}
}

// TestStoryStateReuse checks that one state parsing many files in turn (as
// a scan's worker does) gives every file the story a fresh parse gives it,
// whatever the file before it left behind (a huge File List, CRLF, a
// Dependencies list, findings, invalid UTF-8).
func TestStoryStateReuse(t *testing.T) {
	files, err := filepath.Glob("testdata/realworld/*/docs/stories/*.md")
	if err != nil || len(files) == 0 {
		t.Fatalf("no story files: %v", err)
	}
	var big strings.Builder
	big.WriteString("# Story 9.9: Big\n\n**Status:** InProgress\n\n## File List\n\n")
	for i := 0; i < 3*storyReuseMax; i++ {
		fmt.Fprintf(&big, "- `src/f%d.go`\n", i)
	}
	big.WriteString("\n## Dev Notes\n\n" + strings.Repeat("a long line of notes\n", 5000))
	texts := []string{
		big.String(),
		"# Story 1.2: After big\n\n**Status:** Done\n\n## File List\n\n- src/f1.go\n",
		"# Story 1.3: CRLF\r\n\r\n## Status\r\n\r\nDone\r\n\r\n## Tasks\r\n\r\n- [x] a\r\n",
		"# Story 1.4: Deps\n\n**Dependencies:**\n- Story 1.1\n- Story 1.2\n\n## Scope\n\nx\n",
		"",
		"# Story 1.6: Bad \xff\n\n**Status:** Done\n\n## Change Log\n\n- x\n",
		"no title, no status\n",
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, string(data))
	}
	var state storyState
	for round := 0; round < 2; round++ {
		for i, text := range texts {
			for _, scan := range []bool{true, false} {
				path := fmt.Sprintf("docs/stories/%d.%d.x.md", i+1, round)
				want := storyParse(path, []byte(text), map[string][]string{"Done": {"shipped"}}, scan)
				got := state.parse(path, []byte(text), map[string][]string{"Done": {"shipped"}}, scan)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("text %d (scan %v): a reused state's parse differs from a fresh one:\n got %+v\nwant %+v", i, scan, got.story, want.story)
				}
			}
		}
	}
	if len(state.fileSeen) > storyReuseMax || cap(state.open) > storyReuseMax {
		t.Errorf("the state kept large buffers: %d file names, %d open sections", len(state.fileSeen), cap(state.open))
	}
}

// benchStoryText is a story shaped like benchgen's stories shape: a title,
// header fields and seven short sections.
const benchStoryText = "# Story 1.1: Inventory config\n\n**Status:** Completed\n**Epic:** 1\n**Executor:** @dev\n**Quality Gate:** @qa\n\n" +
	"## Story\n\n**As a** user, **I want** inventory config, **so that** my work goes faster.\n\n" +
	"## Acceptance Criteria\n\n1. **Given** a signed-in user, **When** they use inventory config, **Then** it completes in under a second.\n2. Errors are reported with a clear message.\n3. The change is covered by tests.\n\n" +
	"## Scope\n\n**IN:** inventory config for existing accounts. **OUT:** bulk operations.\n\n" +
	"## Tasks / Subtasks\n\n- [x] Data model (AC: 1)\n- [x] Handler (AC: 1, 2)\n- [ ] Tests (AC: 3)\n\n" +
	"## Dev Notes\n\nFollow the existing package layout; no new dependencies.\n\n" +
	"## File List\n\n- `src/pkg415/sub06/file83166.go`\n- `src/pkg316/sub07/file63399.go`\n\n" +
	"## Change Log\n\n| Date | Agent | Change |\n|------|-------|--------|\n| 2026-10-01 | @sm | Drafted |\n"

// BenchmarkStoryParse measures the scan's parse of one typical story (its
// own buffer and a worker's reused state, as storyReadAll gives them).
func BenchmarkStoryParse(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(benchStoryText)))
	var state storyState
	for i := 0; i < b.N; i++ {
		buf := []byte(benchStoryText)
		p := state.parse("docs/stories/1.1.inventory-config.md", buf, nil, true)
		if p.story.ID != "1.1" {
			b.Fatal(p.story.ID)
		}
	}
}

// TestStoryCandidatesSharedArrays checks that the candidates' Stories and
// StoryRefs, carved from two shared arrays, are each the candidate's own:
// the story's id and path (StoryRefs only for a story in flight), and an
// append to one candidate's never changes another's (a README between
// stories leaves no hole).
func TestStoryCandidatesSharedArrays(t *testing.T) {
	dir := t.TempDir()
	storyWrite(t, dir, map[string]string{
		"docs/stories/1.1.a.md":  "# Story 1.1: A\n\n**Status:** Done\n",
		"docs/stories/1.2.b.md":  "# Story 1.2: B\n\n**Status:** InProgress\n",
		"docs/stories/README.md": "# Stories\n",
		"docs/stories/1.3.c.md":  "# Story 1.3: C\n\n**Status:** InReview\n",
	})
	r, _ := source.NewRepo(dir, config.Default())
	cands, _ := scanStories(r)
	if len(cands) != 3 {
		t.Fatalf("%d candidates, want 3", len(cands))
	}
	for _, c := range cands {
		want := []workflow.StoryRef{{ID: c.Key, Path: c.Source.Path}}
		if !c.Resumable {
			want = nil
		}
		if !reflect.DeepEqual(c.Stories, []string{c.Key}) || !reflect.DeepEqual(c.StoryRefs, want) {
			t.Errorf("%s: stories %v, refs %+v", c.ID, c.Stories, c.StoryRefs)
		}
	}
	for _, i := range []int{0, 1} {
		cands[i].Stories = append(cands[i].Stories, "9.9")
		cands[i].StoryRefs = append(cands[i].StoryRefs, workflow.StoryRef{ID: "9.9"})
	}
	if cands[2].Stories[0] != cands[2].Key || cands[2].StoryRefs[0].ID != cands[2].Key || len(cands[2].StoryRefs) != 1 {
		t.Errorf("an append to %s or %s changed %s: %v %+v", cands[0].ID, cands[1].ID, cands[2].ID, cands[2].Stories, cands[2].StoryRefs)
	}
}

// wantScanned makes ParseStory's story st what a scan's parse of the same
// file gives: the text of only the storyScanRaw sections, and, for a story
// neither InProgress nor InReview, only those sections (SectionsTrimmed
// when others were dropped).
func wantScanned(st *workflow.Story) {
	inFlight := st.Status == workflow.StatusInProgress || st.Status == workflow.StatusInReview
	var kept workflow.Sections
	for _, sec := range st.Sections {
		if !storyScanRaw[sec.Name] {
			if !inFlight {
				st.SectionsTrimmed = true
				continue
			}
			sec.Raw = ""
		}
		kept = append(kept, sec)
	}
	if len(st.Sections) > 0 {
		st.Sections = kept
	}
	if st.Sections != nil && len(st.Sections) == 0 {
		st.Sections = nil
	}
}

// BenchmarkStoryParseSample is BenchmarkStoryParse over the bench's sample
// of stories (testdata/benchsample: every status spelling and layout the
// bench generates), one parse of each per iteration.
func BenchmarkStoryParseSample(b *testing.B) {
	files, err := filepath.Glob("testdata/benchsample/*.md")
	if err != nil || len(files) == 0 {
		b.Fatal(err, len(files))
	}
	var texts [][]byte
	size := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		texts = append(texts, data)
		size += len(data)
	}
	b.ReportAllocs()
	b.SetBytes(int64(size))
	var state storyState
	buf := make([]byte, 0, 4096)
	for i := 0; i < b.N; i++ {
		for j, data := range texts {
			buf = append(buf[:0], data...)
			state.parse(files[j], buf, nil, true)
		}
	}
}

// storySectionHashRef is storySectionHash without its shortcut for text
// that is its own normalisation: the reference of FuzzStorySectionHash.
func storySectionHashRef(raw string) workflow.SectionHash {
	var buf []byte
	pendingBlank := 0
	started := false
	for off := 0; off <= len(raw); {
		end := strings.IndexByte(raw[off:], '\n')
		if end < 0 {
			end = len(raw)
		} else {
			end += off
		}
		line := strings.TrimRightFunc(raw[off:end], unicode.IsSpace)
		off = end + 1
		if line == "" {
			if started {
				pendingBlank++
			}
			continue
		}
		if started {
			for ; pendingBlank > 0; pendingBlank-- {
				buf = append(buf, '\n')
			}
			buf = append(buf, '\n')
		}
		started = true
		buf = append(buf, line...)
	}
	return sha256.Sum256(buf)
}

func FuzzStorySectionHash(f *testing.F) {
	for _, s := range []string{"", "a", "\na", "a\n", "a \nb", "a\n\n\nb", "a\u00a0\nb", "a\u2003", "x\r\ny", "\xff", "a\xc2", "  \n", "a\n \nb", "a\x85"} {
		f.Add(s)
	}
	var scratch []byte
	f.Fuzz(func(t *testing.T, raw string) {
		if got, want := storySectionHash(raw, &scratch), storySectionHashRef(raw); got != want {
			t.Fatalf("storySectionHash(%q) = %x, want %x", raw, got, want)
		}
	})
}

// TestStoryNotInFlightFiles checks what a story candidate that is not
// resumable keeps (see storyBuilder.fill): its File List's files but not
// the story itself, no StoryRefs; a story in flight keeps both, and a story
// that lists itself in its File List lists it once either way.
func TestStoryNotInFlightFiles(t *testing.T) {
	dir := t.TempDir()
	list := "\n## Dev Agent Record\n\n### File List\n\n- src/a.go\n- src/b.go\n"
	storyWrite(t, dir, map[string]string{
		"docs/stories/1.1.a.md": "# Story 1.1: A\n\n**Status:** Done\n" + list,
		"docs/stories/1.2.b.md": "# Story 1.2: B\n\n**Status:** InProgress\n" + list,
		"docs/stories/1.3.c.md": "# Story 1.3: C\n\n**Status:** Ready\n" + list + "- docs/stories/1.3.c.md\n",
		"docs/stories/1.4.d.md": "# Story 1.4: D\n\n**Status:** Draft\n",
	})
	r, _ := source.NewRepo(dir, config.Default())
	cands, _ := scanStories(r)
	got := map[string][]string{}
	for _, c := range cands {
		var files []string
		for _, f := range c.Files {
			files = append(files, f.From+":"+f.Path)
		}
		got[c.ID] = files
		if (c.StoryRefs != nil) != c.Resumable {
			t.Errorf("%s: resumable %v, refs %+v", c.ID, c.Resumable, c.StoryRefs)
		}
	}
	want := map[string][]string{
		"story:1.1": {"file-list:src/a.go", "file-list:src/b.go"},
		"sdc:1.2":   {"story:docs/stories/1.2.b.md", "file-list:src/a.go", "file-list:src/b.go"},
		"story:1.3": {"file-list:src/a.go", "file-list:src/b.go"},
		"story:1.4": nil,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("files = %v\nwant %v", got, want)
	}
}

// TestStoryHeadingMemo checks that the headings a reused state remembers
// (headingInfo) give what a fresh parse gives: for another file, with other
// status spellings (a heading that is a status heading only with them), and
// past the bound of remembered headings.
func TestStoryHeadingMemo(t *testing.T) {
	text := "# Story 1.1: A\n\n## Story\n\nx\n\n## Status Shipped\n\n## Acceptance Criteria (MVP)\n\n1. y\n\n## Change Log\n\n- z\n"
	shipped := map[string][]string{"Done": {"shipped"}}
	var state storyState
	var many strings.Builder
	for i := 0; i < storyHeadsMax+10; i++ {
		fmt.Fprintf(&many, "## Heading %d\n\nx\n\n", i)
	}
	for i, c := range []struct {
		text  string
		extra map[string][]string
	}{{text, nil}, {text, shipped}, {text, nil}, {many.String() + text, shipped}, {text, shipped}} {
		p := "docs/stories/1.1.a.md"
		want := storyParse(p, []byte(c.text), c.extra, true)
		got := state.parse(p, []byte(c.text), c.extra, true)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("parse %d: a reused state gives\n %+v\nwant %+v", i, got.story, want.story)
		}
	}
	if len(state.heads) > storyHeadsMax {
		t.Errorf("%d headings remembered, more than %d", len(state.heads), storyHeadsMax)
	}
	if st := storyParse("docs/stories/1.1.a.md", []byte(text), shipped, true).story; st.Status != workflow.StatusDone {
		t.Errorf("status %q with the spelling shipped, want Done", st.Status)
	}
}

// TestStorySeenHoldsEverySection checks that storySeen has room for every
// canonical section the parser takes (storySectionNames' and the
// Dependencies field's), so that none is ever left out of it.
func TestStorySeenHoldsEverySection(t *testing.T) {
	var ss storySeen
	all := map[string]bool{workflow.SectionDependencies: true}
	for _, sec := range storySectionNames {
		all[sec] = true
	}
	if len(all) > len(ss.names) {
		t.Fatalf("%d canonical sections, storySeen holds %d", len(all), len(ss.names))
	}
	for sec := range all {
		ss.add(sec)
		ss.add(sec)
	}
	for sec := range all {
		if !ss.has(sec) {
			t.Errorf("%s not in the set", sec)
		}
	}
	if ss.n != len(all) || ss.has("readme") {
		t.Errorf("set of %d, want %d: %v", ss.n, len(all), ss.names)
	}
}

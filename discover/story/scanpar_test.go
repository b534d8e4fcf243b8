package story

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// scanStoriesSerial is scanStories as it was before the workers built the
// candidates: every file read and parsed in path order, each candidate
// built and appended by one loop. TestScanStoriesMatchesSerial holds the
// parallel scan to it.
func scanStoriesSerial(r *source.Repo, patterns []string) ([]workflow.Candidate, map[string]*workflow.Story) {
	stories := map[string]*workflow.Story{}
	var out []workflow.Candidate
	firstPath := map[string]string{}
	b := newStoryBuilder(r)
	for _, p := range storyGlob(r.Root, patterns) {
		var st *workflow.Story
		readable := false
		data, mtime, err := r.ReadWithTime(p)
		if err != nil {
			st = storyUnreadable(p, err)
		} else {
			parsed := storyParse(p, data, r.Config.Statuses, true) // a fresh buffer, as the workers have
			if !parsed.hasID && !parsed.hasStatus && !parsed.hasSections {
				continue
			}
			st, readable = parsed.story, true
		}
		st.ModTime = mtime
		c := b.candidate(st, []string{st.ID}, []workflow.StoryRef{{ID: st.ID, Path: st.Path}})
		if first, dup := firstPath[st.ID]; dup {
			c.ID += "@" + p
			c.Findings = append(c.Findings, workflow.Finding{
				Check: workflow.CheckDiscover, Severity: workflow.Warning, Code: "duplicate-story-id", Path: p,
				Message: fmt.Sprintf("story id %s is used by both %s and %s; the first one is story %s, this one is listed as %s", st.ID, first, p, st.ID, c.ID),
			})
		} else {
			firstPath[st.ID] = p
			if readable {
				stories[st.ID] = st
			}
		}
		out = append(out, c)
	}
	return out, stories
}

// TestScanStoriesMatchesSerial checks the scan whose workers build the
// candidates against the serial reading: the same candidates in the same
// order (duplicates, READMEs and unreadable files between stories, two
// globs), the same Repo.Stories, and the spare capacity the other sources'
// candidates go into, empty.
func TestScanStoriesMatchesSerial(t *testing.T) {
	files := map[string]string{
		"docs/stories/README.md":         "# Stories\n",
		"docs/stories/notes.md":          "# Notes\n**Status:** Draft\n",
		"docs/stories/7.1.binary.md":     "# Story 7.1\x00binary",
		"docs/stories/x/7.1.again.md":    "# Story 7.1: Again\n**Status:** InReview\n",
		"docs/stories/9/spec/spec.md":    "# Spec\n**Status:** In Progress\n",
		"docs/extra/8.1.extra.md":        "# Story 8.1: Extra\n\n**Status:** InProgress\n\n## File List\n- src/x.go\n",
		"docs/stories/e/8.1.dup.md":      "# Story 8.1: Dup\n\n## Status\nReady for Review\n",
		"docs/stories/e/index.md":        "# Index\n- 8.1\n",
		"docs/stories/e/f/g/1.1.deep.md": "# Story 1.1: Deep\n**Status:** Done\n",
	}
	for i := 0; i < 150; i++ {
		status := []string{"Done", "InProgress", "InReview", "Draft", "half way"}[i%5]
		files[fmt.Sprintf("docs/stories/e%d/%d.%d.s.md", i%7, i%11, i)] = fmt.Sprintf(
			"# Story %d.%d: S\n\n**Status:** %s\n**Executor:** @dev\n\n## Acceptance Criteria\n1. ok\n\n## File List\n- src/f%d.go\n", i%11, i, status, i)
		if i%13 == 0 {
			files[fmt.Sprintf("docs/stories/e%d/z%d.%d.copy.md", i%7, i%11, i)] = fmt.Sprintf("# Story %d.%d: Copy\n", i%11, i)
		}
	}
	dir := t.TempDir()
	storyWrite(t, dir, files)
	for _, patterns := range [][]string{nil, {"docs/stories/**/*.md", "docs/extra/*.md", "docs/stories/e/*.md"}} {
		cfg := config.Default()
		if patterns != nil {
			cfg.Sources.Stories = patterns
		}
		r, _ := source.NewRepo(dir, cfg)
		got, _ := scanStories(r)
		want, stories := scanStoriesSerial(r, cfg.Sources.Stories)
		// a Repo whose Stories came filled: the ids it holds are not
		// this scan's first ones
		filled, _ := source.NewRepo(dir, cfg)
		other := &workflow.Story{ID: "99.99", Path: "elsewhere.md"}
		filled.Stories = map[string]*workflow.Story{"99.99": other}
		if again, _ := scanStories(filled); !reflect.DeepEqual(again, got) || filled.Stories["99.99"] != other || len(filled.Stories) != len(stories)+1 {
			t.Errorf("%v: a filled Repo.Stories changed the scan (%d stories, %d candidates)", patterns, len(filled.Stories), len(again))
		}
		if len(got) != len(want) {
			t.Fatalf("%v: %d candidates, the serial scan gives %d", patterns, len(got), len(want))
		}
		for i := range want {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Errorf("%v: candidate %d = %+v\nthe serial scan gives %+v", patterns, i, got[i], want[i])
			}
		}
		if len(r.Stories) != len(stories) {
			t.Errorf("%v: %d stories, the serial scan gives %d", patterns, len(r.Stories), len(stories))
		}
		for id, st := range stories {
			if g := r.Stories[id]; g == nil || g.Path != st.Path || !reflect.DeepEqual(g.Sections, st.Sections) {
				t.Errorf("%v: story %s = %+v, the serial scan gives %+v", patterns, id, g, st)
			}
		}
		if spare := got[len(got):cap(got)]; len(spare) < storyCandidateSlack(len(got)) || !reflect.DeepEqual(spare, make([]workflow.Candidate, len(spare))) {
			t.Errorf("%v: %d spare candidates, not all empty", patterns, len(spare))
		}
	}
}

// TestStoryFrontMatterLines checks that only front matter lines are read as
// front matter (frontMatter's early return for every other line): a YAML
// comment is no heading, the closing "---" ends it, and a later "---" is a
// rule, not a new front matter.
func TestStoryFrontMatterLines(t *testing.T) {
	tests := []struct {
		name, text, status, title string
	}{
		{"comment", "---\n# status: Done\nstatus: Draft\n---\n# Story 1.1: X\n", "Draft", "X"},
		{"closed", "---\nstatus: Draft\n---\n# Story 1.1: X\n\nstatus: Done\n", "Draft", "X"},
		{"rule later", "# Story 1.1: X\n---\n# status: Done\n---\n", "Done", "X"},
		{"none", "# Story 1.1: X\n\n**Status:** Ready\n", "Ready", "X"},
	}
	for _, tt := range tests {
		st, _ := ParseStory("docs/stories/1.1.x.md", []byte(tt.text), nil)
		if string(st.Status) != tt.status || st.Title != tt.title {
			t.Errorf("%s: status %q title %q, want %q %q", tt.name, st.Status, st.Title, tt.status, tt.title)
		}
	}
}

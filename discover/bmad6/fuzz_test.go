package bmad6

import (
	"testing"
	"unicode/utf8"

	"github.com/orchestrate-dev/orchestrate/discover/source"
)

// FuzzParseBMAD6 feeds arbitrary bytes to the ledger and story-file parsers:
// they must not panic, and what they return stays bounded.
func FuzzParseBMAD6(f *testing.F) {
	for _, s := range []string{
		"development_status:\n  epic-1: done\n  1-1-a: in-progress # note\n  1-1-a: review\n",
		"development_status:\n  1-1-a:\n    status: review\n",
		"# Story 1.1: A\n\n**Status:** review\n\n## Tasks / Subtasks\n\n- [ ] [AI-Review][High] fix\n",
		"story_location: 'C:\\x'\ndevelopment_status:\n  \"a: b\": 'c # d' # e\n",
		"---\ntitle: 'T'\nstatus: 'in-progress'\nstepsCompleted: [1, 9, -2, x]\nfiles_to_modify: ['../x', a.go]\n---\n",
	} {
		f.Add([]byte(s))
	}
	repo := &source.Repo{Root: f.TempDir()}
	f.Fuzz(func(t *testing.T, data []byte) {
		l := ParseLedger(data)
		if len(l.Entries) > MaxEntries {
			t.Fatalf("%d entries", len(l.Entries))
		}
		p := Prefixes(l.Entries)
		if kinds, _ := Kinds(l.Entries); len(kinds) != len(l.Entries) {
			t.Fatalf("%d kinds for %d entries", len(kinds), len(l.Entries))
		}
		for _, e := range l.Entries {
			_ = KeyKind(e.Key, p)
			_ = StoryID(e.Key)
			_ = Canonical(e.Raw)
		}
		if c, ok := QuickSpec(repo, "tech-spec-wip.md", data, SpellSkill); ok && (c.Resume.Done > 4 || c.Resume.Done < 0) {
			t.Fatalf("quick-spec done %d", c.Resume.Done)
		}
		sf := ParseStoryFile(data)
		if len(sf.Tasks) > MaxTasks {
			t.Fatalf("%d tasks", len(sf.Tasks))
		}
		if utf8.ValidString(string(data)) {
			for _, task := range sf.Tasks {
				if !utf8.ValidString(oneLine(task.Text)) {
					t.Fatalf("oneLine broke UTF-8")
				}
			}
		}
	})
}

package bmad6

import (
	"strings"
	"testing"

	"github.com/orchestrate-dev/orchestrate/workflow"
)

// TestLedgerEpicsByStructure: a ledger shaped like the public ones (header
// comments, "# Epic N:" headers, epics, retrospectives, a supplementary
// epic "supp-epic-2" whose stories are keyed "se2-*" and which has no
// retrospective line, a story whose ledger value is no v6 status) gives a
// candidate for each story in flight and none for an epic; BMAD's own next
// is the first in-progress story by epic and story number (dev-story 8-1),
// not the first backlog story in file order (create-story 4-3).
func TestLedgerEpicsByStructure(t *testing.T) {
	const dir = "_bmad-output/implementation-artifacts/"
	r := repoWith(t, map[string]string{
		dir + "sprint-status.yaml":      string(mustRead(t, "ledger_epics_structure.yaml")),
		dir + "8-1-invoice-pdf.md":      storyMD("8.1", "in-progress", ""),
		dir + "8-2-tax-rules.md":        storyMD("8.2", "in-progress", ""),
		dir + "8-3-refunds.md":          storyMD("8.3", "ready-for-dev", ""),
		dir + "se2-2-macro-library.md":  "# Story SE2.2: Macro library\n\nStatus: in-progress\n\n## Tasks / Subtasks\n\n- [ ] Task 1: Macro model\n",
		dir + "se2-1-ticket-export.md":  "# Story SE2.1: Ticket export\n\nStatus: done\n",
		dir + "supp-epic-2.md":          "# Supplementary Epic 2\n\nStatus: in-progress\n",
		dir + "epic-8-retrospective.md": "# Retro\n",
	})
	cs, _ := scan(r)
	byID := map[string]workflow.Candidate{}
	for _, c := range cs {
		byID[c.ID] = c
		if strings.Contains(c.ID, "epic") {
			t.Errorf("an epic is a candidate: %s", c.ID)
		}
	}
	tests := []struct {
		id         string
		resumable  bool
		status     string
		next       string
		differs    bool
		why        string
		findingHas string
	}{
		{id: "sdc:8.1", resumable: true, status: "InProgress", next: "/bmad-dev-story " + dir + "8-1-invoice-pdf.md"},
		{id: "sdc:se2-2-macro-library", resumable: true, status: "InProgress", next: "/bmad-dev-story " + dir + "8-1-invoice-pdf.md", differs: true, why: "is not one"},
		// the ledger's value is no v6 status: the ledger counts, not the file
		{id: "story:8.2", status: "Unknown", findingHas: "the ledger counts"},
		{id: "story:8.3", status: "Ready"},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			c, ok := byID[tt.id]
			if !ok {
				t.Fatalf("no candidate %s in %v", tt.id, ids(cs))
			}
			if c.Resumable != tt.resumable || c.Status != tt.status {
				t.Errorf("resumable %v status %s, want %v %s", c.Resumable, c.Status, tt.resumable, tt.status)
			}
			if tt.findingHas != "" && !hasMessage(c.Findings, tt.findingHas) {
				t.Errorf("no finding saying %q: %v", tt.findingHas, c.Findings)
			}
			if !tt.resumable {
				if c.Resume != nil {
					t.Errorf("a resume point on a story not in flight: %+v", c.Resume)
				}
				return
			}
			rp := c.Resume
			if rp == nil || rp.FrameworkNext != tt.next || rp.Differs != tt.differs || !strings.Contains(rp.DiffersWhy, tt.why) || (tt.why == "") != (rp.DiffersWhy == "") {
				t.Errorf("resume %+v, want next %q differs %v why ~%q", rp, tt.next, tt.differs, tt.why)
			}
		})
	}
	for _, c := range cs {
		if c.Resumable && c.ID != "sdc:8.1" && c.ID != "sdc:se2-2-macro-library" {
			t.Errorf("resumable %s: only the two stories in progress are", c.ID)
		}
	}
	if f := byID["sdc:8.1"].Findings; !hasMessage(f, "read as epics, not stories (an epic's numbering, or stories beneath them): supp-epic-2") {
		t.Errorf("no finding naming the epic read by structure: %v", f)
	}
}

// TestFileCanonical: a story file's status reads v6's spellings, then the
// one table of story spellings (French words included); v6's null tokens
// stay null.
func TestFileCanonical(t *testing.T) {
	tests := map[string]workflow.Status{
		"in-progress": workflow.StatusInProgress, "review": workflow.StatusInReview, "backlog": workflow.StatusBacklog,
		"Terminé": workflow.StatusDone, "En cours": workflow.StatusInProgress, "Validé": workflow.StatusDone,
		"Approuvée": workflow.StatusReady, "Prêt pour revue": workflow.StatusInReview, "Ready for Review": workflow.StatusInReview,
		"dev-complete": workflow.StatusUnknown, "deployed-awaiting-user-smoke": workflow.StatusUnknown, "contexted": workflow.StatusUnknown,
	}
	for raw, want := range tests {
		if got := FileCanonical(raw, nil); got != want {
			t.Errorf("FileCanonical(%q) = %s, want %s", raw, got, want)
		}
	}
	const dir = "_bmad-output/implementation-artifacts/"
	cs, _ := scan(repoWith(t, map[string]string{
		dir + "sprint-status.yaml": ledger("", "epic-1: in-progress", "1-1-a: done", "1-2-b: ready-for-dev"),
		dir + "1-1-a.md":           storyMD("1.1", "Terminé", ""),
		dir + "1-2-b.md":           storyMD("1.2", "En cours", ""),
	}))
	for _, c := range cs {
		switch c.ID {
		case "story:1.1":
			if hasMessage(c.Findings, "disagree") {
				t.Errorf("a French Done is no drift: %v", c.Findings)
			}
		case "sdc:1.2":
		default:
			t.Errorf("candidate %s (want story:1.1 and sdc:1.2, the file in progress ahead of the ledger)", c.ID)
		}
	}
}

func hasMessage(fs []workflow.Finding, s string) bool {
	for _, f := range fs {
		if strings.Contains(f.Message, s) {
			return true
		}
	}
	return false
}

// TestFrameworkNext pins BMAD's own answer (the sprint-status rule: first
// in-progress, then review, then ready-for-dev, then backlog, each by epic
// and story number; then an optional retrospective) and, where it is not
// the candidate's story, the reason, on ledgers of the real shape (epic
// lines, retrospectives, mixed statuses).
func TestFrameworkNext(t *testing.T) {
	const dir = "_bmad-output/implementation-artifacts/"
	tests := []struct {
		name    string
		lines   []string
		files   map[string]string // story key → file status
		extra   map[string]string // more files (a config)
		id      string            // the candidate looked at
		next    string            // "" → the file of key want, with cmd
		differs bool
		why     string // a part of DiffersWhy ("" → none)
	}{
		{
			name:  "in-progress first, not the first backlog story in file order",
			lines: []string{"epic-4: in-progress", "4-3-quiet-hours: backlog", "epic-4-retrospective: optional", "epic-8: in-progress", "8-1-invoice: in-progress", "8-3-refunds: ready-for-dev"},
			files: map[string]string{"8-1-invoice": "in-progress"},
			id:    "sdc:8.1", next: "/bmad-dev-story " + dir + "8-1-invoice.md",
		},
		{
			name:  "by epic and story number, not file order (9 before 10)",
			lines: []string{"epic-10: in-progress", "10-1-a: in-progress", "epic-9: in-progress", "9-2-b: in-progress", "9-1-c: done"},
			files: map[string]string{"10-1-a": "in-progress", "9-2-b": "in-progress"},
			id:    "sdc:10.1", next: "/bmad-dev-story " + dir + "9-2-b.md", differs: true, why: "names 9-2-b (in-progress); this story is in-progress",
		},
		{
			name:  "in-progress before review",
			lines: []string{"epic-1: in-progress", "1-1-a: review", "1-2-b: in-progress"},
			files: map[string]string{"1-1-a": "review", "1-2-b": "in-progress"},
			id:    "qa-review:1.1", next: "/bmad-dev-story " + dir + "1-2-b.md", differs: true, why: "names 1-2-b (in-progress); this story is review",
		},
		{
			name:  "review when nothing is in progress",
			lines: []string{"epic-1: in-progress", "1-1-a: ready-for-dev", "1-2-b: review", "1-3-c: review"},
			files: map[string]string{"1-2-b": "review", "1-3-c": "review"},
			id:    "qa-review:1.3", next: "/bmad-code-review " + dir + "1-2-b.md", differs: true, why: "names 1-2-b (review)",
		},
		{
			name:  "ready-for-dev, the legacy drafted among them, before backlog",
			lines: []string{"epic-1: contexted", "1-1-a: backlog", "1-2-b: drafted", "1-3-c: in_progress"},
			files: map[string]string{"1-2-b": "drafted", "1-3-c": "in-progress"},
			id:    "sdc:1.3", next: "/bmad-dev-story " + dir + "1-2-b.md", differs: true, why: `"in_progress" for 1-3-c is not a BMAD v6 story status`,
		},
		{
			name:  "backlog: create-story names the key",
			lines: []string{"epic-2: in-progress", "2-1-a: done", "2-2-b: backlog", "2-3-c: in_progress"},
			files: map[string]string{"2-3-c": "in-progress"},
			id:    "sdc:2.3", next: "/bmad-create-story 2-2-b", differs: true, why: "not a BMAD v6 story status",
		},
		{
			name:  "in flight by its file only: BMAD reads the ledger",
			lines: []string{"epic-2: in-progress", "2-1-a: ready-for-dev", "2-2-b: ready-for-dev"},
			files: map[string]string{"2-1-a": "ready-for-dev", "2-2-b": "in-progress"},
			id:    "sdc:2.2", next: "/bmad-dev-story " + dir + "2-1-a.md", differs: true, why: `BMAD reads only the ledger, where 2-2-b is "ready-for-dev"`,
		},
		{
			name:  "the same story, another workflow: the file says review, the ledger ready-for-dev",
			lines: []string{"epic-2: in-progress", "2-1-a: done", "2-2-b: ready-for-dev"},
			files: map[string]string{"2-2-b": "review"},
			id:    "qa-review:2.2", next: "/bmad-dev-story " + dir + "2-2-b.md", differs: true, why: `BMAD goes by the ledger, where 2-2-b is "ready-for-dev" (ready-for-dev)`,
		},
		{
			name:  "a duplicated key: BMAD's script stops, orchestrate's pick stands",
			lines: []string{"epic-3: in-progress", "3-1-a: in-progress", "3-2-b: backlog", "3-2-b: done"},
			files: map[string]string{"3-1-a": "in-progress"},
			id:    "sdc:3.1", next: "nothing (its sprint-status script stops on the ledger's duplicated key 3-2-b)", differs: true, why: "3-2-b is listed 2 times",
		},
		{
			name:  "everything else done: the optional retrospective",
			lines: []string{"epic-5: in-progress", "5-1-a: done", "5-2-b: in_progress", "epic-5-retrospective: optional"},
			files: map[string]string{"5-2-b": "in-progress"},
			id:    "sdc:5.2", next: "/bmad-retrospective (epic-5-retrospective)", differs: true, why: "not a BMAD v6 story status",
		},
		{
			name:  "nothing left",
			lines: []string{"epic-5: done", "5-1-a: done", "5-2-b: in_progress", "epic-5-retrospective: done"},
			files: map[string]string{"5-2-b": "in-progress"},
			id:    "sdc:5.2", next: "nothing (every story in the ledger is done)", differs: true, why: "not a BMAD v6 story status",
		},
		{
			name:  "6.0 alpha: drafted is a tier of its own, story-ready, before backlog",
			lines: []string{"epic-1: contexted", "1-1-a: backlog", "1-2-b: drafted", "1-3-c: in_progress"},
			files: map[string]string{"1-2-b": "drafted", "1-3-c": "in-progress"},
			extra: map[string]string{"bmad/bmm/config.yaml": "# Version: 6.0.0-alpha.5\nproject_name: parcel\n"},
			id:    "sdc:1.3", next: "/bmad:bmm:workflows:story-ready " + dir + "1-2-b.md", differs: true, why: "not a BMAD v6 story status",
		},
		{
			name:  "6.0 alpha: an epic in backlog before the retrospectives",
			lines: []string{"epic-1: contexted", "1-1-a: done", "1-2-b: in_progress", "epic-1-retrospective: optional", "epic-2: backlog", "2-1-c: done"},
			files: map[string]string{"1-2-b": "in-progress"},
			extra: map[string]string{"bmad/bmm/config.yaml": "# Version: 6.0.0-alpha.5\nproject_name: parcel\n"},
			id:    "sdc:1.2", next: "/bmad:bmm:workflows:epic-tech-context (epic-2)", differs: true, why: "not a BMAD v6 story status",
		},
		{
			name:  "a suffixed story key (2-4a) is ordered after 2-4",
			lines: []string{"epic-2: in-progress", "2-4a-x: in-progress", "2-4-y: in-progress"},
			files: map[string]string{"2-4a-x": "in-progress", "2-4-y": "in-progress"},
			id:    "sdc:2.4a", next: "/bmad-dev-story " + dir + "2-4-y.md", differs: true, why: "names 2-4-y (in-progress)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{dir + "sprint-status.yaml": ledger("", tt.lines...)}
			for key, st := range tt.files {
				files[dir+key+".md"] = storyMD(StoryID(key), st, "")
			}
			for p, content := range tt.extra {
				files[p] = content
			}
			cs, _ := scan(repoWith(t, files))
			var rp *workflow.ResumePoint
			for _, c := range cs {
				if c.ID == tt.id {
					rp = c.Resume
				}
			}
			if rp == nil {
				t.Fatalf("no resumable %s in %v", tt.id, ids(cs))
			}
			if rp.FrameworkNext != tt.next || rp.Differs != tt.differs || !strings.Contains(rp.DiffersWhy, tt.why) || (tt.why == "") != (rp.DiffersWhy == "") {
				t.Errorf("next %q differs %v why %q; want %q %v ~%q", rp.FrameworkNext, rp.Differs, rp.DiffersWhy, tt.next, tt.differs, tt.why)
			}
		})
	}
}

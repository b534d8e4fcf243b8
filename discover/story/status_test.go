package story

import (
	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/config"
	"strings"
	"testing"

	"github.com/orchestrate-dev/orchestrate/workflow"
)

// TestParseStoryStatusGrammar has one real-shaped story per spelling and
// layout the status grammar reads, with the canonical status and the raw
// text it must give.
func TestParseStoryStatusGrammar(t *testing.T) {
	long := strings.Repeat("- **Owner:** team\n", 50)
	tests := []struct {
		name   string
		doc    string
		status workflow.Status
		raw    string
	}{
		// layouts
		{"pipe metadata line", "# Importer\n\n> **Story:** 1.1 | **Epic:** E-1 | **Status:** Done\n\n## Acceptance Criteria\n1. x\n", workflow.StatusDone, "Done"},
		{"pipe metadata without quote", "# Importer\n**Epic:** E-1 | **Status:** In Progress | **Owner:** dev\n", workflow.StatusInProgress, "In Progress"},
		{"status below line 40", "# Story 1.1: X\n\n" + long + "**Status:** Ready for Review\n\n## Story\nAs a user\n", workflow.StatusInReview, "Ready for Review"},
		{"bold key colon after", "# Story 1.1: X\n\n**Status**: Approved\n", workflow.StatusReady, "Approved"},
		{"plain key", "# Story 1.1: X\n\nStatus: Draft\n", workflow.StatusDraft, "Draft"},
		{"top-level bullet", "# Story 1.1: X\n\n- Status: In Review\n- Epic: 1\n", workflow.StatusInReview, "In Review"},
		{"heading beats sub-story bullet", "# Story 1.1: X\n\n## Sub-stories\n- 1.1a\n  - Status: **Draft**\n\n## Status\n\nDone\n", workflow.StatusDone, "Done"},
		{"heading beats body field", "# Story 1.1: X\n\n## Tasks\nStatus: Draft\n\n## Status\nIn Progress\n", workflow.StatusInProgress, "In Progress"},
		{"body field when nothing else", "# Story 1.1: X\n\n## Notes\nStatus: Draft\n", workflow.StatusDraft, "Draft"},
		{"emoji story status heading", "# Story 1.1: X\n\n## 📋 STORY STATUS ✅ COMPLETE\n\n## Story\n", workflow.StatusDone, "✅ COMPLETE"},
		{"story status heading, value below", "# Story 1.1: X\n\n### Story Status\n\n**Status:** Ready for Development\n", workflow.StatusReady, "Ready for Development"},
		{"status section h3", "# Story 1.1: X\n\n## Story\nAs a user\n\n### Status\nBlocked\n", workflow.StatusBlocked, "Blocked"},
		{"heading with colon value", "# Story 1.1: X\n\n## Status: On Hold\n", workflow.StatusBlocked, "On Hold"},
		{"status report is not a status", "# Story 1.1: X\n\n## Status Report\nall fine\n\n**Status:** Done\n", workflow.StatusDone, "Done"},
		{"front matter", "---\ntitle: Importer\nstatus: \"in-progress\"\n# a comment\n---\n# Story 1.1: X\n", workflow.StatusInProgress, "in-progress"},
		{"metadata table row", "# Story 1.1: X\n\n| Field | Value |\n|---|---|\n| **Status** | Done |\n", workflow.StatusDone, "Done"},
		// the Dev Agent Record's status, only when the story has none of its own
		{"dev agent record when no status of its own", "# Story 1.1: X\n\n## Dev Agent Record\n**Status:** In Progress\n### Status\nReady for Review\n", workflow.StatusInReview, "Ready for Review"},
		{"dev agent record: bold key colon after", "# Story 1.1: X\n\n## Story\nx\n\n## Dev Agent Record\n\n### Completion Notes List\n- done\n\n**Status**: Ready for Review\n", workflow.StatusInReview, "Ready for Review"},
		{"dev agent record: status heading, value after a blank line", "# Story 1.1: X\n\n## Dev Agent Record\n\n### File List\n- a.go\n\n### Status\n\nReady for Review\n", workflow.StatusInReview, "Ready for Review"},
		{"dev agent record: the story's own status wins", "# Story 1.1: X\n\n## Status\nApproved\n\n## Dev Agent Record\n### Status\nReady for Review\n", workflow.StatusReady, "Approved"},
		{"dev agent record: an empty own status yields", "# Story 1.1: X\n\n## Status\n\n## Dev Agent Record\n### Status\nReady for Review\n", workflow.StatusInReview, "Ready for Review"},
		{"dev agent record: not a status word", "# Story 1.1: X\n\n## Dev Agent Record\n### Debug Log References\nStatus: 500 from the API\n", workflow.StatusUnknown, ""},
		{"dev agent record: indented lines never count", "# Story 1.1: X\n\n## Dev Agent Record\n- Subtask 1\n  - Status: Done\n", workflow.StatusUnknown, ""},
		{"dev agent record: a review inside it never counts", "# Story 1.1: X\n\n## Dev Agent Record\n### QA Results\n**Status:** Done\n", workflow.StatusUnknown, ""},
		{"dev agent record: code fence never counts", "# Story 1.1: X\n\n## Dev Agent Record\n```\nStatus: Done\n```\n", workflow.StatusUnknown, ""},
		{"qa results never count", "# Story 1.1: X\n\n## Status\nReady for Review\n\n## QA Results\n**Status:** Done\n", workflow.StatusInReview, "Ready for Review"},
		{"change log never counts", "# Story 1.1: X\n\n## Change Log\n- Status: Done\n\n## Status\nDraft\n", workflow.StatusDraft, "Draft"},
		{"empty heading yields", "# Story 1.1: X\n\n## Status\n\n## Story\nx\n\n**Status:** Done\n", workflow.StatusDone, "Done"},
		// values
		{"CLOSED", "# Story 1.1: X\n**Status:** CLOSED\n", workflow.StatusDone, "CLOSED"},
		{"ON HOLD", "# Story 1.1: X\n**Status:** ON HOLD\n", workflow.StatusBlocked, "ON HOLD"},
		{"Planned", "# Story 1.1: X\n**Status:** Planned\n", workflow.StatusDraft, "Planned"},
		{"Proposed", "# Story 1.1: X\n**Status:** Proposed\n", workflow.StatusDraft, "Proposed"},
		{"FULLY COMPLETE", "# Story 1.1: X\n## Status\n✅ FULLY COMPLETE\n", workflow.StatusDone, "✅ FULLY COMPLETE"},
		{"READY FOR EXECUTION", "# Story 1.1: X\n**Status:** READY FOR EXECUTION\n", workflow.StatusReady, "READY FOR EXECUTION"},
		{"Ready for QA Validation", "# Story 1.1: X\n**Status:** Ready for QA Validation\n", workflow.StatusInReview, "Ready for QA Validation"},
		{"In Development", "# Story 1.1: X\n**Status:** In Development\n", workflow.StatusInProgress, "In Development"},
		{"ready-for-dev", "---\nstatus: ready-for-dev\n---\n# Story 1.1: X\n", workflow.StatusReady, "ready-for-dev"},
		{"dev-complete", "# Story 1.1: X\nStatus: dev-complete\n", workflow.StatusInReview, "dev-complete"},
		// French, Spanish, Portuguese, German
		{"Statut Terminé", "# Story 1.1: X\n**Statut:** Terminé\n", workflow.StatusDone, "Terminé"},
		{"Statut Prêt", "# Story 1.1: X\n**Statut :** Prêt pour développement\n", workflow.StatusReady, "Prêt pour développement"},
		{"Statut heading", "# Story 1.1: X\n## Statut\nEn cours\n", workflow.StatusInProgress, "En cours"},
		{"Statut Bloqué unaccented", "# Story 1.1: X\nSTATUT: BLOQUE\n", workflow.StatusBlocked, "BLOQUE"},
		{"Statut Brouillon", "# Story 1.1: X\n**Statut:** Brouillon\n", workflow.StatusDraft, "Brouillon"},
		{"Statut En revue", "# Story 1.1: X\n**Statut:** En revue\n", workflow.StatusInReview, "En revue"},
		{"Statut Fait", "# Story 1.1: X\n**Statut:** Fait\n", workflow.StatusDone, "Fait"},
		{"Estado Hecho", "# Story 1.1: X\n**Estado:** Hecho\n", workflow.StatusDone, "Hecho"},
		{"Estado Completado", "# Story 1.1: X\n**Estado:** Completado\n", workflow.StatusDone, "Completado"},
		{"Estatus En progreso", "# Story 1.1: X\n**Estatus:** En progreso\n", workflow.StatusInProgress, "En progreso"},
		{"Estado Listo", "# Story 1.1: X\n## Estado\nListo\n", workflow.StatusReady, "Listo"},
		{"Estado Borrador", "# Story 1.1: X\n**Estado:** Borrador\n", workflow.StatusDraft, "Borrador"},
		{"Estado Bloqueado", "# Story 1.1: X\n**Estado:** Bloqueado\n", workflow.StatusBlocked, "Bloqueado"},
		{"Estado En revisión", "# Story 1.1: X\n**Estado:** En revisión\n", workflow.StatusInReview, "En revisión"},
		{"Status Concluído", "# Story 1.1: X\n**Status:** Concluído\n", workflow.StatusDone, "Concluído"},
		{"Status Em andamento", "# Story 1.1: X\n**Status:** Em andamento\n", workflow.StatusInProgress, "Em andamento"},
		{"Estado Pronto", "# Story 1.1: X\n**Estado:** Pronto\n", workflow.StatusReady, "Pronto"},
		{"Status Rascunho", "# Story 1.1: X\n**Status:** Rascunho\n", workflow.StatusDraft, "Rascunho"},
		{"Situação Em revisão", "# Story 1.1: X\n**Situação:** Em revisão\n", workflow.StatusInReview, "Em revisão"},
		{"Zustand Erledigt", "# Story 1.1: X\n**Zustand:** Erledigt\n", workflow.StatusDone, "Erledigt"},
		{"Status Fertig", "# Story 1.1: X\n**Status:** Fertig\n", workflow.StatusDone, "Fertig"},
		{"Status In Bearbeitung", "# Story 1.1: X\n**Status:** In Bearbeitung\n", workflow.StatusInProgress, "In Bearbeitung"},
		{"Status Bereit", "# Story 1.1: X\n**Status:** Bereit\n", workflow.StatusReady, "Bereit"},
		{"Status Entwurf", "# Story 1.1: X\n**Status:** Entwurf\n", workflow.StatusDraft, "Entwurf"},
		{"Status Blockiert", "# Story 1.1: X\n**Status:** Blockiert\n", workflow.StatusBlocked, "Blockiert"},
		{"Status In Prüfung", "# Story 1.1: X\n**Status:** In Prüfung\n", workflow.StatusInReview, "In Prüfung"},
		// unknown stays unknown, raw kept
		{"unknown kept raw", "# Story 1.1: X\n**Status:** Awaiting sign-off from legal\n", workflow.StatusUnknown, "Awaiting sign-off from legal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, fs := ParseStory("docs/stories/1.1.x.md", []byte(tt.doc), nil)
			if st.Status != tt.status || st.StatusRaw != tt.raw {
				t.Errorf("status = %s, %q; want %s, %q (findings %v)", st.Status, st.StatusRaw, tt.status, tt.raw, fs)
			}
			if tt.status == workflow.StatusUnknown && tt.raw != "" && !storyHasCode(fs, "unknown-status") {
				t.Errorf("no unknown-status finding: %v", fs)
			}
		})
	}
}

// TestStorySourceListsEveryStory checks that a story without an id in its
// title or file name is listed, with its file name as its id (without a
// ".story" suffix), and that a README is not.
func TestStorySourceListsEveryStory(t *testing.T) {
	dir := t.TempDir()
	storyWrite(t, dir, map[string]string{
		"docs/stories/importer.md":                "# Importer\n\n> **Story:** 1.1 | **Epic:** E-1 | **Status:** Done\n",
		"docs/stories/AB-C2-05-importer.story.md": "# Importer (C2)\n\n## Status\nIn Progress\n",
		"docs/stories/no-status.md":               "# Exporter\n\n## Story\nAs a user\n\n## Acceptance Criteria\n1. x\n",
		"docs/stories/README.md":                  "# Stories\n\n## Tasks\n- write them\n",
	})
	r, _ := source.NewRepo(dir, config.Default())
	cands, _ := scanStories(r)
	got := map[string]string{}
	for _, c := range cands {
		got[c.ID] = c.Status
	}
	want := map[string]string{
		"story:importer":        "Done",
		"sdc:AB-C2-05-importer": "InProgress",
		"story:no-status":       "Unknown",
	}
	for id, st := range want {
		if got[id] != st {
			t.Errorf("candidate %s: status %q, want %q (all: %v)", id, got[id], st, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("candidates %v, want %v", got, want)
	}
}

// TestParseStoryDependencies checks that the story's own Dependencies line
// or section is its Dependencies, and a Dev Notes sub-section is not.
func TestParseStoryDependencies(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want string // "" for no Dependencies section
	}{
		{"bold line", "# Story 2.4: X\n\n**Dependencies**: Story 2.3\n", "Story 2.3"},
		{"bold colon inside", "# Story 2.4: X\n\n**Dependencies:** 2.3, 2.4\n", "2.3, 2.4"},
		{"depends on", "# Story 2.4: X\n\nDepends on 1.2\n", "1.2"},
		{"depends on field", "# Story 2.4: X\n\n- **Depends on:** `1.2`\n", "1.2"},
		{"dev notes subsection ignored", "# Story 2.4: X\n\n**Dependencies**: Story 2.3\n\n## Dev Notes\n### Dependencies\n- **Existing**: `json` module\n", "Story 2.3"},
		{"dev notes subsection first", "# Story 2.4: X\n\n## Dev Notes\n### Dependencies\n- **Existing**: `json` module\n\n## Story Info\n**Dependencies**: Story 2.3\n", "Story 2.3"},
		{"only dev notes", "# Story 2.4: X\n\n## Dev Notes\n### Dependencies\n- json\n", ""},
		{"own section", "# Story 2.4: X\n\n## Dependencies\n- Story 2.3\n- Story 1.1\n", "- Story 2.3\n- Story 1.1"},
		{"field with list", "# Story 2.4: X\n\n**Dependencies:**\n- **Story 2.3** (Done)\n- Story 1.1\n\nMore text.\n", "- Story 2.3 (Done)\n- Story 1.1"},
		{"history ignored", "# Story 2.4: X\n\n## Change Log\nDependencies: 9.9\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, _ := ParseStory("docs/stories/2.4.x.md", []byte(tt.doc), nil)
			sec, ok := st.Sections.Get(workflow.SectionDependencies)
			if tt.want == "" {
				if ok {
					t.Errorf("Dependencies = %q, want none", sec.Raw)
				}
				return
			}
			if !ok || sec.Raw != tt.want || sec.Hash != StorySectionHash(tt.want) {
				t.Errorf("Dependencies = %q (present %v), want %q", sec.Raw, ok, tt.want)
			}
		})
	}
}

// TestParseStoryFileListIdentifiers checks that identifiers and code in a
// File List are not files.
func TestParseStoryFileListIdentifiers(t *testing.T) {
	doc := "# Story 1.1: X\n\n## File List\n- `item.notes` field added to `src/models/item.py`\n- `obj.method()` renamed\n- `json` module\n- `foo.bar.baz` config key\n- README.md\n- build/Makefile\n"
	st, _ := ParseStory("docs/stories/1.1.x.md", []byte(doc), nil)
	want := []string{"src/models/item.py", "README.md", "build/Makefile"}
	if strings.Join(st.FileList, ",") != strings.Join(want, ",") {
		t.Errorf("FileList = %q, want %q", st.FileList, want)
	}
}

// FuzzStoryNeverStatusHeading checks the heading pre-filter: a heading it
// refuses is one storyStatusHeading refuses too.
func FuzzStoryNeverStatusHeading(f *testing.F) {
	for _, h := range []string{"Status", "Acceptance Criteria", "**Status:**", "^Status", "-+> Statut", "3. Status", "_status_", "\x01Zustand",
		"`Story` Status", "~~Current~~ status: Done", "## ##", "::", "📋 STORY STATUS", "Estado: Hecho", "Dev Notes", "", "Scope", "Change Log", "Story Status", "s t", "S_tatus", "Situacao", "zu", "Cu rrent status"} {
		f.Add(h)
	}
	extra := map[string][]string{"Done": {"shipped"}}
	f.Fuzz(func(t *testing.T, h string) {
		if !storyNeverStatusHeading(h) {
			return
		}
		if v, ok := storyStatusHeading(h, extra); ok {
			t.Fatalf("storyNeverStatusHeading(%q) but storyStatusHeading = %q, true", h, v)
		}
	})
}

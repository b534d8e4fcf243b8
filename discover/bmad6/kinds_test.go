package bmad6

import (
	"strings"
	"testing"
)

// TestKinds: ledger keys are epics by their name and by the ledger's
// structure (a key whose stories sit beneath it), never stories.
func TestKinds(t *testing.T) {
	tests := []struct {
		name   string
		ledger string
		epics  []string // keys that must be epics (all others: stories or retrospectives)
		byStr  []string // of which the structure decided
	}{
		{
			name:   "supplementary epic, stories keyed se2-*, no retrospective",
			ledger: "  epic-1: done\n  1-1-a: done\n  epic-1-retrospective: done\n\n  # Supplementary Epic 2: support tooling\n  supp-epic-2: in-progress\n  se2-1-export: done\n  se2-2-macros: in-progress\n",
			epics:  []string{"epic-1", "supp-epic-2"}, byStr: []string{"supp-epic-2"},
		},
		{
			name:   "an epic numbering ends the key, no blank line before it",
			ledger: "  epic-1: done\n  1-1-a: done\n  mobile-epic4b: backlog\n  m4-1-login: backlog\n",
			epics:  []string{"epic-1", "mobile-epic4b"}, byStr: []string{"mobile-epic4b"},
		},
		{
			name:   "an Epic header above a key with its stories beneath",
			ledger: "  # Epic 5: Onboarding\n  onboarding: in-progress\n  ob-1-signup: done\n  ob-2-tour: in-progress\n  epic-5-retrospective: optional\n",
			epics:  []string{"onboarding"}, byStr: []string{"onboarding"},
		},
		{
			name:   "an epic segment heading its block, without a header",
			ledger: "  supp-epic-payments: in-progress\n  sp-1-cards: done\n  sp-2-wallets: backlog\n",
			epics:  []string{"supp-epic-payments"}, byStr: []string{"supp-epic-payments"},
		},
		{
			name:   "an Epic header above numbered stories: no epic entry, all stories",
			ledger: "  # Epic 3: Payments\n  3-1-checkout: done\n  3-2-refunds: in-progress\n",
		},
		{
			name:   "a header above stories that share the first key's prefix",
			ledger: "  # Epic QA: smoke tests\n  qa-1-smoke: done\n  qa-2-load: in-progress\n",
		},
		{
			name:   "an epic word inside a block, not heading it",
			ledger: "  epic-2: in-progress\n  2-1-a: done\n  fix-epic-links: in-progress\n  2-2-b: backlog\n",
			epics:  []string{"epic-2"},
		},
		{
			name:   "a numbered story with the word epic",
			ledger: "  # Epic 2\n  2-3-epic-overview-page: in-progress\n  2-4-x: backlog\n",
		},
		{
			name:   "an epic word heading a block with nothing beneath",
			ledger: "  epic-1: done\n  1-1-a: done\n\n  qa-epic-review: in-progress\n",
			epics:  []string{"epic-1"},
		},
		{
			name:   "module prefix (FORMATS rec. 6) and epic- names still hold",
			ledger: "  ab-01: contexted\n  ab-01-1-login: done\n  epic-hardening: backlog\n  epic-6-2: backlog\n  6-2-0-infra: backlog\n",
			epics:  []string{"ab-01", "epic-hardening", "epic-6-2"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := ParseLedger([]byte("development_status:\n" + tt.ledger))
			kinds, by := Kinds(l.Entries)
			epic := map[string]bool{}
			for _, k := range tt.epics {
				epic[k] = true
			}
			for i, e := range l.Entries {
				want := KeyStory
				switch {
				case epic[e.Key]:
					want = KeyEpic
				case strings.HasSuffix(e.Key, "-retrospective"):
					want = KeyRetro
				}
				if kinds[i] != want {
					t.Errorf("%s: %s, want %s", e.Key, kinds[i], want)
				}
			}
			if strings.Join(by, ",") != strings.Join(tt.byStr, ",") {
				t.Errorf("by structure %v, want %v", by, tt.byStr)
			}
		})
	}
}

// TestParseLedgerBlocks: blank and comment lines inside development_status
// split it into blocks, and the comment just above a block's first entry is
// its header; a duplicated key keeps its first place.
func TestParseLedgerBlocks(t *testing.T) {
	l := ParseLedger(mustRead(t, "ledger_epics_structure.yaml"))
	want := map[string]struct {
		block  int
		header string
	}{
		"epic-1":               {0, "Epic 1: Foundations"},
		"1-2-ci-pipeline":      {0, ""},
		"supp-epic-2":          {1, "Supplementary Epic 2: Support tooling (added mid-sprint)"},
		"se2-3-sla-report":     {1, ""},
		"epic-4":               {2, "Epic 4: Notifications"},
		"8-1-invoice-pdf":      {3, ""},
		"epic-8-retrospective": {3, ""},
	}
	for _, e := range l.Entries {
		if w, ok := want[e.Key]; ok && (e.Block != w.block || e.Header != w.header) {
			t.Errorf("%s: block %d header %q, want %d %q", e.Key, e.Block, e.Header, w.block, w.header)
		}
	}
	for _, e := range l.Entries {
		if e.Key == "8-1-invoice-pdf" && e.Comment != "resumed after the holiday" {
			t.Errorf("ledger comment %q", e.Comment)
		}
	}
	d := ParseLedger([]byte("development_status:\n  1-1-a: backlog\n\n  # later\n  1-1-a: done\n  1-2-b: done\n"))
	if len(d.Entries) != 2 || d.Entries[0].Block != 0 || d.Entries[1].Block != 1 || d.Entries[0].Raw != "done" {
		t.Errorf("duplicate: %+v", d.Entries)
	}
}

package workflow

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// storyDecorate returns s in several casings and decorations, all of which
// must map to the same canonical status.
func storyDecorate(s string) []string {
	words := strings.Fields(s)
	for i, w := range words {
		_, n := utf8.DecodeRuneInString(w) // "à planifier": a rune, not a byte
		words[i] = strings.ToUpper(w[:n]) + w[n:]
	}
	title := strings.Join(words, " ")
	return []string{
		s,
		strings.ToUpper(s),
		title,
		"  " + title + "  ",
		"**" + title + "**",
		"__" + s + "__",
		"*" + s + "*",
		"_" + title + "_",
		"`" + s + "`",
		"✅ " + title,
		title + " ✅",
		"🚧 **" + strings.ToUpper(s) + "** ⏳",
		"❌ " + s,
		"⚠️ " + title, // with a variation selector
		"- " + title,
		title + " - some commentary",
		title + " (with a note)",
		title + ": details",
		title + ", mostly",
		title + " — em dash note",
		title + " – en dash note",
		title + " & more",
		title + ".",
	}
}

func TestCanonicalStatusTable(t *testing.T) {
	// one row per spelling of the status table, written out here (not
	// taken from the implementation) so that an edit to the table shows
	tests := []struct {
		spelling string
		want     Status
	}{
		{"draft", StatusDraft},
		{"backlog", StatusDraft},
		{"ready", StatusReady},
		{"approved", StatusReady},
		{"ready for development", StatusReady},
		{"ready to start", StatusReady},
		{"backlog - ready for development", StatusReady},
		{"inprogress", StatusInProgress},
		{"in progress", StatusInProgress},
		{"in_progress", StatusInProgress},
		{"in-progress", StatusInProgress},
		{"started", StatusInProgress},
		{"inreview", StatusInReview},
		{"in review", StatusInReview},
		{"review", StatusInReview},
		{"ready for review", StatusInReview},
		{"ready for done", StatusInReview},
		{"in_review", StatusInReview},
		{"done", StatusDone},
		{"completed", StatusDone},
		{"complete", StatusDone},
		{"verified", StatusDone},
		{"done - all tasks finished", StatusDone},
		{"completed - 2025-09-01", StatusDone},
		{"blocked", StatusBlocked},
		// the families real stories use, and French, Spanish, Portuguese, German
		{"planned", StatusDraft},
		{"proposed", StatusDraft},
		{"to do", StatusDraft},
		{"todo", StatusDraft},
		{"brouillon", StatusDraft},
		{"planifié", StatusDraft},
		{"proposé", StatusDraft},
		{"planifiée", StatusDraft},
		{"proposée", StatusDraft},
		{"à planifier", StatusDraft},
		{"à faire", StatusDraft},
		{"à venir", StatusDraft},
		{"borrador", StatusDraft},
		{"planificado", StatusDraft},
		{"propuesto", StatusDraft},
		{"rascunho", StatusDraft},
		{"planejado", StatusDraft},
		{"proposto", StatusDraft},
		{"entwurf", StatusDraft},
		{"geplant", StatusDraft},
		{"vorgeschlagen", StatusDraft},
		{"ready for execution", StatusReady},
		{"ready for dev", StatusReady},
		{"ready-for-dev", StatusReady},
		{"ready_for_dev", StatusReady},
		{"ready for implementation", StatusReady},
		{"prêt", StatusReady},
		{"prêt pour développement", StatusReady},
		{"prêt pour le développement", StatusReady},
		{"approuvé", StatusReady},
		{"prête", StatusReady},
		{"prête pour développement", StatusReady},
		{"prête pour le développement", StatusReady},
		{"approuvée", StatusReady},
		{"prêt pour dev", StatusReady},
		{"prête pour dev", StatusReady},
		{"listo", StatusReady},
		{"listo para desarrollo", StatusReady},
		{"aprobado", StatusReady},
		{"pronto", StatusReady},
		{"pronto para desenvolvimento", StatusReady},
		{"aprovado", StatusReady},
		{"bereit", StatusReady},
		{"bereit zur entwicklung", StatusReady},
		{"bereit für die entwicklung", StatusReady},
		{"genehmigt", StatusReady},
		{"in development", StatusInProgress},
		{"in dev", StatusInProgress},
		{"in-development", StatusInProgress},
		{"wip", StatusInProgress},
		{"en cours", StatusInProgress},
		{"en cours de développement", StatusInProgress},
		{"en développement", StatusInProgress},
		{"en cours de réalisation", StatusInProgress},
		{"en progreso", StatusInProgress},
		{"en curso", StatusInProgress},
		{"en desarrollo", StatusInProgress},
		{"em andamento", StatusInProgress},
		{"em progresso", StatusInProgress},
		{"em desenvolvimento", StatusInProgress},
		{"in bearbeitung", StatusInProgress},
		{"in arbeit", StatusInProgress},
		{"in entwicklung", StatusInProgress},
		{"ready for qa", StatusInReview},
		{"ready for qa validation", StatusInReview},
		{"ready for qa review", StatusInReview},
		{"in qa", StatusInReview},
		{"qa review", StatusInReview},
		{"under review", StatusInReview},
		{"awaiting review", StatusInReview},
		{"pending review", StatusInReview},
		{"dev-complete", StatusInReview},
		{"dev complete", StatusInReview},
		{"dev_complete", StatusInReview},
		{"development complete", StatusInReview},
		{"en revue", StatusInReview},
		{"en révision", StatusInReview},
		{"en cours de revue", StatusInReview},
		{"prêt pour revue", StatusInReview},
		{"prête pour revue", StatusInReview},
		{"prêt pour la revue", StatusInReview},
		{"prête pour la revue", StatusInReview},
		{"en attente de revue", StatusInReview},
		{"à valider", StatusInReview},
		{"en validation", StatusInReview},
		{"en recette", StatusInReview},
		{"en revisión", StatusInReview},
		{"em revisão", StatusInReview},
		{"in prüfung", StatusInReview},
		{"closed", StatusDone},
		{"fully complete", StatusDone},
		{"fully completed", StatusDone},
		{"finished", StatusDone},
		{"validated", StatusDone},
		{"completed and validated", StatusDone},
		{"terminée", StatusDone},
		{"faite", StatusDone},
		{"achevée", StatusDone},
		{"validé", StatusDone},
		{"validée", StatusDone},
		{"livré", StatusDone},
		{"livrée", StatusDone},
		{"prêt pour production", StatusDone},
		{"prête pour production", StatusDone},
		{"prêt pour la production", StatusDone},
		{"prête pour la production", StatusDone},
		{"terminé", StatusDone},
		{"fait", StatusDone},
		{"achevé", StatusDone},
		{"hecho", StatusDone},
		{"completado", StatusDone},
		{"terminado", StatusDone},
		{"finalizado", StatusDone},
		{"concluído", StatusDone},
		{"concluida", StatusDone},
		{"feito", StatusDone},
		{"completo", StatusDone},
		{"erledigt", StatusDone},
		{"fertig", StatusDone},
		{"abgeschlossen", StatusDone},
		{"on hold", StatusBlocked},
		{"on-hold", StatusBlocked},
		{"on_hold", StatusBlocked},
		{"bloqué", StatusBlocked},
		{"bloquée", StatusBlocked},
		{"en pause", StatusBlocked},
		{"bloqueado", StatusBlocked},
		{"pausado", StatusBlocked},
		{"blockiert", StatusBlocked},
		{"pausiert", StatusBlocked},
		{"angehalten", StatusBlocked},
	}
	n := 0
	for _, sp := range storyBuiltinSpellings() {
		n += len(sp)
	}
	if n != len(tests)-2 { // the two "done - …" rows have no entry of their own
		t.Errorf("the built-in table has %d spellings, this test %d", n, len(tests)-2)
	}
	for _, tt := range tests {
		for _, raw := range storyDecorate(tt.spelling) {
			if got, _ := CanonicalStatus(raw, nil); got != tt.want {
				t.Errorf("CanonicalStatus(%q) = %s, want %s", raw, got, tt.want)
			}
		}
	}
}

func TestFoldStatus(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Terminé", "termine"},
		{"PRÊT POUR DÉVELOPPEMENT", "pret pour developpement"},
		{"Concluído", "concluido"},
		{"In Prüfung", "in prufung"},
		{"Straße", "strasse"},
		{"Done", "done"},
		{"✅ x", "✅ x"},
	}
	for _, tt := range tests {
		if got := FoldStatus(tt.in); got != tt.want {
			t.Errorf("FoldStatus(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestCanonicalStatusDesignSentences(t *testing.T) {
	// every example sentence of the status documentation, in several casings and decorations
	tests := []struct {
		sentence string
		want     Status
	}{
		{"✅ **COMPLETED** - 2025-09-01", StatusDone},
		{"Done - 100% Complete", StatusDone},
		{"COMPLETED & QA VALIDATED - Production Ready", StatusDone},
		{"Complete (Backend Implementation)", StatusDone},
		{"95% Complete - one task remaining", StatusUnknown},
		{"All stories are in Draft status", StatusUnknown},
	}
	for _, tt := range tests {
		s := tt.sentence
		for _, raw := range []string{s, strings.ToUpper(s), strings.ToLower(s), "**" + s + "**", "`" + s + "`", "✅ " + s, s + " 🚧", "  __" + s + "__  ", "> " + s} {
			if got, _ := CanonicalStatus(raw, nil); got != tt.want {
				t.Errorf("CanonicalStatus(%q) = %s, want %s", raw, got, tt.want)
			}
		}
	}
}

func TestCanonicalStatusExamples(t *testing.T) {
	tests := []struct {
		raw      string
		want     Status
		stripped string
	}{
		// the documented examples
		{"✅ **COMPLETED** - 2025-09-01", StatusDone, "COMPLETED - 2025-09-01"},
		{"Done - 100% Complete", StatusDone, "Done - 100% Complete"},
		{"COMPLETED & QA VALIDATED - Production Ready", StatusDone, "COMPLETED & QA VALIDATED - Production Ready"},
		{"Complete (Backend Implementation)", StatusDone, "Complete (Backend Implementation)"},
		{"95% Complete - one task remaining", StatusUnknown, "95% Complete - one task remaining"},
		{"All stories are in Draft status", StatusUnknown, "All stories are in Draft status"},
		// the brief and real stories
		{"Ready for Done", StatusInReview, "Ready for Done"},
		{"Ready for Review", StatusInReview, "Ready for Review"},
		{"ready for review", StatusInReview, "ready for review"},
		{"Ready", StatusReady, "Ready"},
		{"Approved", StatusReady, "Approved"},
		{"Backlog - Ready for Development", StatusReady, "Backlog - Ready for Development"},
		{"Backlog", StatusDraft, "Backlog"},
		{"Backlog - groomed next sprint", StatusDraft, "Backlog - groomed next sprint"},
		{"✅ **COMPLETED & QA VALIDATED** - Production Ready", StatusDone, "COMPLETED & QA VALIDATED - Production Ready"},
		{"✅ COMPLETE", StatusDone, "COMPLETE"},
		{"**Done** - Scope Reduced (Advanced Features → Story 4.4)", StatusDone, "Done - Scope Reduced (Advanced Features Story 4.4)"},
		{"✅ **VERIFIED - Implementation Complete**", StatusDone, "VERIFIED - Implementation Complete"},
		{"**COMPLETED** ✅", StatusDone, "COMPLETED"},
		{"**Completed**", StatusDone, "Completed"},
		{"done - anything at all", StatusDone, "done - anything at all"},
		{"completed - 2025-01-01", StatusDone, "completed - 2025-01-01"},
		{"In Progress", StatusInProgress, "In Progress"},
		{"in_progress", StatusInProgress, "in_progress"},
		{"**in_progress**", StatusInProgress, "in_progress"},
		{"IN-PROGRESS 🚧", StatusInProgress, "IN-PROGRESS"},
		{"In  \t Progress", StatusInProgress, "In Progress"},
		{"InReview", StatusInReview, "InReview"},
		{"Blocked: waiting on API", StatusBlocked, "Blocked: waiting on API"},
		{"Started", StatusInProgress, "Started"},
		{"Draft (v2)", StatusDraft, "Draft (v2)"},
		{"Draft(v2)", StatusDraft, "Draft(v2)"},
		// a spelling must be a whole word followed by a separator
		{"Review pending", StatusUnknown, "Review pending"},
		{"Ready-ish", StatusUnknown, "Ready-ish"},
		{"Doneish", StatusUnknown, "Doneish"},
		{"Done/Verified", StatusUnknown, "Done/Verified"},
		{"Not started", StatusUnknown, "Not started"},
		{"IMPLEMENTATION VERIFIED & APPROVED", StatusUnknown, "IMPLEMENTATION VERIFIED & APPROVED"},
		{"Draft → Ready", StatusUnknown, "Draft Ready"},
		// real stories, accents and case folded
		{"CLOSED", StatusDone, "CLOSED"},
		{"ON HOLD", StatusBlocked, "ON HOLD"},
		{"FULLY COMPLETE", StatusDone, "FULLY COMPLETE"},
		{"READY FOR EXECUTION", StatusReady, "READY FOR EXECUTION"},
		{"Ready for QA Validation", StatusInReview, "Ready for QA Validation"},
		{"In Development", StatusInProgress, "In Development"},
		{"ready-for-dev", StatusReady, "ready-for-dev"},
		{"dev-complete", StatusInReview, "dev-complete"},
		{"Terminé", StatusDone, "Terminé"},
		{"TERMINE", StatusDone, "TERMINE"},
		{"Prêt pour développement", StatusReady, "Prêt pour développement"},
		{"PRET POUR DEVELOPPEMENT", StatusReady, "PRET POUR DEVELOPPEMENT"},
		{"En revisión", StatusInReview, "En revisión"},
		{"Concluído ✅", StatusDone, "Concluído"},
		{"In Prüfung", StatusInReview, "In Prüfung"},
		{"Fait partie du lot 2", StatusUnknown, "Fait partie du lot 2"},
		// French words found in public repositories (issue 21)
		{"Validé", StatusDone, "Validé"},
		{"**Validée** ✅", StatusDone, "Validée"},
		{"Approuvée", StatusReady, "Approuvée"},
		{"À planifier", StatusDraft, "À planifier"},
		{"A PLANIFIER", StatusDraft, "A PLANIFIER"},
		{"✅ COMPLETED AND VALIDATED - Prêt pour production", StatusDone, "COMPLETED AND VALIDATED - Prêt pour production"},
		{"Prêt pour production", StatusDone, "Prêt pour production"},
		{"En cours", StatusInProgress, "En cours"},
		{"Terminé(e)", StatusDone, "Terminé(e)"},
		{"Terminée", StatusDone, "Terminée"},
		{"Prêt pour revue", StatusInReview, "Prêt pour revue"},
		{"En revue", StatusInReview, "En revue"},
		{"Brouillon", StatusDraft, "Brouillon"},
		{"Bloquée - attente API", StatusBlocked, "Bloquée - attente API"},
		{"Prête", StatusReady, "Prête"},
		{"Validation en cours", StatusUnknown, "Validation en cours"},
		{"Livraison prévue", StatusUnknown, "Livraison prévue"},
		{"Planned work", StatusUnknown, "Planned work"},
		// empty and decoration only
		{"", StatusUnknown, ""},
		{"   ", StatusUnknown, ""},
		{"✅ ** **", StatusUnknown, ""},
		{"\xff\xfe Done", StatusDone, "Done"},
	}
	for _, tt := range tests {
		got, stripped := CanonicalStatus(tt.raw, nil)
		if got != tt.want || stripped != tt.stripped {
			t.Errorf("CanonicalStatus(%q) = %s, %q; want %s, %q", tt.raw, got, stripped, tt.want, tt.stripped)
		}
	}
}

func TestCanonicalStatusExtra(t *testing.T) {
	extra := map[string][]string{
		"Done":        {"Shipped", "✅ Released"},
		"in_progress": {"WIP", "Doing"},
		"InReview":    {"awaiting qa"},
		"Ready":       {"ready for done"}, // overrides the built-in InReview spelling
		"Nonsense":    {"whatever"},
	}
	tests := []struct {
		raw  string
		want Status
	}{
		{"Shipped", StatusDone},
		{"**SHIPPED** - v1.2", StatusDone},
		{"Released", StatusDone},
		{"wip", StatusInProgress},
		{"Doing (half way)", StatusInProgress},
		{"Awaiting QA", StatusInReview},
		{"Ready for Done", StatusReady},
		{"Ready for Review", StatusInReview},
		{"whatever", StatusUnknown},
		{"Done", StatusDone},
	}
	for _, tt := range tests {
		if got, _ := CanonicalStatus(tt.raw, extra); got != tt.want {
			t.Errorf("CanonicalStatus(%q, extra) = %s, want %s", tt.raw, got, tt.want)
		}
	}
	if got, _ := CanonicalStatus("Shipped", nil); got != StatusUnknown {
		t.Errorf("without extra, Shipped = %s, want Unknown", got)
	}
}

func TestCanonicalStatusBounded(t *testing.T) {
	raw := "Done - " + strings.Repeat("✅ x ", 1<<20)
	got, stripped := CanonicalStatus(raw, nil)
	if got != StatusDone {
		t.Errorf("status = %s, want Done", got)
	}
	if len(stripped) > MaxStatusLen {
		t.Errorf("stripped text is %d bytes, want at most %d", len(stripped), MaxStatusLen)
	}
}

func FuzzCanonicalStatus(f *testing.F) {
	for _, s := range []string{"Done", "✅ **COMPLETED** - 2025-09-01", "Backlog - Ready for Development", "in_progress", "\xff\xfeDone", ""} {
		f.Add(s)
	}
	valid := map[Status]bool{StatusUnknown: true}
	for _, st := range StatusOrder {
		valid[st] = true
	}
	extra := map[string][]string{"Done": {"shipped"}, "blocked": {"on hold"}}
	f.Fuzz(func(t *testing.T, raw string) {
		for _, ex := range []map[string][]string{nil, extra} {
			st, stripped := CanonicalStatus(raw, ex)
			if !valid[st] {
				t.Fatalf("CanonicalStatus(%q) = %q, not a canonical status", raw, st)
			}
			if len(stripped) > MaxStatusLen || !utf8.ValidString(stripped) {
				t.Fatalf("CanonicalStatus(%q) stripped = %q: too long or invalid UTF-8", raw, stripped)
			}
			if stripped != strings.TrimSpace(stripped) {
				t.Fatalf("CanonicalStatus(%q) stripped = %q: not trimmed", raw, stripped)
			}
			// stripping is idempotent: the stripped text means the same
			if st2, s2 := CanonicalStatus(stripped, ex); st2 != st || s2 != stripped {
				t.Fatalf("CanonicalStatus(%q) = %s, %q but CanonicalStatus(stripped) = %s, %q", raw, st, stripped, st2, s2)
			}
			if stripped == "" && st != StatusUnknown {
				t.Fatalf("CanonicalStatus(%q) = %s from empty text", raw, st)
			}
		}
	})
}

// stripStatusRef is StripStatus as it was before its rune-by-rune loop
// (a []rune copy of the text), and canonicalRef CanonicalStatus before its
// table by first byte: the references of FuzzStripStatusSame.
func stripStatusRef(raw string) string {
	raw = Truncate(raw, MaxStatusLen)
	if storyPlainASCII(raw) {
		return StripStatus(raw) // the ASCII path is unchanged
	}
	rs := []rune(raw)
	var b strings.Builder
	for i, r := range rs {
		switch {
		case r == '*' || r == '`' || r == '~':
			continue
		case r == '_':
			if i > 0 && i+1 < len(rs) && storyIsWordRune(rs[i-1]) && storyIsWordRune(rs[i+1]) {
				b.WriteRune(r)
			}
			continue
		case unicode.IsSpace(r) || unicode.IsControl(r):
			b.WriteByte(' ')
		case storyIsInvisible(r):
			continue
		case storyIsSymbol(r):
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	s := JoinFields(b.String())
	for s != "" {
		r, size := utf8.DecodeRuneInString(s)
		if !strings.ContainsRune("-+>#•·", r) {
			break
		}
		s = strings.TrimLeft(s[size:], " ")
	}
	return s
}

func canonicalRef(raw string, extra map[string][]string) Status {
	lower := FoldStatus(stripStatusRef(raw))
	if lower == "" {
		return StatusUnknown
	}
	best, bestLen, bestExtra := StatusUnknown, -1, false
	for _, sp := range append(append([]storySpelling(nil), storyBuiltin().table...), storyExtraTable(extra)...) {
		n := sp.text
		if len(n) < bestLen || (len(n) == bestLen && (bestExtra || !sp.extra)) {
			continue
		}
		if strings.HasPrefix(lower, n) && storyCommentaryFollows(lower[len(n):]) {
			best, bestLen, bestExtra = sp.status, len(n), sp.extra
		}
	}
	return best
}

func FuzzStripStatusSame(f *testing.F) {
	for _, s := range []string{"✅ **COMPLETED** - 2025-09-01", "in_progress", "_x_", "é_é", "\xff_a", "a_\xff", "__init__ ✅", "Terminé", "🚧 En cours_", "• Done", "\u200bReady for review"} {
		f.Add(s)
	}
	extra := map[string][]string{"Done": {"shipped", "é"}, "in_progress": {"doing"}}
	f.Fuzz(func(t *testing.T, raw string) {
		if got, want := StripStatus(raw), stripStatusRef(raw); got != want {
			t.Fatalf("StripStatus(%q) = %q, want %q", raw, got, want)
		}
		for _, ex := range []map[string][]string{nil, extra} {
			if got, _ := CanonicalStatus(raw, ex); got != canonicalRef(raw, ex) {
				t.Fatalf("CanonicalStatus(%q) = %s, want %s", raw, got, canonicalRef(raw, ex))
			}
		}
	})
}

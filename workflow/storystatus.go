package workflow

import (
	"maps"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// MaxStatusLen bounds the status text CanonicalStatus looks at, in
// bytes. Every known spelling plus its separator fits many times over; the
// bound keeps a pathological status line from costing more than a constant.
const MaxStatusLen = 256

// StatusOrder is the order of the canonical statuses,
// used wherever a deterministic iteration over them is needed.
var StatusOrder = []Status{
	StatusDraft,
	StatusReady,
	StatusInProgress,
	StatusInReview,
	StatusDone,
	StatusBlocked,
}

// storyBuiltinSpellings is the table of built-in status spellings. "done - …" and
// "completed - …" need no rows of their own: "done" and "completed" followed
// by the " - " separator already match them. Matching folds case and
// accents ("Terminé" and "TERMINE" are one spelling), so each row is written
// once. The canonical set stays the six statuses of StatusOrder: planned and
// proposed stories are Draft, a story on hold is Blocked, a story whose
// development is complete and waits for QA is InReview. French, Spanish,
// Portuguese and German values have rows of their own; French has its
// feminine forms too ("Approuvée", "Terminée": a story is "une story"), its
// "to be planned" and "ready for review/production" idioms, and "validé"
// (accepted after review) is Done.
func storyBuiltinSpellings() map[Status][]string {
	return map[Status][]string{
		StatusDraft: {"draft", "backlog", "planned", "proposed", "to do", "todo",
			"brouillon", "planifié", "planifiée", "proposé", "proposée", "à planifier", "à faire", "à venir", "borrador", "planificado", "propuesto",
			"rascunho", "planejado", "proposto", "entwurf", "geplant", "vorgeschlagen"},
		StatusReady: {"ready", "approved", "ready for development", "ready to start", "backlog - ready for development",
			"ready for execution", "ready for dev", "ready-for-dev", "ready_for_dev", "ready for implementation",
			"prêt", "prêt pour développement", "prêt pour le développement", "approuvé",
			"prête", "prête pour développement", "prête pour le développement", "approuvée", "prêt pour dev", "prête pour dev",
			"listo", "listo para desarrollo", "aprobado", "pronto", "pronto para desenvolvimento", "aprovado",
			"bereit", "bereit zur entwicklung", "bereit für die entwicklung", "genehmigt"},
		StatusInProgress: {"inprogress", "in progress", "in_progress", "in-progress", "started",
			"in development", "in dev", "in-development", "wip",
			"en cours", "en cours de développement", "en développement", "en cours de réalisation", "en progreso", "en curso", "en desarrollo",
			"em andamento", "em progresso", "em desenvolvimento", "in bearbeitung", "in arbeit", "in entwicklung"},
		StatusInReview: {"inreview", "in review", "review", "ready for review", "ready for done", "in_review",
			"ready for qa", "ready for qa validation", "ready for qa review", "in qa", "qa review", "under review",
			"awaiting review", "pending review", "dev-complete", "dev complete", "dev_complete", "development complete",
			"en revue", "en révision", "en cours de revue", "prêt pour revue", "prête pour revue",
			"prêt pour la revue", "prête pour la revue", "en attente de revue", "à valider", "en validation", "en recette", "en revisión", "em revisão",
			"in prüfung"},
		StatusDone: {"done", "completed", "complete", "verified", "closed", "fully complete", "fully completed",
			"finished", "validated", "completed and validated",
			"terminé", "terminée", "fait", "faite", "achevé", "achevée", "validé", "validée", "livré", "livrée",
			"prêt pour production", "prête pour production", "prêt pour la production", "prête pour la production", "hecho", "completado", "terminado", "finalizado",
			"concluído", "concluida", "feito", "completo", "erledigt", "fertig", "abgeschlossen"},
		StatusBlocked: {"blocked", "on hold", "on-hold", "on_hold", "bloqué", "bloquée", "en pause",
			"bloqueado", "pausado", "blockiert", "pausiert", "angehalten"},
	}
}

// storySpelling is one normalised spelling and the status it means.
type storySpelling struct {
	text   string // normalised: stripped and lower-cased
	status Status
	extra  bool // from the configuration
}

// storyBuiltinTables are the built-in spellings normalised (table) and the
// same by their first byte, each list in table order (byByte).
type storyBuiltinTables struct {
	table  []storySpelling
	byByte [256][]storySpelling
}

// storyBuiltin makes the tables on first use rather than at every
// process start (~50 KB of a start's allocations, paid by every command).
var storyBuiltin = sync.OnceValue(func() *storyBuiltinTables {
	t := &storyBuiltinTables{}
	spellings := storyBuiltinSpellings()
	for _, st := range StatusOrder {
		for _, s := range spellings[st] {
			if n := storyNormSpelling(s); n != "" {
				t.table = append(t.table, storySpelling{text: n, status: st})
			}
		}
	}
	for _, sp := range t.table {
		t.byByte[sp.text[0]] = append(t.byByte[sp.text[0]], sp)
	}
	return t
})

// CanonicalStatus maps a story's status text to its canonical status
// and returns it with the stripped text: markdown emphasis
// (**, __, *, _, backticks), emoji, pictographs and other symbols removed,
// whitespace collapsed, a leading list or quote marker dropped.
//
// The stripped text matches when it starts with a known spelling
// (case-insensitively) followed by the end of the text or a separator that
// introduces trailing commentary: " - ", " & ", "(", ":", ",", ";", "—",
// " – " (a lone trailing "." or "!" is tolerated too). The longest such
// spelling wins, so "Ready for Review" is InReview while "Ready" is Ready,
// and "Backlog - Ready for Development" is Ready while "Backlog" is Draft.
// Text that merely mentions a status ("95% Complete - one task remaining")
// does not start with one and is StatusUnknown: a status is never guessed.
//
// extra (the configuration's statuses: canonical name -> more spellings)
// extends the table; a configured spelling wins over a built-in one of the
// same length. Keys are matched case-insensitively, ignoring spaces, '-' and
// '_' ("in_progress" names InProgress); unknown keys are ignored.
//
// Only the first MaxStatusLen bytes of raw are looked at.
func CanonicalStatus(raw string, extra map[string][]string) (Status, string) {
	stripped := StripStatus(raw)
	if stripped == "" {
		return StatusUnknown, ""
	}
	lower := FoldStatus(stripped)
	best := StatusUnknown
	bestLen := -1
	bestExtra := false
	consider := func(sp storySpelling) {
		n := sp.text
		if len(n) < bestLen || (len(n) == bestLen && (bestExtra || !sp.extra)) {
			return // a longer (or equally long and at least as preferred) match exists
		}
		if !strings.HasPrefix(lower, n) || !storyCommentaryFollows(lower[len(n):]) {
			return
		}
		best, bestLen, bestExtra = sp.status, len(n), sp.extra
	}
	// only the spellings starting with lower's first byte can be its
	// prefix (in table order: the first of the longest still wins)
	for _, sp := range storyBuiltin().byByte[lower[0]] {
		consider(sp)
	}
	for _, sp := range storyExtraTable(extra) {
		consider(sp)
	}
	return best, stripped
}

// storyExtraTable normalises the configured spellings, in a deterministic
// order (canonical status order, then key, then spelling order).
func storyExtraTable(extra map[string][]string) []storySpelling {
	if len(extra) == 0 {
		return nil
	}
	keys := slices.Sorted(maps.Keys(extra))
	var out []storySpelling
	for _, st := range StatusOrder {
		want := storyStatusKey(string(st))
		for _, k := range keys {
			if storyStatusKey(k) != want {
				continue
			}
			for _, s := range extra[k] {
				if n := storyNormSpelling(s); n != "" {
					out = append(out, storySpelling{text: n, status: st, extra: true})
				}
			}
		}
	}
	return out
}

// storyStatusKey folds a canonical status name for comparison with a
// configuration key: lower case, without spaces, '-' and '_'.
func storyStatusKey(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r == ' ' || r == '-' || r == '_' {
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// storyNormSpelling normalises a spelling the way status text is: stripped
// and folded.
func storyNormSpelling(s string) string {
	return FoldStatus(StripStatus(s))
}

// FoldStatus folds text for matching a status or a status key: lower case,
// and the accents of Latin letters removed ("Terminé" and "TERMINE" fold
// alike; "ß" becomes "ss"). Other characters are kept as they are.
func FoldStatus(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToLower(s)
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range strings.ToLower(s) {
		if f, ok := storyFold()[r]; ok {
			b.WriteString(f)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// storyFold is storyAccentFold's map, made on first use.
var storyFold = sync.OnceValue(storyAccentFold)

// storyAccentFold maps the accented lower-case Latin letters of the
// supported languages to their base letters.
func storyAccentFold() map[rune]string {
	m := map[rune]string{'ß': "ss", 'æ': "ae", 'œ': "oe"}
	for base, accented := range map[string]string{
		"a": "àáâãäåā", "c": "çćč", "e": "èéêëēę", "i": "ìíîïī", "n": "ñń",
		"o": "òóôõöøō", "u": "ùúûüū", "y": "ýÿ",
	} {
		for _, r := range accented {
			m[r] = base
		}
	}
	return m
}

// storyCommentaryFollows reports whether rest (the lower-cased text after a
// spelling) is empty or starts with a separator of trailing commentary.
func storyCommentaryFollows(rest string) bool {
	if rest == "" {
		return true
	}
	switch rest[0] {
	case '(', ':', ',', ';':
		return true
	}
	t := strings.TrimLeft(rest, " ")
	if t == "" {
		return true
	}
	switch {
	case t[0] == '(' || t[0] == ':' || t[0] == ',' || t[0] == ';':
		return true
	case strings.HasPrefix(t, "—"): // em dash, with or without spaces
		return true
	case len(t) < len(rest) && (t[0] == '-' || t[0] == '&' || strings.HasPrefix(t, "–")):
		return true // " - ", " & ", " – ": these need the space before them
	}
	return strings.Trim(rest, ".!") == "" // a full stop ends the text
}

// StripStatus removes decoration from status text: emphasis markers,
// backticks, emoji and other symbols, invisible format characters, a
// leading list or quote marker, and extra whitespace. An underscore between
// two letters or digits ("in_progress") is part of a word and kept.
func StripStatus(raw string) string {
	raw = Truncate(raw, MaxStatusLen)
	if storyPlainASCII(raw) {
		s := JoinFields(raw)
		for s != "" && strings.IndexByte("-+>#", s[0]) >= 0 {
			s = strings.TrimLeft(s[1:], " ")
		}
		return s
	}
	// rune by rune, as []rune(raw) would give them: an invalid byte is
	// U+FFFD, a symbol, and is dropped
	var b strings.Builder
	b.Grow(len(raw))
	prev := rune(-1) // the rune before r (-1: none)
	for i := 0; i < len(raw); {
		r, size := utf8.DecodeRuneInString(raw[i:])
		before := prev
		prev = r
		i += size
		switch {
		case r == '*' || r == '`' || r == '~':
			continue
		case r == '_':
			if before >= 0 && i < len(raw) && storyIsWordRune(before) {
				if next, _ := utf8.DecodeRuneInString(raw[i:]); storyIsWordRune(next) {
					b.WriteRune(r)
				}
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

// storyIsWordRune reports whether r is a letter or a digit.
func storyIsWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// storyIsInvisible reports whether r is a character that only changes how
// its neighbours render: format characters (zero-width joiner, BOM, emoji
// tags), variation selectors and enclosing marks (the keycap).
func storyIsInvisible(r rune) bool {
	switch {
	case unicode.Is(unicode.Cf, r), unicode.Is(unicode.Me, r):
		return true
	case r >= 0xFE00 && r <= 0xFE0F, r >= 0xE0100 && r <= 0xE01EF:
		return true
	}
	return false
}

// storyIsSymbol reports whether r is an emoji, pictograph, dingbat, arrow
// or other symbol that decorates a status (✅ ❌ 🚧 ⏳ → …), a private-use
// or surrogate code point, or the replacement character.
func storyIsSymbol(r rune) bool {
	switch {
	case unicode.Is(unicode.So, r), unicode.Is(unicode.Sk, r):
		return true
	case unicode.Is(unicode.Co, r), unicode.Is(unicode.Cs, r):
		return true
	case r >= 0x2190 && r <= 0x21FF, r >= 0x27F0 && r <= 0x27FF, r >= 0x2900 && r <= 0x297F:
		return true // arrows, classified as math symbols
	case r >= 0x1F000 && r <= 0x1FAFF:
		return true
	}
	return false
}

// storyPlainASCII reports whether s is printable ASCII with none of the
// characters StripStatus removes or rewrites (its fast path).
func storyPlainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f || c == '*' || c == '`' || c == '~' || c == '_' || c == '^' {
			return false
		}
	}
	return true
}

// Truncate returns at most max bytes of s, cut on a rune boundary.
func Truncate(s string, max int) string {
	if len(s) <= max {
		return s
	}
	n := max
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// JoinFields is strings.Join(strings.Fields(s), " "): s with its runs of
// white space made single spaces and trimmed. It returns s itself, without
// allocating, when s is already so (the common case for the story lines it
// is used on).
func JoinFields(s string) string {
	prevSpace := true // a leading space is not allowed
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= utf8.RuneSelf:
			return strings.Join(strings.Fields(s), " ") // Unicode white space: the general path
		case c == ' ':
			if prevSpace {
				return strings.Join(strings.Fields(s), " ")
			}
			prevSpace = true
		case c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r':
			return strings.Join(strings.Fields(s), " ")
		default:
			prevSpace = false
		}
	}
	if prevSpace && s != "" {
		return strings.Join(strings.Fields(s), " ") // a trailing space
	}
	return s
}

package redact

import "sync"

// gramSets are what noRuleWords looks for: the first three bytes of every
// rule word of three bytes or more (hashed into a bit set: a collision only
// makes a text be looked at), every rule word of two bytes, and the first
// two bytes of every case-sensitive word as written (a rule with such words
// runs only when one of them occurs, so its other words need not be
// looked for).
type gramSets struct {
	tri    [1 << 10]uint64 // hashed three-byte beginnings of lower-case words
	pair   [1 << 10]uint64 // two-byte lower-case words
	cased  [1 << 10]uint64 // two-byte beginnings of case-sensitive words
	broken bool            // a word shorter than two bytes: nothing is skipped
}

func triHash(a, b, c byte) uint32 {
	return (uint32(a)<<16 | uint32(b)<<8 | uint32(c)) * 2654435761 >> 16
}

func setBit(set *[1 << 10]uint64, k uint32) { set[(k>>6)&(1<<10-1)] |= 1 << (k & 63) }

func hasBit(set *[1 << 10]uint64, k uint32) bool {
	return set[(k>>6)&(1<<10-1)]&(1<<(k&63)) != 0
}

var wordGrams = sync.OnceValue(func() *gramSets {
	g := &gramSets{}
	for i := range rules {
		r := &rules[i]
		words := r.words
		if r.cased != nil {
			words = nil // the case-sensitive words decide
		}
		for _, w := range words {
			switch {
			case len(w) < 2:
				g.broken = true
			case len(w) == 2:
				setBit(&g.pair, uint32(w[0])<<8|uint32(w[1]))
			default:
				setBit(&g.tri, triHash(w[0], w[1], w[2]))
			}
		}
		for _, w := range r.cased {
			if len(w) < 2 {
				g.broken = true
				continue
			}
			setBit(&g.cased, uint32(w[0])<<8|uint32(w[1]))
		}
	}
	return g
})

// noRuleWords reports whether s is ASCII text whose lower-case form holds
// the beginning of no rule's word, so that no word, and no rule, can match:
// pass then has nothing to do. Text with a byte outside ASCII is never
// skipped (strings.ToLower maps some non-ASCII letters to ASCII ones).
func noRuleWords(s string) bool {
	g := wordGrams()
	if g.broken {
		return false
	}
	var p1, p2 byte // the two bytes before s[i], lower case
	var raw byte    // the byte before s[i], as written
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			return false
		}
		lc := c
		if 'A' <= c && c <= 'Z' {
			lc += 'a' - 'A'
		}
		if i > 0 {
			if hasBit(&g.pair, uint32(p1)<<8|uint32(lc)) || hasBit(&g.cased, uint32(raw)<<8|uint32(c)) {
				return false
			}
			if i > 1 && hasBit(&g.tri, triHash(p2, p1, lc)) {
				return false
			}
		}
		p2, p1, raw = p1, lc, c
	}
	return true
}

package redact

import "sync"

// wordStarts is the set of two-byte beginnings of every rule's words, as a
// bit set indexed by the two bytes; nil when a word is shorter than two
// bytes (then no text is skipped).
var wordStarts = sync.OnceValue(func() *[1 << 10]uint64 {
	var set [1 << 10]uint64
	for i := range rules {
		for _, w := range rules[i].words {
			if len(w) < 2 {
				return nil
			}
			k := uint16(w[0])<<8 | uint16(w[1])
			set[k>>6] |= 1 << (k & 63)
		}
	}
	return &set
})

// noRuleWords reports whether s is ASCII text whose lower-case form holds
// the beginning of no rule's word, so that no word, and no rule, can match:
// pass then has nothing to do. Text with a byte outside ASCII is never
// skipped (strings.ToLower maps some non-ASCII letters to ASCII ones).
func noRuleWords(s string) bool {
	set := wordStarts()
	if set == nil {
		return false
	}
	var prev uint16
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			return false
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if i > 0 {
			if k := prev<<8 | uint16(c); set[k>>6]&(1<<(k&63)) != 0 {
				return false
			}
		}
		prev = uint16(c)
	}
	return true
}

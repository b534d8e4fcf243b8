package prompt

import "unicode/utf8"

// keyKind is what a key press means to a prompt.
type keyKind int

const (
	keyRune      keyKind = iota // a printable character, in key.r
	keyUp                       // up arrow, Ctrl-P
	keyDown                     // down arrow, Ctrl-N, Tab
	keyHome                     // Home
	keyEnd                      // End
	keyEnter                    // Enter (carriage return or line feed)
	keyBackspace                // Backspace, Delete
	keyClear                    // Ctrl-U: clear the line or the filter
	keyEsc                      // Escape alone
	keyCtrlC                    // Ctrl-C
	keyCtrlD                    // Ctrl-D, the end of input
	keyOther                    // anything else: ignored
)

// key is one decoded key press.
type key struct {
	kind keyKind
	r    rune
}

// decodeKeys splits the bytes read from a raw terminal into key presses.
// rest is an incomplete tail (the start of an escape sequence or of a UTF-8
// character) to complete with the next read; a lone Escape is returned as
// rest too, since it may be the start of an arrow key (the caller decides,
// after a short wait, that it is Escape).
func decodeKeys(b []byte) (keys []key, rest []byte) {
	for len(b) > 0 {
		c := b[0]
		switch {
		case c == 0x1b:
			k, n, ok := decodeEscape(b)
			if !ok {
				return keys, b
			}
			keys = append(keys, k)
			b = b[n:]
			continue
		case c == '\r' || c == '\n':
			keys = append(keys, key{kind: keyEnter})
			// a CR LF pair is one Enter
			if c == '\r' && len(b) > 1 && b[1] == '\n' {
				b = b[1:]
			}
		case c == 0x03:
			keys = append(keys, key{kind: keyCtrlC})
		case c == 0x04:
			keys = append(keys, key{kind: keyCtrlD})
		case c == 0x7f || c == 0x08:
			keys = append(keys, key{kind: keyBackspace})
		case c == 0x15:
			keys = append(keys, key{kind: keyClear})
		case c == 0x10:
			keys = append(keys, key{kind: keyUp})
		case c == 0x0e || c == '\t':
			keys = append(keys, key{kind: keyDown})
		case c < 0x20:
			keys = append(keys, key{kind: keyOther})
		case c < utf8.RuneSelf:
			keys = append(keys, key{kind: keyRune, r: rune(c)})
		default:
			if !utf8.FullRune(b) {
				return keys, b
			}
			r, n := utf8.DecodeRune(b)
			if r == utf8.RuneError || !printable(r) {
				keys = append(keys, key{kind: keyOther})
			} else {
				keys = append(keys, key{kind: keyRune, r: r})
			}
			b = b[n:]
			continue
		}
		b = b[1:]
	}
	return keys, nil
}

// decodeEscape decodes the escape sequence at the start of b (b[0] is
// ESC). ok is false when b ends before the sequence does.
func decodeEscape(b []byte) (k key, n int, ok bool) {
	if len(b) < 2 {
		return key{}, 0, false
	}
	if b[1] != '[' && b[1] != 'O' {
		// ESC then another key (or Alt+key): Escape, the key follows
		return key{kind: keyEsc}, 1, true
	}
	for i := 2; i < len(b); i++ {
		c := b[i]
		if c >= 0x40 && c <= 0x7e { // the final byte
			params := string(b[2:i])
			switch c {
			case 'A':
				return key{kind: keyUp}, i + 1, true
			case 'B':
				return key{kind: keyDown}, i + 1, true
			case 'H':
				return key{kind: keyHome}, i + 1, true
			case 'F':
				return key{kind: keyEnd}, i + 1, true
			case '~':
				switch params {
				case "1", "7":
					return key{kind: keyHome}, i + 1, true
				case "4", "8":
					return key{kind: keyEnd}, i + 1, true
				case "3":
					return key{kind: keyBackspace}, i + 1, true
				}
			}
			return key{kind: keyOther}, i + 1, true
		}
		if c < 0x20 || i > 32 { // not a sequence after all
			return key{kind: keyEsc}, 1, true
		}
	}
	return key{}, 0, false
}

package gitremote

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// maxComponent bounds an encoded ref component (file systems cap a name
// at 255 bytes; loose refs are files).
const maxComponent = 180

// RefComponent encodes a workflow id (attacker-controlled: it comes from
// files in the repository) as one ref-name component that git
// check-ref-format accepts, injectively: ASCII letters, digits and '-' stay,
// '.' stays unless it starts the component or follows another '.', and
// every other byte becomes _XX (its hex value), '_' included. A
// component that would end in ".lock" has that '.' encoded. A long id is
// cut and followed by a hash of the whole id. An empty id is an error.
func RefComponent(id string) (string, error) {
	if id == "" {
		return "", fmt.Errorf("empty workflow id")
	}
	var b strings.Builder
	prevDot := true // a leading '.' is encoded
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-':
			b.WriteByte(c)
			prevDot = false
		case c == '.' && !prevDot:
			b.WriteByte(c)
			prevDot = true
		default:
			fmt.Fprintf(&b, "_%02x", c)
			prevDot = false
		}
	}
	out := b.String()
	if strings.HasSuffix(out, ".lock") {
		out = out[:len(out)-len(".lock")] + "_2elock"
	}
	if strings.HasSuffix(out, ".") {
		out = out[:len(out)-1] + "_2e"
	}
	if len(out) > maxComponent {
		sum := sha256.Sum256([]byte(id))
		cut := out[:maxComponent-33]
		cut = strings.TrimRight(cut, "._")
		out = cut + "-" + hex.EncodeToString(sum[:16])
	}
	return out, nil
}

// validComponent reports whether p is a component RefComponent could
// produce (or a fixed kind such as "locks"): the only ref names this
// package pushes.
func validComponent(p string) bool {
	if p == "" || p[0] == '.' || strings.HasSuffix(p, ".") || strings.HasSuffix(p, ".lock") || strings.Contains(p, "..") || len(p) > maxComponent {
		return false
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_') {
			return false
		}
	}
	return true
}

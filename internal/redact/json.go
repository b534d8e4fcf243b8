package redact

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// JSON returns the JSON document data with every string redacted (String)
// and the values of members whose names are secrets (IsSecretKey), and
// everything inside them, replaced by "[REDACTED]" (a number becomes that
// string too). Everything else — member order, numbers, white space — is
// kept byte for byte, so the result is valid JSON exactly when data is.
// Data that is not valid JSON is redacted as text.
func JSON(data []byte) []byte {
	if !json.Valid(data) {
		return []byte(asJSON(text(string(data))))
	}
	type frame struct {
		object    bool
		secret    bool // every value inside is a secret
		expectKey bool
	}
	// memo is what a member name becomes and whether it names a secret,
	// by name: a document repeats few names many times.
	type memo struct {
		repl   string
		secret bool
	}
	var (
		out       bytes.Buffer
		stack     []frame
		keySecret bool // the last member name read names a secret
		changed   bool
		names     = map[string]memo{}
	)
	// valueSecret is whether the value about to start is a secret.
	valueSecret := func() bool {
		if len(stack) == 0 {
			return false
		}
		top := stack[len(stack)-1]
		return top.secret || (top.object && keySecret)
	}
	out.Grow(len(data))
	for i := 0; i < len(data); {
		c := data[i]
		switch {
		case c == '"':
			j := stringEnd(data, i)
			raw := data[i:j]
			s := unquote(raw)
			isKey := len(stack) > 0 && stack[len(stack)-1].object && stack[len(stack)-1].expectKey
			var repl string
			switch {
			case isKey:
				m, ok := names[s]
				if !ok {
					m = memo{repl: text(s), secret: IsSecretKey(s)}
					names[s] = m
				}
				keySecret = m.secret
				stack[len(stack)-1].expectKey = false
				repl = m.repl
			case valueSecret() && s != "":
				repl = Placeholder
			default:
				repl = String(s)
			}
			if repl == s {
				out.Write(raw)
			} else {
				writeString(&out, repl)
				changed = true
			}
			i = j
		case c == '{' || c == '[':
			stack = append(stack, frame{object: c == '{', secret: valueSecret(), expectKey: c == '{'})
			out.WriteByte(c)
			i++
		case c == '}' || c == ']':
			stack = stack[:len(stack)-1]
			out.WriteByte(c)
			i++
		case c == ',':
			if top := len(stack) - 1; top >= 0 && stack[top].object {
				stack[top].expectKey = true
			}
			out.WriteByte(c)
			i++
		case c == '-' || (c >= '0' && c <= '9'):
			j := i
			for j < len(data) && strings.IndexByte("+-.eE0123456789", data[j]) >= 0 {
				j++
			}
			if valueSecret() {
				out.WriteString(`"` + Placeholder + `"`)
				changed = true
			} else {
				out.Write(data[i:j])
			}
			i = j
		default: // white space, ':', true, false, null
			out.WriteByte(c)
			i++
		}
	}
	if !changed {
		return data
	}
	return out.Bytes()
}

// unquote returns the value of raw, a JSON string of a valid document: its
// bytes as they are when it has no escape and is valid UTF-8 (what
// json.Unmarshal would return), else what json.Unmarshal returns.
func unquote(raw []byte) string {
	if len(raw) >= 2 && bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw) {
		return string(raw[1 : len(raw)-1])
	}
	var s string
	_ = json.Unmarshal(raw, &s) // valid: checked by JSON
	return s
}

// stringEnd returns the index just past the JSON string starting at
// data[i] (a '"'), in a document already known to be valid.
func stringEnd(data []byte, i int) int {
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(data)
}

// writeString writes s as a JSON string without HTML escaping.
func writeString(out *bytes.Buffer, s string) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	out.Write(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

package statepatch

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// JSONObject is an object found by the scanner: where it opens and closes,
// and its members.
type JSONObject struct {
	Open, Close int
	Members     []JSONMember
}

// JSONMember is one member of an object, with the spans of its key and value.
type JSONMember struct {
	Key              string
	KeyStart, KeyEnd int
	ValStart, ValEnd int
	Kind             byte // '"' string, '{' object, '[' array, 'n' number, 'l' literal
	Obj              *JSONObject
}

// JSONScanner is a small JSON scanner that records member spans of the top
// level object and the objects directly in it.
type JSONScanner struct {
	Data []byte
	Pos  int
}

// MaxJSONDepth bounds the nesting the scanner follows.
const MaxJSONDepth = 64

// Errf is an error at the scanner's position.
func (s *JSONScanner) Errf(format string, args ...any) error {
	return fmt.Errorf("JSON at byte %d: %s", s.Pos, fmt.Sprintf(format, args...))
}

// SkipSpace moves past JSON whitespace.
func (s *JSONScanner) SkipSpace() {
	for s.Pos < len(s.Data) {
		switch s.Data[s.Pos] {
		case ' ', '\t', '\r', '\n':
			s.Pos++
		default:
			return
		}
	}
}

// Value scans one value; objects at depth < 2 are recorded.
func (s *JSONScanner) Value(depth int) (kind byte, obj *JSONObject, err error) {
	if depth > MaxJSONDepth {
		return 0, nil, s.Errf("nested too deep")
	}
	s.SkipSpace()
	if s.Pos >= len(s.Data) {
		return 0, nil, s.Errf("unexpected end")
	}
	switch c := s.Data[s.Pos]; {
	case c == '{':
		o, err := s.Object(depth)
		if depth >= 2 {
			o = nil
		}
		return '{', o, err
	case c == '[':
		s.Pos++
		s.SkipSpace()
		if s.Pos < len(s.Data) && s.Data[s.Pos] == ']' {
			s.Pos++
			return '[', nil, nil
		}
		for {
			if _, _, err := s.Value(depth + 1); err != nil {
				return 0, nil, err
			}
			s.SkipSpace()
			if s.Pos >= len(s.Data) {
				return 0, nil, s.Errf("unterminated array")
			}
			if s.Data[s.Pos] == ',' {
				s.Pos++
				continue
			}
			if s.Data[s.Pos] == ']' {
				s.Pos++
				return '[', nil, nil
			}
			return 0, nil, s.Errf("want , or ] in an array")
		}
	case c == '"':
		_, err := s.Str()
		return '"', nil, err
	case c == '-' || (c >= '0' && c <= '9'):
		start := s.Pos
		for s.Pos < len(s.Data) && strings.IndexByte("+-0123456789.eE", s.Data[s.Pos]) >= 0 {
			s.Pos++
		}
		var f json.Number
		if err := json.Unmarshal(s.Data[start:s.Pos], &f); err != nil {
			return 0, nil, s.Errf("bad number")
		}
		return 'n', nil, nil
	default:
		for _, lit := range []string{"true", "false", "null"} {
			if strings.HasPrefix(string(s.Data[s.Pos:min(len(s.Data), s.Pos+5)]), lit) {
				s.Pos += len(lit)
				return 'l', nil, nil
			}
		}
		return 0, nil, s.Errf("unexpected %q", c)
	}
}

// Str scans a string and returns its decoded value.
func (s *JSONScanner) Str() (string, error) {
	start := s.Pos
	s.Pos++
	for s.Pos < len(s.Data) {
		switch s.Data[s.Pos] {
		case '\\':
			s.Pos += 2
			continue
		case '"':
			s.Pos++
			var v string
			if err := json.Unmarshal(s.Data[start:s.Pos], &v); err != nil {
				return "", s.Errf("bad string")
			}
			return v, nil
		case '\n':
			return "", s.Errf("newline in a string")
		}
		s.Pos++
	}
	return "", s.Errf("unterminated string")
}

// Object scans the object at the position, recording its members.
func (s *JSONScanner) Object(depth int) (*JSONObject, error) {
	o := &JSONObject{Open: s.Pos}
	s.Pos++
	s.SkipSpace()
	if s.Pos < len(s.Data) && s.Data[s.Pos] == '}' {
		o.Close = s.Pos
		s.Pos++
		return o, nil
	}
	for {
		s.SkipSpace()
		if s.Pos >= len(s.Data) || s.Data[s.Pos] != '"' {
			return nil, s.Errf("want a member name")
		}
		m := JSONMember{KeyStart: s.Pos}
		k, err := s.Str()
		if err != nil {
			return nil, err
		}
		m.Key, m.KeyEnd = k, s.Pos
		s.SkipSpace()
		if s.Pos >= len(s.Data) || s.Data[s.Pos] != ':' {
			return nil, s.Errf("want : after a member name")
		}
		s.Pos++
		s.SkipSpace()
		m.ValStart = s.Pos
		m.Kind, m.Obj, err = s.Value(depth + 1)
		if err != nil {
			return nil, err
		}
		m.ValEnd = s.Pos
		o.Members = append(o.Members, m)
		s.SkipSpace()
		if s.Pos >= len(s.Data) {
			return nil, s.Errf("unterminated object")
		}
		if s.Data[s.Pos] == ',' {
			s.Pos++
			continue
		}
		if s.Data[s.Pos] == '}' {
			o.Close = s.Pos
			s.Pos++
			return o, nil
		}
		return nil, s.Errf("want , or } in an object")
	}
}

// ScanTop scans a whole JSON document that must be one object and returns
// that object with the spans of its members (and of the members of the
// objects directly in it).
func ScanTop(data []byte) (*JSONObject, error) {
	s := &JSONScanner{Data: data}
	s.SkipSpace()
	if s.Pos >= len(data) || data[s.Pos] != '{' {
		return nil, errors.New("the top level is not a JSON object")
	}
	top, err := s.Object(0)
	if err != nil {
		return nil, err
	}
	s.SkipSpace()
	if s.Pos != len(data) {
		return nil, s.Errf("data after the top-level object")
	}
	return top, nil
}

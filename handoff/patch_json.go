package handoff

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// jsonObject is an object found by the scanner: where it opens and closes,
// and its members.
type jsonObject struct {
	open, close int
	members     []jsonMember
}

// jsonMember is one member of an object, with the spans of its key and value.
type jsonMember struct {
	key              string
	keyStart, keyEnd int
	valStart, valEnd int
	kind             byte // '"' string, '{' object, '[' array, 'n' number, 'l' literal
	obj              *jsonObject
}

// jsonScanner is a small JSON scanner that records member spans of the top
// level object and the objects directly in it.
type jsonScanner struct {
	data []byte
	pos  int
}

const maxJSONDepth = 64

func (s *jsonScanner) errf(format string, args ...any) error {
	return fmt.Errorf("JSON at byte %d: %s", s.pos, fmt.Sprintf(format, args...))
}

func (s *jsonScanner) skipSpace() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\r', '\n':
			s.pos++
		default:
			return
		}
	}
}

// value scans one value; objects at depth < 2 are recorded.
func (s *jsonScanner) value(depth int) (kind byte, obj *jsonObject, err error) {
	if depth > maxJSONDepth {
		return 0, nil, s.errf("nested too deep")
	}
	s.skipSpace()
	if s.pos >= len(s.data) {
		return 0, nil, s.errf("unexpected end")
	}
	switch c := s.data[s.pos]; {
	case c == '{':
		o, err := s.object(depth)
		if depth >= 2 {
			o = nil
		}
		return '{', o, err
	case c == '[':
		s.pos++
		s.skipSpace()
		if s.pos < len(s.data) && s.data[s.pos] == ']' {
			s.pos++
			return '[', nil, nil
		}
		for {
			if _, _, err := s.value(depth + 1); err != nil {
				return 0, nil, err
			}
			s.skipSpace()
			if s.pos >= len(s.data) {
				return 0, nil, s.errf("unterminated array")
			}
			if s.data[s.pos] == ',' {
				s.pos++
				continue
			}
			if s.data[s.pos] == ']' {
				s.pos++
				return '[', nil, nil
			}
			return 0, nil, s.errf("want , or ] in an array")
		}
	case c == '"':
		_, err := s.str()
		return '"', nil, err
	case c == '-' || (c >= '0' && c <= '9'):
		start := s.pos
		for s.pos < len(s.data) && strings.IndexByte("+-0123456789.eE", s.data[s.pos]) >= 0 {
			s.pos++
		}
		var f json.Number
		if err := json.Unmarshal(s.data[start:s.pos], &f); err != nil {
			return 0, nil, s.errf("bad number")
		}
		return 'n', nil, nil
	default:
		for _, lit := range []string{"true", "false", "null"} {
			if strings.HasPrefix(string(s.data[s.pos:min(len(s.data), s.pos+5)]), lit) {
				s.pos += len(lit)
				return 'l', nil, nil
			}
		}
		return 0, nil, s.errf("unexpected %q", c)
	}
}

// str scans a string and returns its decoded value.
func (s *jsonScanner) str() (string, error) {
	start := s.pos
	s.pos++
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case '\\':
			s.pos += 2
			continue
		case '"':
			s.pos++
			var v string
			if err := json.Unmarshal(s.data[start:s.pos], &v); err != nil {
				return "", s.errf("bad string")
			}
			return v, nil
		case '\n':
			return "", s.errf("newline in a string")
		}
		s.pos++
	}
	return "", s.errf("unterminated string")
}

func (s *jsonScanner) object(depth int) (*jsonObject, error) {
	o := &jsonObject{open: s.pos}
	s.pos++
	s.skipSpace()
	if s.pos < len(s.data) && s.data[s.pos] == '}' {
		o.close = s.pos
		s.pos++
		return o, nil
	}
	for {
		s.skipSpace()
		if s.pos >= len(s.data) || s.data[s.pos] != '"' {
			return nil, s.errf("want a member name")
		}
		m := jsonMember{keyStart: s.pos}
		k, err := s.str()
		if err != nil {
			return nil, err
		}
		m.key, m.keyEnd = k, s.pos
		s.skipSpace()
		if s.pos >= len(s.data) || s.data[s.pos] != ':' {
			return nil, s.errf("want : after a member name")
		}
		s.pos++
		s.skipSpace()
		m.valStart = s.pos
		m.kind, m.obj, err = s.value(depth + 1)
		if err != nil {
			return nil, err
		}
		m.valEnd = s.pos
		o.members = append(o.members, m)
		s.skipSpace()
		if s.pos >= len(s.data) {
			return nil, s.errf("unterminated object")
		}
		if s.data[s.pos] == ',' {
			s.pos++
			continue
		}
		if s.data[s.pos] == '}' {
			o.close = s.pos
			s.pos++
			return o, nil
		}
		return nil, s.errf("want , or } in an object")
	}
}

// locateJSON finds the object holding the fields (the top level, or a
// wrapper member holding an object) and the fields in it and in the top
// level.
func locateJSON(data []byte, wrappers []string) (inner, outer *mapInfo, err error) {
	s := &jsonScanner{data: data}
	s.skipSpace()
	if s.pos >= len(data) || data[s.pos] != '{' {
		return nil, nil, errors.New("the top level is not a JSON object")
	}
	top, err := s.object(0)
	if err != nil {
		return nil, nil, err
	}
	s.skipSpace()
	if s.pos != len(data) {
		return nil, nil, s.errf("data after the top-level object")
	}
	topInfo := jsonMapInfo(data, top)
	for _, w := range wrappers {
		var found *jsonObject
		for i := range top.members {
			if m := top.members[i]; m.key == w && m.obj != nil {
				found = m.obj
			}
		}
		if found != nil {
			return jsonMapInfo(data, found), topInfo, nil
		}
	}
	return topInfo, nil, nil
}

// jsonMapInfo describes an object for the patch.
func jsonMapInfo(data []byte, o *jsonObject) *mapInfo {
	m := &mapInfo{found: map[string]*foundValue{}}
	for _, mem := range o.members {
		m.keys = append(m.keys, mem.key)
		if !isFieldKey(mem.key) {
			continue
		}
		f := &foundValue{key: mem.key, start: mem.valStart, end: mem.valEnd, style: styleOther}
		raw := data[mem.valStart:mem.valEnd]
		if mem.kind == '"' {
			f.style = styleString
			_ = json.Unmarshal(raw, &f.text)
		} else {
			f.text = string(raw)
		}
		m.found[mem.key] = f // the last one wins, as decoders do
	}
	m.render = func(field string, old *foundValue, value string) string {
		if field == "resume_count" && (old == nil || old.style != styleString) {
			return value
		}
		b, _ := json.Marshal(value)
		return string(b)
	}
	m.insert = func(kvs [][2]string) (edit, error) {
		if len(o.members) == 0 {
			var parts []string
			for _, kv := range kvs {
				parts = append(parts, fmt.Sprintf("%q: %s", kv[0], kv[1]))
			}
			return edit{o.open + 1, o.open + 1, strings.Join(parts, ", ")}, nil
		}
		first := o.members[0]
		lead := string(data[o.open+1 : first.keyStart])
		sep := string(data[first.keyEnd:first.valStart])
		gap := lead
		if !strings.Contains(lead, "\n") {
			gap = ""
			if strings.Contains(sep, " ") {
				gap = " "
			}
		}
		var b strings.Builder
		for _, kv := range kvs {
			key, _ := json.Marshal(kv[0])
			b.WriteString(string(key) + sep + kv[1] + "," + gap)
		}
		return edit{first.keyStart, first.keyStart, b.String()}, nil
	}
	return m
}

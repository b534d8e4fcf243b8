package statepatch

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/orchestrate-dev/orchestrate/internal/tolerant"
	"go.yaml.in/yaml/v3"
)

// yamlDoc is a YAML file with the byte offset of each line.
type yamlDoc struct {
	data  []byte
	lines []int // offset of the start of each line
	eol   string
}

func newYAMLDoc(data []byte) *yamlDoc {
	d := &yamlDoc{data: data, lines: []int{0}, eol: "\n"}
	for i, b := range data {
		if b == '\n' {
			d.lines = append(d.lines, i+1)
		}
	}
	if i := bytes.IndexByte(data, '\n'); i > 0 && data[i-1] == '\r' {
		d.eol = "\r\n"
	}
	return d
}

// lineEnd is the offset of the end of the line holding off (before "\r\n"
// or "\n").
func (d *yamlDoc) lineEnd(off int) int {
	i := bytes.IndexByte(d.data[off:], '\n')
	if i < 0 {
		return len(d.data)
	}
	end := off + i
	if end > off && d.data[end-1] == '\r' {
		end--
	}
	return end
}

// offset turns a node's 1-based line and (character) column into a byte
// offset.
func (d *yamlDoc) offset(line, col int) (int, error) {
	if line < 1 || line > len(d.lines) || col < 1 {
		return 0, fmt.Errorf("position %d:%d out of range", line, col)
	}
	off := d.lines[line-1]
	end := d.lineEnd(off)
	for c := 1; c < col; c++ {
		if off >= end {
			return 0, fmt.Errorf("column %d past the end of line %d", col, line)
		}
		_, size := utf8.DecodeRune(d.data[off:end])
		off += size
	}
	return off, nil
}

// restIsComment reports whether data[off:end of line] is blank or a comment.
func (d *yamlDoc) restIsComment(off int) bool {
	rest := strings.TrimLeft(string(d.data[off:d.lineEnd(off)]), " \t")
	return rest == "" || rest[0] == '#'
}

// locateYAML finds the mapping holding the fields (the top level, or a
// wrapper key holding a block mapping) and the three fields in it and in the
// top level. root is the parsed document, for the verification to decode
// the original from without parsing it again.
func locateYAML(data []byte, wrappers []string) (inner, outer *mapInfo, root *yaml.Node, err error) {
	root, err = decodeYAMLNode(data)
	if err != nil {
		return nil, nil, nil, err
	}
	if root.Kind != yaml.MappingNode {
		return nil, nil, nil, errors.New("the top level is not a mapping")
	}
	d := newYAMLDoc(data)
	top, err := d.mapping(root)
	if err != nil {
		return nil, nil, nil, err
	}
	for _, w := range wrappers {
		for i := 0; i+1 < len(root.Content); i += 2 {
			k, v := root.Content[i], root.Content[i+1]
			if k.Kind != yaml.ScalarNode || k.Value != w || v.Kind != yaml.MappingNode {
				continue
			}
			in, err := d.mapping(v)
			if err != nil {
				return nil, nil, nil, fmt.Errorf("%s: %w", w, err)
			}
			return in, top, root, nil
		}
	}
	return top, nil, root, nil
}

// decodeYAMLNode parses a state read from its file, and decodePatchedNode
// the patched text the verification parses once (not kept for a later
// read: see tolerant.DecodeYAMLNodeOnce); variables so that a test can
// count the parses.
var (
	decodeYAMLNode    = tolerant.DecodeYAMLNode
	decodePatchedNode = tolerant.DecodeYAMLNodeOnce
)

// mapping describes a block mapping node.
func (d *yamlDoc) mapping(n *yaml.Node) (*mapInfo, error) {
	if n.Style&yaml.FlowStyle != 0 {
		return nil, errors.New("the state is a flow-style mapping ({...}); orchestrate only patches block mappings")
	}
	if len(n.Content) == 0 {
		return nil, errors.New("the state mapping is empty")
	}
	m := &mapInfo{found: map[string]*foundValue{}}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			continue
		}
		m.keys = append(m.keys, k.Value)
		if !isFieldKey(k.Value) {
			continue
		}
		f, err := d.value(k, v)
		if err != nil {
			return nil, fmt.Errorf("%s (line %d): %w", k.Value, k.Line, err)
		}
		m.found[k.Value] = f
	}
	first := n.Content[0]
	m.insert = func(kvs [][2]string) (Edit, error) {
		off, err := d.offset(first.Line, first.Column)
		if err != nil {
			return Edit{}, err
		}
		start := d.lines[first.Line-1]
		indent := string(d.data[start:off])
		if strings.Trim(indent, " ") != "" {
			return Edit{}, fmt.Errorf("line %d: the mapping does not start on a line of its own; cannot insert keys", first.Line)
		}
		var b strings.Builder
		for _, kv := range kvs {
			b.WriteString(indent + kv[0] + ": " + kv[1] + d.eol)
		}
		return Edit{Start: start, End: start, Text: b.String()}, nil
	}
	m.render = func(field string, old *foundValue, value string) string {
		style := stylePlain
		if old != nil {
			style = old.style
		} else if field == "resumed_at" {
			style = styleDouble // a timestamp kept as text
		}
		switch style {
		case styleDouble:
			return `"` + value + `"`
		case styleSingle:
			return "'" + value + "'"
		case styleEmpty:
			return " " + value
		}
		return value
	}
	return m, nil
}

func isFieldKey(k string) bool {
	for _, keys := range [][]string{statusKeys, resumedAtKeys, resumeCountKeys} {
		for _, x := range keys {
			if x == k {
				return true
			}
		}
	}
	return false
}

// value finds the bytes of the scalar value v of key k, on k's line.
func (d *yamlDoc) value(k, v *yaml.Node) (*foundValue, error) {
	f := &foundValue{key: k.Value}
	if v.Kind != yaml.ScalarNode {
		return nil, errors.New("the value is not a scalar")
	}
	if v.Anchor != "" || v.Style&yaml.TaggedStyle != 0 {
		return nil, errors.New("the value has an anchor or a tag; not patched")
	}
	if v.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return nil, errors.New("the value is a block scalar; not patched")
	}
	koff, err := d.offset(k.Line, k.Column)
	if err != nil {
		return nil, err
	}
	kend, err := d.scalarEnd(koff, k.Style, k.Value, true)
	if err != nil {
		return nil, fmt.Errorf("key: %w", err)
	}
	// the colon after the key
	i := kend
	end := d.lineEnd(koff)
	for i < end && (d.data[i] == ' ' || d.data[i] == '\t') {
		i++
	}
	if i >= end || d.data[i] != ':' {
		return nil, errors.New("no colon after the key on its line")
	}
	colonEnd := i + 1

	if v.Tag == "!!null" && v.Value == "" && v.Style == 0 {
		if !d.restIsComment(colonEnd) {
			return nil, errors.New("an empty value followed by text")
		}
		f.start, f.end, f.style = colonEnd, colonEnd, styleEmpty
		return f, nil
	}
	if v.Line != k.Line {
		return nil, errors.New("the value is not on the key's line")
	}
	voff, err := d.offset(v.Line, v.Column)
	if err != nil {
		return nil, err
	}
	if voff < colonEnd {
		return nil, errors.New("the value's position is before its key's colon")
	}
	vend, err := d.scalarEnd(voff, v.Style, v.Value, false)
	if err != nil {
		return nil, err
	}
	if !d.restIsComment(vend) {
		return nil, errors.New("text after the value")
	}
	f.start, f.end, f.text = voff, vend, v.Value
	switch {
	case v.Style&yaml.DoubleQuotedStyle != 0:
		f.style = styleDouble
	case v.Style&yaml.SingleQuotedStyle != 0:
		f.style = styleSingle
	default:
		f.style = stylePlain
	}
	return f, nil
}

// scalarEnd returns the end offset of a one-line scalar starting at off,
// checking it is the scalar the parser reports (value).
func (d *yamlDoc) scalarEnd(off int, style yaml.Style, value string, isKey bool) (int, error) {
	end := d.lineEnd(off)
	line := d.data[:end]
	switch {
	case style&yaml.DoubleQuotedStyle != 0:
		if off >= end || line[off] != '"' {
			return 0, errors.New("a double-quoted scalar does not start where the parser says")
		}
		for i := off + 1; i < end; i++ {
			switch line[i] {
			case '\\':
				i++
			case '"':
				return i + 1, nil
			}
		}
		return 0, errors.New("a quoted scalar spans several lines; not patched")
	case style&yaml.SingleQuotedStyle != 0:
		if off >= end || line[off] != '\'' {
			return 0, errors.New("a single-quoted scalar does not start where the parser says")
		}
		for i := off + 1; i < end; i++ {
			if line[i] == '\'' {
				if i+1 < end && line[i+1] == '\'' {
					i++
					continue
				}
				return i + 1, nil
			}
		}
		return 0, errors.New("a quoted scalar spans several lines; not patched")
	case style == 0:
		if isKey {
			if !bytes.HasPrefix(line[off:], []byte(value)) {
				return 0, errors.New("the key is not where the parser says")
			}
			return off + len(value), nil
		}
		e := end
		for i := off; i < end; i++ {
			if line[i] == '#' && i > off && (line[i-1] == ' ' || line[i-1] == '\t') {
				e = i
				break
			}
		}
		for e > off && (line[e-1] == ' ' || line[e-1] == '\t') {
			e--
		}
		if string(line[off:e]) != value {
			return 0, errors.New("a plain scalar spans several lines or is not where the parser says; not patched")
		}
		return e, nil
	}
	return 0, errors.New("unsupported scalar style")
}

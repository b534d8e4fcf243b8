// Package tolerant decodes YAML and JSON written by hand or by other tools
// without ever failing on them: depth and alias limits, errors with a line,
// and Fields, which reads a value under any of its spellings and records a
// warning when it has the wrong type.
package tolerant

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/orchestrate-dev/orchestrate/internal/lazyre"
	"github.com/orchestrate-dev/orchestrate/internal/textfmt"
)

// MaxAliases is the number of YAML aliases a state file may use; more is
// refused as a likely alias bomb (state files written by tools use none).
const MaxAliases = 64

// MaxDepth is the deepest nesting of mappings and lists accepted.
const MaxDepth = 64

// MaxNodes is the largest number of values (scalars, lists and mappings,
// keys included) a document may hold; more is refused before the document
// is decoded (see docs/SECURITY.md, "Counts"). Real state files hold a few
// thousand; the largest real Taskmaster files some tens of thousands. An
// 8 MiB file of "{}," holds 2.8 million, which decoded took seconds and
// gigabytes downstream.
const MaxNodes = 500_000

// maxYAMLBound is the largest yamlNodeBound accepted before a YAML
// document is parsed. The bound is at most about four times the real
// count for the densest input (a flow list "[a,a,…]"), and about three
// times it for ordinary block YAML, so a document under MaxNodes passes
// unless it is mostly punctuation.
const maxYAMLBound = 4 * MaxNodes

// DecodeError is a decoding failure with the line it happened at (0 when
// unknown).
type DecodeError struct {
	Line int
	Code string // syntax, alias-bomb, too-deep, not-a-mapping, invalid-utf8
	Msg  string
}

// Error implements error.
func (e *DecodeError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return e.Msg
}

var yamlLineRe = lazyre.New(`line (\d+)`)

// DecodeYAMLNode parses data as one YAML document into a node tree, refusing
// alias bombs and deep nesting. The root returned is the document's content
// node (a mapping for every state file).
//
// A large document parsed lately is not parsed again: the caller gets a copy
// of its tree (see memo.go), which it may change as it likes.
func DecodeYAMLNode(data []byte) (*yaml.Node, error) {
	key, keep := memoKey(data)
	if keep {
		if root := memoGet(key); root != nil {
			return root, nil
		}
	}
	root, err := decodeYAMLNode(data)
	if err != nil || !keep {
		return root, err
	}
	memoPut(key, root)
	return cloneNode(root), nil
}

// DecodeYAMLNodeOnce is DecodeYAMLNode for text no later read parses
// again (a patch's output, parsed to verify it): it is neither looked up in
// nor kept by the memo.
func DecodeYAMLNodeOnce(data []byte) (*yaml.Node, error) {
	return decodeYAMLNode(data)
}

// decodeYAMLNode is DecodeYAMLNode without the memo.
func decodeYAMLNode(data []byte) (*yaml.Node, error) {
	if !utf8.Valid(data) {
		return nil, &DecodeError{Code: "invalid-utf8", Msg: "not valid UTF-8 text", Line: FirstInvalidLine(data)}
	}
	if yamlNodeBound(data) > maxYAMLBound {
		return nil, tooMany()
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		line := 0
		if m := yamlLineRe().FindStringSubmatch(err.Error()); m != nil {
			line, _ = strconv.Atoi(m[1])
		}
		return nil, &DecodeError{Code: "syntax", Msg: "invalid YAML: " + trimYAMLErr(err.Error()), Line: line}
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, &DecodeError{Code: "empty", Msg: "empty document"}
	}
	aliases, nodes := 0, 0
	var walk func(n *yaml.Node, depth int) error
	walk = func(n *yaml.Node, depth int) error {
		if nodes++; nodes > MaxNodes {
			return tooMany()
		}
		if depth > MaxDepth {
			return &DecodeError{Code: "too-deep", Msg: fmt.Sprintf("nested deeper than %d levels", MaxDepth), Line: n.Line}
		}
		if n.Kind == yaml.AliasNode {
			aliases++
			if aliases > MaxAliases {
				return &DecodeError{Code: "alias-bomb", Msg: fmt.Sprintf("more than %d YAML aliases (refused as an alias bomb)", MaxAliases), Line: n.Line}
			}
			return nil // aliases are not followed: their targets are walked where defined
		}
		for _, c := range n.Content {
			if err := walk(c, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(&doc, 0); err != nil {
		return nil, err
	}
	return doc.Content[0], nil
}

var yamlErrPrefixRe = lazyre.New(`^yaml: (line \d+: )?`)

func trimYAMLErr(s string) string {
	return yamlErrPrefixRe().ReplaceAllString(s, "")
}

// DecodeYAMLMap parses data as a YAML mapping into plain Go values
// (map[string]any, []any, string, int, float64, bool, time.Time …).
// The block-YAML subset state files are written in is decoded by a fast
// path (fastyaml.go) that gives the same values; anything else by yaml.v3.
func DecodeYAMLMap(data []byte) (map[string]any, error) {
	if m, ok := fastDecodeYAMLMap(data); ok {
		return m, nil
	}
	return decodeYAMLMapSlow(data)
}

// decodeYAMLMapSlow is DecodeYAMLMap through yaml.v3 alone.
func decodeYAMLMapSlow(data []byte) (map[string]any, error) {
	node, err := DecodeYAMLNode(data)
	if err != nil {
		return nil, err
	}
	return DecodeYAMLMapNode(node)
}

// DecodeYAMLMapNode is DecodeYAMLMap on a node tree DecodeYAMLNode already
// returned, so a caller that needs both the nodes (their positions) and the
// values parses the text once. It marks the tree's plain float scalars as
// strings (see keepFloatText): use the nodes' tags before, not after.
func DecodeYAMLMapNode(node *yaml.Node) (map[string]any, error) {
	if node == nil {
		return nil, &DecodeError{Code: "empty", Msg: "empty document"}
	}
	if node.Kind != yaml.MappingNode {
		return nil, &DecodeError{Code: "not-a-mapping", Msg: fmt.Sprintf("top level is a %s, want a mapping", kindName(node.Kind)), Line: node.Line}
	}
	keepFloatText(node)
	var v any
	if err := node.Decode(&v); err != nil {
		return nil, &DecodeError{Code: "syntax", Msg: "invalid YAML: " + trimYAMLErr(err.Error()), Line: node.Line}
	}
	m, ok := normalize(v, 0).(map[string]any)
	if !ok {
		return nil, &DecodeError{Code: "not-a-mapping", Msg: "top level is not a mapping"}
	}
	return m, nil
}

// keepFloatText makes plain float scalars decode as their text: state files
// write story ids unquoted (story: 1.10), and a float would turn 1.10 into
// 1.1. Fields.Int and ToTime still accept numeric text where numbers are meant.
func keepFloatText(n *yaml.Node) {
	if n == nil {
		return
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!float" && n.Style == 0 {
		n.Tag = "!!str"
	}
	for _, c := range n.Content {
		keepFloatText(c)
	}
}

func kindName(k yaml.Kind) string {
	switch k {
	case yaml.SequenceNode:
		return "list"
	case yaml.ScalarNode:
		return "scalar"
	case yaml.MappingNode:
		return "mapping"
	case yaml.AliasNode:
		return "alias"
	}
	return "document"
}

// normalize turns map[any]any (YAML mappings with non-string keys) into
// map[string]any so field helpers see one shape.
func normalize(v any, depth int) any {
	return walkValues(v, depth, MaxDepth*2, true, nil)
}

// walkValues rebuilds decoded values with string-keyed mappings only,
// applying leaf (when set) to every value that is not a mapping or a list;
// in place when inPlace (a map[any]any is always replaced), else as a copy.
// Values nested deeper than limit become nil.
func walkValues(v any, depth, limit int, inPlace bool, leaf func(any) any) any {
	if depth > limit {
		return nil
	}
	switch t := v.(type) {
	case map[string]any:
		out := t
		if !inPlace {
			out = make(map[string]any, len(t))
		}
		for k, x := range t {
			out[k] = walkValues(x, depth+1, limit, inPlace, leaf)
		}
		return out
	case map[any]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[fmt.Sprint(k)] = walkValues(x, depth+1, limit, inPlace, leaf)
		}
		return out
	case []any:
		out := t
		if !inPlace {
			out = make([]any, len(t))
		}
		for i, x := range t {
			out[i] = walkValues(x, depth+1, limit, inPlace, leaf)
		}
		return out
	}
	if leaf != nil {
		return leaf(v)
	}
	return v
}

// DecodeJSONMap parses data as a JSON object into plain Go values; numbers
// become float64 (json.Number when they do not fit).
func DecodeJSONMap(data []byte) (map[string]any, error) {
	v, err := DecodeJSON(data)
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, &DecodeError{Code: "not-an-object", Msg: fmt.Sprintf("top level is %s, want an object", JSONKind(v))}
	}
	return m, nil
}

// DecodeJSON parses one JSON value, with line numbers on syntax errors.
func DecodeJSON(data []byte) (any, error) { return decodeJSON(data, false) }

// DecodeJSONNumbers is DecodeJSON with numbers kept as json.Number (their
// literal text), for formats whose ids are numbers written as text matters.
func DecodeJSONNumbers(data []byte) (any, error) { return decodeJSON(data, true) }

// tooMany is the error of a document holding more than MaxNodes values (the
// counts are upper bounds, so the message gives the limit, not a count).
func tooMany() *DecodeError {
	return &DecodeError{Code: "too-many", Msg: fmt.Sprintf("more than the %s values (fields and list entries) orchestrate reads; the file is not read",
		textfmt.Thousands(MaxNodes))}
}

// decodeJSON is DecodeJSON, with numbers as json.Number when numbers.
func decodeJSON(data []byte, numbers bool) (any, error) {
	if !utf8.Valid(data) {
		return nil, &DecodeError{Code: "invalid-utf8", Msg: "not valid UTF-8 text", Line: FirstInvalidLine(data)}
	}
	depth, nodes := jsonShape(data)
	if depth > MaxDepth {
		return nil, &DecodeError{Code: "too-deep", Msg: fmt.Sprintf("nested deeper than %d levels", MaxDepth)}
	}
	if nodes > MaxNodes {
		return nil, tooMany()
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if numbers {
		dec.UseNumber()
	}
	var v any
	if err := dec.Decode(&v); err != nil {
		line := 0
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			line = LineAt(data, int(se.Offset))
		case errors.As(err, &te):
			line = LineAt(data, int(te.Offset))
		}
		msg := err.Error()
		if errors.Is(err, errors.New("EOF")) || msg == "EOF" || msg == "unexpected EOF" {
			msg = "truncated or empty JSON"
		}
		return nil, &DecodeError{Code: "syntax", Msg: "invalid JSON: " + msg, Line: line}
	}
	if dec.More() {
		return nil, &DecodeError{Code: "syntax", Msg: "invalid JSON: data after the top-level value", Line: LineAt(data, int(dec.InputOffset()))}
	}
	return v, nil
}

// JSONKind names the JSON kind of a decoded value ("an object", …).
func JSONKind(v any) string {
	switch v.(type) {
	case []any:
		return "an array"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return "an object"
}

// jsonShape returns the deepest bracket nesting outside strings, and an
// upper bound of the number of values data holds: every value but the first
// of its list or object follows a comma, every first one an opening bracket
// (an object's keys are not counted), so commas, brackets and one more
// bound it, and are counted in the one pass over the bytes that finds the
// depth, before anything is allocated.
func jsonShape(data []byte) (int, int) {
	depth, max, nodes := 0, 0, 1
	inStr, esc := false, false
	for _, b := range data {
		if inStr {
			switch {
			case esc:
				esc = false
			case b == '\\':
				esc = true
			case b == '"':
				inStr = false
			}
			continue
		}
		switch b {
		case '"':
			inStr = true
		case '{', '[':
			depth++
			nodes++
			if depth > max {
				max = depth
			}
		case '}', ']':
			depth--
		case ',':
			nodes++
		}
	}
	return max, nodes
}

// yamlNodeBound is an upper bound of the number of nodes yaml.v3 builds for
// data, found in one pass over the bytes so that a document of millions of
// tiny nodes ("- {}" 1.6 million times in 8 MiB, which yaml.v3 takes
// seconds and hundreds of megabytes to parse) is refused before it is
// parsed. Every node yaml.v3 makes is a scalar, a collection, an alias or
// an empty value, and each of them starts at the beginning of a line, at an
// indicator ("- ", "? ", ": ", ",", "[", "{") or at a closing bracket, or
// is an alias ("*"); quoted text, comments and block scalars are not
// skipped (a quote or a "#" cannot be told from text without parsing), so
// the bound only overcounts. Line breaks are the ones yaml.v3 knows: LF,
// CR, NEL, LS and PS.
func yamlNodeBound(data []byte) int {
	lines, ind, closers, aliases := 1, 0, 0, 0
	n := len(data)
	for i := 0; i < n; i++ {
		switch data[i] {
		case '\n', '\r':
			lines++
		case 0xC2: // NEL is C2 85
			if i+1 < n && data[i+1] == 0x85 {
				lines++
			}
		case 0xE2: // LS and PS are E2 80 A8 and E2 80 A9
			if i+2 < n && data[i+1] == 0x80 && (data[i+2] == 0xA8 || data[i+2] == 0xA9) {
				lines++
			}
		case ',', '[', '{':
			ind++
		case ']', '}':
			closers++
		case '*':
			aliases++
		case '-', '?', ':':
			if i+1 == n || yamlIndicatorNext(data[i+1]) || (data[i] == ':' && i > 0 && yamlJSONKeyEnd(data[i-1])) {
				ind++
			}
		}
	}
	// scalars ≤ lines+ind, collections ≤ lines+2·ind, empty values ≤
	// 2·(ind+closers), aliases, and the document
	return 3*lines + 6*ind + 2*closers + aliases + 4
}

// yamlIndicatorNext reports whether b after "-", "?" or ":" can make it an
// indicator: a blank, a line break (or the first byte of NEL, LS and PS)
// or a flow indicator.
func yamlIndicatorNext(b byte) bool {
	switch b {
	case ' ', '\t', '\n', '\r', 0xC2, 0xE2, ',', '[', ']', '{', '}':
		return true
	}
	return false
}

// yamlJSONKeyEnd reports whether b before ":" ends a JSON-like key, after
// which ":" is an indicator even when text follows ({"a":1}).
func yamlJSONKeyEnd(b byte) bool {
	return b == '"' || b == '\'' || b == ']' || b == '}'
}

// LineAt is the 1-based line of byte offset off in data.
func LineAt(data []byte, off int) int {
	if off > len(data) {
		off = len(data)
	}
	if off < 0 {
		off = 0
	}
	return bytes.Count(data[:off], []byte("\n")) + 1
}

// FirstInvalidLine is the 1-based line of the first byte that is not valid
// UTF-8 (0 when all is valid).
func FirstInvalidLine(data []byte) int {
	line := 1
	for len(data) > 0 {
		r, size := utf8.DecodeRune(data)
		if r == utf8.RuneError && size <= 1 {
			return line
		}
		if r == '\n' {
			line++
		}
		data = data[size:]
	}
	return 0
}

package statepatch

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/tolerant"
	"go.yaml.in/yaml/v3"
)

// The generic patch of a JSON or YAML state file (epic state, QA loop,
// workflow state, work session): find the three fields a resume writes,
// rewrite them in place, verify the result by decoding it again.

// the three fields a resume writes, each with the spellings accepted.
var (
	statusKeys      = []string{"status"}
	resumedAtKeys   = []string{"resumed_at", "resumedAt"}
	resumeCountKeys = []string{"resume_count", "resumeCount"}
)

// maxResumeCount bounds resume_count: a larger value is not a count a tool
// wrote, and incrementing it could overflow.
const maxResumeCount = 1_000_000_000

// isJSON tells the format of a state file: by extension, else by its first
// non-blank byte.
func isJSON(path string, data []byte) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".json":
		return true
	case ".yaml", ".yml":
		return false
	}
	t := bytes.TrimLeft(data, " \t\r\n")
	return len(t) > 0 && t[0] == '{'
}

// scalar styles of a value found in place.
const (
	stylePlain  = "plain"
	styleDouble = "double"
	styleSingle = "single"
	styleEmpty  = "empty" // YAML "key:" with no value; JSON null is plain
	styleString = "string"
	styleOther  = "other" // a JSON number, literal
)

// foundValue is one of the three fields found in a mapping.
type foundValue struct {
	key        string // as spelt in the file
	start, end int    // the value's bytes
	style      string
	text       string // the scalar's value (decoded)
}

// mapInfo is a mapping the patch may write into.
type mapInfo struct {
	keys  []string
	found map[string]*foundValue // by key as spelt
	// insert builds the text inserting new key/value lines or members, and
	// where; ok is false when the mapping cannot take insertions.
	insert func(kvs [][2]string) (Edit, error)
	// render renders a new value for a field of this mapping's format.
	render func(field string, old *foundValue, value string) string
}

// find returns the first spelling of keys present in m.
func (m *mapInfo) find(keys []string) *foundValue {
	if m == nil {
		return nil
	}
	for _, k := range keys {
		if f, ok := m.found[k]; ok {
			return f
		}
	}
	return nil
}

// camel reports whether the mapping's keys are mostly camelCase.
func camel(keys []string) (isCamel, decided bool) {
	c, s := 0, 0
	for _, k := range keys {
		if strings.Contains(k, "_") {
			s++
			continue
		}
		for i := 1; i < len(k); i++ {
			if k[i-1] >= 'a' && k[i-1] <= 'z' && k[i] >= 'A' && k[i] <= 'Z' {
				c++
				break
			}
		}
	}
	return c > s, c != s
}

// Patch marks a JSON or YAML state file resumed in place: status active,
// resumed_at now, resume_count incremented, each in the spelling and style
// the file already uses (camelCase when its keys are), looking in the first
// of wrappers holding a mapping, else the top level. Every other byte is
// kept. The result is re-parsed and verified before it is returned; a
// mapping it cannot rewrite safely is an error.
func Patch(path string, data []byte, now time.Time, wrappers []string) ([]byte, error) {
	bom := bytes.HasPrefix(data, BOM)
	body := data
	if bom {
		body = data[len(BOM):]
	}
	jsonFmt := isJSON(path, body)
	var inner, outer *mapInfo
	var root *yaml.Node // the parsed original (YAML): verified from, not parsed again
	var err error
	if jsonFmt {
		inner, outer, err = locateJSON(body, wrappers)
	} else {
		inner, outer, root, err = locateYAML(body, wrappers)
	}
	if err != nil {
		return nil, err
	}

	ts := now.UTC().Format(time.RFC3339)
	oldCount := 0
	if f := firstFound(inner, outer, resumeCountKeys); f != nil {
		n, err := parseCount(f)
		if err != nil {
			return nil, err
		}
		oldCount = n
	}
	newCount := strconv.Itoa(oldCount + 1)

	isCamel, decided := camel(inner.keys)
	if !decided && outer != nil {
		isCamel, _ = camel(outer.keys)
	}
	var edits []Edit
	var missing [][2]string
	for _, fld := range []struct {
		keys  []string
		camel string
		value string
	}{
		{statusKeys, "status", StatusActive},
		{resumedAtKeys, "resumedAt", ts},
		{resumeCountKeys, "resumeCount", newCount},
	} {
		m := inner
		f := inner.find(fld.keys)
		if f == nil && outer != nil {
			if f = outer.find(fld.keys); f != nil {
				m = outer
			}
		}
		if f != nil {
			edits = append(edits, Edit{Start: f.start, End: f.end, Text: m.render(fld.keys[0], f, fld.value)})
			continue
		}
		key := fld.keys[0]
		if isCamel {
			key = fld.camel
		}
		missing = append(missing, [2]string{key, inner.render(fld.keys[0], nil, fld.value)})
	}
	if len(missing) > 0 {
		e, err := inner.insert(missing)
		if err != nil {
			return nil, err
		}
		edits = append(edits, e)
	}
	out := ApplyEdits(body, edits)
	if err := verifyPatch(body, root, out, jsonFmt, wrappers, ts, oldCount+1); err != nil {
		return nil, fmt.Errorf("the patched file does not check out (nothing written): %w", err)
	}
	if bom {
		out = append(append([]byte{}, BOM...), out...)
	}
	return out, nil
}

func firstFound(inner, outer *mapInfo, keys []string) *foundValue {
	if f := inner.find(keys); f != nil {
		return f
	}
	return outer.find(keys)
}

// parseCount reads an existing resume count: empty or null is 0.
func parseCount(f *foundValue) (int, error) {
	t := strings.TrimSpace(f.text)
	if f.style == styleEmpty || t == "" || t == "~" || t == "null" || t == "Null" || t == "NULL" {
		return 0, nil
	}
	if n, err := strconv.Atoi(t); err == nil && n >= 0 {
		if n >= maxResumeCount {
			return 0, fmt.Errorf("%s is %d: too large a count to increment safely", f.key, n)
		}
		return n, nil
	}
	if x, err := strconv.ParseFloat(t, 64); err == nil && x >= 0 && x == math.Trunc(x) && x < 1e9 {
		return int(x), nil
	}
	return 0, fmt.Errorf("%s is %q, not a count", f.key, f.text)
}

// decodeState decodes a state file's content in its format.
func decodeState(data []byte, jsonFmt bool) (map[string]any, error) {
	return decodeStateWith(data, jsonFmt, decodeYAMLNode)
}

// decodeStateWith is decodeState parsing YAML with parse.
func decodeStateWith(data []byte, jsonFmt bool, parse func([]byte) (*yaml.Node, error)) (map[string]any, error) {
	if jsonFmt {
		return tolerant.DecodeJSONMap(data)
	}
	root, err := parse(data)
	if err != nil {
		return nil, err
	}
	return tolerant.DecodeYAMLMapNode(root)
}

// splitState returns the mapping that holds the fields (the first wrapper
// holding a mapping, else the top level) and the top level when different.
func splitState(m map[string]any, wrappers []string) (inner, outer map[string]any) {
	for _, w := range wrappers {
		if v, ok := m[w].(map[string]any); ok {
			return v, m
		}
	}
	return m, nil
}

// lookupField finds a field as the patch does: in the inner mapping first.
func lookupField(inner, outer map[string]any, keys []string) (any, bool) {
	for _, m := range []map[string]any{inner, outer} {
		if m == nil {
			continue
		}
		for _, k := range keys {
			if v, ok := m[k]; ok {
				return v, true
			}
		}
	}
	return nil, false
}

// stripFields removes every spelling of the three fields from the mappings
// they may live in; what is left is the state apart from what a resume
// writes.
func stripFields(m map[string]any, wrappers []string) {
	inner, outer := splitState(m, wrappers)
	for _, mm := range []map[string]any{inner, outer} {
		if mm == nil {
			continue
		}
		for _, keys := range [][]string{statusKeys, resumedAtKeys, resumeCountKeys} {
			for _, k := range keys {
				delete(mm, k)
			}
		}
	}
}

// verifyPatch re-parses the patched content: it must decode, read back the
// three fields, and be equal to the original apart from them. origRoot is
// orig already parsed (YAML; nil to parse orig here): the original is
// decoded from it, the patched bytes are always parsed anew.
func verifyPatch(orig []byte, origRoot *yaml.Node, patched []byte, jsonFmt bool, wrappers []string, ts string, count int) error {
	var before map[string]any
	var err error
	if origRoot != nil && !jsonFmt {
		before, err = tolerant.DecodeYAMLMapNode(origRoot)
	} else {
		before, err = decodeState(orig, jsonFmt)
	}
	if err != nil {
		return fmt.Errorf("the original does not decode: %w", err)
	}
	after, err := decodeStateWith(patched, jsonFmt, decodePatchedNode)
	if err != nil {
		return err
	}
	inner, outer := splitState(after, wrappers)
	if v, _ := lookupField(inner, outer, statusKeys); fmt.Sprint(v) != StatusActive {
		return fmt.Errorf("status reads back as %v", v)
	}
	v, _ := lookupField(inner, outer, resumedAtKeys)
	switch t := v.(type) {
	case string:
		if t != ts {
			return fmt.Errorf("resumed_at reads back as %q", t)
		}
	case time.Time:
		if t.UTC().Format(time.RFC3339) != ts {
			return fmt.Errorf("resumed_at reads back as %v", t)
		}
	default:
		return fmt.Errorf("resumed_at reads back as %v", v)
	}
	v, _ = lookupField(inner, outer, resumeCountKeys)
	if fmt.Sprint(v) != strconv.Itoa(count) {
		return fmt.Errorf("resume_count reads back as %v", v)
	}
	stripFields(before, wrappers)
	stripFields(after, wrappers)
	if !sameState(before, after) {
		return errors.New("other fields changed")
	}
	return nil
}

// sameState reports whether two decoded states render the same
// (Canonical). Equal values render the same, so reflect.DeepEqual answers
// first, cheaply; only values it tells apart (NaN is not equal to itself)
// are rendered.
func sameState(a, b map[string]any) bool {
	return reflect.DeepEqual(a, b) || Canonical(a) == Canonical(b)
}

// Hash is the hex sha256 of a JSON or YAML state's content apart from the
// three fields a resume writes: the decoded state without them, rendered
// canonically. Content that does not decode is hashed as it is.
func Hash(path string, data []byte, wrappers []string) string {
	body := bytes.TrimPrefix(data, BOM)
	if m, err := decodeState(body, isJSON(path, body)); err == nil {
		stripFields(m, wrappers)
		return HashHex([]byte(Canonical(m)))
	}
	return HashHex(data)
}

// MarkedActive reports whether a JSON or YAML state's status says active
// (as a resume leaves it).
func MarkedActive(path string, data []byte, wrappers []string) bool {
	m, err := decodeState(data, isJSON(path, data))
	if err != nil {
		return false
	}
	inner, outer := splitState(m, wrappers)
	v, ok := lookupField(inner, outer, statusKeys)
	return ok && strings.EqualFold(strings.TrimSpace(fmt.Sprint(v)), StatusActive)
}

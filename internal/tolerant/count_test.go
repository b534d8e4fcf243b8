package tolerant

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// yamlNodes counts the nodes yaml.v3 builds for data (-1 when it does not
// parse): what yamlNodeBound must never undercount.
func yamlNodes(data []byte) int {
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil {
		return -1
	}
	n := 0
	var walk func(*yaml.Node)
	walk = func(x *yaml.Node) {
		n++
		for _, c := range x.Content {
			walk(c)
		}
	}
	walk(&doc)
	return n
}

// boundCases are YAML texts whose nodes the bound must cover: every kind of
// node, empty values made by indicators, JSON-like keys, line breaks
// yaml.v3 knows beyond LF.
var boundCases = []string{
	"", "a", "a: b\n", "- a\n- b\n", "-\n-\n-\n", "? \n: \n", "{a, b, c}", "[a, b, c]",
	"[: , : , :]", "{\"a\":1,\"b\":2}", "[a: 1, b: 2]", "- - - a\n", "a:\n  - b: c\n    d: [e, {f: g}]\n",
	"a: &x {k: v}\nb: *x\nc: *x\n", "a: |\n  - x\n  - y\nb: >\n  text, more: text\n",
	"a: 'quoted, with: colons'\nb: \"x\\\"y\"\n", "--- a\n...\n", "k: !!str 5\n", "- a\u2028- b\u2029- c\u0085- d",
	"a:\r\n- b\r\n- c\r", "{? a : b, ? c}", "[[[[]]]]", "{{}: {}}", "- {}\n- []\n- \n",
	"time: 09:00:00\nurl: https://x.y/z\ndate: 2026-11-20\n", "a: b # comment, [x, y]\n",
	"[a,\n b,\n c]", "{a: [b, {c: d}], e: f}", "- ? a\n  : b\n", "a: -1\nb: -\nc: ?x\n",
}

func TestYAMLNodeBoundCoversNodes(t *testing.T) {
	for _, in := range boundCases {
		real := yamlNodes([]byte(in))
		if real < 0 {
			continue
		}
		if b := yamlNodeBound([]byte(in)); b < real {
			t.Errorf("%q: bound %d < %d nodes", in, b, real)
		}
	}
}

// FuzzYAMLNodeBound: for every text yaml.v3 parses, the bound is at least
// the number of nodes it builds, so the refusal before parsing never lets a
// document with more nodes through unparsed-and-uncounted, and the count
// after parsing still holds.
func FuzzYAMLNodeBound(f *testing.F) {
	for _, in := range boundCases {
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if len(in) > 4096 {
			return
		}
		real := yamlNodes([]byte(in))
		if real < 0 {
			return
		}
		if b := yamlNodeBound([]byte(in)); b < real {
			t.Fatalf("%q: bound %d < %d nodes", in, b, real)
		}
	})
}

// TestJSONShapeCountsValues: the count is an upper bound of the values and
// is exact on arrays of scalars and objects.
func TestJSONShapeCountsValues(t *testing.T) {
	tests := []struct {
		in          string
		depth, vals int
	}{
		{`1`, 0, 1},
		{`[]`, 1, 2},
		{`[1,2,3]`, 1, 4},
		{`{"a":1,"b":[true,null]}`, 2, 5},
		{`{"a":"x,y,[z]"}`, 1, 2},
		{`["\",[", 2]`, 1, 3},
	}
	for _, tt := range tests {
		d, n := jsonShape([]byte(tt.in))
		if d != tt.depth || n != tt.vals {
			t.Errorf("%s: depth %d, values %d; want %d, %d", tt.in, d, n, tt.depth, tt.vals)
		}
	}
}

// hostileDocs are 8 MiB documents of millions of tiny values, in each shape
// the formats read.
func hostileDocs() map[string][]byte {
	const size = 8 << 20
	fill := func(prefix, unit, suffix string) []byte {
		n := (size - len(prefix) - len(suffix)) / len(unit)
		b := bytes.Repeat([]byte(unit), n)
		if strings.HasSuffix(unit, ",") {
			b = b[:len(b)-1]
		}
		return append(append([]byte(prefix), b...), suffix...)
	}
	return map[string][]byte{
		"json tasks":      fill(`{"tasks":[`, "{},", "]}"),
		"json numbers":    fill(`[`, "1,", "]"),
		"yaml block list": fill("waves:\n", "- {}\n", ""),
		"yaml flow list":  fill("waves: [", "a,", "a]"),
		"yaml mapping":    fill("", "a: b\n", ""),
		"yaml nulls":      fill("waves:\n", "-\n", ""),
	}
}

// TestDecodeRefusesTooManyValues: each hostile document is refused with
// "too-many", fast and before it is decoded (a few megabytes allocated,
// where a decode took hundreds).
func TestDecodeRefusesTooManyValues(t *testing.T) {
	for name, doc := range hostileDocs() {
		t.Run(name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			var err error
			if strings.HasPrefix(name, "json") {
				_, err = DecodeJSON(doc)
			} else {
				_, err = DecodeYAMLNode(doc)
			}
			took := time.Since(start)
			runtime.ReadMemStats(&after)
			var de *DecodeError
			if !errors.As(err, &de) || de.Code != "too-many" {
				t.Fatalf("error %v, want too-many", err)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
				t.Errorf("allocated %d MB before refusing", alloc>>20)
			}
			if took > time.Second && !raceEnabled {
				t.Errorf("took %v", took)
			}
		})
	}
}

// TestDecodeAcceptsLargeRealShapes: documents well above real sizes but
// under the limit still decode: the limit refuses floods, not big files.
func TestDecodeAcceptsLargeRealShapes(t *testing.T) {
	var y strings.Builder
	y.WriteString("waves:\n")
	for i := 0; i < 2000; i++ {
		y.WriteString("  - wave: 1\n    status: done\n    stories: [1.1, 1.2, 1.3, 1.4]\n    notes: |\n      Done: the first pass, then - a fix, then: a test.\n")
	}
	if _, err := DecodeYAMLMap([]byte(y.String())); err != nil {
		t.Errorf("2,000 waves: %v", err)
	}
	var j strings.Builder
	j.WriteString(`{"tasks":[`)
	for i := 0; i < 20000; i++ {
		if i > 0 {
			j.WriteString(",")
		}
		j.WriteString(`{"id":1,"title":"t","status":"done","dependencies":[1,2],"subtasks":[{"id":1,"title":"s"}]}`)
	}
	j.WriteString("]}")
	if _, err := DecodeJSONMap([]byte(j.String())); err != nil {
		t.Errorf("20,000 tasks: %v", err)
	}
}

// TestYAMLBoundOnRealFiles: the bound stays far below the refusal on the
// committed fixtures, so the pre-parse refusal never touches a real file.
func TestYAMLBoundOnRealFiles(t *testing.T) {
	files, _ := filepath.Glob("../../discover/*/testdata/*.yaml")
	if len(files) == 0 {
		t.Skip("no fixtures")
	}
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		real := yamlNodes(data)
		if real < 0 {
			continue
		}
		if b := yamlNodeBound(data); b > 12*real+64 {
			t.Errorf("%s: bound %d for %d nodes", p, b, real)
		}
	}
}

func TestCountHelpers(t *testing.T) {
	m := map[string]any{"a": []any{1, 2, map[string]any{"x": 1, "y": []any{1}}}, "b": map[string]any{"k": "v"}, "c": "text"}
	if got := CountEntries(m, 100); got != 3+3+2+1+1 {
		t.Errorf("CountEntries = %d, want 10", got)
	}
	if got := CountEntries(m, 2); got <= 2 {
		t.Errorf("CountEntries past the limit = %d, want more than 2", got)
	}
	if got := ListLen(m, "missing", "a"); got != 3 {
		t.Errorf("ListLen = %d, want 3", got)
	}
	if got := ListLen(m, "c", "a"); got != 0 {
		t.Errorf("ListLen of text = %d, want 0 (the first key present decides)", got)
	}
	err := TooManyElements(2_800_000, MaxElements, "tasks")
	if err.Code != "too-many" || err.Msg != "2,800,000 tasks, more than the 20,000 orchestrate reads; the file is not read" {
		t.Errorf("TooManyElements = %+v", err)
	}
	b := NewBudget()
	if !b.Take(MaxScanElements-1) || !b.Take(1) || b.Take(1) {
		t.Error("the budget did not allow exactly MaxScanElements")
	}
	var zero *Budget
	if !zero.Take(1 << 30) {
		t.Error("a nil budget refused")
	}
}

package tolerant

import (
	"math"
	"reflect"
	"testing"
	"time"
)

// valueCodecDocs are YAML documents whose decoded values must survive
// EncodeValue/DecodeValue exactly.
var valueCodecDocs = []string{
	"a: 1\n",
	"a: ~\nb: true\nc: false\nd: \"x\"\ne: 1.10\nf: !!float \"2.5\"\ng: 18446744073709551615\nh: -9223372036854775808\n",
	"list: [1, two, [3, {four: 4}], {}, []]\nnested: {a: {b: {c: [null, \"\"]}}}\n",
	"anchors: &a {x: 1}\nref: *a\nmerge:\n  <<: *a\n  y: 2\n",
	"1: one\ntrue: yes\n~: nothing\n2.5: f\n",
	"at: 2026-11-08T05:44:14Z\nday: 2026-11-08\nnano: 2026-11-08T05:44:14.123456789Z\nspace: 2026-11-08 1:2:3\n",
	"text: |\n  multi\n  line ünïcode ✓\nnan: !!float \".nan\"\ninf: !!float \"-.inf\"\n",
}

func TestValueCodecRoundTrip(t *testing.T) {
	for _, doc := range valueCodecDocs {
		m, err := DecodeYAMLMap([]byte(doc))
		if err != nil {
			t.Fatalf("%q: %v", doc, err)
		}
		enc := EncodeValue(nil, m)
		if enc == nil {
			t.Fatalf("%q: not encodable", doc)
		}
		got, ok := DecodeMapValue(enc)
		if !ok {
			t.Fatalf("%q: does not decode", doc)
		}
		if !sameValue(got, m) {
			t.Errorf("%q: round trip gives %#v, want %#v", doc, got, m)
		}
	}
}

func TestValueCodecRefuses(t *testing.T) {
	tests := []struct {
		name string
		v    any
	}{
		{"local time", map[string]any{"t": time.Unix(0, 0).In(time.Local)}},
		{"monotonic time", map[string]any{"t": time.Now()}},
		{"fixed zone", map[string]any{"t": time.Unix(0, 0).In(time.FixedZone("", 7200))}},
		{"parsed offset", mustDecode(t, "t: 2026-11-08T05:44:14+02:00\n")},
		{"int32", map[string]any{"n": int32(1)}},
		{"nil list", map[string]any{"l": []any(nil)}},
		{"nil map", map[string]any{"m": map[string]any(nil)}},
		{"any map", map[string]any{"m": map[any]any{1: 2}}},
	}
	for _, tt := range tests {
		if got := EncodeValue([]byte("x"), tt.v); got != nil {
			t.Errorf("%s: encoded as %q, want refused", tt.name, got)
		}
	}
	deep := any("leaf")
	for i := 0; i < maxValueDepth+2; i++ {
		deep = []any{deep}
	}
	if EncodeValue(nil, deep) != nil {
		t.Error("too deep a value was encoded")
	}
}

func mustDecode(t *testing.T, doc string) map[string]any {
	t.Helper()
	m, err := DecodeYAMLMap([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestValueCodecRejectsMalformed(t *testing.T) {
	good := EncodeValue(nil, map[string]any{"a": []any{"x", 1, 2.5}})
	tests := []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"unknown tag", []byte{0xee}},
		{"trailing", append(append([]byte{}, good...), 0)},
		{"truncated", good[:len(good)-1]},
		{"huge count", []byte{vtList, 0xff, 0xff, 0xff, 0xff, 0x0f}},
		{"varint overflow", []byte{vtUint64, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}},
		{"short float", []byte{vtFloat, 1, 2}},
		{"dup key", []byte{vtMap, 2, 1, 'k', vtNil, 1, 'k', vtNil}},
		{"not a map", []byte{vtTrue}},
		{"bad nanoseconds", []byte{vtTimeUTC, 0, 0x80, 0x94, 0xeb, 0xdc, 0x03}},
	}
	for _, tt := range tests {
		if _, ok := DecodeMapValue(tt.data); ok {
			t.Errorf("%s: decoded", tt.name)
		}
	}
}

// sameValue is reflect.DeepEqual with NaN equal to itself (bit for bit).
func sameValue(a, b any) bool {
	switch x := a.(type) {
	case time.Time:
		y, ok := b.(time.Time)
		if !ok || !x.Equal(y) || x.Location().String() != y.Location().String() {
			return false
		}
		xn, xo := x.Zone()
		yn, yo := y.Zone()
		return xn == yn && xo == yo && x.String() == y.String()
	case float64:
		y, ok := b.(float64)
		return ok && math.Float64bits(x) == math.Float64bits(y)
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) || (x == nil) != (y == nil) {
			return false
		}
		for i := range x {
			if !sameValue(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) || (x == nil) != (y == nil) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !sameValue(v, w) {
				return false
			}
		}
		return true
	}
	return reflect.TypeOf(a) == reflect.TypeOf(b) && reflect.DeepEqual(a, b)
}

// FuzzDecodeValue feeds DecodeValue arbitrary bytes: it must never panic,
// and whatever it accepts must encode back to the very same bytes' value.
func FuzzDecodeValue(f *testing.F) {
	for _, doc := range valueCodecDocs {
		if m, err := DecodeYAMLMap([]byte(doc)); err == nil {
			f.Add(EncodeValue(nil, m))
		}
	}
	f.Add([]byte{vtMap, 1, 1, 'k', vtFloat, 0, 0, 0, 0, 0, 0, 0xf8, 0x7f})
	f.Fuzz(func(t *testing.T, data []byte) {
		v, ok := DecodeValue(data)
		m, entries, mok := DecodeMapValueCount(data, 7)
		if _, isMap := v.(map[string]any); mok != (ok && isMap) || (mok && !sameValue(m, v)) {
			t.Fatalf("DecodeMapValueCount gives %#v (ok %v); DecodeValue %#v (ok %v)", m, mok, v, ok)
		}
		// past the limit CountEntries stops where its walk (in map order) is
		if want := CountEntries(m, 7); mok && entries != want && (entries <= 7 || want <= 7) {
			t.Fatalf("DecodeMapValueCount counts %d entries; CountEntries %d", entries, want)
		}
		if !ok {
			return
		}
		enc := EncodeValue(nil, v)
		if enc == nil {
			t.Fatalf("decoded value %#v does not encode", v)
		}
		again, ok := DecodeValue(enc)
		if !ok || !sameValue(again, v) {
			t.Fatalf("round trip of %#v gives %#v (ok %v)", v, again, ok)
		}
	})
}

// benchStateDoc is a workflow state like the benchmark's (shape-workflows).
const benchStateDoc = `execution_id: sdc-20261108-001
workflow: story-development-cycle
story: "41.9"
started_at: 2026-11-08T05:44:14Z
updated_at: 2026-11-08T10:44:14Z
current_phase: 3
current_agent: dev
status: interrupted
mode: autopilot
base_commit: 0c465eaad38270b9858f946bf6ffb7ca0b4c2f5e
phases_completed:
  - phase: create
    agent: sm
    output: docs/stories/41.9.storage-session.md
  - phase: validate
    agent: po
    output: docs/stories/41.9.storage-session.md
context:
  request: "implement the story"
files:
  - src/pkg044/sub03/file08883.go
  - src/pkg072/sub07/file14587.go
  - src/pkg086/sub07/file17385.go
  - src/pkg154/sub04/file30921.go
  - src/pkg189/sub02/file37856.go
  - src/pkg211/sub03/file42286.go
`

// TestDecodeMapValueCount: the count made while decoding is CountEntries'
// under the limit and at it, past it one of its answers, and for nesting
// deeper than CountEntries counts.
func TestDecodeMapValueCount(t *testing.T) {
	// lists down to depth 2 × MaxDepth + 1, whose entries CountEntries
	// does not count, the deepest the encoding takes
	var v any = []any{"x", "y"}
	for i := 1; i < 2*MaxDepth+1; i++ {
		v = []any{v, "z"}
	}
	deep := map[string]any{"k": v}
	if CountEntries(deep, math.MaxInt) != 1+2*(2*MaxDepth) {
		t.Fatalf("the deep value's lists are not where the test means them to be")
	}
	docs := []map[string]any{deep, {}}
	for _, doc := range append(valueCodecDocs, benchStateDoc) {
		m, err := DecodeYAMLMap([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, m)
	}
	for _, m := range docs {
		enc := EncodeValue(nil, m)
		if enc == nil {
			t.Fatalf("%#v does not encode", m)
		}
		full := CountEntries(m, math.MaxInt)
		for _, limit := range []int{0, 1, 3, full - 1, full, full + 1, math.MaxInt} {
			got, n, ok := DecodeMapValueCount(enc, limit)
			if !ok || !sameValue(got, m) {
				t.Fatalf("does not decode back: %#v", m)
			}
			// past the limit CountEntries stops where its walk (in map
			// order) is: any count past it is one of its answers
			if want := CountEntries(got, limit); n != want && (n <= limit || want <= limit || n > full) {
				t.Errorf("limit %d: counts %d, CountEntries %d (all: %d)", limit, n, want, full)
			}
		}
	}
	if _, _, ok := DecodeMapValueCount(EncodeValue(nil, []any{"a"}), 10); ok {
		t.Error("a list is not a mapping")
	}
}

// BenchmarkStateDecode compares decoding a state's text with decoding its
// cached value (go test -bench StateDecode ./internal/tolerant).
func BenchmarkStateDecode(b *testing.B) {
	b.Run("yaml", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := DecodeYAMLMap([]byte(benchStateDoc)); err != nil {
				b.Fatal(err)
			}
		}
	})
	m, err := DecodeYAMLMap([]byte(benchStateDoc))
	if err != nil {
		b.Fatal(err)
	}
	v := EncodeValue(nil, m)
	b.Run("cached", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, ok := DecodeMapValue(v); !ok {
				b.Fatal("does not decode")
			}
		}
	})
}

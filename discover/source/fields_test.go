package source

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/tolerant"
)

// state is a decoded state file as the formats see it: every spelling and
// type real files use, and some they should not.
func fieldsState(t *testing.T) map[string]any {
	t.Helper()
	m, err := tolerant.DecodeYAMLMap([]byte(`
title: "  Build the thing  "
story: 1.10
count: 7
countText: " 12 "
countFloat: 3.0
countFrac: 2.5
huge: 99999999999
done: yes
doneNo: "N"
doneBad: maybe
flag: true
nested: {a: 1}
list: [a, 2, {x: y}, "", true]
oneTag: solo
emptyTag: ""
nothing: null
when: 2024-05-06T07:08:09Z
whenText: "2024-05-06 07:08"
whenUnix: 1714979289
whenMilli: 1714979289000
whenBad: next tuesday
whenNeg: -5
`))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestFieldsAccessors(t *testing.T) {
	m := fieldsState(t)
	f := &Fields{Path: "state.yaml"}

	// Spellings: the first present, non-null key wins.
	if got := f.Str(m, "name", "nothing", "title"); got != "Build the thing" {
		t.Errorf("Str = %q, want trimmed title", got)
	}
	if got, k := f.StrKey(m, "nope", "story"); got != "1.10" || k != "story" {
		t.Errorf("StrKey = %q, %q; want 1.10 story (float text kept)", got, k)
	}
	if got, k := f.StrKey(m, "nope"); got != "" || k != "" {
		t.Errorf("StrKey absent = %q %q", got, k)
	}
	if !f.Has(m, "x", "flag") || f.Has(m, "nothing", "absent") {
		t.Error("Has: null or absent keys must not count")
	}
	if got := f.Str(m, "count"); got != "7" {
		t.Errorf("Str(number) = %q, want 7", got)
	}
	if got := f.Str(m, "flag"); got != "true" {
		t.Errorf("Str(bool) = %q", got)
	}
	if got := f.Str(m, "when"); got != "2024-05-06T07:08:09Z" {
		t.Errorf("Str(timestamp) = %q", got)
	}
	if len(f.Findings) != 0 {
		t.Fatalf("no findings expected yet, got %+v", f.Findings)
	}

	ints := []struct {
		key    string
		want   int
		wantOK bool
	}{
		{"count", 7, true},
		{"countText", 12, true},
		{"countFrac", 0, false}, // "2.5" text is not a whole number
		{"title", 0, false},
		{"absent", 0, false},
	}
	for _, c := range ints {
		n, ok := f.Int(m, c.key)
		if n != c.want || ok != c.wantOK {
			t.Errorf("Int(%s) = %d, %v; want %d, %v", c.key, n, ok, c.want, c.wantOK)
		}
	}

	bools := []struct {
		key       string
		want, ok_ bool
	}{
		{"done", true, true}, // YAML 1.2 "yes" is text, read as true
		{"doneNo", false, true},
		{"flag", true, true},
		{"doneBad", false, false},
		{"count", false, false},
		{"absent", false, false},
	}
	for _, c := range bools {
		b, ok := f.Bool(m, c.key)
		if b != c.want || ok != c.ok_ {
			t.Errorf("Bool(%s) = %v, %v; want %v, %v", c.key, b, ok, c.want, c.ok_)
		}
	}

	if got := f.Map(m, "nested"); got["a"] != 1 {
		t.Errorf("Map = %#v", got)
	}
	if got := f.Map(m, "list"); got != nil {
		t.Errorf("Map(list) = %#v, want nil", got)
	}
	if got := f.Map(m, "absent"); got != nil {
		t.Error("Map(absent) not nil")
	}
	if got := f.List(m, "list"); len(got) != 5 {
		t.Errorf("List = %#v", got)
	}
	if got := f.List(m, "oneTag"); got != nil {
		t.Errorf("List(scalar) = %#v, want nil (no wrapping)", got)
	}
	if got := f.List(m, "absent"); got != nil {
		t.Error("List(absent) not nil")
	}
	if got := f.Strings(m, "list"); !reflect.DeepEqual(got, []string{"a", "2", "true"}) {
		t.Errorf("Strings(list) = %#v", got)
	}
	if got := f.Strings(m, "oneTag"); !reflect.DeepEqual(got, []string{"solo"}) {
		t.Errorf("Strings(scalar) = %#v", got)
	}
	if got := f.Strings(m, "emptyTag"); got != nil {
		t.Errorf("Strings(empty) = %#v", got)
	}
	if got := f.Strings(m, "nested"); got != nil {
		t.Errorf("Strings(mapping) = %#v", got)
	}
	if got := f.Strings(m, "absent"); got != nil {
		t.Error("Strings(absent) not nil")
	}
	if got := f.Str(m, "nested"); got != "" {
		t.Errorf("Str(mapping) = %q", got)
	}
	if got, k := f.StrKey(m, "list"); got != "" || k != "" {
		t.Errorf("StrKey(list) = %q %q", got, k)
	}

	want := []string{
		"field countFrac: want a whole number, got text",
		"field title: want a whole number, got text",
		"field doneBad: want a boolean, got text",
		"field count: want a boolean, got a number",
		"field list: want a mapping, got a list",
		"field oneTag: want a list, got text",
		"field list[]: want text, got a mapping",
		"field nested: want a list of text, got a mapping",
		"field nested: want text, got a mapping",
		"field list: want text, got a list",
	}
	var got []string
	for _, fd := range f.Findings {
		if fd.Path != "state.yaml" || fd.Code != "wrong-type" {
			t.Errorf("finding %+v: want path state.yaml, code wrong-type", fd)
		}
		got = append(got, fd.Message)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("findings:\n got %q\nwant %q", got, want)
	}
}

func TestFieldsTime(t *testing.T) {
	m := fieldsState(t)
	base := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	cases := []struct {
		key  string
		want time.Time
	}{
		{"when", base},
		{"whenText", time.Date(2024, 5, 6, 7, 8, 0, 0, time.UTC)},
		{"whenUnix", time.Unix(1714979289, 0).UTC()},
		{"whenMilli", time.Unix(1714979289, 0).UTC()},
		{"whenBad", time.Time{}},
		{"whenNeg", time.Time{}},
		{"nested", time.Time{}},
		{"absent", time.Time{}},
	}
	f := &Fields{Path: "p"}
	for _, c := range cases {
		got, k := f.Time(m, c.key)
		if !got.Equal(c.want) {
			t.Errorf("Time(%s) = %v, want %v", c.key, got, c.want)
		}
		if wantKey := map[bool]string{true: c.key, false: ""}[!c.want.IsZero()]; k != wantKey {
			t.Errorf("Time(%s) key = %q, want %q", c.key, k, wantKey)
		}
	}
	// whenBad, whenNeg and nested are wrong types; absent is not.
	if len(f.Findings) != 3 || !strings.Contains(f.Findings[0].Message, "want a timestamp, got text") {
		t.Errorf("findings = %+v", f.Findings)
	}
}

// TestWfOutputs: a phase output is text, a list of text or a {path}
// mapping (alone or as items); anything else is a wrong-type finding, and
// empty text or an empty path adds nothing.
func TestWfOutputs(t *testing.T) {
	for _, tt := range []struct {
		name     string
		v        any
		want     []string
		findings []string
	}{
		{"absent", nil, nil, nil},
		{"text", "a.md", []string{"a.md"}, nil},
		{"empty text", "", nil, nil},
		{"number", 3, []string{"3"}, nil},
		{"mapping", map[string]any{"path": "p.md"}, []string{"p.md"}, nil},
		{"mapping by file", map[string]any{"file": "f.md"}, []string{"f.md"}, nil},
		{"mapping without a path", map[string]any{"x": 1}, nil, []string{"field out: want text or a list of text, got a mapping"}},
		{"mapping with a list path", map[string]any{"path": []any{"a"}}, nil, []string{
			"field path: want text, got a list", "field out: want text or a list of text, got a mapping"}},
		{"list", []any{"a", "", map[string]any{"path": "p"}, map[string]any{"path": ""}, 2, []any{"x"}}, []string{"a", "p", "2"},
			[]string{"field out[]: want text, got a list"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := map[string]any{}
			if tt.v != nil {
				m["out"] = tt.v
			}
			f := &Fields{Path: "s.yaml"}
			got := wfOutputs(f, m, "out")
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("wfOutputs = %#v, want %#v", got, tt.want)
			}
			var msgs []string
			for _, fd := range f.Findings {
				msgs = append(msgs, fd.Message)
			}
			if !reflect.DeepEqual(msgs, tt.findings) {
				t.Errorf("findings %q, want %q", msgs, tt.findings)
			}
		})
	}
}

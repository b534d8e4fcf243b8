package tolerant

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

func TestToTimeSpellings(t *testing.T) {
	day := time.Date(2024, 5, 6, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		in   any
		want time.Time
		ok   bool
	}{
		{"2024-05-06", day, true},
		{" 2024-05-06T10:00:00+02:00 ", day.Add(8 * time.Hour), true},
		{"2024-05-06T08:00:00+0200", day.Add(6 * time.Hour), true},
		{"2024-05-06T08:00:00", day.Add(8 * time.Hour), true},
		{"2024-05-06 08:00:00 -0100", day.Add(9 * time.Hour), true},
		{"2024-05-06 08:00:00", day.Add(8 * time.Hour), true},
		{"1714953600", day, true},
		{int(1714953600), day, true},
		{int64(1714953600000), day, true},
		{float64(1714953600), day, true},
		{1714953600.5, time.Time{}, false},
		{math.NaN(), time.Time{}, false},
		{0, time.Time{}, false},
		{"yesterday", time.Time{}, false},
		{true, time.Time{}, false},
		{time.Date(2024, 5, 6, 2, 0, 0, 0, time.FixedZone("x", 2*3600)), day, true},
	}
	for _, c := range cases {
		got, ok := ToTime(c.in)
		if ok != c.ok || !got.Equal(c.want) || (ok && got.Location() != time.UTC) {
			t.Errorf("ToTime(%#v) = %v, %v; want %v, %v (UTC)", c.in, got, ok, c.want, c.ok)
		}
	}
}

func TestToIntAndScalarString(t *testing.T) {
	ints := []struct {
		in   any
		want int
		ok   bool
	}{
		{int64(5), 5, true},
		{int64(math.MaxInt32 + 1), 0, false},
		{int64(math.MinInt32 - 1), 0, false},
		{uint64(9), 9, true},
		{uint64(math.MaxInt32 + 1), 0, false},
		{float64(-4), -4, true},
		{math.NaN(), 0, false},
		{1e12, 0, false},
		{"-3", -3, true},
		{"3000000000", 0, false},
		{"x", 0, false},
		{nil, 0, false},
	}
	for _, c := range ints {
		n, ok := ToInt(c.in)
		if n != c.want || ok != c.ok {
			t.Errorf("ToInt(%#v) = %d, %v; want %d, %v", c.in, n, ok, c.want, c.ok)
		}
	}
	strs := []struct {
		in   any
		want string
		ok   bool
	}{
		{int64(-2), "-2", true},
		{uint64(18446744073709551615), "18446744073709551615", true},
		{float64(4), "4", true},
		{1.25, "1.25", true},
		{1e20, "100000000000000000000", true},
		{nil, "", false},
		{[]any{"a"}, "", false},
	}
	for _, c := range strs {
		s, ok := ScalarString(c.in)
		if s != c.want || ok != c.ok {
			t.Errorf("ScalarString(%#v) = %q, %v; want %q, %v", c.in, s, ok, c.want, c.ok)
		}
	}
	names := map[any]string{
		int64(1):    "a number",
		time.Time{}: "a timestamp",
		int8(1):     "int8",
	}
	for v, want := range names {
		if got := TypeName(v); got != want {
			t.Errorf("TypeName(%T) = %q, want %q", v, got, want)
		}
	}
	if _, _, ok := Lookup(nil, []string{"a"}); ok {
		t.Error("Lookup(nil) found a key")
	}
}

func TestJSONSafe(t *testing.T) {
	in := map[string]any{
		"nan":  math.NaN(),
		"inf":  []any{math.Inf(1), float32(math.Inf(-1)), float32(1.5)},
		"keys": map[any]any{1: "one", true: map[string]any{"x": math.Inf(-1)}},
		"ok":   2.5,
	}
	out := JSONSafe(in, 0)
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatalf("JSONSafe output not encodable: %v", err)
	}
	want := `{"inf":["+Inf","-Inf",1.5],"keys":{"1":"one","true":{"x":"-Inf"}},"nan":"NaN","ok":2.5}`
	if string(b) != want {
		t.Errorf("JSONSafe = %s\nwant %s", b, want)
	}
	// The input is not changed (JSONSafe copies).
	if !math.IsNaN(in["nan"].(float64)) {
		t.Error("JSONSafe changed its input")
	}
	// Deeper than the limit becomes null rather than recursing without end.
	var deep any = "leaf"
	for i := 0; i < 200; i++ {
		deep = []any{deep}
	}
	b, err = json.Marshal(JSONSafe(deep, 0))
	if err != nil || strings.Contains(string(b), "leaf") || !strings.Contains(string(b), "null") {
		t.Errorf("deep value not cut: err=%v, has leaf=%v", err, strings.Contains(string(b), "leaf"))
	}
}

func TestDecodeJSONErrorsNameTheLine(t *testing.T) {
	cases := []struct {
		name, in string
		code     string
		line     int
		msg      string
	}{
		{"syntax", "{\n  \"a\": 1,\n  \"b\": ]\n}", "syntax", 3, "invalid JSON"},
		{"empty", "", "syntax", 0, "truncated or empty JSON"},
		{"truncated", "{\"a\": [1, 2", "syntax", 0, "truncated or empty JSON"},
		{"trailing", "{}\n\n{}", "syntax", 3, "data after the top-level value"},
		{"utf8", "{\n\"a\": \"\xff\"}", "invalid-utf8", 2, "not valid UTF-8"},
		{"deep", strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1), "too-deep", 0, "nested deeper than 64"},
		{"array", "[1,2]", "not-an-object", 0, "top level is an array, want an object"},
		{"string", `"x"`, "not-an-object", 0, "top level is a string"},
		{"number", `4`, "not-an-object", 0, "top level is a number"},
		{"bool", `true`, "not-an-object", 0, "top level is a boolean"},
		{"null", `null`, "not-an-object", 0, "top level is null"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := DecodeJSONMap([]byte(c.in))
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("err = %v, want *DecodeError", err)
			}
			if de.Code != c.code || de.Line != c.line || !strings.Contains(de.Msg, c.msg) {
				t.Errorf("got code %q line %d msg %q; want %q line %d containing %q", de.Code, de.Line, de.Msg, c.code, c.line, c.msg)
			}
			if c.line > 0 && !strings.HasPrefix(err.Error(), "line ") {
				t.Errorf("Error() = %q, want a line prefix", err.Error())
			}
			if c.line == 0 && err.Error() != de.Msg {
				t.Errorf("Error() = %q, want just the message", err.Error())
			}
		})
	}
}

func TestDecodeJSONNumbersKeepsText(t *testing.T) {
	v, err := DecodeJSONNumbers([]byte(`{"id": 1.10, "big": 12345678901234567890}`))
	if err != nil {
		t.Fatal(err)
	}
	m := v.(map[string]any)
	if m["id"] != json.Number("1.10") || m["big"] != json.Number("12345678901234567890") {
		t.Errorf("numbers = %#v %#v, want their literal text", m["id"], m["big"])
	}
	v, _ = DecodeJSON([]byte(`{"id": 1.10}`))
	if v.(map[string]any)["id"] != 1.1 {
		t.Errorf("DecodeJSON id = %#v, want float 1.1", v.(map[string]any)["id"])
	}
}

func TestDecodeYAMLErrors(t *testing.T) {
	cases := []struct {
		name, in string
		code     string
		line     int
		msg      string
	}{
		{"list", "- a\n- b\n", "not-a-mapping", 1, "top level is a list, want a mapping"},
		{"scalar", "just text\n", "not-a-mapping", 1, "top level is a scalar"},
		{"empty", "# only a comment\n", "empty", 0, "empty document"},
		{"syntax", "a: 1\nb: [\n", "syntax", 2, "invalid YAML"},
		{"tab", "a:\n\tb: 1\n", "syntax", 2, "invalid YAML"},
		{"utf8", "a: 1\nb: 2\nc: \xc3\x28\n", "invalid-utf8", 3, "not valid UTF-8"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := DecodeYAMLMap([]byte(c.in))
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("err = %v, want *DecodeError", err)
			}
			if de.Code != c.code || de.Line != c.line || !strings.Contains(de.Msg, c.msg) {
				t.Errorf("got code %q line %d msg %q; want %q line %d containing %q", de.Code, de.Line, de.Msg, c.code, c.line, c.msg)
			}
			if strings.Contains(de.Msg, "yaml: ") {
				t.Errorf("message keeps the library prefix: %q", de.Msg)
			}
		})
	}
	if _, err := DecodeYAMLMapNode(nil); err == nil || err.Error() != "empty document" {
		t.Errorf("DecodeYAMLMapNode(nil) = %v", err)
	}
}

func TestLineAtAndFirstInvalidLine(t *testing.T) {
	data := []byte("a\nbb\nccc")
	for off, want := range map[int]int{-5: 1, 0: 1, 1: 1, 2: 2, 5: 3, 100: 3} {
		if got := LineAt(data, off); got != want {
			t.Errorf("LineAt(%d) = %d, want %d", off, got, want)
		}
	}
	for in, want := range map[string]int{"": 0, "ok\nfine": 0, "\xff": 1, "a\nb\n\xe2\x82": 3, "é\n\x80": 2} {
		if got := FirstInvalidLine([]byte(in)); got != want {
			t.Errorf("FirstInvalidLine(%q) = %d, want %d", in, got, want)
		}
	}
}

func TestBudgetErr(t *testing.T) {
	b := NewBudget()
	if !b.Take(MaxScanElements) || b.Take(1) {
		t.Fatal("budget must give exactly MaxScanElements")
	}
	err := b.Err(1500, "tasks")
	if err.Code != "too-many" || !strings.HasPrefix(err.Msg, "1,500 tasks, past the 200,000") {
		t.Errorf("Err = %+v", err)
	}
}

// TestToIntSameRangeForEveryType: a count beyond int32 is refused whatever
// type the decoder gave it. YAML decodes integers as int, JSON as float64:
// the same value in the two formats must read the same (it did not: an int
// skipped the range check every other type has, so a YAML iteration, score
// or wave of 9223372036854775807 was taken while the same JSON was refused).
func TestToIntSameRangeForEveryType(t *testing.T) {
	yml, err := DecodeYAMLMap([]byte("big: 9223372036854775807\nneg: -3000000000\nok: 2147483647\n"))
	if err != nil {
		t.Fatal(err)
	}
	js, err := DecodeJSONMap([]byte(`{"big": 9223372036854775807, "neg": -3000000000, "ok": 2147483647}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"big", "neg", "ok"} {
		ny, oky := ToInt(yml[k])
		nj, okj := ToInt(js[k])
		if ny != nj || oky != okj {
			t.Errorf("%s: YAML reads %d, %v; JSON reads %d, %v", k, ny, oky, nj, okj)
		}
	}
	if n, ok := ToInt(yml["ok"]); n != math.MaxInt32 || !ok {
		t.Errorf("ToInt(MaxInt32) = %d, %v", n, ok)
	}
	if _, ok := ToInt(yml["big"]); ok {
		t.Error("ToInt accepted a YAML integer beyond int32")
	}
}

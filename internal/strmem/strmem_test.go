package strmem

import (
	"strings"
	"testing"
)

func TestOverlapAndStrings(t *testing.T) {
	text := strings.Repeat("abcdef", 4)
	sub, clone := text[3:9], strings.Clone(text[3:9])
	if !Overlap(text, sub) || Overlap(text, clone) || Overlap(text[:3], text[3:6]) {
		t.Fatal("Overlap: a substring shares the text's memory, a clone or a neighbour does not")
	}
	type inner struct{ S []string }
	v := struct {
		A string
		P *inner
		M map[string]any
	}{"a", &inner{[]string{"", "b"}}, map[string]any{"k": "v"}}
	got := Strings(v)
	if strings.Join(got, ",") != "a,b,k,v" {
		t.Fatalf("Strings = %q, want a, b, k, v", got)
	}
}

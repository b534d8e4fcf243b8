package workflow

import (
	"math/rand"
	"reflect"
	"testing"
)

func TestSortFindings(t *testing.T) {
	want := []Finding{
		{Severity: Blocking, Check: "conflict", Path: "a", Code: "x"},
		{Severity: Blocking, Check: "integrity", Path: "a", Phase: "1", Code: "z"},
		{Severity: Blocking, Check: "integrity", Path: "a", Phase: "2", Code: "a"},
		{Severity: Blocking, Check: "integrity", Path: "b", Code: "a"},
		{Severity: Warning, Check: "age", Path: "a", Code: "a", Message: "m"},
		{Severity: Warning, Check: "age", Path: "a", Code: "a", Message: "n"},
		{Severity: Warning, Check: "age", Path: "a", Code: "a", Message: "n", Line: 3},
		{Severity: Info, Check: "a"},
		{Severity: "", Check: "a"},
		{Severity: "odd", Check: "a"},
	}
	for _, tt := range []struct {
		name string
		seed int64
	}{{"reversed", -1}, {"shuffle 1", 1}, {"shuffle 2", 2}, {"shuffle 3", 3}} {
		t.Run(tt.name, func(t *testing.T) {
			got := append([]Finding(nil), want...)
			if tt.seed < 0 {
				for i, j := 0, len(got)-1; i < j; i, j = i+1, j-1 {
					got[i], got[j] = got[j], got[i]
				}
			} else {
				r := rand.New(rand.NewSource(tt.seed))
				r.Shuffle(len(got), func(i, j int) { got[i], got[j] = got[j], got[i] })
			}
			SortFindings(got)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("SortFindings =\n%v\nwant\n%v", got, want)
			}
		})
	}
	SortFindings(nil) // no panic
}

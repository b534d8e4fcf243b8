package tablefit

import (
	"strings"
	"testing"
)

func TestUniqueWidth(t *testing.T) {
	for _, tc := range []struct {
		ids  []string
		want int
	}{
		{nil, 0},
		{[]string{"workflow:sdc-4.2"}, 2},
		{[]string{"workflow:sdc-4.2", "qa-loop:3.1"}, 2},
		{[]string{"workflow:sdc-4.2", "workflow:sdc-4.3"}, 16}, // differ at the end only: whole
		{[]string{"spec:login", "spec:logout", "qa-loop:3.1"}, 10},
		{[]string{"feature:001-search", "feature:002-export"}, 12}, // "feature:00…" is not unique, "feature:001…" is
		{[]string{"sdc:1", "sdc:1"}, 5},                            // the same id twice: whole
		{[]string{"日本語のテキスト:1", "日本語のテキスト:2"}, 18},
	} {
		if got := UniqueWidth(tc.ids); got != tc.want {
			t.Errorf("UniqueWidth(%q) = %d, want %d", tc.ids, got, tc.want)
		}
	}
}

func TestFitTableWidestFirst(t *testing.T) {
	cols := []Col{
		{Header: "A", Cells: []string{strings.Repeat("a", 30)}, Flex: true},
		{Header: "B", Cells: []string{strings.Repeat("b", 10)}, Flex: true},
		{Header: "C", Cells: []string{"fixed-text"}},
	}
	ws := Fit(cols, 2, 40)
	// 30+10+10+4 = 54: A alone gives 14 columns (30 -> 16)
	if ws[0] != 16 || ws[1] != 10 || ws[2] != 10 {
		t.Errorf("widths %v, want [16 10 10]", ws)
	}
	if cols[0].Cells[0] != strings.Repeat("a", 15)+"…" {
		t.Errorf("A cut to %q", cols[0].Cells[0])
	}
	ws = Fit([]Col{
		{Header: "A", Cells: []string{strings.Repeat("a", 30)}, Flex: true},
		{Header: "B", Cells: []string{strings.Repeat("b", 30)}, Flex: true},
	}, 2, 22)
	if ws[0] != 10 || ws[1] != 10 {
		t.Errorf("widths %v, want [10 10]: equal columns shrink evenly", ws)
	}
}

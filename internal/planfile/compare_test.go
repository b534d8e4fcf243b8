package planfile

import "testing"

// TestDepSetMessage pins the wording of a dependency that left the plan's
// set or joined it, kind by kind.
func TestDepSetMessage(t *testing.T) {
	tests := []struct {
		d    Dep
		gone bool
		want string
	}{
		{Dep{Kind: KindFile, Path: "a.md"}, true, "a.md is no longer referenced by the workflow"},
		{Dep{Kind: KindFile, Path: "a.md"}, false, "a.md is now referenced by the workflow (it was not when the plan was made)"},
		{Dep{Kind: KindState, Path: "s.yaml"}, true, "the state file s.yaml no longer describes the workflow"},
		{Dep{Kind: KindState, Path: "s.yaml"}, false, "the workflow is now described by the state file s.yaml"},
		{Dep{Kind: "x", Path: "p"}, true, "x p is no longer part of the plan"},
		{Dep{Kind: "x", Path: "p"}, false, "x p is new since the plan"},
		{Dep{Kind: KindHead, Digest: "abc"}, true, "head is no longer known"},
		{Dep{Kind: KindHead, Digest: "abc"}, false, "head abc is new since the plan"},
		{Dep{Kind: "x\n"}, false, `"x\n" "" is new since the plan`},
	}
	for _, tt := range tests {
		if got := depSetMessage(tt.d, tt.gone); got != tt.want {
			t.Errorf("depSetMessage(%+v, %v) = %q, want %q", tt.d, tt.gone, got, tt.want)
		}
	}
}

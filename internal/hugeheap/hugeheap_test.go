package hugeheap

import "testing"

// TestWanted checks when the heap asks for huge pages: unless GODEBUG's
// last disablethp says 1 or GOMEMLIMIT is set.
func TestWanted(t *testing.T) {
	for _, tc := range []struct {
		godebug, gomemlimit string
		want                bool
	}{
		{"", "", true},
		{"gctrace=1", "", true},
		{"disablethp=1", "", false},
		{"gctrace=1, disablethp=1", "", false},
		{"disablethp=0", "", true},
		{"disablethp=1,disablethp=0", "", true},
		{"disablethp=0,disablethp=1", "", false},
		{"xdisablethp=1", "", true},
		{"", "200MiB", false},
		{"disablethp=0", "off", false},
	} {
		if got := Wanted(tc.godebug, tc.gomemlimit); got != tc.want {
			t.Errorf("Wanted(%q, %q) = %v, want %v", tc.godebug, tc.gomemlimit, got, tc.want)
		}
	}
}

// TestPrepareOnlyWhenAllowed: without Allow's yes, Prepare asks for
// nothing and holds nothing.
func TestPrepareOnlyWhenAllowed(t *testing.T) {
	Allow("disablethp=1", "")
	t.Cleanup(func() { allowed.Store(false) })
	if beg, end := Prepare(); beg != 0 || end != 0 || Held() != 0 {
		t.Errorf("Prepare not allowed: [%#x, %#x), held %d; want nothing", beg, end, Held())
	}
}

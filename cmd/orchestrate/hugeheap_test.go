package main

import "testing"

// TestHugeHeapWanted checks when the heap asks for huge pages: unless
// GODEBUG's last disablethp says 1 or GOMEMLIMIT is set.
func TestHugeHeapWanted(t *testing.T) {
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
		if got := hugeHeapWanted(tc.godebug, tc.gomemlimit); got != tc.want {
			t.Errorf("hugeHeapWanted(%q, %q) = %v, want %v", tc.godebug, tc.gomemlimit, got, tc.want)
		}
	}
}

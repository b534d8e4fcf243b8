package main

import "testing"

// TestGCLimit checks the soft memory limit: the floor for a small live
// heap, room for it again for a large one.
func TestGCLimit(t *testing.T) {
	for _, tc := range []struct {
		live uint64
		want int64
	}{
		{0, gcLimitFloor},
		{36 << 20, gcLimitFloor},
		{40 << 20, 80 << 20},
		{gcLimitFloor / 2, gcLimitFloor},
		{64 << 20, 128 << 20},
		{400 << 20, 800 << 20},
		{1 << 63, gcLimitFloor}, // overflow: never a negative limit
	} {
		if got := gcLimit(tc.live); got != tc.want {
			t.Errorf("gcLimit(%d) = %d, want %d", tc.live, got, tc.want)
		}
	}
}

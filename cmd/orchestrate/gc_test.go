package main

import "testing"

// TestGCLimit checks the soft memory limit: the floor for a small live
// heap, room over it for a middling one, room for it again for a large
// one, and a limit that never falls as the live heap grows.
func TestGCLimit(t *testing.T) {
	for _, tc := range []struct {
		live uint64
		want int64
	}{
		{0, gcLimitFloor},
		{36 << 20, gcLimitFloor},
		{44 << 20, 72 << 20},
		{48 << 20, 76 << 20},
		{60 << 20, 90 << 20},
		{64 << 20, 128 << 20},
		{400 << 20, 800 << 20},
		{1 << 63, gcLimitFloor}, // overflow: never a negative limit
	} {
		if got := gcLimit(tc.live); got != tc.want {
			t.Errorf("gcLimit(%d MiB) = %d MiB, want %d MiB", tc.live>>20, got>>20, tc.want>>20)
		}
	}
	prev := int64(0)
	for live := uint64(0); live < 1<<30; live += 1 << 20 {
		l := gcLimit(live)
		if l < prev {
			t.Fatalf("gcLimit(%d MiB) = %d MiB falls below gcLimit of less (%d MiB)", live>>20, l>>20, prev>>20)
		}
		if l < int64(live)+gcRoomMin {
			t.Fatalf("gcLimit(%d MiB) = %d MiB leaves less than %d MiB of room", live>>20, l>>20, gcRoomMin>>20)
		}
		prev = l
	}
}

// TestGCLimitLeavesMappedTablesTheirRoom: mapped cache tables take their
// size off the limit (they are resident, uncounted by the collector), but
// never leave less than gcRoomMapped over the live heap; none mapped is
// gcLimit.
func TestGCLimitLeavesMappedTablesTheirRoom(t *testing.T) {
	for _, tc := range []struct {
		live   uint64
		mapped int64
		want   int64
	}{
		{0, 0, gcLimitFloor},
		{0, 10 << 20, gcLimitFloor - 10<<20},
		{40 << 20, 10 << 20, gcLimitFloor - 10<<20},
		{44 << 20, 10 << 20, 62 << 20},
		{44 << 20, 40 << 20, 60 << 20}, // the room over the live heap
		{400 << 20, 100 << 20, 700 << 20},
		{1 << 63, 10 << 20, gcLimitFloor}, // overflow: never a negative limit
		{40 << 20, 1 << 62, gcLimitFloor},
	} {
		if got := limitFor(tc.live, tc.mapped); got != tc.want {
			t.Errorf("limitFor(%d MiB, %d MiB mapped) = %d MiB, want %d MiB", tc.live>>20, tc.mapped>>20, got>>20, tc.want>>20)
		}
	}
}

package workflow

import (
	"fmt"
	"reflect"
	"testing"
)

func TestCapFindings(t *testing.T) {
	warn := func(path string, i int) Finding {
		return Finding{Check: CheckParse, Severity: Warning, Code: "bad-id", Path: path, Message: fmt.Sprintf("task #%07d has no usable id", i)}
	}
	t.Run("within bounds unchanged", func(t *testing.T) {
		var fs []Finding
		for i := 0; i < MaxFindingsPerFile; i++ {
			fs = append(fs, warn("tasks.json", i))
		}
		fs = append(fs, warn("other.json", 1), Finding{Check: CheckParse, Severity: Blocking, Code: "syntax", Path: "x"})
		if got := CapFindings(fs); !reflect.DeepEqual(got, fs) {
			t.Errorf("changed a list within bounds")
		}
	})
	t.Run("one file flooded", func(t *testing.T) {
		var fs []Finding
		for i := 0; i < 100_000; i++ {
			fs = append(fs, warn("tasks.json", i))
		}
		fs = append(fs, Finding{Check: CheckParse, Severity: Blocking, Code: "syntax", Path: "b.json"})
		got := CapFindings(fs)
		if len(got) != MaxFindingsPerFile+2 {
			t.Fatalf("%d findings, want %d", len(got), MaxFindingsPerFile+2)
		}
		last := got[len(got)-1]
		want := "… and 99,950 more warnings like these in tasks.json (not listed)"
		if last.Code != CodeMoreFindings || last.Severity != Warning || last.Path != "tasks.json" || last.Message != want {
			t.Errorf("summary = %+v, want %q", last, want)
		}
		if got[0] != warn("tasks.json", 0) || got[MaxFindingsPerFile-1] != warn("tasks.json", MaxFindingsPerFile-1) {
			t.Errorf("kept %v … %v, want the first in order", got[0], got[MaxFindingsPerFile-1])
		}
		if got[MaxFindingsPerFile].Severity != Blocking {
			t.Errorf("the blocking finding was not kept in place: %+v", got[MaxFindingsPerFile])
		}
	})
	t.Run("a second cut adds to the first summary", func(t *testing.T) {
		var fs []Finding
		for i := 0; i < 20_000; i++ {
			fs = append(fs, warn("tasks.json", i))
		}
		once := CapFindings(fs)
		more := append(append([]Finding(nil), once...), warn("tasks.json", 99_999))
		twice := CapFindings(more)
		if len(twice) != MaxFindingsPerFile+1 {
			t.Fatalf("%d findings after a second cut, want %d", len(twice), MaxFindingsPerFile+1)
		}
		want := "… and 19,951 more warnings like these in tasks.json (not listed)"
		if got := twice[len(twice)-1].Message; got != want {
			t.Errorf("summary %q, want %q", got, want)
		}
		if again := CapFindings(once); !reflect.DeepEqual(again, once) {
			t.Errorf("a cut list changed when cut again")
		}
		// a list joined with itself (merged candidates) counts its summary once
		joined := CapFindings(append(append([]Finding(nil), once...), once...))
		if got := joined[len(joined)-1].Message; got != "… and 20,000 more warnings like these in tasks.json (not listed)" {
			t.Errorf("joined summary %q", got)
		}
	})
	t.Run("the first in input order, MaxFindings in all", func(t *testing.T) {
		var fs []Finding
		for i := 0; i < 2000; i++ {
			fs = append(fs, warn(fmt.Sprintf("f%02d.json", i%30), i))
		}
		got := CapFindings(append([]Finding(nil), fs...))
		if again := CapFindings(append([]Finding(nil), fs...)); !reflect.DeepEqual(got, again) {
			t.Error("two cuts of one list differ")
		}
		if !reflect.DeepEqual(got[:MaxFindings], fs[:MaxFindings]) {
			t.Error("the findings kept are not the first in input order")
		}
		if len(got) != MaxFindings+31 {
			t.Errorf("%d findings, want %d kept, 30 summaries per file and one in all", len(got), MaxFindings)
		}
		if last := got[len(got)-1]; last.Path != "" || last.Message != "… and 1,000 more warnings like these in all (not listed)" {
			t.Errorf("the summary in all = %+v", last)
		}
		more := 0
		for _, f := range got[MaxFindings:] {
			more += moreCount(f)
		}
		if more != len(fs)-MaxFindings {
			t.Errorf("summaries count %d, want %d", more, len(fs)-MaxFindings)
		}
	})
	t.Run("one file each, past the total: one summary", func(t *testing.T) {
		var fs []Finding
		for i := 0; i < 3000; i++ {
			fs = append(fs, warn(fmt.Sprintf("src/f%d.go", i), i))
		}
		got := CapFindings(fs)
		if len(got) != MaxFindings+1 || got[MaxFindings].Message != "… and 2,500 more warnings like these in all (not listed)" {
			t.Errorf("%d findings, the last %+v", len(got), got[len(got)-1])
		}
		if again := CapFindings(got); !reflect.DeepEqual(again, got) {
			t.Errorf("a cut list changed when cut again")
		}
	})
	t.Run("blocking never dropped past the total", func(t *testing.T) {
		var fs []Finding
		for i := 0; i < 40; i++ {
			for j := 0; j < 20; j++ {
				fs = append(fs, Finding{Check: CheckParse, Severity: Blocking, Code: "c", Path: fmt.Sprintf("p%d", i), Message: fmt.Sprint(j)})
			}
		}
		if got := CapFindings(fs); len(got) != len(fs) {
			t.Errorf("%d of %d blocking findings kept", len(got), len(fs))
		}
	})
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 2800000: "2,800,000", -12345: "-12,345"} {
		if got := Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

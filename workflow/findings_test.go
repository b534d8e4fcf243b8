package workflow

import (
	"reflect"
	"testing"
)

func finding(sev Severity, check, path, code, msg string) Finding {
	return Finding{Check: check, Severity: sev, Code: code, Message: msg, Path: path}
}

func TestFindingsEmpty(t *testing.T) {
	var l Findings
	if l.Len() != 0 || l.Sorted() != nil {
		t.Fatalf("empty list: Len=%d Sorted=%v", l.Len(), l.Sorted())
	}
	l.Add()
	if l.Len() != 0 || l.Sorted() != nil {
		t.Fatal("Add() with nothing made the list non-empty")
	}
	var nilList *Findings
	if nilList.Len() != 0 || nilList.Sorted() != nil {
		t.Fatal("a nil list is not empty")
	}
}

func TestFindingsSortedAndDeduplicated(t *testing.T) {
	var l Findings
	info := finding(Info, "git", "", "no-git", "no git")
	warnB := finding(Warning, "integrity", "b.md", "missing-file", "b missing")
	warnA := finding(Warning, "integrity", "a.md", "missing-file", "a missing")
	block := finding(Blocking, "integrity", "z.md", "missing-critical", "z missing")
	blockAge := finding(Blocking, "age", "z.md", "x", "x")
	l.Add(info, warnB)
	l.Add(warnA, block, warnA, blockAge)
	if l.Len() != 6 {
		t.Fatalf("Len = %d, want 6", l.Len())
	}
	want := []Finding{blockAge, block, warnA, warnB, info}
	got := l.Sorted()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Sorted =\n%v\nwant\n%v", got, want)
	}
	got[0].Code = "changed" // a new slice: the list is not touched
	if again := l.Sorted(); !reflect.DeepEqual(again, want) {
		t.Fatalf("Sorted after changing its result =\n%v\nwant\n%v", again, want)
	}
}

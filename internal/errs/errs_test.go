package errs

import (
	"reflect"
	"testing"

	"github.com/orchestrate-dev/orchestrate/workflow"
)

func f(sev workflow.Severity, check, path, code, msg string) workflow.Finding {
	return workflow.Finding{Check: check, Severity: sev, Code: code, Message: msg, Path: path}
}

func TestEmptyList(t *testing.T) {
	var l List
	if l.Len() != 0 || l.Findings() != nil {
		t.Fatalf("empty list: Len=%d Findings=%v", l.Len(), l.Findings())
	}
	l.Add()
	if l.Len() != 0 || l.Findings() != nil {
		t.Fatal("Add() with nothing made the list non-empty")
	}
}

func TestFindingsSortedAndDeduplicated(t *testing.T) {
	var l List
	info := f(workflow.Info, "git", "", "no-git", "no git")
	warnB := f(workflow.Warning, "integrity", "b.md", "missing-file", "b missing")
	warnA := f(workflow.Warning, "integrity", "a.md", "missing-file", "a missing")
	block := f(workflow.Blocking, "integrity", "z.md", "missing-critical", "z missing")
	blockAge := f(workflow.Blocking, "age", "z.md", "x", "x")
	l.Add(info, warnB)
	l.Add(warnA, block, warnA, blockAge)
	if l.Len() != 6 {
		t.Fatalf("Len = %d, want 6", l.Len())
	}
	want := []workflow.Finding{blockAge, block, warnA, warnB, info}
	if got := l.Findings(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Findings =\n%v\nwant\n%v", got, want)
	}
}

func TestSortTieBreakers(t *testing.T) {
	a := f(workflow.Warning, "conflict", "p", "code-a", "m")
	b := f(workflow.Warning, "conflict", "p", "code-b", "a")
	c := f(workflow.Warning, "conflict", "p", "code-b", "b")
	d := c
	d.Phase = "z"
	e := f("weird", "a", "a", "a", "a")
	fs := []workflow.Finding{e, d, c, b, a}
	Sort(fs)
	if want := []workflow.Finding{a, b, c, d, e}; !reflect.DeepEqual(fs, want) {
		t.Fatalf("Sort =\n%v\nwant\n%v", fs, want)
	}
}

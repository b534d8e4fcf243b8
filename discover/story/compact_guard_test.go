package story

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"unsafe"

	"github.com/orchestrate-dev/orchestrate/workflow"
)

// stringsInto lists the paths of every string reachable from v (struct
// fields, slices, arrays, pointers) whose bytes lie in [lo, hi).
func stringsInto(v reflect.Value, path string, lo, hi uintptr) []string {
	var out []string
	switch v.Kind() {
	case reflect.String:
		s := v.String()
		if p := uintptr(unsafe.Pointer(unsafe.StringData(s))); len(s) > 0 && p >= lo && p < hi {
			out = append(out, path)
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			out = append(out, stringsInto(v.Elem(), path, lo, hi)...)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			out = append(out, stringsInto(v.Field(i), path+"."+v.Type().Field(i).Name, lo, hi)...)
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			out = append(out, stringsInto(v.Index(i), fmt.Sprintf("%s[%d]", path, i), lo, hi)...)
		}
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			out = append(out, stringsInto(it.Key(), path+"{key}", lo, hi)...)
			out = append(out, stringsInto(it.Value(), path+"{value}", lo, hi)...)
		}
	}
	return out
}

// TestCompactLeavesNoView: after a worker's parse into its reused read
// buffer, no string of the story — any field, including one added to
// workflow.Story after compact was written and not listed there — points
// into the buffer. compact lists the fields it copies out by hand; this
// walks the story by reflection, so a new string field that a parse fills
// from the text fails here instead of being silently overwritten by the
// next file the worker reads.
func TestCompactLeavesNoView(t *testing.T) {
	files, err := filepath.Glob("testdata/realworld/*/docs/stories/*.md")
	if err != nil || len(files) == 0 {
		t.Fatalf("no story files: %v", err)
	}
	inputs := []string{
		"---\nstatus: InReview\n---\n# 2.1: Front\n\n**Epic:** **E-7**\n**Executor:** @dev (Dex)\n**Quality Gate:** @qa\n\n## Status\n\nIn Review\n\n" +
			"## File List\n\n| File | Change |\n|---|---|\n| `src/x.go` | new |\n| /abs/y.go | edit |\n- ../escape.go\n\n## Change Log\n\n- a\rb\n",
		"# Story 1.7: Lone\n\n**Status:** Shipped-ish\n\n## Dependencies\n\n- Story 1.1 \r x\n\n## Tasks\n\n- [ ] y\r\n",
		"# Story 1.6: Bad \xff\n\n**Status:** Done\n\n## Change Log\n\n- x\n",
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, string(data))
	}
	var state storyState // reused, as a worker's
	buf := make([]byte, 0, 1<<16)
	checked := 0
	for i, text := range inputs {
		for _, scan := range []bool{true, false} {
			buf = append(buf[:0], text...)
			lo := uintptr(unsafe.Pointer(unsafe.SliceData(buf)))
			hi := lo + uintptr(cap(buf))
			got := state.parse(fmt.Sprintf("docs/stories/%d.x.md", i), buf, map[string][]string{"Done": {"shipped"}}, scan)
			if got.story == nil {
				continue
			}
			checked++
			if bad := stringsInto(reflect.ValueOf(got.story), "Story", lo, hi); len(bad) > 0 {
				t.Errorf("input %d (scan %v): strings still in the worker's buffer: %v", i, scan, bad)
			}
		}
	}
	if checked < len(inputs) {
		t.Fatalf("only %d stories parsed of %d inputs", checked, len(inputs))
	}
	// the walk itself finds a view (the test can fail)
	text := "# Story 3.1: Title\n"
	b := []byte(text)
	st := &workflow.Story{Title: unsafe.String(&b[9], 3)}
	lo := uintptr(unsafe.Pointer(&b[0]))
	if bad := stringsInto(reflect.ValueOf(st), "Story", lo, lo+uintptr(len(b))); len(bad) != 1 || bad[0] != "Story.Title" {
		t.Fatalf("stringsInto missed a view: %v", bad)
	}
}

package story

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
	"github.com/orchestrate-dev/orchestrate/internal/safefile"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// TestStoryLookAheadIsReadIn checks that looking a folder's files up ahead
// (storyCacheWorker.lookAhead: every stat first, then every look-up) finds
// for each file what Lookup finds for it alone — the same hit or miss, stat
// data and value — for more files than one look-ahead takes, among them a
// symlink, a FIFO, a folder, an oversize, a binary, a missing and an
// edited file; and that readAllIn gives what readIn gives, file by file.
func TestStoryLookAheadIsReadIn(t *testing.T) {
	storyCacheLater(t)
	dir := t.TempDir()
	files := map[string]string{
		"docs/stories/8.1.big.md":    "# Story 8.1: Big\n\n**Status:** Done\n\n" + strings.Repeat("x", 4096) + "\n",
		"docs/stories/8.2.binary.md": "# Story 8.2: Bin\n\x00\n",
		"docs/stories/8.3.edit.md":   "# Story 8.3: Edited\n\n**Status:** Draft\n",
		"docs/stories/README.md":     "# Stories\n",
		"docs/stories/dir.md/x.md":   "# Story 8.4: In a folder named .md\n\n**Status:** Done\n",
	}
	for i := 0; i < storyAheadMax*2+7; i++ {
		status := []string{"Done", "Draft", "InProgress", "InReview"}[i%4]
		files[fmt.Sprintf("docs/stories/1.%d.s.md", i)] = fmt.Sprintf("# Story 1.%d: S\n\n**Status:** %s\n\n## Change Log\n\n- %d\n", i, status, i)
	}
	storyWrite(t, dir, files)
	stories := filepath.Join(dir, "docs", "stories")
	if err := os.Symlink("1.1.s.md", filepath.Join(stories, "8.5.link.md")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(stories, "8.6.fifo.md"), 0o644); err != nil {
		t.Skipf("no FIFO: %v", err)
	}
	c := diskcache.New(filepath.Join(t.TempDir(), "cache"))
	const max = 2048
	off := cacheScan(t, dir, nil, max)
	if cold := cacheScan(t, dir, c, max); cold.added == 0 {
		t.Fatal("the cold scan stored nothing")
	}
	// edited after it was stored: a miss
	if err := os.WriteFile(filepath.Join(stories, "8.3.edit.md"), []byte("# Story 8.3: Edited\n\n**Status:** Ready\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(stories)
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"9.9.missing.md"}
	for _, e := range ents {
		names = append(names, e.Name())
	}
	ps := make([]string, len(names))
	for i, n := range names {
		ps[i] = "docs/stories/" + n
	}

	r, _ := source.NewRepo(dir, config.Default())
	r.Cache = c
	r.Config.MaxFileSize = max
	sc := openStoryCache(r)
	d, err := safefile.OpenDir(dir, "docs/stories", false)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	w := sc.worker()
	defer w.done()
	hits := 0
	for start := 0; start < len(names); start += storyAheadMax {
		end := min(len(names), start+storyAheadMax)
		ahead := make([]storyAhead, end-start)
		w.lookAhead(d, names[start:end], ps[start:end], ahead)
		for i, a := range ahead {
			n := names[start+i]
			v, fs, ok := sc.Lookup(d, n, ps[start+i], nil)
			if a.hit != ok || (ok && (a.fs != fs || !bytes.Equal(a.v, v))) {
				t.Errorf("%s: ahead hit %v %+v, Lookup hit %v %+v", n, a.hit, a.fs, ok, fs)
			}
			if a.hit {
				hits++
			}
			switch n {
			case "8.1.big.md", "8.2.binary.md", "8.3.edit.md", "8.5.link.md", "8.6.fifo.md", "dir.md", "9.9.missing.md":
				if a.hit {
					t.Errorf("%s: a hit", n)
				}
			}
		}
	}
	if hits < storyAheadMax*2 {
		t.Errorf("%d hits of %d files", hits, len(names))
	}

	// readAllIn gives, file by file, what readIn gives (a reader each)
	one, all := newStoryReader(r, sc), newStoryReader(r, sc)
	defer one.done()
	defer all.done()
	got := all.readAllIn(d, names, ps, nil)
	if len(got) != len(names) {
		t.Fatalf("readAllIn gave %d hits for %d files", len(got), len(names))
	}
	for i, n := range names {
		st, ok := one.readIn(d, n, ps[i])
		if got[i].p != ps[i] || got[i].readable != ok || !reflect.DeepEqual(got[i].st, st) {
			t.Errorf("%s: readAllIn %+v %v, readIn %+v %v", n, got[i].st, got[i].readable, st, ok)
		}
	}
	sc.save()

	// and a whole scan warm is the scan without a cache
	off2 := cacheScan(t, dir, nil, max)
	warm := cacheScan(t, dir, c, max)
	sameScan(t, "warm after the edit", warm, off2)
	if reflect.DeepEqual(off.stories["8.3"], off2.stories["8.3"]) {
		t.Error("the edit changed nothing")
	}
}

// TestStoryCacheViewIsCopy checks that decoding a value with its strings
// as views into it (storyDecodeView, the scan's decode of the table's
// values) gives exactly what the copying decode gives, for every fixture
// and for every value cut short, grown, or with one byte changed: the same
// miss, or the same story; and that its strings do point into the value.
func TestStoryCacheViewIsCopy(t *testing.T) {
	var state storyState
	var a storyArena
	for name, text := range storyCacheInputs(t) {
		p := "docs/stories/" + name
		st := state.parse(p, []byte(text), map[string][]string{"Done": {"shipped"}}, true).story
		v := storyEncode(nil, st)
		if v == nil {
			t.Fatalf("%s: not encodable", name)
		}
		got, isStory, ok := storyDecodeView(p, v, &a)
		if !ok || !isStory || !reflect.DeepEqual(got, st) {
			t.Fatalf("%s: view decode = %+v (%v %v), want %+v", name, got, isStory, ok, st)
		}
		if got.ID != "" && !storyInside(got.ID, v) {
			t.Errorf("%s: the id %q is a copy, not a view", name, got.ID)
		}
		// every cut and changed byte of a short value, some of a long one
		step := max(1, len(v)/200)
		variants := [][]byte{append(v[:len(v):len(v)], 0)}
		for cut := 0; cut < len(v); cut += step {
			variants = append(variants, v[:cut])
		}
		for i := 0; i < len(v); i += step {
			for _, b := range []byte{v[i] ^ 1, v[i] ^ 0x80, 0} {
				f := bytes.Clone(v)
				f[i] = b
				variants = append(variants, f)
			}
		}
		for _, f := range variants {
			sameDecode(t, p, f)
		}
	}
	// a story not in flight holding a section kept only for its hash was
	// not written by a scan: a miss either way
	done := &workflow.Story{ID: "1.9", Status: workflow.StatusDone, Sections: workflow.Sections{{Name: workflow.SectionAcceptance, Line: 3}}}
	if _, _, ok := storyDecodeView("docs/stories/1.9.x.md", storyEncode(nil, done), &a); ok {
		t.Error("a Done story's value with its acceptance criteria decodes")
	}
	kept := &workflow.Story{ID: "1.9", Status: workflow.StatusDone, Sections: workflow.Sections{{Name: workflow.SectionChangeLog, Raw: "x"}, {Name: workflow.SectionDependencies, Raw: "y"}}}
	if _, _, ok := storyDecodeView("docs/stories/1.9.x.md", storyEncode(nil, kept), &a); !ok {
		t.Error("a Done story's value with only its kept sections does not decode")
	}
}

// sameDecode fails unless the view decode and the copying decode of v
// agree.
func sameDecode(t *testing.T, p string, v []byte) {
	t.Helper()
	st1, is1, ok1 := storyDecode(p, v, &sameDecodeArenas[0])
	st2, is2, ok2 := storyDecodeView(p, bytes.Clone(v), &sameDecodeArenas[1])
	if ok1 != ok2 || is1 != is2 || !reflect.DeepEqual(st1, st2) {
		t.Fatalf("value %x: copy decode %+v %v %v, view decode %+v %v %v", v, st1, is1, ok1, st2, is2, ok2)
	}
}

// sameDecodeArenas are sameDecode's arenas (a decode without one
// allocates a block of its own).
var sameDecodeArenas [2]storyArena

// storyInside reports whether the bytes of s lie inside b.
func storyInside(s string, b []byte) bool {
	if len(s) == 0 || len(b) == 0 {
		return false
	}
	p, lo := uintptr(unsafe.Pointer(unsafe.StringData(s))), uintptr(unsafe.Pointer(&b[0]))
	return p >= lo && p+uintptr(len(s)) <= lo+uintptr(len(b))
}

package gitrepo

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"github.com/orchestrate-dev/orchestrate/internal/gitfixture"
	"github.com/orchestrate-dev/orchestrate/internal/gitobj"
)

var t0 = time.Date(2024, 3, 1, 9, 0, 0, 0, time.UTC)

// history is the shared test repository:
//
//	C1 Ann t0    README.md, notes.txt, docs/stories/1.1.story.md,
//	             docs/stories/1.2.story.md, src/app/main.go, src/app/util.go,
//	             src/lib/deep/x/y.go
//	C2 Bob t0+1h src/app/main.go v2
//	C3 Ann t0+2h src/app/util.go v2 (a sibling of main.go)
//	C4 Bob t0+3h docs/new.md added, notes.txt deleted, src/app/main.go v3
//
// then, uncommitted: 1.1.story.md edited, util.go edited again, README.md
// deleted.
type history struct {
	dir            string
	c1, c2, c3, c4 string
}

var files1 = map[string]string{
	"README.md":                 "hello\n",
	"notes.txt":                 "n1\n",
	"docs/stories/1.1.story.md": "# Story 1.1\nStatus: InProgress\n",
	"docs/stories/1.2.story.md": "# Story 1.2\nStatus: Draft\n",
	"src/app/main.go":           "package main // v1\n",
	"src/app/util.go":           "package main // util v1\n",
	"src/lib/deep/x/y.go":       "package x\n",
}

func newHistory(t testing.TB) *history {
	t.Helper()
	h := &history{dir: t.TempDir()}
	d := h.dir
	must(t, gitfixture.Init(d))
	for p, c := range files1 {
		must(t, gitfixture.WriteFile(d, p, c))
	}
	var err error
	h.c1, err = gitfixture.Commit(d, "Initial import", "Ann", "ann@example.com", t0)
	must(t, err)
	must(t, gitfixture.WriteFile(d, "src/app/main.go", "package main // v2\n"))
	h.c2, err = gitfixture.Commit(d, "Change main\n\nLonger body.", "Bob", "bob@example.com", t0.Add(time.Hour))
	must(t, err)
	must(t, gitfixture.WriteFile(d, "src/app/util.go", "package main // util v2\n"))
	h.c3, err = gitfixture.Commit(d, "Tweak util", "Ann", "ann@example.com", t0.Add(2*time.Hour))
	must(t, err)
	must(t, gitfixture.WriteFile(d, "docs/new.md", "new\n"))
	must(t, gitfixture.Remove(d, "notes.txt"))
	must(t, gitfixture.WriteFile(d, "src/app/main.go", "package main // v3\n"))
	h.c4, err = gitfixture.Commit(d, "Add new, drop notes, main v3", "Bob", "bob@example.com", t0.Add(3*time.Hour))
	must(t, err)
	// Uncommitted work.
	must(t, gitfixture.WriteFile(d, "docs/stories/1.1.story.md", "# Story 1.1\nStatus: Done\n"))
	must(t, gitfixture.WriteFile(d, "src/app/util.go", "package main // util v3\n"))
	must(t, gitfixture.Remove(d, "README.md"))
	return h
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func open(t testing.TB, dir string) *Repo {
	t.Helper()
	r, err := Open(dir)
	must(t, err)
	t.Cleanup(func() {
		if err := r.Close(); err != nil {
			t.Error(err)
		}
		if err := r.Close(); err != nil {
			t.Errorf("second Close: %v", err)
		}
	})
	return r
}

func contentHash(content string) string {
	return plumbing.ComputeHash(plumbing.BlobObject, []byte(content)).String()
}

func realPath(t testing.TB, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	must(t, err)
	return r
}

func TestHeadAndCommitConversion(t *testing.T) {
	t.Parallel()
	h := newHistory(t)
	r := open(t, h.dir)
	head, err := r.Head()
	must(t, err)
	if head.Hash != h.c4 {
		t.Fatalf("Head = %s, want %s", head.Hash, h.c4)
	}
	c2, err := r.InterruptionCommit(h.c2, time.Time{})
	must(t, err)
	want := Commit{Hash: h.c2, Short: h.c2[:7], Author: "Bob", Email: "bob@example.com", When: t0.Add(time.Hour), Subject: "Change main"}
	if !reflect.DeepEqual(c2, want) {
		t.Errorf("commit = %+v\nwant     %+v", c2, want)
	}
	if c2.When.Location() != time.UTC {
		t.Errorf("When not in UTC: %v", c2.When.Location())
	}
	if r.Root() != realPath(t, h.dir) {
		t.Errorf("Root = %q, want %q", r.Root(), realPath(t, h.dir))
	}
	if r.Shallow() {
		t.Error("Shallow() on a full repository")
	}
}

func TestCommitTimeIsCommitterTimeInUTC(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	must(t, gitfixture.Init(dir))
	must(t, gitfixture.WriteFile(dir, "a", "a"))
	paris := time.FixedZone("CET", 3600)
	when := time.Date(2024, 5, 1, 12, 0, 0, 0, paris)
	_, err := gitfixture.Commit(dir, "x", "A", "a@x", when)
	must(t, err)
	head, err := open(t, dir).Head()
	must(t, err)
	if !head.When.Equal(when) || head.When.Location() != time.UTC || head.When.Hour() != 11 {
		t.Errorf("When = %v, want %v in UTC", head.When, when)
	}
}

func TestInterruptionCommit(t *testing.T) {
	t.Parallel()
	h := newHistory(t)
	r := open(t, h.dir)
	tests := []struct {
		name     string
		recorded string
		at       time.Time
		want     string // "" → ErrNoCommit
	}{
		{"full hash", h.c2, time.Time{}, h.c2},
		{"full hash wins over time", h.c2, t0.Add(10 * time.Hour), h.c2},
		{"short hash", h.c3[:7], time.Time{}, h.c3},
		{"4-digit hash", h.c1[:4], time.Time{}, h.c1},
		{"odd-length hash", h.c1[:9], time.Time{}, h.c1},
		{"upper-case hash", strings.ToUpper(h.c2[:10]), time.Time{}, h.c2},
		{"3 digits are too few", h.c2[:3], time.Time{}, ""},
		{"not hex", "zzzzzzz", time.Time{}, ""},
		{"unknown hash", "0123456789abcdef0123456789abcdef01234567", time.Time{}, ""},
		{"unknown abbreviation", unknownPrefix(h), time.Time{}, ""},
		{"a blob, not a commit", contentHash("hello\n"), time.Time{}, ""},
		{"time between commits", "", t0.Add(90 * time.Minute), h.c2},
		{"time exactly at a commit", "", t0.Add(time.Hour), h.c2},
		{"time after HEAD", "", t0.Add(48 * time.Hour), h.c4},
		{"time at the first commit", "", t0, h.c1},
		{"time before the first commit", "", t0.Add(-time.Minute), ""},
		{"no hash, no time", "", time.Time{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := r.InterruptionCommit(tt.recorded, tt.at)
			if tt.want == "" {
				if !errors.Is(err, ErrNoCommit) {
					t.Fatalf("got %v, %v; want ErrNoCommit", got.Hash, err)
				}
				return
			}
			must(t, err)
			if got.Hash != tt.want {
				t.Errorf("got %s, want %s", got.Short, tt.want[:7])
			}
		})
	}
}

// unknownPrefix returns a 6-digit prefix matching no object of h.
func unknownPrefix(h *history) string {
	for i := 0; ; i++ {
		p := fmt.Sprintf("%06x", i)
		clash := false
		for _, c := range []string{h.c1, h.c2, h.c3, h.c4} {
			clash = clash || strings.HasPrefix(c, p)
		}
		if !clash {
			return p
		}
	}
}

func TestInterruptionCommitFirstParentOnly(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	must(t, gitfixture.Init(dir))
	must(t, gitfixture.WriteFile(dir, "main.txt", "1"))
	c1, err := gitfixture.Commit(dir, "c1", "Ann", "ann@x", t0.Add(time.Hour))
	must(t, err)
	must(t, gitfixture.WriteFile(dir, "side.txt", "side"))
	side, err := gitfixture.Commit(dir, "side", "Bob", "bob@x", t0.Add(2*time.Hour))
	must(t, err)
	must(t, gitfixture.ResetBranch(dir, c1))
	must(t, gitfixture.Remove(dir, "side.txt"))
	must(t, gitfixture.WriteFile(dir, "main.txt", "2"))
	c2, err := gitfixture.Commit(dir, "c2", "Ann", "ann@x", t0.Add(3*time.Hour))
	must(t, err)
	must(t, gitfixture.WriteFile(dir, "side.txt", "side"))
	m, err := gitfixture.Merge(dir, "merge side", "Ann", "ann@x", t0.Add(4*time.Hour), side)
	must(t, err)

	r := open(t, dir)
	got, err := r.InterruptionCommit("", t0.Add(150*time.Minute))
	must(t, err)
	if got.Hash != c1 {
		t.Errorf("at 2:30 got %s, want c1 %s (the side commit %s is not first-parent)", got.Short, c1[:7], side[:7])
	}
	got, err = r.InterruptionCommit("", t0.Add(4*time.Hour))
	must(t, err)
	if got.Hash != m {
		t.Errorf("at 4:00 got %s, want the merge %s", got.Short, m[:7])
	}
	// The recorded side commit is still found by hash.
	got, err = r.InterruptionCommit(side[:8], time.Time{})
	must(t, err)
	if got.Hash != side {
		t.Errorf("recorded side commit: got %s", got.Short)
	}
	// The side change arrives through the merge, compared with its first parent.
	touch, err := r.CommitsTouching(Commit{Hash: c1}, []string{"side.txt", "main.txt"}, 10)
	must(t, err)
	if got := hashes(touch["side.txt"]); !reflect.DeepEqual(got, []string{m}) {
		t.Errorf("side.txt touched by %v, want only the merge %s", got, m[:7])
	}
	if got := hashes(touch["main.txt"]); !reflect.DeepEqual(got, []string{c2}) {
		t.Errorf("main.txt touched by %v, want c2 %s", got, c2[:7])
	}
}

func TestInterruptionCommitAmbiguousPrefix(t *testing.T) {
	t.Parallel()
	h := newHistory(t)
	r := open(t, h.dir)
	head, err := r.repo.CommitObject(plumbing.NewHash(h.c4))
	must(t, err)
	// Write commit objects until two share their first 4 hex digits.
	byPrefix := map[string]string{}
	var a, b string
	for i := 0; a == ""; i++ {
		c := &object.Commit{
			Author:       head.Author,
			Committer:    head.Committer,
			Message:      fmt.Sprintf("filler %d", i),
			TreeHash:     head.TreeHash,
			ParentHashes: []plumbing.Hash{head.Hash},
		}
		obj := r.repo.Storer.NewEncodedObject()
		must(t, c.Encode(obj))
		hash, err := r.repo.Storer.SetEncodedObject(obj)
		must(t, err)
		s := hash.String()
		if prev, ok := byPrefix[s[:4]]; ok {
			a, b = prev, s
		}
		byPrefix[s[:4]] = s
	}
	if _, err := r.InterruptionCommit(a[:4], time.Time{}); !errors.Is(err, ErrNoCommit) || !strings.Contains(err.Error(), "ambiguous") {
		t.Errorf("ambiguous prefix %s: err = %v", a[:4], err)
	}
	n := 5
	for a[:n] == b[:n] {
		n++
	}
	for _, full := range []string{a, b} {
		got, err := r.InterruptionCommit(full[:n], time.Time{})
		must(t, err)
		if got.Hash != full {
			t.Errorf("prefix %s: got %s, want %s", full[:n], got.Hash, full)
		}
	}
}

func TestInterruptionCommitPacked(t *testing.T) {
	t.Parallel()
	// 300 files make the fixture write a packfile: abbreviations are then
	// resolved through the pack index.
	dir := t.TempDir()
	must(t, gitfixture.Init(dir))
	for i := 0; i < 300; i++ {
		must(t, gitfixture.WriteFile(dir, fmt.Sprintf("f/%03d.txt", i), fmt.Sprint(i)))
	}
	c, err := gitfixture.Commit(dir, "many", "A", "a@x", t0)
	must(t, err)
	packs, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.idx"))
	if len(packs) != 1 {
		t.Fatalf("want one pack index, got %v", packs)
	}
	if _, err := os.Stat(filepath.Join(dir, ".git", "objects", c[:2], c[2:])); err == nil {
		t.Fatal("the commit is loose; want it packed")
	}
	r := open(t, dir)
	for _, n := range []int{4, 7, 12, 40} {
		got, err := r.InterruptionCommit(c[:n], time.Time{})
		must(t, err)
		if got.Hash != c {
			t.Errorf("prefix %d: got %s", n, got.Hash)
		}
	}
	data, err := r.ReadAt(Commit{Hash: c, Short: c[:7]}, "f/123.txt")
	must(t, err)
	if string(data) != "123" {
		t.Errorf("ReadAt packed = %q", data)
	}
}

func TestCompare(t *testing.T) {
	t.Parallel()
	h := newHistory(t)
	r := open(t, h.dir)
	base, err := r.InterruptionCommit("", t0.Add(30*time.Minute))
	must(t, err)
	if base.Hash != h.c1 {
		t.Fatalf("base = %s, want c1", base.Short)
	}
	paths := []string{
		"docs/stories/1.2.story.md", // unchanged
		"src/app/main.go",           // committed change (C2, C4)
		"docs/stories/1.1.story.md", // uncommitted edit
		"src/app/util.go",           // committed (C3) and edited again
		"README.md",                 // deleted on disk, not committed
		"notes.txt",                 // deleted and the deletion committed
		"docs/new.md",               // absent in base, added later
		"src/lib/deep/x/y.go",       // nested, unchanged
		"docs/missing.md",           // nowhere
		"src/app",                   // a folder: absent both sides
		"README.md/inner",           // under a file: absent
	}
	got, err := r.Compare(base, paths)
	must(t, err)
	want := []PathState{
		{Path: "docs/stories/1.2.story.md", BaseHash: contentHash("# Story 1.2\nStatus: Draft\n"), DiskHash: contentHash("# Story 1.2\nStatus: Draft\n"), OnDisk: true},
		{Path: "src/app/main.go", BaseHash: contentHash("package main // v1\n"), HeadHash: contentHash("package main // v3\n"), DiskHash: contentHash("package main // v3\n"), OnDisk: true, Changed: true, Committed: true},
		{Path: "docs/stories/1.1.story.md", BaseHash: contentHash("# Story 1.1\nStatus: InProgress\n"), HeadHash: contentHash("# Story 1.1\nStatus: InProgress\n"), DiskHash: contentHash("# Story 1.1\nStatus: Done\n"), OnDisk: true, Changed: true, Uncommited: true},
		{Path: "src/app/util.go", BaseHash: contentHash("package main // util v1\n"), HeadHash: contentHash("package main // util v2\n"), DiskHash: contentHash("package main // util v3\n"), OnDisk: true, Changed: true, Committed: true, Uncommited: true},
		{Path: "README.md", BaseHash: contentHash("hello\n"), HeadHash: contentHash("hello\n"), Changed: true, Uncommited: true},
		{Path: "notes.txt", BaseHash: contentHash("n1\n"), Changed: true, Committed: true},
		{Path: "docs/new.md", HeadHash: contentHash("new\n"), DiskHash: contentHash("new\n"), OnDisk: true, Changed: true, Committed: true},
		{Path: "src/lib/deep/x/y.go", BaseHash: contentHash("package x\n"), DiskHash: contentHash("package x\n"), OnDisk: true},
		{Path: "docs/missing.md"},
		{Path: "src/app"},
		{Path: "README.md/inner"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d states, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%s:\n got %+v\nwant %+v", want[i].Path, got[i], want[i])
		}
	}

	// Compared with HEAD itself only the uncommitted edits show.
	head, err := r.Head()
	must(t, err)
	got, err = r.Compare(head, []string{"src/app/main.go", "src/app/util.go", "README.md"})
	must(t, err)
	if got[0].Changed || !got[1].Changed || got[1].Committed || !got[1].Uncommited || !got[2].Uncommited {
		t.Errorf("against HEAD: %+v", got)
	}

	if got, err := r.Compare(base, nil); err != nil || len(got) != 0 {
		t.Errorf("no paths: %v, %v", got, err)
	}
	if _, err := r.Compare(Commit{Hash: "0123456789abcdef0123456789abcdef01234567"}, paths); err == nil {
		t.Error("Compare with an unknown base: no error")
	}
}

func TestCompareSymlinkAndExecutable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	must(t, gitfixture.Init(dir))
	must(t, gitfixture.WriteFile(dir, "target.txt", "t"))
	must(t, os.Symlink("target.txt", filepath.Join(dir, "link")))
	must(t, gitfixture.WriteFile(dir, "run.sh", "#!/bin/sh\n"))
	must(t, os.Chmod(filepath.Join(dir, "run.sh"), 0o755))
	c, err := gitfixture.Commit(dir, "c", "A", "a@x", t0)
	must(t, err)
	r := open(t, dir)
	got, err := r.Compare(Commit{Hash: c}, []string{"link", "run.sh"})
	must(t, err)
	for _, st := range got {
		if st.Changed || !st.OnDisk || st.BaseHash == "" {
			t.Errorf("%+v", st)
		}
	}
	if got[0].BaseHash != contentHash("target.txt") {
		t.Errorf("link hashes as %s, want the blob of its target", got[0].BaseHash)
	}
}

func TestCommitsTouching(t *testing.T) {
	t.Parallel()
	h := newHistory(t)
	r := open(t, h.dir)
	base := Commit{Hash: h.c1}
	paths := []string{"src/app/main.go", "src/app/util.go", "docs/new.md", "notes.txt", "README.md", "docs/stories/1.1.story.md", "src/lib/deep/x/y.go", "nowhere/at/all"}
	got, err := r.CommitsTouching(base, paths, 5)
	must(t, err)
	want := map[string][]string{
		"src/app/main.go": {h.c4, h.c2},
		"src/app/util.go": {h.c3}, // C2 and C4 changed only its sibling main.go
		"docs/new.md":     {h.c4},
		"notes.txt":       {h.c4},
	}
	if g := hashMap(got); !reflect.DeepEqual(g, want) {
		t.Errorf("got  %v\nwant %v", g, want)
	}
	if c := got["src/app/main.go"][1]; c.Author != "Bob" || c.Subject != "Change main" || !c.When.Equal(t0.Add(time.Hour)) {
		t.Errorf("commit details: %+v", c)
	}

	got, err = r.CommitsTouching(base, paths, 1)
	must(t, err)
	if g := hashes(got["src/app/main.go"]); !reflect.DeepEqual(g, []string{h.c4}) {
		t.Errorf("limit 1: main.go %v", g)
	}

	// From C2: C2 itself is excluded.
	got, err = r.CommitsTouching(Commit{Hash: h.c2}, paths, 0)
	must(t, err)
	if g := hashes(got["src/app/main.go"]); !reflect.DeepEqual(g, []string{h.c4}) {
		t.Errorf("since c2: main.go %v", g)
	}
	// From HEAD: nothing.
	got, err = r.CommitsTouching(Commit{Hash: h.c4}, paths, 0)
	must(t, err)
	if len(got) != 0 {
		t.Errorf("since HEAD: %v", hashMap(got))
	}
	// A base not on the chain: the walk runs to the first commit, which adds.
	got, err = r.CommitsTouching(Commit{Hash: strings.Repeat("0", 40)}, []string{"README.md"}, 0)
	must(t, err)
	if g := hashes(got["README.md"]); !reflect.DeepEqual(g, []string{h.c1}) {
		t.Errorf("unknown base: README.md %v", g)
	}
}

func TestReadAt(t *testing.T) {
	t.Parallel()
	h := newHistory(t)
	r := open(t, h.dir)
	c1 := Commit{Hash: h.c1, Short: h.c1[:7]}
	c2 := Commit{Hash: h.c2, Short: h.c2[:7]}
	for _, tt := range []struct {
		c    Commit
		path string
		want string
	}{
		{c1, "src/app/main.go", "package main // v1\n"},
		{c2, "src/app/main.go", "package main // v2\n"},
		{c1, "notes.txt", "n1\n"},
		{c1, "src/lib/deep/x/y.go", "package x\n"},
	} {
		got, err := r.ReadAt(tt.c, tt.path)
		must(t, err)
		if string(got) != tt.want {
			t.Errorf("ReadAt(%s, %s) = %q, want %q", tt.c.Short, tt.path, got, tt.want)
		}
	}
	for _, p := range []string{"docs/new.md", "nope", "src/nope/x", "README.md/x"} {
		if _, err := r.ReadAt(c1, p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("ReadAt(c1, %s): err = %v, want ErrNotExist", p, err)
		}
	}
	if _, err := r.ReadAt(c1, "src/app"); err == nil || errors.Is(err, os.ErrNotExist) {
		t.Errorf("ReadAt of a folder: err = %v", err)
	}
}

func TestReadAtRefusesLargeBlobs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	must(t, gitfixture.Init(dir))
	must(t, gitfixture.WriteFile(dir, "big", strings.Repeat("x", MaxReadSize+1)))
	must(t, gitfixture.WriteFile(dir, "ok", strings.Repeat("y", MaxReadSize)))
	c, err := gitfixture.Commit(dir, "big", "A", "a@x", t0)
	must(t, err)
	r := open(t, dir)
	if _, err := r.ReadAt(Commit{Hash: c}, "big"); err == nil || !strings.Contains(err.Error(), "limit") {
		t.Errorf("big blob: err = %v", err)
	}
	data, err := r.ReadAt(Commit{Hash: c}, "ok")
	must(t, err)
	if len(data) != MaxReadSize {
		t.Errorf("8 MiB blob: %d bytes", len(data))
	}
}

func TestLastChange(t *testing.T) {
	t.Parallel()
	h := newHistory(t)
	r := open(t, h.dir)
	paths := []string{"README.md", "src/app/main.go", "src/app/util.go", "docs/new.md", "notes.txt", "src/lib/deep/x/y.go", "nope"}
	got := r.LastChange(paths, 100)
	want := map[string]string{
		"README.md":           h.c1,
		"src/app/main.go":     h.c4,
		"src/app/util.go":     h.c3,
		"docs/new.md":         h.c4,
		"notes.txt":           h.c4,
		"src/lib/deep/x/y.go": h.c1,
	}
	g := map[string]string{}
	for p, c := range got {
		g[p] = c.Hash
	}
	if !reflect.DeepEqual(g, want) {
		t.Errorf("got  %v\nwant %v", g, want)
	}
	if c := got["src/app/util.go"]; c.Author != "Ann" || !c.When.Equal(t0.Add(2*time.Hour)) {
		t.Errorf("util.go: %+v", c)
	}
	// Two commits back (C4, C3) only.
	got = r.LastChange(paths, 2)
	if len(got) != 4 || got["src/app/util.go"].Hash != h.c3 || got["README.md"].Hash != "" {
		t.Errorf("bounded: %v", got)
	}
}

func TestOpenFromSubfolder(t *testing.T) {
	t.Parallel()
	h := newHistory(t)
	r := open(t, filepath.Join(h.dir, "src", "lib", "deep"))
	if r.Root() != realPath(t, h.dir) {
		t.Errorf("Root = %q, want %q", r.Root(), realPath(t, h.dir))
	}
	head, err := r.Head()
	must(t, err)
	if head.Hash != h.c4 {
		t.Errorf("Head = %s", head.Short)
	}
}

func TestOpenNotARepository(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			t.Skipf("%s is inside a git repository (%s)", dir, d)
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	_, err := Open(dir)
	if !errors.Is(err, gitobj.ErrNoGit) {
		t.Fatalf("err = %v, want gitobj.ErrNoGit", err)
	}
	if !strings.Contains(err.Error(), dir) {
		t.Errorf("error does not name the folder: %v", err)
	}
}

func TestOpenBareRepository(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, err := git.PlainInit(dir, true); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir); !errors.Is(err, gitobj.ErrNoGit) {
		t.Errorf("bare repository: err = %v, want gitobj.ErrNoGit", err)
	}
}

func TestUnbornHead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	must(t, gitfixture.Init(dir))
	r := open(t, dir)
	if _, err := r.Head(); !errors.Is(err, ErrNoCommit) {
		t.Errorf("Head: %v", err)
	}
	if _, err := r.InterruptionCommit("", t0); !errors.Is(err, ErrNoCommit) {
		t.Errorf("InterruptionCommit: %v", err)
	}
	if _, err := r.CommitsTouching(Commit{}, []string{"a"}, 1); !errors.Is(err, ErrNoCommit) {
		t.Errorf("CommitsTouching: %v", err)
	}
	if got := r.LastChange([]string{"a"}, 10); len(got) != 0 {
		t.Errorf("LastChange: %v", got)
	}
}

func TestLinkedWorktree(t *testing.T) {
	t.Parallel()
	t.Run("by hand", func(t *testing.T) {
		h := newHistory(t)
		wt := filepath.Join(t.TempDir(), "wt")
		admin := filepath.Join(h.dir, ".git", "worktrees", "wt")
		must(t, os.MkdirAll(admin, 0o755))
		must(t, os.WriteFile(filepath.Join(admin, "HEAD"), []byte(h.c2+"\n"), 0o644))
		must(t, os.WriteFile(filepath.Join(admin, "commondir"), []byte("../..\n"), 0o644))
		must(t, os.WriteFile(filepath.Join(admin, "gitdir"), []byte(filepath.Join(wt, ".git")+"\n"), 0o644))
		idx, err := os.ReadFile(filepath.Join(h.dir, ".git", "index"))
		must(t, err)
		must(t, os.WriteFile(filepath.Join(admin, "index"), idx, 0o644))
		// Check out C2 by hand.
		for p, c := range files1 {
			must(t, gitfixture.WriteFile(wt, p, c))
		}
		must(t, gitfixture.WriteFile(wt, "src/app/main.go", "package main // v2\n"))
		must(t, os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: "+admin+"\n"), 0o644))
		checkWorktree(t, h, wt, h.c2)
	})
	t.Run("git worktree add", func(t *testing.T) {
		if _, err := exec.LookPath("git"); err != nil {
			t.Skip("no git binary")
		}
		h := newHistory(t)
		wt := filepath.Join(t.TempDir(), "wt")
		runGit(t, h.dir, "worktree", "add", "--detach", wt, h.c2)
		checkWorktree(t, h, wt, h.c2)
	})
}

func checkWorktree(t *testing.T, h *history, wt, head string) {
	t.Helper()
	r := open(t, filepath.Join(wt, "src", "app"))
	if r.Root() != realPath(t, wt) {
		t.Errorf("Root = %q, want %q", r.Root(), realPath(t, wt))
	}
	got, err := r.Head()
	must(t, err)
	if got.Hash != head {
		t.Errorf("Head = %s, want %s", got.Short, head[:7])
	}
	states, err := r.Compare(Commit{Hash: h.c1}, []string{"src/app/main.go", "src/app/util.go"})
	must(t, err)
	if st := states[0]; !st.Changed || !st.Committed || st.Uncommited {
		t.Errorf("main.go in the worktree: %+v", st)
	}
	if st := states[1]; st.Changed {
		t.Errorf("util.go in the worktree (C3 is not its history): %+v", st)
	}
	c, err := r.InterruptionCommit(h.c1[:7], time.Time{})
	must(t, err)
	if c.Hash != h.c1 {
		t.Errorf("short hash in worktree: %s", c.Short)
	}
}

func TestShallow(t *testing.T) {
	t.Parallel()
	t.Run("simulated", func(t *testing.T) {
		h := newHistory(t)
		must(t, os.WriteFile(filepath.Join(h.dir, ".git", "shallow"), []byte(h.c2+"\n"), 0o644))
		r := open(t, h.dir)
		if !r.Shallow() {
			t.Fatal("Shallow() = false")
		}
		if _, err := r.InterruptionCommit("", t0.Add(30*time.Minute)); !errors.Is(err, ErrNoCommit) {
			t.Errorf("beyond the boundary: err = %v, want ErrNoCommit", err)
		}
		c, err := r.InterruptionCommit("", t0.Add(90*time.Minute))
		must(t, err)
		if c.Hash != h.c2 {
			t.Errorf("at the boundary: got %s", c.Short)
		}
		// The boundary commit counts as adding what it holds.
		last := r.LastChange([]string{"README.md"}, 0)
		if last["README.md"].Hash != h.c2 {
			t.Errorf("LastChange through the boundary: %v", last)
		}
	})
	t.Run("git clone --depth", func(t *testing.T) {
		if _, err := exec.LookPath("git"); err != nil {
			t.Skip("no git binary")
		}
		h := newHistory(t)
		clone := filepath.Join(t.TempDir(), "clone")
		runGit(t, h.dir, "clone", "--quiet", "--depth", "2", "file://"+filepath.ToSlash(h.dir), clone)
		r := open(t, clone)
		if !r.Shallow() {
			t.Fatal("Shallow() = false")
		}
		for _, rec := range []string{h.c1, h.c1[:7]} {
			if _, err := r.InterruptionCommit(rec, time.Time{}); !errors.Is(err, ErrNoCommit) {
				t.Errorf("recorded %s beyond the boundary: err = %v", rec[:7], err)
			}
		}
		if _, err := r.InterruptionCommit("", t0.Add(30*time.Minute)); !errors.Is(err, ErrNoCommit) {
			t.Errorf("time beyond the boundary: err = %v", err)
		}
		c, err := r.InterruptionCommit(h.c3[:7], time.Time{})
		must(t, err)
		if c.Hash != h.c3 {
			t.Errorf("recorded c3: %s", c.Short)
		}
		got, err := r.CommitsTouching(c, []string{"src/app/main.go"}, 5)
		must(t, err)
		if g := hashes(got["src/app/main.go"]); !reflect.DeepEqual(g, []string{h.c4}) {
			t.Errorf("CommitsTouching in the clone: %v", g)
		}
	})
}

// countingStorer counts the objects read, by type.
type countingStorer struct {
	storer.EncodedObjectStorer
	reads map[plumbing.ObjectType]int
}

func (c *countingStorer) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	o, err := c.EncodedObjectStorer.EncodedObject(t, h)
	if err == nil {
		c.reads[o.Type()]++
	}
	return o, err
}

func count(r *Repo) *countingStorer {
	c := &countingStorer{EncodedObjectStorer: r.objects, reads: map[plumbing.ObjectType]int{}}
	r.objects = c
	r.trees = gitobj.NewTreeIndexCache(c, gitobj.TreeIndexBudget) // count every tree read from now on
	return c
}

// TestCostFollowsPaths checks the cost model by counting object reads: a
// Compare reads only the trees on the referenced paths (each once), and a
// commit walk whose commits change other folders reads about one root tree
// per commit, whatever the size of the repository.
func TestCostFollowsPaths(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	must(t, gitfixture.Init(dir))
	for i := 0; i < 2000; i++ {
		must(t, gitfixture.WriteFile(dir, fmt.Sprintf("pkg%02d/sub%02d/file%04d.md", i%20, (i/20)%10, i), fmt.Sprint(i)))
	}
	base, err := gitfixture.Commit(dir, "import", "A", "a@x", t0)
	must(t, err)
	const commits = 10
	for i := 0; i < commits; i++ {
		other := fmt.Sprintf("other/o%d.txt", i)
		must(t, gitfixture.WriteFile(dir, other, "x"))
		changed := []string{other} // staged alone, not the 2,000 files
		if i == 0 {                // the oldest commit changes one path: the walks go back to it
			must(t, gitfixture.WriteFile(dir, "pkg05/sub00/file0805.md", "changed"))
			changed = append(changed, "pkg05/sub00/file0805.md")
		}
		_, err := gitfixture.Commit(dir, fmt.Sprintf("other %d", i), "B", "b@x", t0.Add(time.Duration(i+1)*time.Minute), changed...)
		must(t, err)
	}
	// Five paths in one folder, five in another, two edited on disk.
	var paths []string
	for _, i := range []int{0, 200, 400, 600, 800, 5, 205, 405, 605, 805} {
		paths = append(paths, fmt.Sprintf("pkg%02d/sub%02d/file%04d.md", i%20, (i/20)%10, i))
	}
	must(t, gitfixture.WriteFile(dir, paths[0], "edited"))
	must(t, gitfixture.WriteFile(dir, paths[5], "edited"))

	r := open(t, dir)
	c := count(r)
	states, err := r.Compare(Commit{Hash: base}, paths)
	must(t, err)
	changed := 0
	for _, st := range states {
		if st.Changed {
			changed++
		}
	}
	if changed != 3 {
		t.Fatalf("changed = %d, want 3 (two edits on disk, one committed)", changed)
	}
	// base: root, pkg00, pkg00/sub00, pkg05, pkg05/sub00; HEAD: the same
	// five trees (its pkg trees are base's, so go-git's cache may serve them).
	if got := c.reads[plumbing.TreeObject]; got < 5 || got > 10 {
		t.Errorf("Compare read %d trees, want 5 to 10", got)
	}
	if got := c.reads[plumbing.BlobObject]; got != 0 {
		t.Errorf("Compare read %d blobs, want 0", got)
	}

	c = count(r) // a fresh tree cache: Compare's trees are not reused
	touch, err := r.CommitsTouching(Commit{Hash: base}, paths, 5)
	must(t, err)
	if len(touch) != 1 || len(touch[paths[9]]) != 1 {
		t.Errorf("one commit touched %s, got %v", paths[9], hashMap(touch))
	}
	// The entries of the paths in base and HEAD are read first (the root and
	// two folders deep for two folders, in both: at most 10 trees, read
	// twice when a tree is asked for again); then each step reads the
	// parent's root tree (the child's is cached from the step before), and
	// the pkg entries are equal so nothing deeper is read, except at the
	// commit that changed a path.
	if got := c.reads[plumbing.TreeObject]; got < commits || got > commits+20 {
		t.Errorf("CommitsTouching read %d trees over %d commits, want %d to %d", got, commits, commits, commits+20)
	}

	// The trees read a second time (another workflow's walk over the same
	// commits) are kept: a third walk reads none.
	for walk, max := range []int{commits + 1, 0} {
		c.reads = map[plumbing.ObjectType]int{}
		if _, err := r.CommitsTouching(Commit{Hash: base}, paths[3+walk:], 5); err != nil {
			t.Fatal(err)
		}
		if got := c.reads[plumbing.TreeObject]; got > max {
			t.Errorf("walk %d read %d trees, want at most %d", walk+2, got, max)
		}
	}
}

func runGit(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir(), "GIT_TERMINAL_PROMPT=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func hashes(cs []Commit) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Hash)
	}
	return out
}

func hashMap(m map[string][]Commit) map[string][]string {
	out := map[string][]string{}
	for p, cs := range m {
		out[p] = hashes(cs)
	}
	return out
}

// benchRepo builds a repository of n files in nested folders, a second
// commit that changes every 10th of the chosen paths, and uncommitted edits
// to every 20th; it returns the repository, the base commit and 300 paths.
func benchRepo(b *testing.B, n int) (*Repo, Commit, []string) {
	b.Helper()
	dir := b.TempDir()
	must(b, gitfixture.Init(dir))
	name := func(i int) string {
		return fmt.Sprintf("pkg%02d/sub%02d/leaf%d/file%06d.md", i%40, (i/40)%25, (i/1000)%4, i)
	}
	for i := 0; i < n; i++ {
		must(b, gitfixture.WriteFile(dir, name(i), fmt.Sprintf("content of file %d\n", i)))
	}
	base, err := gitfixture.Commit(dir, "import", "A", "a@x", t0)
	must(b, err)
	var paths []string
	step := n / 300
	for i := 0; i < 300; i++ {
		paths = append(paths, name(i*step+i%step))
	}
	sort.Strings(paths)
	for i, p := range paths {
		if i%10 == 0 {
			must(b, gitfixture.WriteFile(dir, p, "changed in a commit\n"))
		}
	}
	_, err = gitfixture.Commit(dir, "change some", "B", "b@x", t0.Add(time.Hour))
	must(b, err)
	for i, p := range paths {
		if i%20 == 0 {
			must(b, gitfixture.WriteFile(dir, p, "edited, not committed\n"))
		}
	}
	return open(b, dir), Commit{Hash: base}, paths
}

// BenchmarkCompare300 compares 300 paths in repositories of 2,000 and
// 20,000 files: the cost per operation follows the paths, not the size.
// "cold" opens the repository each time (no object cache).
func BenchmarkCompare300(b *testing.B) {
	for _, n := range []int{2000, 20000} {
		r, base, paths := benchRepo(b, n)
		b.Run(fmt.Sprintf("files=%d/warm", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := r.Compare(base, paths); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("files=%d/cold", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				r2, err := Open(r.Root())
				if err != nil {
					b.Fatal(err)
				}
				if _, err := r2.Compare(base, paths); err != nil {
					b.Fatal(err)
				}
				if err := r2.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("files=%d/commits-touching", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := r.CommitsTouching(base, paths, 5); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestCommitsTouchingNetChange checks that the walk reports a path's net
// change since base: it stops following a path at the first commit (walking
// back) where the path is as in base.
func TestCommitsTouchingNetChange(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	must(t, gitfixture.Init(dir))
	at := func(i int) time.Time { return t0.Add(time.Duration(i) * time.Minute) }
	step := func(i int, files map[string]string, removed ...string) string {
		t.Helper()
		var paths []string
		for p, content := range files {
			must(t, gitfixture.WriteFile(dir, p, content))
			paths = append(paths, p)
		}
		for _, p := range removed {
			must(t, gitfixture.Remove(dir, p))
			paths = append(paths, p)
		}
		h, err := gitfixture.Commit(dir, fmt.Sprintf("step %d", i), "A", "a@x", at(i), paths...)
		must(t, err)
		return h
	}
	base := step(0, map[string]string{"once": "0", "twice": "0", "reverted": "0", "again": "0", "gone": "0", "dir/x": "0"})
	side := step(1, map[string]string{"once": "side"}) // a commit off the chain
	must(t, gitfixture.ResetBranch(dir, base))
	c1 := step(2, map[string]string{"once": "1", "twice": "1", "reverted": "1", "again": "1", "new": "1", "dir/x": "1"})
	c2 := step(3, map[string]string{"twice": "2", "reverted": "0", "again": "0", "dir/x": "0"}, "gone")
	c3 := step(4, map[string]string{"again": "2"})
	r := open(t, dir)
	paths := []string{"once", "twice", "reverted", "again", "new", "gone", "dir", "dir/x", "never"}
	tests := []struct {
		name  string
		base  string
		limit int
		want  map[string][]string
	}{
		{"net change since base", base, 0, map[string][]string{
			"once":  {c1},
			"twice": {c2, c1},
			"again": {c3}, // edited, restored in c2, edited again: c3 only
			"new":   {c1},
			"gone":  {c2},
			// reverted, dir and dir/x are as in base: no commits
		}},
		{"limit", base, 1, map[string][]string{
			"once": {c1}, "twice": {c2}, "again": {c3}, "new": {c1}, "gone": {c2},
		}},
		{"base not on the chain", side, 0, map[string][]string{
			// once differs from the side commit's all the way to the root;
			// the others are as in the side commit from HEAD on, except
			// those HEAD changed since the root.
			"once":  {c1, base},
			"twice": {c2, c1},
			"again": {c3},
			"new":   {c1},
			"gone":  {c2},
		}},
		{"base not a commit", strings.Repeat("0", 40), 0, map[string][]string{
			"once":     {c1, base},
			"twice":    {c2, c1, base},
			"reverted": {c2, c1, base},
			"again":    {c3, c2, c1, base},
			"new":      {c1},
			"gone":     {c2, base},
			"dir":      {c2, c1, base},
			"dir/x":    {c2, c1, base},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := r.CommitsTouching(Commit{Hash: tt.base}, paths, tt.limit)
			must(t, err)
			if g := hashMap(got); !reflect.DeepEqual(g, tt.want) {
				t.Errorf("got  %v\nwant %v", g, tt.want)
			}
		})
	}
}

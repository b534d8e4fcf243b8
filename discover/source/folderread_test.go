package source_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/config"
)

// TestReadParseInAsReadWithTime: a file read through its folder's
// descriptor gives what r.ReadWithTime gives (bytes, time, error), for a
// regular file, a larger one than the buffer, a symlink inside and one out
// of the repository, a FIFO (never waited on), a binary file, a file over
// the size limit, a missing file and a folder; with the folder nil too.
func TestReadParseInAsReadWithTime(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join(root, "specs", "a")
	must(os.MkdirAll(filepath.Join(dir, "sub"), 0o755))
	must(os.WriteFile(filepath.Join(dir, "small.md"), []byte("- [ ] 1. small\n"), 0o644))
	must(os.WriteFile(filepath.Join(dir, "large.md"), bytes.Repeat([]byte("- [x] 1. large line\n"), 5000), 0o644))
	must(os.WriteFile(filepath.Join(dir, "binary.md"), []byte("a\x00b"), 0o644))
	must(os.WriteFile(filepath.Join(dir, "huge.md"), bytes.Repeat([]byte("x"), 4096), 0o644))
	must(os.Symlink("small.md", filepath.Join(dir, "in.md")))
	must(os.WriteFile(filepath.Join(outside, "secret"), []byte("secret\n"), 0o644))
	must(os.Symlink(filepath.Join(outside, "secret"), filepath.Join(dir, "out.md")))
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.md"), 0o644); err != nil {
		t.Skip("no FIFO:", err)
	}
	cfg := config.Default()
	cfg.MaxFileSize = 2048
	r, _ := source.NewRepo(root, cfg)
	d := source.NewFolders(root).OpenFolder("specs/a")
	if d == nil {
		t.Fatal("folder not opened")
	}
	defer d.Close()
	for _, name := range []string{"small.md", "large.md", "binary.md", "huge.md", "in.md", "out.md", "fifo.md", "missing.md", "sub"} {
		p := "specs/a/" + name
		wantData, wantTime, wantErr := r.ReadWithTime(p)
		for _, folder := range []bool{true, false} {
			dd := d
			if !folder {
				dd = nil
			}
			for round := 0; round < 2; round++ { // the second with a reused buffer
				done := make(chan struct{})
				var got string
				var mt time.Time
				var err error
				go func() {
					defer close(done)
					got, mt, err = source.ReadParseIn(r, dd, p, func(b []byte) string { return string(b) })
				}()
				select {
				case <-done:
				case <-time.After(10 * time.Second):
					t.Fatalf("%s: the read hangs", p)
				}
				if got != string(wantData) || !mt.Equal(wantTime) || (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
					t.Errorf("%s (folder %v): got %q %v %v, want %q %v %v", p, folder, clip(got), mt, err, clip(string(wantData)), wantTime, wantErr)
				}
			}
		}
	}
}

// clip shortens a long text for a message.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// TestReadRegularInBudget: a file read through its folder draws its
// elements from the scan's budget as r.Read does, and past the budget is
// refused with the budget's error (done, as r.ReadWithTime refuses it); the
// buffer given grows to a larger file and is reused for a smaller one.
func TestReadRegularInBudget(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "c"), 0o755); err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("- [ ] a, b, c\n", 400)
	for name, text := range map[string]string{"big.md": big, "small.md": "x\n"} {
		if err := os.WriteFile(filepath.Join(root, "c", name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, _ := source.NewRepo(root, config.Default())
	d := source.NewFolders(root).OpenFolder("c")
	defer d.Close()
	bp := new([]byte)
	data, _, done, err := source.ReadRegularIn(r, d, "c/big.md", bp)
	if !done || err != nil || string(data) != big || cap(*bp) < len(big) {
		t.Fatalf("big: done %v err %v len %d cap %d", done, err, len(data), cap(*bp))
	}
	before := cap(*bp)
	data, _, done, err = source.ReadRegularIn(r, d, "c/small.md", bp)
	if !done || err != nil || string(data) != "x\n" || cap(*bp) != before || &data[:1][0] != &(*bp)[:1][0] {
		t.Fatalf("small: done %v err %v %q, buffer not reused", done, err, data)
	}
	// a budget smaller than big.md's elements: refused, as r.Read refuses it
	r.BeginBudget(10)
	_, _, done, err = source.ReadRegularIn(r, d, "c/big.md", bp)
	r.EndBudget()
	r.BeginBudget(10)
	_, wantErr := r.Read("c/big.md")
	r.EndBudget()
	if !done || err == nil || wantErr == nil || err.Error() != wantErr.Error() {
		t.Fatalf("past the budget: done %v err %v, r.Read: %v", done, err, wantErr)
	}
	// no folder: not done, nothing read
	if _, _, done, err := source.ReadRegularIn(r, nil, "c/small.md", bp); done || err != nil {
		t.Fatalf("nil folder: done %v err %v", done, err)
	}
	var nilFolders *source.Folders
	if nilFolders.OpenFolder("c") != nil {
		t.Fatal("a nil Folders opened a folder")
	}
}

package story

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/config"
)

// TestStoryReadFileSameAsRepo: a scan without the cache reads a story by
// its name in its open folder (storyReader.readFile), and gives what
// Repo.ReadWithTime gives for every file, hostile ones included (symbolic
// links to files and folders, inside and out, a FIFO, a folder, too big,
// binary, missing, a path leaving the repository), in any order of
// folders; the plain stories are read through the folders.
func TestStoryReadFileSameAsRepo(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	storyWrite(t, dir, map[string]string{
		"docs/stories/1.1.plain.md":   "# Story 1.1: Plain\n\n**Status:** Done\n",
		"docs/stories/a/2.1.deep.md":  "# Story 2.1: Deep\n\n**Status:** InProgress\n",
		"docs/stories/a/b/2.2.md":     "# Story 2.2: Deeper\n\n**Status:** Draft\n",
		"docs/stories/empty.md":       "",
		"docs/other/1.2.target.md":    "# Story 1.2: Target\n\n**Status:** InProgress\n",
		"docs/real/1.4.in-linked.md":  "# Story 1.4: Linked folder\n\n**Status:** Done\n",
		"docs/stories/1.6.big.md":     "# Story 1.6: Big\n\n" + strings.Repeat("x", 4096) + "\n",
		"docs/stories/1.7.binary.md":  "# Story 1.7: Bin\n\x00\n",
		"docs/stories/dir.md/keep.md": "x",
	})
	storyWrite(t, outside, map[string]string{"1.3.out.md": "# Story 1.3: Out\n"})
	for name, target := range map[string]string{
		"docs/stories/1.2.link.md": "../other/1.2.target.md",
		"docs/stories/1.3.out.md":  filepath.Join(outside, "1.3.out.md"),
		"docs/stories/epic":        "../real",
		"docs/stories/broken.md":   "nowhere.md",
	} {
		if err := os.Symlink(target, filepath.Join(dir, filepath.FromSlash(name))); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "docs", "stories", "1.5.fifo.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	paths := []string{
		"docs/stories/1.1.plain.md", "docs/stories/a/2.1.deep.md", "docs/stories/empty.md", "docs/stories/a/b/2.2.md",
		"docs/stories/1.2.link.md", "docs/stories/a/2.1.deep.md", "docs/stories/1.3.out.md", "docs/stories/epic/1.4.in-linked.md",
		"docs/stories/1.5.fifo.md", "docs/stories/1.6.big.md", "docs/stories/1.7.binary.md", "docs/stories/broken.md",
		"docs/stories/dir.md", "docs/stories/9.9.missing.md", "docs/missing/1.1.md", "docs/../x.md", "../x.md",
		"docs/stories/1.1.plain.md", "docs/other/1.2.target.md",
	}
	cfg := config.Default()
	cfg.MaxFileSize = 2048
	r, _ := source.NewRepo(dir, cfg)
	want, _ := source.NewRepo(dir, cfg)
	rd := newStoryReader(r, nil)
	defer rd.done()
	for _, p := range paths {
		d, name := rd.dirs.folder(p)
		data, mtime, err := rd.readFile(d, name, p)
		wdata, wmtime, werr := want.ReadWithTime(p)
		if !bytes.Equal(data, wdata) || !mtime.Equal(wmtime) || fmt.Sprint(err) != fmt.Sprint(werr) {
			t.Errorf("%s: read %q %v %v, want %q %v %v", p, data, mtime, err, wdata, wmtime, werr)
		}
		if p == "docs/stories/a/b/2.2.md" && (rd.dirs.cur == nil || rd.dirs.curRel != "docs/stories/a/b") {
			t.Errorf("%s: not read through its folder (%q)", p, rd.dirs.curRel)
		}
	}
}

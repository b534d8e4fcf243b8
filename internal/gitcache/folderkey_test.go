package gitcache

import (
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// TestFolderKey: a folder verdict's key changes with the folder, its tree,
// any path below it and any field of any stat data, and is never a file's
// key of the same path and stat data.
func TestFolderKey(t *testing.T) {
	st := FileStat{Dev: 1, Ino: 2, Mode: 0o40755, Size: 4096, Mtime: time.Unix(100, 5), Ctime: time.Unix(200, 6)}
	h := plumbing.NewHash("0123456789abcdef0123456789abcdef01234567")
	base := []FolderStat{{Rel: "", St: st}, {Rel: "a", St: st}}
	k := FolderKey("f", h, base)
	if k != FolderKey("f", h, []FolderStat{{Rel: "", St: st}, {Rel: "a", St: st}}) {
		t.Fatal("the same folder gives another key")
	}
	h2 := h
	h2[0] ^= 1
	mods := map[string]func(s *FileStat){
		"dev": func(s *FileStat) { s.Dev++ }, "ino": func(s *FileStat) { s.Ino++ }, "mode": func(s *FileStat) { s.Mode++ },
		"size": func(s *FileStat) { s.Size++ }, "mtime": func(s *FileStat) { s.Mtime = s.Mtime.Add(1) },
		"ctime": func(s *FileStat) { s.Ctime = s.Ctime.Add(1) },
	}
	others := map[string]HashKey{
		"path": FolderKey("g", h, base), "tree": FolderKey("f", h2, base),
		"rel":       FolderKey("f", h, []FolderStat{{Rel: "", St: st}, {Rel: "b", St: st}}),
		"one fewer": FolderKey("f", h, base[:1]),
		"file key":  WorktreeKey("f", st),
	}
	for name, m := range mods {
		s2 := st
		m(&s2)
		others[name] = FolderKey("f", h, []FolderStat{{Rel: "", St: st}, {Rel: "a", St: s2}})
	}
	for name, o := range others {
		if o == k {
			t.Errorf("%s: the same key", name)
		}
	}
}

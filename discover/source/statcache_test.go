package source

import (
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/safefile"
)

// TestStatCacheKeyNamesEveryField checks that changing any one field of
// the stat data, the path or the salt gives another key, and that the same
// inputs give the same key with or without a scratch buffer.
func TestStatCacheKeyNamesEveryField(t *testing.T) {
	salt := StatCacheSalt("test", 1)
	base := safefile.FileStat{Dev: 1, Ino: 2, Mode: 0o100644, Size: 3, Mtime: time.Unix(4, 5), Ctime: time.Unix(6, 7)}
	var scratch []byte
	k0 := StatCacheKey(salt, "a/b.md", base, &scratch)
	if k0 != StatCacheKey(salt, "a/b.md", base, nil) {
		t.Fatal("the scratch buffer changes the key")
	}
	change := []func(*safefile.FileStat){
		func(f *safefile.FileStat) { f.Dev++ },
		func(f *safefile.FileStat) { f.Ino++ },
		func(f *safefile.FileStat) { f.Mode++ },
		func(f *safefile.FileStat) { f.Size++ },
		func(f *safefile.FileStat) { f.Mtime = f.Mtime.Add(time.Nanosecond) },
		func(f *safefile.FileStat) { f.Ctime = f.Ctime.Add(time.Nanosecond) },
	}
	for i, ch := range change {
		fs := base
		ch(&fs)
		if StatCacheKey(salt, "a/b.md", fs, &scratch) == k0 {
			t.Errorf("change %d of the stat data keeps the key", i)
		}
	}
	if StatCacheKey(salt, "a/c.md", base, nil) == k0 {
		t.Error("another path keeps the key")
	}
	for _, other := range [][32]byte{StatCacheSalt("test", 2), StatCacheSalt("other", 1), StatCacheSalt("test", 1, "InReview")} {
		if StatCacheKey(other, "a/b.md", base, nil) == k0 {
			t.Error("another salt keeps the key")
		}
	}
	if StatCacheSalt("test", 1, "ab", "c") == StatCacheSalt("test", 1, "a", "bc") {
		t.Error("the salt's extra strings are not delimited")
	}
}

func TestStatCacheStorable(t *testing.T) {
	now := time.Unix(1000, 0)
	for _, tt := range []struct {
		m, c int64
		want bool
	}{{990, 990, true}, {998, 990, true}, {999, 990, false}, {990, 999, false}, {1001, 990, false}} {
		fs := safefile.FileStat{Mtime: time.Unix(tt.m, 0), Ctime: time.Unix(tt.c, 0)}
		if got := StatCacheStorable(now, fs); got != tt.want {
			t.Errorf("mtime %d, ctime %d at 1000: storable %v, want %v", tt.m, tt.c, got, tt.want)
		}
	}
}

//go:build unix

package story

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
	"github.com/orchestrate-dev/orchestrate/internal/safefile"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// TestStoryWalkPattern: only one pattern of a literal folder, "**" and a
// file name pattern takes the one-pass walk.
func TestStoryWalkPattern(t *testing.T) {
	for _, tc := range []struct {
		pats       []string
		base, name string
		ok         bool
	}{
		{[]string{"docs/stories/**/*.md"}, "docs/stories", "*.md", true},
		{[]string{"/docs//stories/./**/*.md"}, "docs/stories", "*.md", true},
		{[]string{"**/*.story.md"}, "", "*.story.md", true},
		{[]string{"docs/stories/**/*.md", "stories/**/*.md"}, "", "", false},
		{[]string{"docs/stories/*.md"}, "", "", false},
		{[]string{"docs/*/**/*.md"}, "", "", false},
		{[]string{"docs/**/x/*.md"}, "", "", false},
		{[]string{"docs/**/story.md"}, "", "", false},
		{[]string{"docs/**/**"}, "", "", false},
		{[]string{`docs\stories/**/*.md`}, "", "", false},
		{[]string{"docs/**/[.md"}, "", "", false},
		{nil, "", "", false},
	} {
		base, name, ok := storyWalkPattern(tc.pats)
		if base != tc.base || name != tc.name || ok != tc.ok {
			t.Errorf("storyWalkPattern(%q) = %q, %q, %v; want %q, %q, %v", tc.pats, base, name, ok, tc.base, tc.name, tc.ok)
		}
	}
}

// TestStoryWalk: the one-pass walk finds the paths storyGlob finds, in the
// same order, and gives each the story storyReadAll gives it, without a
// cache, with a cold one and with a warm one, on a tree of every kind of
// entry: stories in the start folder and in folders at several depths
// (more than one share of the start folder's files, folders sorting
// between them: "a-b.md" < "a-b/…" < "a.md" < "a/…"), spec folders left
// out at any depth, .git never entered, symbolic links to files, folders
// and nowhere (matched by name, reported by the reader), a FIFO and a
// folder named like a story (not matched), files the pattern does not
// match, an empty folder.
func TestStoryWalk(t *testing.T) {
	storyCacheLater(t)
	dir := t.TempDir()
	files := map[string]string{
		"docs/stories/a.md":                "# Story 1.1: A\n\n**Status:** Done\n",
		"docs/stories/a-b.md":              "# Story 1.2: AB\n\n**Status:** InProgress\n",
		"docs/stories/a/2.1.x.md":          "# Story 2.1: X\n\n**Status:** Draft\n",
		"docs/stories/a/b/c/2.2.deep.md":   "# Story 2.2: Deep\n\n**Status:** InReview\n",
		"docs/stories/a-b/3.1.md":          "# Story 3.1: Dash\n\n**Status:** Done\n",
		"docs/stories/spec/4.1.md":         "# Story 4.1: In spec\n\n**Status:** Done\n",
		"docs/stories/a/spec/4.2.md":       "# Story 4.2: In spec\n\n**Status:** Done\n",
		"docs/stories/spec.md":             "# Story 4.3: Named spec\n\n**Status:** Done\n",
		"docs/stories/.git/4.4.md":         "# Story 4.4: In .git\n\n**Status:** Done\n",
		"docs/stories/a/.git/4.5.md":       "# Story 4.5: In .git\n\n**Status:** Done\n",
		"docs/stories/README.md":           "# Stories\n\nAn index.\n",
		"docs/stories/notes.txt":           "# Story 5.1: not md\n\n**Status:** Done\n",
		"docs/stories/z.md/5.2.md":         "# Story 5.2: In a folder named z.md\n\n**Status:** Done\n",
		"docs/stories/empty/.keep":         "",
		"docs/other/6.1.md":                "# Story 6.1: Elsewhere\n\n**Status:** Done\n",
		"outside/7.1.md":                   "# Story 7.1: Outside\n\n**Status:** Done\n",
		"docs/stories/epic-9/9.1.story.md": "# Story 9.1: Suffix\n\n**Status:** Done\n",
	}
	for i := range 300 { // more than two shares of the start folder's files
		files[fmt.Sprintf("docs/stories/%04d.md", i)] = fmt.Sprintf("# Story 8.%d: Many\n\n**Status:** Done\n", i)
	}
	for i := range 3 { // folders sorting among them
		files[fmt.Sprintf("docs/stories/%04d/8.%d.md", i*100+50, 1000+i)] = fmt.Sprintf("# Story 8.%d: Folder\n\n**Status:** Done\n", 1000+i)
	}
	storyWrite(t, dir, files)
	stories := filepath.Join(dir, "docs", "stories")
	for name, target := range map[string]string{
		"filelink.md":   "a.md",
		"dirlink.md":    "a",
		"outlink.md":    "../../outside/7.1.md",
		"brokenlink.md": "nowhere.md",
		"a/link":        "../a",
	} {
		if err := os.Symlink(target, filepath.Join(stories, filepath.FromSlash(name))); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("docs/stories", filepath.Join(dir, "storylink")); err != nil {
		t.Fatal(err)
	}
	// a symlink on the way to the start folder: listed by its path, its
	// stories read the usual way (which follows it inside the repository)
	if err := os.Symlink("docs", filepath.Join(dir, "docslink")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(stories, "fifo.md"), 0o644); err != nil {
		t.Fatal(err)
	}

	type result struct {
		paths    []string
		out      []*workflow.Story
		readable []bool
	}
	scan := func(pat string, c *diskcache.Cache, walk bool) result {
		r, _ := source.NewRepo(dir, config.Default())
		r.Cache = c
		sc := make(chan *storyCache, 1)
		sc <- openStoryCache(r)
		var res result
		if walk {
			base, name, ok := storyWalkPattern([]string{pat})
			if !ok {
				t.Fatalf("%s: not a walk pattern", pat)
			}
			res.paths, res.out, res.readable = storyWalk(r, base, name, sc)
		} else {
			res.paths = storyGlob(dir, []string{pat})
			res.out, res.readable = storyReadAll(r, res.paths, <-sc)
		}
		return res
	}
	for _, pat := range []string{"docs/stories/**/*.md", "**/*.md", "docs/stories/**/*.story.md", "docs/stories/**/[0-9]*.md",
		"docs/missing/**/*.md", "storylink/**/*.md", "docs/stories/a.md/**/*.md", "docslink/stories/**/*.md"} {
		want := scan(pat, nil, false)
		if (pat == "docs/stories/**/*.md" || pat == "docslink/stories/**/*.md") && len(want.paths) < 310 {
			t.Fatalf("%s: the glob found only %d paths", pat, len(want.paths))
		}
		c := diskcache.New(filepath.Join(t.TempDir(), "cache"))
		for _, run := range []struct {
			what string
			c    *diskcache.Cache
		}{{"off", nil}, {"cold", c}, {"warm", c}} {
			got := scan(pat, run.c, true)
			if !reflect.DeepEqual(got.paths, want.paths) {
				t.Fatalf("%s, %s: the walk found\n%q\nthe glob\n%q", pat, run.what, got.paths, want.paths)
			}
			if !reflect.DeepEqual(got.readable, want.readable) {
				t.Errorf("%s, %s: readable %v, want %v", pat, run.what, got.readable, want.readable)
			}
			for i := range want.out {
				if !reflect.DeepEqual(got.out[i], want.out[i]) {
					t.Errorf("%s, %s: %s is\n%+v\nwant\n%+v", pat, run.what, want.paths[i], got.out[i], want.out[i])
				}
			}
		}
	}
}

// TestStoryWalkMatch: the suffix shortcut of "*LIT" agrees with path.Match.
func TestStoryWalkMatch(t *testing.T) {
	names := []string{"a.md", ".md", "md", "a.md.bak", "a.MD", "x.story.md", "", "*.md", "a\\.md", "日本.md"}
	for _, pat := range []string{"*.md", "*md", "*.story.md", "*", "*.m?", "*[.]md", "a*.md"} {
		for _, n := range names {
			want, err := path.Match(pat, n)
			want = want && err == nil
			if got := storyWalkMatch(pat, n, 0); got != want {
				t.Errorf("storyWalkMatch(%q, %q) = %v, path.Match says %v", pat, n, got, want)
			}
		}
	}
	if storyWalkMatch("*.md", "a.md", os.ModeNamedPipe) || storyWalkMatch("*.md", "a.md", os.ModeDir) {
		t.Error("a FIFO or a folder matched")
	}
	if !storyWalkMatch("*.md", "a.md", os.ModeSymlink) {
		t.Error("a symbolic link did not match")
	}
}

// TestStoryWalkSameAsGlobOn is TestStoryWalk's comparison (cache off) on
// the repository named by STORY_WALK_DIFF_DIR (the bench's stories or
// specs shape, say), with its configured story pattern; skipped without it.
func TestStoryWalkSameAsGlobOn(t *testing.T) {
	dir := os.Getenv("STORY_WALK_DIFF_DIR")
	if dir == "" {
		t.Skip("STORY_WALK_DIFF_DIR is not set")
	}
	pats := config.Default().Sources.Stories
	base, name, ok := storyWalkPattern(pats)
	if !ok {
		t.Fatalf("%q: not a walk pattern", pats)
	}
	r, _ := source.NewRepo(dir, config.Default())
	sc := make(chan *storyCache, 1)
	sc <- nil
	paths, out, readable := storyWalk(r, base, name, sc)
	r2, _ := source.NewRepo(dir, config.Default())
	wpaths := storyGlob(dir, pats)
	wout, wreadable := storyReadAll(r2, wpaths, nil)
	if !reflect.DeepEqual(paths, wpaths) || !reflect.DeepEqual(readable, wreadable) {
		t.Fatalf("the walk found %d paths, the glob %d", len(paths), len(wpaths))
	}
	for i := range wout {
		if !reflect.DeepEqual(out[i], wout[i]) {
			t.Errorf("%s is\n%+v\nwant\n%+v", paths[i], out[i], wout[i])
		}
	}
	t.Logf("%d paths, the same stories", len(paths))
}

// BenchmarkStoryWalkOn measures the story walk (cache off) of the
// repository named by STORY_WALK_DIFF_DIR (the bench's stories shape, say);
// skipped without it. Run it with -cpu 1 for one processor's cost.
func BenchmarkStoryWalkOn(b *testing.B) {
	dir := os.Getenv("STORY_WALK_DIFF_DIR")
	if dir == "" {
		b.Skip("STORY_WALK_DIFF_DIR is not set")
	}
	base, name, ok := storyWalkPattern(config.Default().Sources.Stories)
	if !ok {
		b.Fatal("not a walk pattern")
	}
	for b.Loop() {
		r, _ := source.NewRepo(dir, config.Default())
		sc := make(chan *storyCache, 1)
		sc <- nil
		paths, _, _ := storyWalk(r, base, name, sc)
		if len(paths) == 0 {
			b.Fatal("no stories")
		}
	}
}

// TestStoryWalkPathMax: a folder whose path reaches PATH_MAX is not entered
// by the walk, as the glob (which opens folders by their full path) cannot
// enter it: a story just above that depth is found by both, one below it
// by neither, and the walk ends.
func TestStoryWalkPathMax(t *testing.T) {
	dir := t.TempDir()
	seg := strings.Repeat("d", 200)
	rel := "docs/stories"
	var near, deep string
	for len(dir)+1+len(rel) < storyMaxPath+400 {
		rel += "/" + seg
		if len(dir)+1+len(rel)+len("/1.1.near.md") < storyMaxPath-200 {
			near = rel
		}
	}
	deep = rel
	if err := safefile.MkdirAllConfined(dir, deep); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{near + "/1.1.near.md", deep + "/1.2.deep.md"} {
		f, err := safefile.OpenConfined(dir, p, os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString("# Story 1.1: Deep\n\n**Status:** InProgress\n"); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	r, _ := source.NewRepo(dir, config.Default())
	sc := make(chan *storyCache, 1)
	sc <- nil
	paths, _, _ := storyWalk(r, "docs/stories", "*.md", sc)
	want := storyGlob(dir, []string{"docs/stories/**/*.md"})
	if !reflect.DeepEqual(paths, want) || len(paths) != 1 || paths[0] != near+"/1.1.near.md" {
		t.Errorf("the walk found %d paths, the glob %d; want the near story only", len(paths), len(want))
	}
}

package gitrepo

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
	"github.com/orchestrate-dev/orchestrate/internal/gitobj"
)

// parRepo is a repository for the concurrent Compare test: commits that
// edit, delete and add files (each commit a base), then uncommitted edits,
// deletions and an untracked file in the work tree. asked is every kind of
// path: unchanged, committed, uncommitted, deleted, added, absent, a folder.
func parRepo(t *testing.T) (dir string, bases []Commit, asked []string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir = t.TempDir()
	g := func(args ...string) {
		runGit(t, dir, append([]string{"-c", "user.name=A", "-c", "user.email=a@x"}, args...)...)
	}
	g("init", "-q")
	var files []string
	for i := 0; i < gitobj.MinIndexPaths+16; i++ {
		p := fmt.Sprintf("d%d/s%d/f%02d.txt", i%4, i%3, i)
		must(t, os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755))
		must(t, os.WriteFile(filepath.Join(dir, p), []byte(fmt.Sprint("v0 ", i, "\n")), 0o644))
		files = append(files, p)
	}
	head := func() Commit {
		out, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
		must(t, err)
		h := strings.TrimSpace(string(out))
		return Commit{Hash: h, Short: h[:7]}
	}
	g("add", "-A")
	g("commit", "-qm", "import")
	bases = append(bases, head())
	for step := 1; step <= 4; step++ {
		for i := step; i < len(files); i += 5 + step {
			must(t, os.WriteFile(filepath.Join(dir, files[i]), []byte(fmt.Sprint("v", step, " ", i, "\n")), 0o644))
		}
		must(t, os.Remove(filepath.Join(dir, files[10*step])))
		p := fmt.Sprintf("d%d/new%d.txt", step%4, step)
		must(t, os.WriteFile(filepath.Join(dir, p), []byte("new\n"), 0o644))
		files = append(files, p)
		g("add", "-A")
		g("commit", "-qm", fmt.Sprint("step ", step))
		bases = append(bases, head())
	}
	// the work tree after HEAD: edits, a deletion, an untracked file
	for i := 3; i < len(files); i += 7 {
		if _, err := os.Lstat(filepath.Join(dir, files[i])); err == nil {
			must(t, os.WriteFile(filepath.Join(dir, files[i]), []byte("uncommitted\n"), 0o644))
		}
	}
	must(t, os.Remove(filepath.Join(dir, files[2])))
	must(t, os.WriteFile(filepath.Join(dir, "d0/untracked.txt"), []byte("u\n"), 0o644))
	asked = append([]string{"d0/untracked.txt", "nowhere.txt", "d1", "d2/s2"}, files...)
	return dir, bases, asked
}

// CompareWith called from several goroutines at once (CompareOptions.Serial
// given), on one Repo with one History and one Index, beside other calls
// on the Repo made under the same lock (CommitsTouching, LastChange, the
// index read through IndexLater during the History walk), gives every
// base the answer a Repo of its own gives asked alone: committed,
// uncommitted, deleted and added files, with shared bases, with and without
// the History and the Index, cache off and on. Run under -race (make test).
func TestCompareWithConcurrent(t *testing.T) {
	t.Parallel()
	dir, bases, asked := parRepo(t)
	ref := open(t, dir)
	want := make([][]PathState, len(bases))
	for i, b := range bases {
		var err error
		want[i], err = ref.Compare(b, asked)
		must(t, err)
	}
	changed := 0
	for _, st := range want[0] {
		if st.Committed {
			changed++
		}
	}
	if changed == 0 {
		t.Fatal("the fixture has no committed change since its first base")
	}
	cache := diskcache.New(t.TempDir())
	for _, name := range []string{"off", "cache", "cache again"} {
		r := open(t, dir)
		if name != "off" {
			r.UseCache(cache)
		}
		var mu sync.Mutex
		var wg sync.WaitGroup
		errs := make(chan string, 64)
		check := func(i int, o CompareOptions, what string) bool {
			got, err := r.CompareWith(bases[i], asked, o)
			if err != nil {
				errs <- fmt.Sprintf("%s: Compare at base %d (%s): %v", name, i, what, err)
				return false
			}
			if !reflect.DeepEqual(got, want[i]) {
				errs <- fmt.Sprintf("%s: Compare at base %d (%s):\n%+v\nwant\n%+v", name, i, what, got, want[i])
				return false
			}
			return true
		}
		// the workers start on a Repo that has read nothing (its commits'
		// links, HEAD and trees read while the History is walked), then
		// take the History and the Index
		ready := make(chan []CompareOptions)
		for w := 0; w < 6; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if !check(w%len(bases), CompareOptions{Serial: &mu}, "before the History") {
					return
				}
				opts := <-ready
				for k := 0; k < 3*len(bases); k++ {
					i := (w + k) % len(bases) // every base asked by several goroutines
					o := (w + k/len(bases)) % len(opts)
					if !check(i, opts[o], fmt.Sprint("options ", o)) {
						return
					}
				}
			}()
		}
		// the index read beside the History walk, as the validations' run does
		mu.Lock()
		read := r.IndexLater()
		mu.Unlock()
		idxc := make(chan *Index, 1)
		go func() { idxc <- read(asked, len(asked)*len(bases)) }()
		mu.Lock()
		hist := r.HistoryFor(bases, asked[len(asked)/3:], 0) // not every path: the rest from the trees
		mu.Unlock()
		idx := <-idxc
		if hist == nil || idx == nil || idx.heads == nil {
			t.Fatalf("%s: History %v, Index %v (HEAD's blobs %v)", name, hist != nil, idx != nil, idx != nil && idx.heads != nil)
		}
		opts := []CompareOptions{
			{History: hist, Index: idx, Serial: &mu},
			{History: hist, Serial: &mu},
			{Index: idx, Serial: &mu},
			{Serial: &mu},
		}
		for w := 0; w < 6; w++ {
			ready <- opts
		}
		// other questions to the Repo, under the same lock, meanwhile
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; k < 2*len(bases); k++ {
				mu.Lock()
				_, err := r.CommitsTouching(bases[k%len(bases)], asked, 0)
				r.LastChange(asked[:8], 0)
				mu.Unlock()
				if err != nil {
					errs <- fmt.Sprintf("%s: CommitsTouching: %v", name, err)
					return
				}
			}
		}()
		wg.Wait()
		close(errs)
		for e := range errs {
			t.Error(e)
		}
		if name != "off" {
			must(t, r.SaveCache())
		}
	}
}

package loaded

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing/format/index"

	"github.com/orchestrate-dev/orchestrate/handoff"
	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
	"github.com/orchestrate-dev/orchestrate/internal/gitfixture"
	"github.com/orchestrate-dev/orchestrate/validate"
)

// memoRepo is a repository for the verdict memo's tests: workflows that
// share referenced files and stories, saved at different commits, with
// committed and uncommitted changes since.
type memoRepo struct {
	t      *testing.T
	root   string
	t0     time.Time
	hashes []string // the commits made, oldest first
	// lists has status validate with the file and story lists, as resume
	// does (their memos are kept under keys of their own)
	lists bool
}

// memoFiles is how many source files a memoRepo holds.
const memoFiles = 80

func newMemoRepo(t *testing.T) *memoRepo {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := gitfixture.Init(root); err != nil {
		t.Fatal(err)
	}
	r := &memoRepo{t: t, root: root, t0: time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)}
	var all []string
	for f := 0; f < memoFiles; f++ {
		p := fmt.Sprintf("src/p%d/f%02d.go", f%3, f)
		all = append(all, p)
		r.write(p, fmt.Sprintf("package p\n// %d\n", f))
	}
	for s := 1; s <= 2; s++ {
		p := fmt.Sprintf("docs/stories/%d.1.story.md", s)
		all = append(all, p)
		r.write(p, fmt.Sprintf("# Story %d.1: S\n\n## Status\nIn Progress\n\n## Acceptance Criteria\n1. works\n\n## Tasks\n- [x] a\n- [ ] b\n", s))
	}
	r.commit("ann", all...)
	for i := 1; i <= 4; i++ {
		var refs []string
		// enough paths for Compare to read the index
		for k := 0; k < memoFiles-10; k++ {
			refs = append(refs, "  - "+all[(i*2+k)%memoFiles])
		}
		r.write(r.state(i), fmt.Sprintf("execution_id: sdc-%02d\nworkflow: story-development-cycle\nstory: \"%d.1\"\nupdated_at: %s\ncurrent_phase: implement\nstatus: interrupted\nfiles:\n%s\n",
			i, i%2+1, r.t0.Add(time.Duration(i)*time.Hour+30*time.Minute).Format(time.RFC3339), strings.Join(refs, "\n")))
		r.commit([]string{"bob", "carol"}[i%2], r.state(i), all[(i*5)%memoFiles])
		r.write(all[(i*5)%memoFiles], fmt.Sprintf("package p\n// edit %d\n", i))
	}
	r.commit("dave", all[:memoFiles]...)
	r.write(all[3], "package p\n// uncommitted\n")
	old := time.Now().Add(-time.Minute) // not racily clean: older than any index written later
	if err := os.Chtimes(r.abs(all[3]), old, old); err != nil {
		t.Fatal(err)
	}
	// a workflow whose story has no file yet
	r.write(r.state(5), fmt.Sprintf("execution_id: sdc-05\nworkflow: story-development-cycle\nstory: \"3.1\"\nupdated_at: %s\ncurrent_phase: implement\nstatus: interrupted\nfiles:\n  - %s\n",
		r.t0.Add(20*time.Hour).Format(time.RFC3339), all[7]))
	r.write("docs/stories/epic3/notes.md", "notes\n")
	// the locks folder, empty: a lock taken there changes no folder of a read set
	if err := os.MkdirAll(r.abs(".orchestrate/locks"), 0o755); err != nil {
		r.t.Fatal(err)
	}
	return r
}

func (r *memoRepo) state(i int) string { return fmt.Sprintf(".orchestrate/workflows/sdc-%02d.yaml", i) }

func (r *memoRepo) write(rel, content string) {
	r.t.Helper()
	if err := gitfixture.WriteFile(r.root, rel, content); err != nil {
		r.t.Fatal(err)
	}
}

func (r *memoRepo) commit(who string, paths ...string) {
	r.t.Helper()
	n := len(r.hashes) + 1
	h, err := gitfixture.Commit(r.root, fmt.Sprintf("commit %d", n), who, who+"@example.com", r.t0.Add(time.Duration(n)*time.Hour), paths...)
	if err != nil {
		r.t.Fatal(err)
	}
	r.hashes = append(r.hashes, h)
}

func (r *memoRepo) abs(rel string) string { return filepath.Join(r.root, filepath.FromSlash(rel)) }

// status validates as status does (ValidateAll without lists, then the
// caches saved) with cache c (nil: off), and returns the reports in a
// comparable form and the memos used.
func (r *memoRepo) status(c *diskcache.Cache, cfg config.Config, now time.Time) (string, int) {
	r.t.Helper()
	loc, err := Resolve(r.root)
	if err != nil {
		r.t.Fatal(err)
	}
	loc.Cache = c
	s := Load(loc, cfg, now)
	if s.Git == nil {
		r.t.Fatalf("no git: %v", s.GitErr)
	}
	reps := s.ValidateAll(s.Res.Candidates, r.lists, nil)
	s.SaveCaches()
	var b strings.Builder
	for i, rep := range reps {
		if rep != nil {
			b.WriteString(s.Res.Candidates[i].ID + " " + reportText(r.t, rep) + "\n")
		}
	}
	return b.String(), s.memo.Hits()
}

// reportText is everything of a report: its JSON and what the JSON leaves
// out (the age, the findings' lines).
func reportText(t *testing.T, rep *validate.Report) string {
	data, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	lines := make([]int, len(rep.Findings))
	for i, f := range rep.Findings {
		lines[i] = f.Line
	}
	return fmt.Sprintf("%s age=%v lines=%v", data, rep.Age, lines)
}

// useMemoClock has the memo's racy window count from a clock ahead of
// the files the test has just written, and every run verified.
func useMemoClock(t *testing.T) {
	oldClock, oldVerified := memoClock, verifiedOf
	memoClock = func() time.Time { return time.Now().Add(10 * time.Second) }
	verifiedOf = func(any) func() bool { return func() bool { return true } }
	t.Cleanup(func() { memoClock, verifiedOf = oldClock, oldVerified })
}

// TestAWarmRunIsACacheOffRun changes each input of a memo's key after a
// run that kept the memos (and one that used them all): the next run
// with the memo gives exactly the reports a run with the cache off gives,
// and the change did change a report (or, for the clock, only the ages:
// the memos are still used).
func TestAWarmRunIsACacheOffRun(t *testing.T) {
	useMemoClock(t)
	now := time.Date(2026, 11, 3, 9, 0, 0, 0, time.UTC)
	cases := []struct {
		name   string
		change func(r *memoRepo, cfg *config.Config, now *time.Time)
		// same: the reports are expected unchanged by it (only the memo
		// must not be used wrongly)
		same bool
		// memo: how many memos are still used after it (0: not checked)
		memo int
	}{
		{name: "content changed, same size and mtime, new ctime", change: func(r *memoRepo, _ *config.Config, _ *time.Time) {
			p := r.abs("src/p1/f04.go")
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			data, _ := os.ReadFile(p)
			data[len(data)-2] ^= 1 // same size
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "a parent folder replaced by a symlink", change: func(r *memoRepo, _ *config.Config, _ *time.Time) {
			// to a folder holding the same inodes, outside the repository
			out := filepath.Join(filepath.Dir(r.root), "outside")
			if err := os.Rename(r.abs("src/p1"), out); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(out, r.abs("src/p1")); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "a file deleted", change: func(r *memoRepo, _ *config.Config, _ *time.Time) {
			if err := os.Remove(r.abs("src/p1/f04.go")); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "index changed", change: func(r *memoRepo, _ *config.Config, _ *time.Time) {
			// the index alone: its entry of the file edited since HEAD
			// takes the file's stat data (as if the edit were undone and
			// the index refreshed), so the file is taken as HEAD's
			indexStat(t, r.root, "src/p0/f03.go")
		}},
		{name: "HEAD moved", change: func(r *memoRepo, _ *config.Config, _ *time.Time) {
			// the branch alone (git reset --soft): the index is untouched
			if err := gitfixture.ResetBranch(r.root, r.hashes[len(r.hashes)-2]); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "another candidate's story changed", change: func(r *memoRepo, _ *config.Config, _ *time.Time) {
			// sdc-03 no longer names sdc-01's story: sdc-01's conflict (a) goes
			data, _ := os.ReadFile(r.abs(r.state(3)))
			r.write(r.state(3), strings.Replace(string(data), `story: "2.1"`, `story: "1.1"`, 1))
		}},
		{name: "a story edited", change: func(r *memoRepo, _ *config.Config, _ *time.Time) {
			data, _ := os.ReadFile(r.abs("docs/stories/2.1.story.md"))
			r.write("docs/stories/2.1.story.md", strings.Replace(string(data), "In Progress", "Done", 1))
		}},
		{name: "a story created", change: func(r *memoRepo, _ *config.Config, _ *time.Time) {
			// sdc-05's story had no file; made in a folder of no read set
			r.write("docs/stories/epic3/3.1.story.md", "# Story 3.1: S\n\n## Status\nDone\n")
		}},
		{name: "a config threshold changed", change: func(_ *memoRepo, cfg *config.Config, _ *time.Time) {
			cfg.MaxRefFiles = 2
		}},
		{name: "trust changed (the repository's statuses no longer read)", change: func(_ *memoRepo, cfg *config.Config, _ *time.Time) {
			cfg.Statuses = nil // the trusted configuration's spellings gone
		}},
		// one workflow's own uncommitted edit is after the clock (its time
		// was kept from passing it): its memo holds for that clock alone
		{name: "clock moved: only the ages", memo: 4, change: func(_ *memoRepo, _ *config.Config, now *time.Time) {
			*now = now.Add(40 * 24 * time.Hour)
		}},
		{name: "lock file present", change: func(r *memoRepo, _ *config.Config, _ *time.Time) {
			// sdc-01 held by a live process: sdc-03 (same story) conflicts
			host, _ := os.Hostname()
			l, err := handoff.Acquire(r.root, "workflow:sdc-01", handoff.LockInfo{PID: os.Getpid(), Host: host, StartedAt: time.Now()}, false)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = l.Release() })
		}},
	}
	for _, tc := range cases {
		for _, lists := range []bool{false, true} {
			name := tc.name
			if lists {
				name += " (with lists)"
			}
			t.Run(name, func(t *testing.T) { warmIsOff(t, tc.name, lists, tc.change, tc.same, tc.memo, now) })
		}
	}
}

// warmIsOff is one case of TestAWarmRunIsACacheOffRun: name, its change,
// whether the reports stay the same (same) and the memos still used after
// it (memo, 0: not checked), validating with the lists or without.
func warmIsOff(t *testing.T, name string, lists bool, change func(r *memoRepo, cfg *config.Config, now *time.Time), same bool, memo int, now time.Time) {
	r := newMemoRepo(t)
	r.lists = lists
	c := diskcache.New(filepath.Join(t.TempDir(), "cache"))
	cfg := config.Default()
	cfg.Statuses = map[string][]string{"done": {"Zapped"}}
	if strings.HasPrefix(name, "trust") {
		// the story says Finished: read as Done only with the statuses
		data, _ := os.ReadFile(r.abs("docs/stories/1.1.story.md"))
		r.write("docs/stories/1.1.story.md", strings.Replace(string(data), "In Progress", "Zapped", 1))
	}
	off, _ := r.status(nil, cfg, now)
	// the first run only marks the cache folder (seed.go), the second
	// fills git's tables and seeds the memo's, the third keeps the memos
	for _, run := range []string{"first", "second", "third"} {
		if got, hits := r.status(c, cfg, now); got != off || hits != 0 {
			t.Fatalf("%s run: %d memos used, reports equal to off: %v", run, hits, got == off)
		}
	}
	warm, hits := r.status(c, cfg, now)
	if warm != off || hits != 5 {
		t.Fatalf("warm run: %d memos used (want 5), reports equal to off: %v\n%s\n%s", hits, warm == off, warm, off)
	}
	n := now
	change(r, &cfg, &n)
	off2, _ := r.status(nil, cfg, n)
	got, hits := r.status(c, cfg, n)
	if got != off2 {
		t.Fatalf("after the change the memo's reports differ from off's:\nmemo:\n%s\noff:\n%s", got, off2)
	}
	if memo != 0 && hits != memo {
		t.Errorf("after the change %d memos used, want %d", hits, memo)
	}
	if !same && off2 == off {
		t.Fatalf("the change changed no report: the case proves nothing")
	}
	if again, _ := r.status(c, cfg, n); again != off2 {
		t.Fatalf("the run after: the memo's reports differ from off's:\n%s\n%s", again, off2)
	}
}

// TestAnUnverifiedRunKeepsNoMemo: a run whose git objects were not all
// verified (a repository that lies about one) writes no memo table.
func TestAnUnverifiedRunKeepsNoMemo(t *testing.T) {
	useMemoClock(t)
	verifiedOf = func(any) func() bool { return func() bool { return false } }
	r := newMemoRepo(t)
	c := diskcache.New(filepath.Join(t.TempDir(), "cache"))
	now := time.Date(2026, 11, 3, 9, 0, 0, 0, time.UTC)
	r.status(c, config.Default(), now)
	if _, hits := r.status(c, config.Default(), now); hits != 0 {
		t.Fatalf("%d memos used after an unverified run", hits)
	}
	if names, _ := filepath.Glob(filepath.Join(c.Dir(), "verdict-*")); len(names) != 0 {
		t.Fatalf("an unverified run left memo tables: %v", names)
	}
	// a Repo without Verified keeps none either
	verifiedOf = func(any) func() bool { return nil }
	r.status(c, config.Default(), now)
	if names, _ := filepath.Glob(filepath.Join(c.Dir(), "verdict-*")); len(names) != 0 {
		t.Fatalf("a run that could not tell verification left memo tables: %v", names)
	}
}

// indexStat gives the index entry of rel the stat data of the file as it
// is, keeping the entry's blob hash.
func indexStat(t *testing.T, root, rel string) {
	t.Helper()
	p := filepath.Join(root, ".git", "index")
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	idx := &index.Index{}
	err = index.NewDecoder(f).Decode(idx)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	e, err := idx.Entry(rel)
	if err != nil {
		t.Fatal(err)
	}
	var st syscall.Stat_t
	if err := syscall.Stat(filepath.Join(root, filepath.FromSlash(rel)), &st); err != nil {
		t.Fatal(err)
	}
	e.ModifiedAt = time.Unix(st.Mtim.Unix())
	e.CreatedAt = time.Unix(st.Ctim.Unix())
	e.Dev, e.Inode, e.UID, e.GID = uint32(st.Dev), uint32(st.Ino), st.Uid, st.Gid
	e.Size = uint32(st.Size)
	out, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := index.NewEncoder(out).Encode(idx); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

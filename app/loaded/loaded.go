// Package loaded holds the loaded session (one run's view of one
// repository), the first step of every command's use case: it finds the
// repository root, takes the configuration the command layer read, runs
// discovery (dating story files from git), and answers the questions every
// command asks of what was found: which candidates are resumable, and how a
// candidate validates against the repository. See docs/ARCHITECTURE.md.
//
// It sits above the pipeline stages (discover, validate, handoff) and below
// the command layer; nothing here prints or prompts.
package loaded

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/orchestrate-dev/orchestrate/app/verdict"
	"github.com/orchestrate-dev/orchestrate/discover"
	"github.com/orchestrate-dev/orchestrate/discover/story"
	"github.com/orchestrate-dev/orchestrate/handoff"
	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
	"github.com/orchestrate-dev/orchestrate/internal/gitrepo"
	"github.com/orchestrate-dev/orchestrate/internal/hugeheap"
	"github.com/orchestrate-dev/orchestrate/internal/par"
	"github.com/orchestrate-dev/orchestrate/internal/safefile"
	"github.com/orchestrate-dev/orchestrate/validate"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// Session is the state every command builds first: where the repository
// is, its configuration, its git access, and what discovery found.
type Session struct {
	Root   string
	Cfg    config.Config
	Git    *gitrepo.Repo // nil without git
	GitErr error         // why Git is nil, when it is
	Now    time.Time
	Repo   *discover.Repo
	Res    discover.Result

	run   *validate.Run     // shared by the session's validations, made on first use
	locks *handoff.LockView // the locks folder as the run's validations see it, made with run
	cache *diskcache.Cache
	memo  *verdict.Memo // the verdict memo of ValidateAll's runs without lists, made with run
	// preload is the verdict table read during the scan (Location.ValidatesAll)
	preload *verdict.Preload
	// seeding is the cache folder of a run that is the repository's first
	// with it: nothing is read from it or kept in it but the mark
	// SaveCaches writes (see seed.go).
	seeding *diskcache.Cache
	marked  bool // the mark is written
}

// Location is where a command runs: the repository root and its git access.
type Location struct {
	Root   string
	Git    *gitrepo.Repo // nil without git
	GitErr error         // why Git is nil, when it is
	// Cache, when not nil, is the user's on-disk cache (internal/diskcache)
	// git walks and story scans keep what they derive in.
	Cache *diskcache.Cache
	// ValidatesAll says the command will validate every workflow
	// (ValidateAll, as status does): the verdict memo's table is then read
	// while the scan runs (verdict.StartPreload).
	ValidatesAll bool
}

// NotFolderError reports a --repo (or working directory) that is not a
// folder; the command layer maps it to a usage error.
type NotFolderError struct{ Dir string }

func (e *NotFolderError) Error() string { return fmt.Sprintf("--repo %s: not a folder", e.Dir) }

// BareRepoError reports a bare git repository (one without a work tree):
// there are no workflow files to find in it. The command layer maps it to a
// usage error (exit 2).
type BareRepoError struct{ Dir string }

func (e *BareRepoError) Error() string {
	return fmt.Sprintf("%s is a bare git repository (no work tree): run orchestrate in a clone or work tree of it (git clone %s, or git worktree add)", e.Dir, e.Dir)
}

// bareRepo returns the bare git repository dir is in (dir or a folder
// above it), or "": a folder holding HEAD, objects/ and refs/ whose config
// says bare = true.
func bareRepo(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if isBare(d) {
			return d
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// isBare reports whether d is the git folder of a bare repository.
func isBare(d string) bool {
	for _, name := range []string{"objects", "refs"} {
		if fi, err := os.Stat(filepath.Join(d, name)); err != nil || !fi.IsDir() {
			return false
		}
	}
	if fi, err := os.Stat(filepath.Join(d, "HEAD")); err != nil || !fi.Mode().IsRegular() {
		return false
	}
	// non-blocking, regular files only: a FIFO named config must not hang
	// the command (docs/SECURITY.md)
	f, fi, err := safefile.OpenNonBlocking(filepath.Join(d, "config"), syscall.O_NOFOLLOW)
	if err != nil {
		return false
	}
	defer f.Close()
	if !fi.Mode().IsRegular() {
		return false
	}
	buf := make([]byte, 64<<10)
	n, _ := io.ReadFull(f, buf)
	for _, line := range strings.Split(string(buf[:n]), "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), "=")
		if ok && strings.EqualFold(strings.TrimSpace(k), "bare") && strings.EqualFold(strings.TrimSpace(v), "true") {
			return true
		}
	}
	return false
}

// Resolve finds the repository root from dir (the --repo value, or the
// working directory): the git top-level above it, or, without git, the
// nearest folder holding .orchestrate.yaml or .orchestrate/, else the folder
// itself. A bare repository (or a folder inside one) is a *BareRepoError.
func Resolve(dir string) (Location, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Location{}, fmt.Errorf("--repo %s: %w", dir, err)
	}
	fi, err := os.Stat(abs)
	if err != nil || !fi.IsDir() {
		return Location{}, &NotFolderError{Dir: dir}
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	if bare := bareRepo(abs); bare != "" {
		return Location{}, &BareRepoError{Dir: bare}
	}
	g, gerr := gitrepo.Open(abs)
	if gerr == nil {
		return Location{Root: g.Root(), Git: g}, nil
	}
	if errors.Is(gerr, gitrepo.ErrDubiousOwnership) {
		return Location{}, gerr // refused as git refuses it, with git's advice
	}
	for d := abs; ; d = filepath.Dir(d) {
		for _, marker := range []string{".orchestrate.yaml", ".orchestrate"} {
			if _, err := os.Stat(filepath.Join(d, marker)); err == nil {
				return Location{Root: d, GitErr: gerr}, nil
			}
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	return Location{Root: abs, GitErr: gerr}, nil
}

// Load runs discovery in loc with configuration cfg at time now (kept in
// UTC), dating story files from git when there is git.
func Load(loc Location, cfg config.Config, now time.Time) *Session {
	s := &Session{Root: loc.Root, Cfg: cfg, Git: loc.Git, GitErr: loc.GitErr, Now: now.UTC(), cache: loc.Cache}
	if firstSight(loc.Cache, loc.Root) {
		// the repository's first run with this cache folder: as with the
		// cache off, and a mark written (seed.go)
		s.seeding, s.cache, loc.Cache = loc.Cache, nil, nil
	}
	if loc.Git != nil && largeIndex(loc.Root) {
		hugeheap.Prepare() // before the run's work allocates
	}
	if loc.ValidatesAll && loc.Cache != nil && loc.Git != nil {
		s.preload = verdict.StartPreload(loc.Cache, loc.Root)
	}
	repo, defFindings := discover.NewRepo(loc.Root, cfg)
	s.Repo = repo
	opts := discover.Options{Cache: loc.Cache}
	if g := loc.Git; g != nil {
		g.UseCache(loc.Cache)
		opts.Times = func(paths []string) map[string]discover.Stamp { return StoryTimes(g, paths) }
	}
	s.Res = discover.Scan(repo, opts)
	s.Res.Findings = append(defFindings, s.Res.Findings...)
	return s
}

// SaveCaches writes to the on-disk cache what this run derived that it
// did not hold yet (git walks); a cache that is off or cannot be written is
// skipped. It may be called more than once.
func (s *Session) SaveCaches() {
	if s == nil {
		return
	}
	if s.seeding != nil {
		if !s.marked {
			s.marked = true
			_ = markSeen(s.seeding, s.Root)
		}
		return
	}
	if s.Git != nil {
		_ = s.Git.SaveCache()
		_ = s.memo.Save() // after the git tables: verification has ended
	}
}

// Seeding reports whether this run is the repository's first with the
// cache folder: it reads and keeps nothing there but a mark (seed.go).
func (s *Session) Seeding() bool { return s != nil && s.seeding != nil }

// StoryTimes returns, for the candidates' files and folders (stories, state
// files, spec pipeline folders) that are exactly as committed in HEAD,
// the time of the last commit that changed them.
func StoryTimes(g *gitrepo.Repo, paths []string) map[string]discover.Stamp {
	out := map[string]discover.Stamp{}
	for p, c := range g.LastCommitted(paths, 2000) {
		out[p] = discover.Stamp{When: c.When, From: "git:" + c.Short}
	}
	return out
}

// Validate checks candidate c against the repository.
func (s *Session) Validate(c workflow.Candidate) validate.Report {
	s.newRun()
	return s.validate(c, false)
}

// ValidateAll validates every resumable candidate of cs, as Validate
// does, and returns their reports by index (nil for a candidate that is not
// resumable). The validations run on every processor: they share the run's
// answers (validate.Run is safe for concurrent use, and each answer is the
// same whichever validation asks first), and each report is its
// candidate's alone, so the reports are those of one validation after the
// other. Without lists the reports' Files and Stories are empty (status
// shows neither: 200 workflows' 60,000 file reports are then never made);
// the rest is the same. With keep, each report keeps only keep(its
// findings), once its validation is done (status's table shows no finding,
// only the word they give: 1,000 workflows' 27,000 findings, held to the
// end of the run, made every collection mark ~7 MB more and come sooner).
// The verdict memo keeps the whole reports.
//
// Without a verdict memo every validation asks git, and the run's one
// history walk, which the first validation to compare files would start
// while the others waited for it, is started here, beside the checks that
// come before (validate.Run.Prepare; docs/ARCHITECTURE.md, "Eighteenth
// pass"). The reports are the same.
func (s *Session) ValidateAll(cs []workflow.Candidate, lists bool, keep func([]workflow.Finding) []workflow.Finding) []*validate.Report {
	s.newRun()
	if s.memo == nil && s.Git != nil {
		s.run.Prepare(s.Git, s.Cfg.MaxRefFiles)
	}
	out := make([]*validate.Report, len(cs))
	par.For(len(cs), par.Options{Workers: runtime.GOMAXPROCS(0), Chunk: 1, Min: 2}, func(i int) {
		if cs[i].Resumable {
			r := s.validate(cs[i], !lists)
			if keep != nil {
				r.Findings = keep(r.Findings)
			}
			out[i] = &r
		}
	})
	return out
}

// newRun makes, once, what every validation of this run shares: the other
// workflows sorted once, folder checks and git answers made once.
func (s *Session) newRun() {
	if s.run == nil {
		s.run = validate.NewRun(s.Root, s.Res.Candidates)
		s.locks = handoff.ViewLocks(s.Root) // for the age step's rivals
		if s.Git != nil {
			s.memo = verdict.Open(s.cache, verdict.Facts{Root: s.Root, Git: s.Git, Verified: verifiedOf(s.Git),
				Candidates: s.Res.Candidates, Stories: s.Res.Stories, Config: s.Cfg, Clock: memoClock, Preload: s.preload})
		}
	}
}

// verifiedOf is g's report of whether every object it read was verified,
// when g gives one; nil (nothing is kept) when it does not. A variable, and
// memoClock the memo's wall clock, for the tests.
var verifiedOf = func(g any) func() bool {
	if v, ok := g.(interface{ Verified() bool }); ok {
		return v.Verified
	}
	return nil
}

var memoClock = time.Now

// validate is Validate once the run is made (safe for concurrent use),
// without the file and story lists when noLists is set.
func (s *Session) validate(c workflow.Candidate, noLists bool) validate.Report {
	in := s.input(c, noLists)
	if s.memo == nil {
		return validate.Validate(in)
	}
	// the verdict memo (app/verdict): its unaged report (with its lists
	// when they are asked for), else one made and kept; the age step on
	// every use
	u, k, ok := s.memo.Get(&c, s.Now, !noLists)
	if ok {
		return validate.Aged(u, in)
	}
	u = validate.Unaged(in)
	s.memo.Put(k, &c, u, s.Now)
	for _, f := range u.Findings {
		if f.Code == workflow.CodeMoreFindings {
			return validate.Validate(in) // capped: Aged would sort anew
		}
	}
	return validate.Aged(u, in)
}

// input is the validation input of candidate c in this session's run.
func (s *Session) input(c workflow.Candidate, noLists bool) validate.Input {
	in := validate.Input{
		Root:      s.Root,
		Candidate: c,
		Run:       s.run,
		Stories:   s.Res.Stories,
		Now:       s.Now,
		Config:    s.Cfg,
		NoLists:   noLists,
		ParseStory: func(path string, data []byte) *workflow.Story {
			st, _ := story.ParseStory(path, data, s.Cfg.Statuses)
			return st
		},
	}
	if s.Git != nil {
		in.Git = s.Git
	}
	in.LiveLock = func(id string) bool { return s.locks.Inspect(id).Live }
	return in
}

// Exists reports whether the repository-relative path rel exists, as
// s.Repo.Exists does; a path this session's validations found already
// (the referenced files the plan asks about again) is not looked up twice.
func (s *Session) Exists(rel string) bool {
	if s.run.Exists(rel) {
		return true
	}
	return s.Repo.Exists(rel)
}

// Resumable returns the candidates that can be resumed, in order.
func (s *Session) Resumable() []workflow.Candidate {
	var out []workflow.Candidate
	for _, c := range s.Res.Candidates {
		if c.Resumable {
			out = append(out, c)
		}
	}
	return out
}

// LogPath is the absolute path of the orchestration log.
func (s *Session) LogPath() string {
	p := s.Cfg.LogPath
	if p == "" {
		p = ".orchestrate/log.jsonl"
	}
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(s.Root, filepath.FromSlash(p))
}

package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover"
	"github.com/orchestrate-dev/orchestrate/discover/story"
	"github.com/orchestrate-dev/orchestrate/handoff"
	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/internal/gitrepo"
	"github.com/orchestrate-dev/orchestrate/validate"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// session is the state every command builds first: where the repository
// is, its configuration, its git access, and what discovery found.
type session struct {
	root   string
	cfg    config.Config
	conf   *configLoad   // where cfg came from, and the repository file's trust
	git    *gitrepo.Repo // nil without git
	gitErr error
	now    time.Time
	repo   *discover.Repo
	res    discover.Result
	run    *validate.Run // shared by the session's validations, made on first use
}

// resolveRoot finds the repository root from --repo (or the working
// directory): the git top-level above it, or, without git, the nearest
// folder holding .orchestrate.yaml or .orchestrate/, else the folder itself.
func (a *app) resolveRoot() (string, *gitrepo.Repo, error, error) {
	dir := a.global.Repo
	if dir == "" {
		wd, err := a.sys.Getwd()
		if err != nil {
			return "", nil, nil, fmt.Errorf("working directory: %w", err)
		}
		dir = wd
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", nil, nil, fmt.Errorf("--repo %s: %w", dir, err)
	}
	fi, err := os.Stat(abs)
	if err != nil || !fi.IsDir() {
		return "", nil, nil, usagef("--repo %s: not a folder", dir)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	g, gerr := gitrepo.Open(abs)
	if gerr == nil {
		return g.Root(), g, nil, nil
	}
	for d := abs; ; d = filepath.Dir(d) {
		for _, marker := range []string{".orchestrate.yaml", ".orchestrate"} {
			if _, err := os.Stat(filepath.Join(d, marker)); err == nil {
				return d, nil, gerr, nil
			}
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	return abs, nil, gerr, nil
}

// load resolves the repository, reads the configuration and runs discovery.
func (a *app) load() (*session, error) {
	root, g, gerr, err := a.resolveRoot()
	if err != nil {
		return nil, err
	}
	conf, err := a.loadConf(root)
	if err != nil {
		return nil, err
	}
	cfg := conf.Cfg
	s := &session{root: root, cfg: cfg, conf: conf, git: g, gitErr: gerr, now: a.sys.Now().UTC()}
	repo, defFindings := discover.NewRepo(root, cfg)
	s.repo = repo
	opts := discover.Options{}
	if g != nil {
		opts.Times = func(paths []string) map[string]discover.Stamp { return storyTimes(g, paths) }
	}
	s.res = discover.Scan(repo, opts)
	s.res.Findings = append(defFindings, s.res.Findings...)
	a.debugSession(s)
	return s, nil
}

// storyTimes returns, for the candidates' files and folders (stories, state
// files, spec pipeline folders) that are exactly as committed in HEAD, the
// time of the last commit that changed them.
func storyTimes(g *gitrepo.Repo, paths []string) map[string]discover.Stamp {
	out := map[string]discover.Stamp{}
	for p, c := range g.LastCommitted(paths, 2000) {
		out[p] = discover.Stamp{When: c.When, From: "git:" + c.Short}
	}
	return out
}

// validate checks candidate c against the repository.
func (s *session) validate(c workflow.Candidate) validate.Report {
	if s.run == nil {
		s.run = validate.NewRun(s.root, s.res.Candidates)
	}
	in := validate.Input{
		Root:      s.root,
		Candidate: c,
		Run:       s.run,
		Stories:   s.res.Stories,
		Now:       s.now,
		Config:    s.cfg,
		ParseStory: func(path string, data []byte) *workflow.Story {
			st, _ := story.ParseStory(path, data, s.cfg.Statuses)
			return st
		},
	}
	if s.git != nil {
		in.Git = s.git
	}
	in.LiveLock = func(id string) bool { return handoff.Inspect(s.root, id).Live }
	return validate.Validate(in)
}

// resumable returns the candidates that can be resumed, in order.
func (s *session) resumable() []workflow.Candidate {
	var out []workflow.Candidate
	for _, c := range s.res.Candidates {
		if c.Resumable {
			out = append(out, c)
		}
	}
	return out
}

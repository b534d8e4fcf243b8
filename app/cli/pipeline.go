package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/orchestrate-dev/orchestrate/app/cli/cmdutil"
	"github.com/orchestrate-dev/orchestrate/app/loaded"
	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
	"github.com/orchestrate-dev/orchestrate/internal/gitrepo"
)

// loadedRepo is what every command builds first (app/loaded), plus
// where the configuration came from and the repository file's trust.
type loadedRepo struct {
	*loaded.Session
	conf *config.Loaded
}

// locate resolves the repository from --repo or the working directory.
func (a *app) locate() (loaded.Location, error) {
	dir := a.global.Repo
	if dir == "" {
		wd, err := a.sys.Getwd()
		if err != nil {
			return loaded.Location{}, fmt.Errorf("working directory: %w", err)
		}
		dir = wd
	}
	loc, err := loaded.Resolve(dir)
	if err != nil {
		var nf *loaded.NotFolderError
		if errors.As(err, &nf) {
			return loc, cmdutil.Usagef("%v", err)
		}
		return loc, err
	}
	c, err := cacheFor(loc.Root, a.sys.Getenv)
	if err != nil && !a.cacheWarned {
		a.cacheWarned = true
		fmt.Fprintf(a.sys.IO.ErrOut, "warning: %s\n", cmdutil.SafeErr(err))
	}
	loc.Cache, a.cacheOn = c, c != nil
	return loc, nil
}

// load resolves the repository, reads the configuration and runs discovery.
func (a *app) load() (*loadedRepo, error) { return a.loadValidating(false) }

// loadValidating is load; validatesAll says the command validates every
// workflow (status), whose verdict memo is then read during the scan
// (loaded.Location.ValidatesAll).
func (a *app) loadValidating(validatesAll bool) (*loadedRepo, error) {
	loc, err := a.locate()
	if err != nil {
		return nil, err
	}
	loc.ValidatesAll = validatesAll
	conf, err := a.loadConf(loc.Root)
	if err != nil {
		return nil, err
	}
	s := &loadedRepo{Session: loaded.Load(loc, conf.Config, a.sys.Now()), conf: conf}
	a.loaded = s
	a.debugSession(s)
	if err := notARepository(s); err != nil {
		return nil, err
	}
	return s, nil
}

// notARepository is the usage error of a run outside any git repository
// that found nothing to work on: no saved state, no .orchestrate.yaml or
// .orchestrate/ folder. Saying "no interrupted workflows" there would hide
// that the command ran in the wrong folder. A folder that is not in git but
// holds saved states still works (times then come from the files).
func notARepository(s *loadedRepo) error {
	if s.Git != nil || !errors.Is(s.GitErr, gitrepo.ErrNoGit) || len(s.Res.Candidates) > 0 {
		return nil
	}
	for _, marker := range []string{".orchestrate.yaml", ".orchestrate"} {
		if _, err := os.Lstat(filepath.Join(s.Root, marker)); err == nil {
			return nil
		}
	}
	return cmdutil.Usagef("%s is not in a git repository (nor in any folder above it), and no saved workflow state is there: run orchestrate inside your project's repository, or pass --repo DIR", s.Root)
}

// cacheFor returns the user's cache for the repository at root
// (diskcache.ForUser), or nil (no cache) when it is off or its folder or
// key file is inside the repository — a home folder kept in git, or a
// cache folder pointed into the work tree: a cache must never live where
// the repository's authors can write (docs/SECURITY.md). The error says
// why a cache asked for is not used, for a warning.
func cacheFor(root string, getenv func(string) string) (*diskcache.Cache, error) {
	return diskcache.ForUser(getenv, func(p string) bool { return insideFolder(root, p) })
}

// insideFolder reports whether path is root or inside it, comparing the
// paths as given and with symbolic links resolved (as far as path exists).
func insideFolder(root, path string) bool {
	in := func(r, p string) bool {
		rel, err := filepath.Rel(r, p)
		return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
	}
	if in(root, path) {
		return true
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		realRoot = root
	}
	// the longest existing prefix of path, resolved, then the rest
	p, rest := filepath.Clean(path), ""
	for {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return in(realRoot, filepath.Join(real, rest))
		}
		parent := filepath.Dir(p)
		if parent == p {
			return false
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

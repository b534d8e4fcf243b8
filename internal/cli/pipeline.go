package cli

import (
	"errors"
	"fmt"
	"github.com/orchestrate-dev/orchestrate/internal/diskcache"

	"github.com/orchestrate-dev/orchestrate/internal/config"
	sess "github.com/orchestrate-dev/orchestrate/internal/session"
)

// session is what every command builds first (internal/session), plus
// where the configuration came from and the repository file's trust.
type session struct {
	*sess.Session
	conf *config.Loaded
}

// locate resolves the repository from --repo or the working directory.
func (a *app) locate() (sess.Location, error) {
	dir := a.global.Repo
	if dir == "" {
		wd, err := a.sys.Getwd()
		if err != nil {
			return sess.Location{}, fmt.Errorf("working directory: %w", err)
		}
		dir = wd
	}
	loc, err := sess.Resolve(dir)
	if err != nil {
		var nf *sess.NotFolderError
		if errors.As(err, &nf) {
			return loc, usagef("%v", err)
		}
		return loc, err
	}
	loc.Cache = diskcache.New(diskcache.Dir(a.sys.Getenv))
	return loc, nil
}

// load resolves the repository, reads the configuration and runs discovery.
func (a *app) load() (*session, error) {
	loc, err := a.locate()
	if err != nil {
		return nil, err
	}
	conf, err := a.loadConf(loc.Root)
	if err != nil {
		return nil, err
	}
	s := &session{Session: sess.Load(loc, conf.Config, a.sys.Now()), conf: conf}
	a.loaded = s
	a.debugSession(s)
	return s, nil
}

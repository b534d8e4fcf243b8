package gitrepo

import (
	"errors"
	"strings"

	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// HistoryCut reports whether the history before the commit that rev names
// (a full or abbreviated lower-case hex hash of at least 4 digits) is
// missing from this repository: the commit is a shallow boundary, or its
// first parent (the commit, or that commit's tree) is not here, as in a
// partial clone. The history walks cannot compare such a commit with its
// parent, so they count it as adding every path it holds: a path that
// LastChange or LastCommitted dates at it was last changed at or before
// it, not necessarily in it. A root commit, an unknown or ambiguous rev, or
// anything but a commit gives false.
func (r *Repo) HistoryCut(rev string) bool {
	rev = strings.ToLower(strings.TrimSpace(rev))
	if len(rev) < minAbbrev || len(rev) > 2*len(plumbing.ZeroHash) || !isHex(rev) {
		return false
	}
	hashes := []plumbing.Hash{}
	if h, ok := fullHash(rev); ok {
		hashes = append(hashes, h)
	} else {
		var err error
		if hashes, err = r.hashesWithPrefix(rev); err != nil {
			return false
		}
	}
	var commits []links
	for _, h := range hashes {
		if l, err := r.readLinks(h); err == nil {
			commits = append(commits, l)
		}
	}
	if len(commits) != 1 {
		return false // unknown, ambiguous, or not a commit
	}
	c := commits[0]
	switch {
	case r.shallow[c.hash]:
		return true
	case c.parent.IsZero():
		return false // the first commit: nothing is missing before it
	}
	p, err := r.readLinks(c.parent)
	if err != nil {
		return true // the parent commit is missing (or cannot be read)
	}
	if _, err := r.objects.EncodedObject(plumbing.TreeObject, p.tree); err != nil {
		return true // a partial clone without the parent's trees
	}
	return false
}

// Promisor returns the name of the remote a partial clone (git clone
// --filter=…) leaves missing objects to, "" when the repository is not a
// partial clone (or its configuration cannot be read). orchestrate never
// asks it for them: objects are read from the repository only, and a
// missing one is reported, never fetched.
func (r *Repo) Promisor() string {
	var cfg *config.Config
	var err error
	if t, ok := r.repo.Storer.(extensionTolerant); ok {
		cfg, err = t.Storage.Config() // with the extensions Open hid from go-git
	} else {
		cfg, err = r.repo.Config()
	}
	if err != nil || cfg == nil || cfg.Raw == nil {
		return ""
	}
	if ext := cfg.Raw.Section("extensions"); ext != nil {
		if name := strings.TrimSpace(ext.Option("partialclone")); name != "" {
			return name
		}
	}
	remotes := cfg.Raw.Section("remote")
	if remotes == nil {
		return ""
	}
	for _, s := range remotes.Subsections {
		if strings.EqualFold(strings.TrimSpace(s.Option("promisor")), "true") {
			return s.Name
		}
	}
	return ""
}

// MissingHistory reports whether err says that something the repository
// does not hold was needed: history cut short (ErrHistoryMissing), or an
// object that is not there (a partial clone's, never fetched by
// orchestrate). Such an answer is "cannot tell", never "unchanged".
func MissingHistory(err error) bool {
	return err != nil && (errors.Is(err, ErrHistoryMissing) || errors.Is(err, plumbing.ErrObjectNotFound))
}

// readHarmlessExtensions are repository extensions go-git (v5.19) refuses
// to open a repository with, although they change nothing in how its
// objects and references are read: partialClone (a partial clone made by
// an older git: missing objects are reported, see MissingHistory),
// worktreeConfig (written by `git sparse-checkout set`: per-worktree
// settings orchestrate does not read) and preciousObjects (only stops
// pruning). go-git's list of extensions allowed in format version 0 names
// them in camel case but compares lower-cased names, so it refuses them
// even there. Refused, the checkout was taken for one without git (ages
// from modification times, nothing compared).
var readHarmlessExtensions = map[string]bool{"partialclone": true, "worktreeconfig": true, "preciousobjects": true}

// extensionTolerant is a file-system storage whose configuration, as go-git
// sees it, leaves out readHarmlessExtensions, so that git.Open accepts the
// repository; every other extension (objectFormat = sha256, …) is still
// refused. Open wraps the storage it opens with it.
type extensionTolerant struct{ *filesystem.Storage }

// Config returns the repository's configuration without the extensions in
// readHarmlessExtensions.
func (s extensionTolerant) Config() (*config.Config, error) {
	cfg, err := s.Storage.Config()
	if err != nil || cfg == nil || cfg.Raw == nil || !cfg.Raw.HasSection("extensions") {
		return cfg, err
	}
	ext := cfg.Raw.Section("extensions")
	kept := ext.Options[:0:0]
	for _, o := range ext.Options {
		if !readHarmlessExtensions[strings.ToLower(o.Key)] {
			kept = append(kept, o)
		}
	}
	ext.Options = kept
	if len(kept) == 0 {
		cfg.Raw.RemoveSection("extensions")
	}
	return cfg, nil
}

// Package discover finds every saved state an agent framework left in a
// repository: epic execution states, QA loops, workflow states, stories in
// progress or in review, spec pipelines, progress files and work sessions.
//
// discover itself only keeps the registry of sources (DefaultSources),
// scanning, merging, ordering and look-up. Each on-disk format lives in its
// own package under discover/ (story, epic, qaloop, wfstate, spec,
// progress, worksession) and implements source.Source; the corrupted-state
// rebuild lives in discover/rebuild. Adding a framework means adding one
// format package and one line to DefaultSources. See docs/ARCHITECTURE.md.
package discover

import (
	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// Repo is what a source sees of the repository (see source.Repo).
type Repo = source.Repo

// Source is one kind of saved state (see source.Source).
type Source = source.Source

// NewRepo returns a Repo for root with cfg, loading workflow definitions.
func NewRepo(root string, cfg config.Config) (*Repo, []workflow.Finding) {
	return source.NewRepo(root, cfg)
}

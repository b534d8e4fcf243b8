package handoff

import (
	"fmt"
	"path/filepath"

	"github.com/orchestrate-dev/orchestrate/internal/atomicfile"
	"github.com/orchestrate-dev/orchestrate/internal/safefile"
)

// handoffsRel is the envelopes folder, relative to the repository root.
const handoffsRel = ".orchestrate/handoffs"

// writeEnvelopeFile atomically writes an envelope at path, which must be
// <root>/.orchestrate/handoffs/<name> (as nextEnvelopePath makes it): the
// folder is created 0700 and every component of the path is reached without
// following a symlink, so a symlinked .orchestrate or handoffs folder, or a
// symlinked envelope, is refused with nothing written (docs/SECURITY.md).
func writeEnvelopeFile(path string, data []byte) error {
	dir := filepath.Dir(path)
	if filepath.Base(dir) != "handoffs" || filepath.Base(filepath.Dir(dir)) != ".orchestrate" {
		return fmt.Errorf("write the envelope: %s is not in a .orchestrate/handoffs folder", path)
	}
	root := filepath.Dir(filepath.Dir(dir))
	if err := safefile.MkdirAllConfinedPerm(root, handoffsRel, 0o700); err != nil {
		return fmt.Errorf("create the handoffs folder: %w", err)
	}
	if err := atomicfile.WriteConfined(root, handoffsRel+"/"+filepath.Base(path), data, 0o600); err != nil {
		return fmt.Errorf("write the envelope: %w", err)
	}
	return nil
}

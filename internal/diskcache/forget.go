package diskcache

import (
	"os"
	"path/filepath"
)

// Forget removes table name from the folder when the folder is
// orchestrate's (marked, as prune requires) and the file is one of its
// tables (named as one, a regular file reached without following a
// symlink, starting as a table does); anything else, the user's files
// included, is left alone, and errors are ignored (a table left behind is
// pruned as any other). It is how a table of an older layout leaves the
// folder: until issue 25's eighth pass the formats' stat tables were one
// file for every repository (`stories`, `wfstates`, ...), now one per work
// tree.
func (c *Cache) Forget(name string) {
	if !c.Enabled() || !c.marked.Load() || !validName(name) {
		return
	}
	if p := filepath.Join(c.dir, name); isTable(p) {
		_ = os.Remove(p)
	}
}

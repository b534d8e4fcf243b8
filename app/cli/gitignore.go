package cli

import (
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/orchestrate-dev/orchestrate/app/cli/cmdutil"
	"github.com/orchestrate-dev/orchestrate/handoff"
	"github.com/orchestrate-dev/orchestrate/templates"
)

// gitignoreNotice runs after a resume handed off: the first one in a
// repository writes .orchestrate/.gitignore for orchestrate's runtime files
// and says so once; a state file outside .orchestrate whose .bak twin is not
// ignored gets a one-line suggestion of the .gitignore line. Neither ever
// fails the resume: a write that cannot be done is a warning.
func (a *app) gitignoreNotice(out io.Writer, r *resumeRun) {
	root := r.s.Root
	wrote, err := handoff.EnsureGitignore(root)
	switch {
	case err != nil:
		fmt.Fprintf(a.sys.IO.ErrOut, "warning: %s\n", cmdutil.SafeErr(err))
	case wrote:
		fmt.Fprintf(out, "Wrote %s: git now ignores orchestrate's runtime files (locks/, handoffs/, log.jsonl, *.bak, *%s*); commit it.\n", handoff.GitignoreRel, handoff.CorruptSuffix)
	}
	if r.selected == nil {
		return
	}
	if line := bakLine(root, r.selected.Source.Path); line != "" {
		fmt.Fprintf(out, "Tip: orchestrate keeps a backup of %s next to it; to keep it out of git, add this line to .gitignore: %s\n", templates.Safe(r.selected.Source.Path), templates.Safe(line))
	}
}

// bakLine is the .gitignore line suggested for the .bak twin of the state
// file rel (slash-separated, relative to root), or "" when there is none to
// suggest: the state is under .orchestrate (its own .gitignore covers it),
// has no .bak twin, or the root .gitignore already names it.
func bakLine(root, rel string) string {
	rel = path.Clean(filepath.ToSlash(rel))
	if rel == "." || rel == "" || strings.HasPrefix(rel, ".orchestrate/") || strings.HasPrefix(rel, "../") || path.IsAbs(rel) {
		return ""
	}
	if fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(rel+".bak"))); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	line := "*.bak"
	if dir := path.Dir(rel); dir != "." {
		line = "/" + dir + "/*.bak"
	}
	data, err := os.ReadFile(filepath.Join(root, ".gitignore"))
	if err == nil {
		for _, l := range strings.Split(string(data), "\n") {
			l = strings.TrimSpace(l)
			if l == line || l == "*.bak" || l == strings.TrimPrefix(line, "/") || l == "/"+rel+".bak" || l == rel+".bak" {
				return ""
			}
		}
	}
	return line
}

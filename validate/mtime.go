package validate

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/safefile"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// Drift without git history: modification times, and git blob hashes of
// files on disk (drift.go has the history side).

// mtimeDrift is the fallback without an interruption commit: a referenced
// file or story modified after the interruption is reported, as a warning
// (modification times are unreliable and cannot say by whom). A recorded
// blob hash is still compared exactly.
func (v *validator) mtimeDrift(stories []*storyState) {
	if v.c.UpdatedAt.IsZero() {
		v.noBaseline()
		return
	}
	compared := false
	for _, f := range v.files {
		if !f.comparable() || !f.exists {
			continue
		}
		compared = true
		if f.story == nil && isHexHash(f.ref.Hash) {
			if h, err := v.blobHash(f.clean); err == nil {
				if strings.EqualFold(h, f.ref.Hash) {
					f.state = FileUnchanged
				} else {
					f.conflict = true
					f.state = FileChanged
					f.detail = "differs from the hash the state recorded"
					v.add(workflow.CheckConflict, workflow.Blocking, "file-changed", f.clean, f.ref.Phase,
						fmt.Sprintf("%s differs from the version the state recorded (no git history to say who changed it)%s", f.clean, phaseNote(*f.ref)))
				}
				continue
			}
		}
		if !v.afterInterruption(f.mtime()) {
			f.state = FileUnchanged
			continue
		}
		f.state = FileChanged
		f.detail = "modified " + stamp(f.mtime()) + ", after the interruption"
		if f.story != nil {
			continue // reported for the story below
		}
		v.add(workflow.CheckConflict, workflow.Warning, "changed-since", f.clean, f.ref.Phase,
			fmt.Sprintf("%s was modified after the interruption (%s); without git history it cannot tell by whom%s", f.clean, stamp(f.mtime()), phaseNote(*f.ref)))
	}
	for _, s := range stories {
		compared = true
		mt := v.mtimeOf(s.path)
		if !v.afterInterruption(mt) {
			continue
		}
		phase := ""
		if f := v.byPath[s.path]; f != nil {
			phase = f.ref.Phase
		}
		v.add(workflow.CheckConflict, workflow.Warning, "changed-since", s.path, phase,
			fmt.Sprintf("story %s was modified after the interruption (%s); without git history it cannot tell which sections or by whom", display(s.id), stamp(mt)))
	}
	v.rep.GitMode = GitModeNone
	if compared {
		v.rep.GitMode = GitModeMtime
	}
}

// existsSafe reports whether a path already checked safe exists.
func (v *validator) existsSafe(path string) bool {
	_, err := os.Stat(filepath.Join(v.in.Root, filepath.FromSlash(path)))
	return err == nil
}

// mtimeOf is the modification time of a safe path, zero when unknown.
func (v *validator) mtimeOf(path string) time.Time {
	if f := v.byPath[path]; f != nil && f.exists {
		return f.mtime()
	}
	fi, err := os.Stat(filepath.Join(v.in.Root, filepath.FromSlash(path)))
	if err != nil {
		return time.Time{}
	}
	return fi.ModTime()
}

// isHexHash reports whether h looks like a SHA-1 git object id.
func isHexHash(h string) bool {
	if len(h) != 40 {
		return false
	}
	_, err := hex.DecodeString(h)
	return err == nil
}

// blobHash is the git blob hash (SHA-1) of a safe, regular file, streamed;
// files over Config.MaxFileSize are refused.
func (v *validator) blobHash(path string) (string, error) {
	// non-blocking and without following a symlink: a FIFO put in place
	// of the file is refused below instead of hanging the open
	fh, fi, err := safefile.OpenNonBlocking(filepath.Join(v.in.Root, filepath.FromSlash(path)), syscall.O_NOFOLLOW)
	if err != nil {
		return "", fmt.Errorf("hash %s: %w", path, err)
	}
	defer fh.Close()
	if !fi.Mode().IsRegular() || fi.Size() > v.cfg.MaxFileSize {
		return "", fmt.Errorf("hash %s: not a regular file within the size limit", path)
	}
	h := sha1.New()
	h.Write([]byte("blob " + strconv.FormatInt(fi.Size(), 10) + "\x00"))
	n, err := io.Copy(h, io.LimitReader(fh, fi.Size()+1))
	if err != nil {
		return "", fmt.Errorf("hash %s: %w", path, err)
	}
	if n != fi.Size() {
		return "", fmt.Errorf("hash %s: the file changed while being read", path)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

package logging

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/orchestrate-dev/orchestrate/internal/safefile"
)

// ReadLogTail reads at most max bytes from the end of the log at path,
// starting at a line boundary; truncated tells whether earlier bytes were
// left out. A log inside root is reached without following a symlink
// anywhere below root; one outside (an absolute log_path) without following
// a final symlink. Either way it must be a regular file, opened non-blocking,
// so a FIFO, a device or a symlink to /dev/zero is refused at once.
func ReadLogTail(root, path string, max int64) (data []byte, truncated bool, err error) {
	var f *os.File
	if r, rerr := filepath.Rel(root, path); rerr == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) && !filepath.IsAbs(r) {
		f, err = safefile.OpenConfined(root, filepath.ToSlash(r), os.O_RDONLY, 0)
	} else {
		var d *safefile.Dir
		d, err = safefile.OpenDir(filepath.Dir(path), ".", false)
		if err == nil {
			f, err = d.OpenFile(filepath.Base(path), os.O_RDONLY, 0)
			d.Close()
		}
	}
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, false, err
	}
	size := fi.Size()
	start := int64(0)
	if size > max {
		start = size - max
	}
	from := start
	if start > 0 {
		from = start - 1 // one byte more: was the cut at a line boundary?
	}
	if _, err := f.Seek(from, io.SeekStart); err != nil {
		return nil, false, err
	}
	data, err = io.ReadAll(io.LimitReader(f, size-from))
	if err != nil {
		return nil, false, err
	}
	if start > 0 {
		// drop the cut line (only the newline when the cut fell after one)
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			data = data[i+1:]
		} else {
			data = nil
		}
	}
	return data, start > 0, nil
}

package fastsys

import (
	"io/fs"
	"syscall"
	"time"
)

// FileInfo is an fs.FileInfo made from a stat as os.Lstat makes its own:
// the same name, size, mode bits, modification time and *syscall.Stat_t
// behind Sys.
func FileInfo(name string, st *syscall.Stat_t) fs.FileInfo { return &statInfo{name: name, st: st} }

// statInfo is FileInfo's value.
type statInfo struct {
	name string
	st   *syscall.Stat_t
}

// Name is the path's last element.
func (s *statInfo) Name() string { return s.name }

// Size is st_size.
func (s *statInfo) Size() int64 { return s.st.Size }

// ModTime is st_mtim, in local time as os gives it.
func (s *statInfo) ModTime() time.Time { return time.Unix(s.st.Mtim.Unix()) }

// IsDir reports a folder.
func (s *statInfo) IsDir() bool { return s.Mode().IsDir() }

// Sys is the *syscall.Stat_t.
func (s *statInfo) Sys() any { return s.st }

// Mode is st_mode as os maps it.
func (s *statInfo) Mode() fs.FileMode {
	m := fs.FileMode(s.st.Mode&0o777) | TypeOf(s.st.Mode)
	if s.st.Mode&syscall.S_ISGID != 0 {
		m |= fs.ModeSetgid
	}
	if s.st.Mode&syscall.S_ISUID != 0 {
		m |= fs.ModeSetuid
	}
	if s.st.Mode&syscall.S_ISVTX != 0 {
		m |= fs.ModeSticky
	}
	return m
}

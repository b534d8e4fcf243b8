// Package dirent reads the records of Linux's getdents64 system call: each
// entry's name and type as the kernel lists a folder, without os.File (no
// poller registration, no DirEntry or string per entry). It is the one
// reader of that format: the story walk (internal/safefile.Dir.ReadEntries)
// and the glob expander (internal/pathglob) list folders through it. Elsewhere
// than Linux it has nothing; its callers list folders through os there.
package dirent

package cli

import "path/filepath"

func filepathIsAbs(p string) bool { return filepath.IsAbs(p) }

func joinPath(root, rel string) string { return filepath.Join(root, filepath.FromSlash(rel)) }

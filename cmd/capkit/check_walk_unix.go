//go:build unix

package main

import (
	"io/fs"
	"syscall"
)

// fileKey returns the device and inode of a file, which identify it whatever the path.
func fileKey(fi fs.FileInfo) (any, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil, false
	}
	return [2]uint64{uint64(st.Dev), st.Ino}, true //nolint:unconvert // Dev is not uint64 on every system
}

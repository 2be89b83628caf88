package scaffold

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Bounds of Write.
const (
	maxFiles     = 1000
	maxFileBytes = 4 << 20
)

// executable reports whether the file at rel is a script, written with mode 0755.
func executable(rel string) bool { return strings.HasSuffix(rel, ".sh") || rel == ".ci/run" }

func write(dir string, files Files, overwrite bool) error {
	if len(files) > maxFiles {
		return fmt.Errorf("cannot write %d files into %q: more than %d", len(files), dir, maxFiles)
	}
	paths := make([]string, 0, len(files))
	for rel, data := range files {
		if !fs.ValidPath(rel) || rel == "." || strings.Contains(rel, `\`) || path.IsAbs(rel) {
			return fmt.Errorf("cannot write file %q: not a slash-separated path inside %q", rel, dir)
		}
		if len(data) > maxFileBytes {
			return fmt.Errorf("cannot write file %q: %d bytes, more than %d", rel, len(data), maxFileBytes)
		}
		paths = append(paths, rel)
	}
	slices.Sort(paths)
	// Check everything before writing anything.
	for _, rel := range paths {
		full := filepath.Join(dir, filepath.FromSlash(rel))
		info, err := os.Lstat(full)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return fmt.Errorf("cannot write file %q: %w", rel, err)
		case info.IsDir() || !info.Mode().IsRegular():
			return fmt.Errorf("cannot write file %q: %q exists and is not a regular file", rel, full)
		case !overwrite:
			return fmt.Errorf("cannot write file %q: %q exists (overwrite is off): %w", rel, full, fs.ErrExist)
		}
	}
	for _, rel := range paths {
		full := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return fmt.Errorf("cannot write file %q: %w", rel, err)
		}
		mode := fs.FileMode(0o644)
		if executable(rel) {
			mode = 0o755
		}
		if err := writeFile(full, files[rel], mode); err != nil {
			return fmt.Errorf("cannot write file %q: %w", rel, err)
		}
	}
	return nil
}

// writeFile writes data to a temporary file beside name and renames it, so that name is never half-written.
func writeFile(name string, data []byte, mode fs.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	err = errors.Join(err, f.Chmod(mode), f.Close())
	if err == nil {
		err = os.Rename(tmp, name)
	}
	if err != nil {
		_ = os.Remove(tmp)
	}
	return err
}

package scaffold

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Bounds of Write.
const (
	maxFiles     = 1000
	maxFileBytes = 4 << 20
)

// executable reports whether the file at rel is a script, written with mode 0755.
func executable(rel string) bool { return strings.HasSuffix(rel, ".sh") || rel == ".ci/run" }

// write writes files under dir through an os.Root, which confines every operation to dir's tree: a symbolic link
// that leads outside dir is refused even when it appears between the checks and the writes.
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
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cannot write into %q: %w", dir, err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("cannot write into %q: %w", dir, err)
	}
	defer root.Close()
	// Check everything before writing anything.
	c := checker{root: root, dir: dir, folders: map[string]string{}}
	targets := make(map[string]string, len(paths)) // the path in root's tree that each file is written at
	for _, rel := range paths {
		if targets[rel], err = c.check(rel, overwrite); err != nil {
			return err
		}
	}
	for _, rel := range paths {
		target := targets[rel]
		if err := root.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return fmt.Errorf("cannot write file %q: %w", rel, err)
		}
		mode := fs.FileMode(0o644)
		if executable(rel) {
			mode = 0o755
		}
		if err := writeFile(root, target, files[rel], mode); err != nil {
			return fmt.Errorf("cannot write file %q: %w", rel, err)
		}
	}
	return nil
}

// checker checks the paths of the files before Write writes any.
type checker struct {
	root    *os.Root
	dir     string
	realDir string            // dir with its symbolic links resolved, once needed
	folders map[string]string // a checked folder (slash-separated) -> its path in root's tree, links resolved
}

// check returns the path in root's tree (in the OS's form, symbolic links resolved) at which rel is written. It
// refuses a folder on the way that is a symbolic link leading outside dir or that is not a folder, a file that is a
// symbolic link or not a regular file, and (unless overwrite) a file that exists.
func (c *checker) check(rel string, overwrite bool) (string, error) {
	elems := strings.Split(rel, "/")
	at := "." // the path in root's tree of the folder reached
	for i := 1; i < len(elems); i++ {
		folder := strings.Join(elems[:i], "/")
		if t, ok := c.folders[folder]; ok {
			at = t
			continue
		}
		next := filepath.Join(at, elems[i-1])
		info, err := c.root.Lstat(next)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return filepath.Join(next, filepath.FromSlash(strings.Join(elems[i:], "/"))), nil // created in checked folders
		case err != nil:
			return "", fmt.Errorf("cannot write file %q: %w", rel, err)
		case info.Mode()&fs.ModeSymlink != 0:
			if next, err = c.resolve(next); err != nil {
				return "", fmt.Errorf("cannot write file %q: folder %q is a symbolic link that leaves %q or leads nowhere: %w", rel, folder, c.dir, err)
			}
			if info, err = c.root.Stat(next); err != nil {
				return "", fmt.Errorf("cannot write file %q: folder %q: %w", rel, folder, err)
			}
		}
		if !info.IsDir() {
			return "", fmt.Errorf("cannot write file %q: %q exists and is not a folder", rel, folder)
		}
		c.folders[folder], at = next, next
	}
	target := filepath.Join(at, elems[len(elems)-1])
	info, err := c.root.Lstat(target)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return "", fmt.Errorf("cannot write file %q: %w", rel, err)
	case info.Mode()&fs.ModeSymlink != 0:
		return "", fmt.Errorf("cannot write file %q: it is a symbolic link, which is not followed: %w", rel, fs.ErrExist)
	case !info.Mode().IsRegular():
		return "", fmt.Errorf("cannot write file %q: it exists and is not a regular file", rel)
	case !overwrite:
		return "", fmt.Errorf("cannot write file %q: it exists in %q (overwrite is off): %w", rel, c.dir, fs.ErrExist)
	}
	return target, nil
}

// resolve returns the path in root's tree that the symbolic link at link (a path in root's tree) leads to, with every
// link resolved, or an error when it leads outside dir. os.Root follows a relative link that stays in its tree but
// refuses every absolute one: the resolved path lets a link to an absolute path inside dir be written through.
// Writes still go through root, which refuses a link that was changed to leave dir since.
func (c *checker) resolve(link string) (string, error) {
	if c.realDir == "" {
		real, err := filepath.EvalSymlinks(c.dir)
		if err != nil {
			return "", err
		}
		if c.realDir, err = filepath.Abs(real); err != nil {
			return "", err
		}
	}
	real, err := filepath.EvalSymlinks(filepath.Join(c.dir, link))
	if err != nil {
		return "", err
	}
	if real, err = filepath.Abs(real); err != nil {
		return "", err
	}
	inside, err := filepath.Rel(c.realDir, real)
	if err != nil || !filepath.IsLocal(inside) {
		return "", fmt.Errorf("it leads to %q", real)
	}
	return inside, nil
}

// writeFile writes data to a new temporary file beside name (a path in root's tree, in the OS's form) and renames
// it to name, so that name is never half-written and a symbolic link at name is replaced, not followed.
func writeFile(root *os.Root, name string, data []byte, mode fs.FileMode) error {
	var (
		f   *os.File
		tmp string
		err error
	)
	for range 100 {
		tmp = filepath.Join(filepath.Dir(name), "."+filepath.Base(name)+".tmp"+strconv.FormatUint(rand.Uint64(), 36))
		f, err = root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	err = errors.Join(err, f.Chmod(mode), f.Close())
	if err == nil {
		err = root.Rename(tmp, name)
	}
	if err != nil {
		_ = root.Remove(tmp)
	}
	return err
}

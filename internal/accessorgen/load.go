package accessorgen

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/capkit/capkit/release/clusterctl"
)

// limits bound what Generate reads before it parses anything.
type limits struct {
	fileBytes  int64 // each Go file
	totalBytes int64 // all Go files of the package
	files      int   // Go files in the folder
}

// defaultLimits are far above any API package (memcloud's largest types file is about 8 KiB).
var defaultLimits = limits{fileBytes: 4 << 20, totalBytes: 32 << 20, files: 1000}

// pkg is a parsed package: its non-test Go files other than the output file.
type pkg struct {
	name  string
	fset  *token.FileSet
	files []*ast.File // sorted by file name
	names []string    // base names, parallel to files
}

// loadPackage reads and parses the non-test Go files of dir except output, each bounded before it is read.
func loadPackage(dir, output string, lim limits) (*pkg, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("cannot read package %q: %w", dir, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("cannot read package %q: not a folder (%s)", dir, clusterctl.FileType(fi.Mode()))
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("cannot read package %q: %w", dir, err)
	}
	var names []string
	for _, e := range entries {
		n := e.Name()
		if !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") || n == output ||
			strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_") {
			continue
		}
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) == 0 {
		return nil, fmt.Errorf("cannot read package %q: no Go files", dir)
	}
	if len(names) > lim.files {
		return nil, fmt.Errorf("cannot read package %q: %d Go files, more than the limit of %d", dir, len(names), lim.files)
	}
	p := &pkg{fset: token.NewFileSet()}
	var total int64
	for _, n := range names {
		path := filepath.Join(dir, n)
		src, err := readBounded(path, lim.fileBytes)
		if err != nil {
			return nil, err
		}
		total += int64(len(src))
		if total > lim.totalBytes {
			return nil, fmt.Errorf("cannot read package %q: its Go files are larger than the limit of %d bytes (at %q)", dir, lim.totalBytes, path)
		}
		f, err := parser.ParseFile(p.fset, path, src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("cannot parse %q: %w", path, err)
		}
		if p.name == "" {
			p.name = f.Name.Name
		} else if f.Name.Name != p.name {
			return nil, fmt.Errorf("cannot read package %q: %q is package %s, %q is package %s", dir, filepath.Join(dir, p.names[0]), p.name, path, f.Name.Name)
		}
		p.files = append(p.files, f)
		p.names = append(p.names, n)
	}
	return p, nil
}

// openRegular opens the file path (a link followed) for reading when it is a regular file. It refuses anything
// else before opening it (opening a named pipe waits for a writer, a device may be read forever) and, as it
// opens without blocking where the system can, refuses as well a file put in its place in between.
func openRegular(path string) (*os.File, fs.FileInfo, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot read %q: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("cannot read %q: not a regular file (%s)", path, clusterctl.FileType(fi.Mode()))
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot read %q: %w", path, err)
	}
	if fi, err = f.Stat(); err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("cannot read %q: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("cannot read %q: not a regular file (%s)", path, clusterctl.FileType(fi.Mode()))
	}
	return f, fi, nil
}

// readBounded reads the regular file path, refusing it unread when it is larger than limit bytes.
func readBounded(path string, limit int64) ([]byte, error) {
	f, fi, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.Size() > limit {
		return nil, fmt.Errorf("cannot read %q: it is %d bytes, larger than the limit of %d", path, fi.Size(), limit)
	}
	src, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read %q: %w", path, err)
	}
	if int64(len(src)) > limit { // it grew since Stat
		return nil, fmt.Errorf("cannot read %q: it is larger than the limit of %d bytes", path, limit)
	}
	return src, nil
}

// isGenerated reports whether the file path starts with this package's header, reading at most its first line.
func isGenerated(path string) (bool, error) {
	f, _, err := openRegular(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	first := make([]byte, len(header))
	n, err := io.ReadFull(f, first)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return false, err
	}
	return bytes.Equal(first[:n], []byte(header)), nil
}

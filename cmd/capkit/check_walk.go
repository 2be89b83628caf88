package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/capkit/capkit/release/clusterctl"
)

// walkResult is what yamlFiles found in its arguments, and what it did not search or check.
type walkResult struct {
	// files are the YAML files to check, sorted.
	files []string
	// named are the files named as arguments.
	named []string
	// notChecked are files named *.yaml or *.yml that are not regular files (named pipes, devices, sockets), and
	// kustomizations.
	notChecked []clusterctl.Unclassified
	// kustomizedBy maps a folder argument without a kustomization to the folder above it that has one.
	kustomizedBy [][2]string
	// hidden are the hidden folders (".git") that were not searched.
	hidden []string
	// repeated are folders reached again (through a link) after they were searched under another path.
	repeated []string
}

// yamlFiles expands the arguments: a file as given (it must be a regular file), a folder searched recursively for
// *.yaml and *.yml files (any case), following symbolic links to folders. A folder reached again (a link loop, or
// two links to one folder) is searched once, and hidden folders below an argument are not searched; both are
// recorded, as are files named *.yaml that are not regular files, kustomizations (which are not read) and, for a
// folder argument without a kustomization, the folder above it that has one.
func yamlFiles(args []string) (walkResult, error) {
	w := &walker{seen: map[any]string{}}
	for _, arg := range args {
		fi, err := os.Stat(arg)
		if err != nil {
			return walkResult{}, fmt.Errorf("cannot read %q: %w", arg, err)
		}
		switch {
		case fi.IsDir():
			if err := w.dir(arg, fi, nil); err != nil {
				return walkResult{}, err
			}
			if above := kustomizationAbove(arg); above != "" {
				w.res.kustomizedBy = append(w.res.kustomizedBy, [2]string{arg, above})
			}
		case fi.Mode().IsRegular() && isKustomization(arg):
			w.res.notChecked = append(w.res.notChecked, clusterctl.Unclassified{File: arg, Reason: kustomizationReason(arg)})
		case fi.Mode().IsRegular():
			w.res.files = append(w.res.files, arg)
			w.res.named = append(w.res.named, arg)
		default:
			return walkResult{}, fmt.Errorf("cannot check %q: not a regular file or folder (%s)", arg, clusterctl.FileType(fi.Mode()))
		}
	}
	slices.Sort(w.res.files)
	w.res.files = slices.Compact(w.res.files)
	return w.res, nil
}

// walker searches folders, each once.
type walker struct {
	res walkResult
	// seen maps the identity of each folder searched (device and inode, where the system has them) to its path.
	seen map[any]string
}

// dir searches the folder path; ancestors are the folders above it in this search, for systems without inodes.
func (w *walker) dir(path string, fi fs.FileInfo, ancestors []fs.FileInfo) error {
	if key, ok := fileKey(fi); ok {
		if _, dup := w.seen[key]; dup {
			w.res.repeated = append(w.res.repeated, path)
			return nil
		}
		w.seen[key] = path
	} else if slices.ContainsFunc(ancestors, func(a fs.FileInfo) bool { return os.SameFile(a, fi) }) {
		w.res.repeated = append(w.res.repeated, path)
		return nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return fmt.Errorf("cannot read folder %q: %w", path, err)
	}
	ancestors = append(ancestors, fi)
	for _, e := range entries {
		p := filepath.Join(path, e.Name())
		info, err := e.Info()
		if err == nil && info.Mode()&fs.ModeSymlink != 0 {
			info, err = os.Stat(p) // follow the link
		}
		if err != nil {
			if isYAMLName(e.Name()) {
				w.res.files = append(w.res.files, p) // reading it reports the error
			}
			continue
		}
		switch mode := info.Mode(); {
		case mode.IsDir() && strings.HasPrefix(e.Name(), "."):
			w.res.hidden = append(w.res.hidden, p)
		case mode.IsDir():
			if err := w.dir(p, info, ancestors); err != nil {
				return err
			}
		case mode.IsRegular() && isKustomization(e.Name()):
			w.res.notChecked = append(w.res.notChecked, clusterctl.Unclassified{File: p, Reason: kustomizationReason(p)})
		case !isYAMLName(e.Name()):
		case mode.IsRegular():
			w.res.files = append(w.res.files, p)
		default:
			w.res.notChecked = append(w.res.notChecked, clusterctl.Unclassified{File: p,
				Reason: fmt.Sprintf("not checked: not a regular file (%s)", clusterctl.FileType(mode))})
		}
	}
	return nil
}

// isYAMLName reports whether a file name ends in .yaml or .yml, in any case.
func isYAMLName(name string) bool {
	ext := filepath.Ext(name)
	return strings.EqualFold(ext, ".yaml") || strings.EqualFold(ext, ".yml")
}

package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/capkit/capkit/release/clusterctl"
)

// readResult is what readFiles read, and what it could not.
type readResult struct {
	files      []*clusterctl.YAMLFile
	notChecked []clusterctl.Unclassified
}

// readFiles reads the files the walk found. A file that cannot be read as Kubernetes objects (malformed YAML, input
// above a bound, a Helm values file, a clusterctl configuration file) is listed as not checked with the reason; so is
// a file of a folder that cannot be opened. Only a file named as an argument that cannot be opened or read is an
// error: the user asked for it.
func readFiles(w walkResult) (readResult, error) {
	var res readResult
	for _, name := range w.files {
		f, err := clusterctl.ReadYAMLFile(name)
		switch {
		case err == nil:
			res.files = append(res.files, f)
		case !errors.Is(err, clusterctl.ErrMalformed) && !errors.Is(err, clusterctl.ErrTooLarge) && slices.Contains(w.named, name):
			return readResult{}, err
		default:
			res.notChecked = append(res.notChecked, clusterctl.Unclassified{File: name, Reason: "not checked: " + unreadableReason(name, err)})
		}
	}
	return res, nil
}

// checkReadable runs clusterctl.CheckFiles on the files; a file with a CRD that cannot be decoded is listed as not
// checked, and the others are checked without it.
func checkReadable(res *readResult) (clusterctl.Findings, error) {
	for range len(res.files) + 1 { // each failure takes one file out
		findings, err := clusterctl.CheckFiles(res.files...)
		var pe *clusterctl.PositionError
		if err == nil || !errors.As(err, &pe) || !errors.Is(err, clusterctl.ErrMalformed) {
			return findings, err
		}
		i := slices.IndexFunc(res.files, func(f *clusterctl.YAMLFile) bool { return f.Name == pe.File })
		if i < 0 {
			return nil, err
		}
		res.files = slices.Delete(res.files, i, i+1)
		res.notChecked = append(res.notChecked, clusterctl.Unclassified{File: pe.File, Reason: "not checked: " + positionReason(pe)})
	}
	return nil, errors.New("cannot check the files: every file was taken out and the check still failed")
}

// unreadableReason says why a file could not be read: what it is, when its name or content says so, or the error
// with its line.
func unreadableReason(name string, err error) string {
	var pe *clusterctl.PositionError
	if !errors.As(err, &pe) {
		return err.Error()
	}
	if errors.Is(err, clusterctl.ErrMalformed) {
		if what := notObjects(name); what != "" {
			return what + ", not Kubernetes objects (" + positionReason(pe) + ")"
		}
	}
	return positionReason(pe)
}

// positionReason is the cause of a PositionError with its line, for a not-checked line that names the file already.
func positionReason(pe *clusterctl.PositionError) string {
	cause := ""
	if pe.Err != nil {
		cause = pe.Err.Error()
	}
	if pe.Line > 0 {
		kind, rest, found := strings.Cut(cause, ": ")
		if !found {
			return fmt.Sprintf("%s at line %d", cause, pe.Line)
		}
		return fmt.Sprintf("%s at line %d: %s", kind, pe.Line, rest)
	}
	return cause
}

// clusterctlConfigKey finds the top-level keys of a clusterctl configuration file (clusterctl.yaml): providers,
// images, cert-manager, or a variable such as CLUSTERCTL_LOG_LEVEL.
var clusterctlConfigKey = regexp.MustCompile(`(?m)^(providers|images|cert-manager|CLUSTERCTL_[A-Z_]+|EXP_[A-Z_]+):`)

// notObjects names what a file that holds no Kubernetes objects is, from its name or content: a Helm values file or
// a clusterctl configuration file; or "".
func notObjects(name string) string {
	base := strings.ToLower(filepath.Base(name))
	stem := strings.TrimSuffix(base, filepath.Ext(base))
	switch {
	case stem == "values" || strings.HasPrefix(stem, "values-") || strings.HasPrefix(stem, "values."):
		return "a Helm values file"
	case strings.HasPrefix(stem, "clusterctl"):
		return "a clusterctl configuration file"
	}
	data, err := os.ReadFile(name) // within the size limit: ReadYAMLFile read it before it failed on its content
	if err == nil && bytes.Contains(data, []byte("providers:")) && clusterctlConfigKey.Match(data) {
		return "a clusterctl configuration file"
	}
	return ""
}

// kustomizationNames are the file names kustomize reads in a folder.
var kustomizationNames = []string{"kustomization.yaml", "kustomization.yml", "Kustomization"}

// isKustomization reports whether the file is a kustomization by its name.
func isKustomization(name string) bool {
	return slices.Contains(kustomizationNames, filepath.Base(name))
}

// kustomizationReason says why a kustomization is not checked and what to check instead.
func kustomizationReason(name string) string {
	return fmt.Sprintf("not checked: a kustomization, which capkit does not build: check what it builds "+
		"(kubectl kustomize %s > built.yaml; capkit check built.yaml)", filepath.Dir(name))
}

// maxKustomizationLevels is how many folders up from a folder argument kustomizationAbove looks.
const maxKustomizationLevels = 2

// kustomizationAbove returns the folder, at most maxKustomizationLevels above dir and not above a repository root
// (a folder with go.mod or .git), that holds a kustomization when dir holds none: e.g. config/crd for
// config/crd/bases, whose CRDs get their contract labels there. It returns "" otherwise.
func kustomizationAbove(dir string) string {
	if hasKustomization(dir) || isRepositoryRoot(dir) {
		return ""
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	up := dir
	for range maxKustomizationLevels {
		parent := filepath.Dir(abs)
		if parent == abs {
			return ""
		}
		abs, up = parent, filepath.Join(up, "..")
		if hasKustomization(abs) {
			return filepath.Clean(up)
		}
		if isRepositoryRoot(abs) {
			return ""
		}
	}
	return ""
}

func hasKustomization(dir string) bool {
	return slices.ContainsFunc(kustomizationNames, func(n string) bool { return isRegularFile(filepath.Join(dir, n)) })
}

func isRepositoryRoot(dir string) bool {
	_, errMod := os.Stat(filepath.Join(dir, "go.mod"))
	_, errGit := os.Stat(filepath.Join(dir, ".git"))
	return errMod == nil || errGit == nil
}

func isRegularFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

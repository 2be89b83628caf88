package clusterctl_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/capkit/capkit/release/clusterctl"
)

// Bounds of the fuzz targets: small, so that each run is fast and the seeds that cross them stay small.
const (
	fuzzMaxBytes     = 1 << 20
	fuzzMaxNodes     = 20_000
	fuzzMaxDocuments = 100
	fuzzMaxFindings  = 20
)

// fuzzReadOptions are the bounds of both fuzz targets.
var fuzzReadOptions = []clusterctl.ReadOption{clusterctl.WithMaxBytes(fuzzMaxBytes), clusterctl.WithMaxNodes(fuzzMaxNodes),
	clusterctl.WithMaxDocuments(fuzzMaxDocuments), clusterctl.WithMaxFindings(fuzzMaxFindings)}

// checkPrintableLine fails unless s is one line of printable text.
func checkPrintableLine(t *testing.T, what, s string) {
	t.Helper()
	for _, r := range s {
		if !unicode.IsPrint(r) || r == unicode.ReplacementChar {
			t.Fatalf("%s is not one line of printable text: %q holds %q", what, s, r)
		}
	}
}

// addTestdataSeeds adds every YAML file under testdata as a seed, besides the corpus in testdata/fuzz.
func addTestdataSeeds(f *testing.F, add func(name string, data []byte)) {
	f.Helper()
	err := filepath.WalkDir("testdata", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".yaml" {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		add(filepath.Base(path), data)
		return nil
	})
	if err != nil {
		f.Fatal(err)
	}
}

func FuzzReadYAML(f *testing.F) {
	addTestdataSeeds(f, func(_ string, data []byte) { f.Add(data) })
	f.Fuzz(func(t *testing.T, data []byte) {
		yf, err := clusterctl.ReadYAML(bytes.NewReader(data), "fuzz.yaml", fuzzReadOptions...)
		if err != nil {
			if !errors.Is(err, clusterctl.ErrMalformed) && !errors.Is(err, clusterctl.ErrTooLarge) {
				t.Fatalf("error wraps neither ErrMalformed nor ErrTooLarge: %v", err)
			}
			if !strings.HasPrefix(err.Error(), "fuzz.yaml") {
				t.Fatalf("error must name the file: %q", err)
			}
			checkPrintableLine(t, "error", err.Error())
			return
		}
		if len(yf.Documents) > fuzzMaxDocuments {
			t.Fatalf("%d documents, more than the limit %d", len(yf.Documents), fuzzMaxDocuments)
		}
		lines := bytes.Count(data, []byte("\n")) + 1
		for _, d := range yf.Documents {
			if d.Object.GetAPIVersion() == "" || d.Object.GetKind() == "" {
				t.Fatalf("document at line %d without apiVersion or kind", d.Line)
			}
			if d.StartLine < 1 || d.Line < d.StartLine || d.Line > lines {
				t.Fatalf("document lines out of range: start %d, line %d, file has %d lines", d.StartLine, d.Line, lines)
			}
			// The object is plain JSON data: it survives a deep copy.
			_ = d.Object.DeepCopy()
		}
	})
}

// fuzzFileNames are the names FuzzCheckFiles gives its input, one per kind of file.
var fuzzFileNames = []string{"metadata.yaml", "infrastructure-components.yaml", "cluster-template.yaml", "crds.yaml", "clusterclass-fuzz.yaml"}

func FuzzCheckFiles(f *testing.F) {
	addTestdataSeeds(f, func(name string, data []byte) {
		kind := uint8(3) // crds.yaml, for every file that is no release file by name
		for i, n := range fuzzFileNames {
			if k := clusterctl.ClassifyFile(n); k != clusterctl.FileOther && clusterctl.ClassifyFile(name) == k {
				kind = uint8(i)
			}
		}
		f.Add(kind, data)
	})
	f.Fuzz(func(t *testing.T, kind uint8, data []byte) {
		name := filepath.Join("rel", fuzzFileNames[int(kind)%len(fuzzFileNames)])
		vars, issues := clusterctl.ScanVariables(data)
		lines := bytes.Count(data, []byte("\n")) + 1
		for _, v := range vars {
			if v.Name == "" || v.Line < 1 || v.Line > lines {
				t.Fatalf("bad variable %+v", v)
			}
		}
		for _, is := range issues {
			if is.Rule == "" || is.Line < 1 || is.Line > lines || strings.Contains(is.Message, "\n") {
				t.Fatalf("bad issue %+v", is)
			}
		}
		yf, err := clusterctl.ReadYAML(bytes.NewReader(data), name, fuzzReadOptions...)
		if err != nil {
			checkPrintableLine(t, "error", err.Error())
			return
		}
		findings, err := clusterctl.CheckFiles(yf)
		if err != nil {
			if !errors.Is(err, clusterctl.ErrMalformed) {
				t.Fatalf("CheckFiles error does not wrap ErrMalformed: %v", err)
			}
			checkPrintableLine(t, "error", err.Error())
			return
		}
		if len(findings) > fuzzMaxFindings+1 {
			t.Fatalf("%d findings listed, more than the limit %d and the line that counts the rest", len(findings), fuzzMaxFindings)
		}
		for i, fd := range findings {
			if fd.File != name || fd.Rule == "" || fd.Message == "" {
				t.Fatalf("bad finding %q", fd.String())
			}
			checkPrintableLine(t, "finding", fd.String())
			if fd.Rule == clusterctl.RuleMoreFindings {
				if i != len(findings)-1 || fd.Omitted < 1 || len(findings) != fuzzMaxFindings+1 {
					t.Fatalf("finding %q that counts the rest is not the last after %d others", fd.String(), fuzzMaxFindings)
				}
				continue
			}
			if i > 0 && findings[i-1].Line > fd.Line {
				t.Fatalf("findings not sorted: %q before %q", findings[i-1].String(), fd.String())
			}
		}
		if findings.Count() < len(findings) {
			t.Fatalf("count %d below the %d findings listed", findings.Count(), len(findings))
		}
		for _, u := range clusterctl.FindUnclassified(yf) {
			checkPrintableLine(t, "not checked line", u.String())
		}
	})
}

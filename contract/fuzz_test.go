package contract_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/capkit/capkit/contract"
)

// fuzzMaxBytes keeps fuzz inputs small, so that each run is fast.
const fuzzMaxBytes = 1 << 20

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
		yf, err := contract.ReadYAML(bytes.NewReader(data), "fuzz.yaml", contract.WithMaxBytes(fuzzMaxBytes))
		if err != nil {
			if !errors.Is(err, contract.ErrMalformed) && !errors.Is(err, contract.ErrTooLarge) {
				t.Fatalf("error wraps neither ErrMalformed nor ErrTooLarge: %v", err)
			}
			if !strings.HasPrefix(err.Error(), "fuzz.yaml") || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error must name the file, on one line: %q", err)
			}
			return
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
var fuzzFileNames = []string{"metadata.yaml", "infrastructure-components.yaml", "cluster-template.yaml", "crds.yaml"}

func FuzzCheckFiles(f *testing.F) {
	addTestdataSeeds(f, func(name string, data []byte) {
		kind := uint8(3)
		for i, n := range fuzzFileNames[:3] {
			if contract.ClassifyFile(name) == contract.ClassifyFile(n) {
				kind = uint8(i)
			}
		}
		f.Add(kind, data)
	})
	f.Fuzz(func(t *testing.T, kind uint8, data []byte) {
		name := filepath.Join("rel", fuzzFileNames[int(kind)%len(fuzzFileNames)])
		vars, issues := contract.ScanVariables(data)
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
		yf, err := contract.ReadYAML(bytes.NewReader(data), name, contract.WithMaxBytes(fuzzMaxBytes))
		if err != nil {
			return
		}
		findings, err := contract.CheckFiles(yf)
		if err != nil {
			if !errors.Is(err, contract.ErrMalformed) {
				t.Fatalf("CheckFiles error does not wrap ErrMalformed: %v", err)
			}
			return
		}
		for i, fd := range findings {
			if fd.File != name || fd.Rule == "" || fd.Message == "" || strings.Contains(fd.String(), "\n") {
				t.Fatalf("bad finding %q", fd.String())
			}
			if i > 0 && findings[i-1].Line > fd.Line {
				t.Fatalf("findings not sorted: %q before %q", findings[i-1].String(), fd.String())
			}
		}
	})
}

func FuzzFieldAccessors(f *testing.F) {
	f.Add([]byte(`{"status":{"initialization":{"provisioned":true},"failureDomains":[{"name":"a"}]}}`), "status.initialization.provisioned", "x")
	f.Add([]byte(`{"status":{"failureDomains":{"a":{"controlPlane":true}}}}`), "status.failureDomains", "")
	f.Add([]byte(`{"spec":{"controlPlaneEndpoint":{"host":"h","port":6443}}}`), "spec.controlPlaneEndpoint.port", "7")
	f.Add([]byte(`{"spec":"not a map"}`), "spec.controlPlaneEndpoint", "")
	f.Add([]byte(`{"status":{"conditions":[{"type":"Ready","status":"True"}]}}`), "status.conditions", "Ready")
	f.Add([]byte(`{"a":[1,2,{"b":null}]}`), "a.b..c", "")
	f.Add([]byte(`{}`), "", "")
	f.Fuzz(func(t *testing.T, object []byte, path, value string) {
		var obj map[string]any
		if err := json.Unmarshal(object, &obj); err != nil || obj == nil {
			return
		}
		u := &unstructured.Unstructured{Object: obj}
		p := strings.Split(path, ".")
		if path == "" {
			p = nil
		}
		getSet(t, contract.NewField[string](p...), u, value)
		getSet(t, contract.NewField[bool](p...), u, len(value)%2 == 0)
		getSet(t, contract.NewField[int64](p...), u, int64(len(value)))
		getSet(t, contract.NewField[map[string]any](p...), u, map[string]any{"v": value})
		getSet(t, contract.NewField[[]any](p...), u, []any{value})
		getSet(t, contract.NewField[contract.APIEndpoint](p...), u, contract.APIEndpoint{Host: value, Port: 6443})
		getSet(t, contract.NewField[[]metav1.Condition](p...), u, []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue, Reason: value}})
		for _, v := range contract.Versions {
			fds := contract.InfraCluster(v).FailureDomains()
			_, _ = fds.Get(u)
			_ = fds.Set(u, []contract.FailureDomain{{Name: value}})
			_, _ = contract.InfraCluster(v).Provisioned().Get(u)
			_ = contract.CheckInfraCluster(u, v)
			_ = contract.CheckInfraMachine(u, v)
			_ = contract.CheckBootstrapConfig(u, v)
		}
		_ = u.DeepCopy()
	})
}

// getSet reads and writes one field; a successful Set must be read back by Get.
func getSet[T any](t *testing.T, f contract.Field[T], u *unstructured.Unstructured, value T) {
	t.Helper()
	_, _ = f.Get(u)
	if err := f.Set(u, value); err != nil {
		return
	}
	got, err := f.Get(u)
	if err != nil {
		t.Fatalf("Set %q succeeded but Get fails: %v", f.Path(), err)
	}
	// Compare the JSON values: invalid UTF-8 in value is stored as U+FFFD, as JSON requires.
	var want, have any
	wantJSON, _ := json.Marshal(value)
	haveJSON, _ := json.Marshal(got)
	_ = json.Unmarshal(wantJSON, &want)
	_ = json.Unmarshal(haveJSON, &have)
	if !reflect.DeepEqual(want, have) {
		t.Fatalf("Set %q then Get: want %s, got %s", f.Path(), wantJSON, haveJSON)
	}
}

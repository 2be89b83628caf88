package testenv

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// CAPIModule is the module path of Cluster API.
const CAPIModule = "sigs.k8s.io/cluster-api"

//go:embed crds/*.yaml
var minimalCRDs embed.FS

// MinimalCAPICRDs returns capkit's minimal Cluster, Machine and MachinePool CRDs: both core API versions served, spec
// and status open. They let tests that do not depend on Cluster API create core objects.
func MinimalCAPICRDs() ([]*apiextensionsv1.CustomResourceDefinition, error) {
	return ReadCRDs(minimalCRDs, "crds")
}

// ReadCRDs decodes every *.yaml file under dir in fsys as a CustomResourceDefinition, strictly (unknown
// fields are errors). Use it with an embed.FS to ship test CRDs inside a Go package.
func ReadCRDs(fsys fs.FS, dir string) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	var out []*apiextensionsv1.CustomResourceDefinition
	err := fs.WalkDir(fsys, dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".yaml" {
			return err
		}
		b, err := fs.ReadFile(fsys, path)
		if err != nil {
			return err
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.UnmarshalStrict(b, crd); err != nil {
			return fmt.Errorf("cannot decode %q: %w", path, err)
		}
		out = append(out, crd)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("cannot read CRDs in %q: %w", dir, err)
	}
	return out, nil
}

// capiSource is where the Cluster API CRDs come from.
type capiSource struct {
	dirs []string
	crds []*apiextensionsv1.CustomResourceDefinition
}

func (s capiSource) describe() string {
	if len(s.dirs) > 0 {
		return strings.Join(s.dirs, ",")
	}
	return "capkit minimal CRDs"
}

// resolveCAPICRDs finds the Cluster API CRDs: an explicit folder; else the CRDs of the sigs.k8s.io/cluster-api
// module in the build list of the module of the current directory (go list -m honours replace directives and
// GOMODCACHE); else capkit's minimal CRDs.
func resolveCAPICRDs(explicit string) (capiSource, error) {
	if explicit != "" {
		if _, err := os.Stat(explicit); err != nil {
			return capiSource{}, fmt.Errorf("cannot use CAPI CRD folder %q: %w", explicit, err)
		}
		return capiSource{dirs: []string{explicit}}, nil
	}
	if dir, ok := capiModuleCRDDir(); ok {
		return capiSource{dirs: []string{dir}}, nil
	}
	crds, err := MinimalCAPICRDs()
	return capiSource{crds: crds}, err
}

// CAPIModuleDir returns the folder of the sigs.k8s.io/cluster-api module in the build list of the Go module
// in moduleDir ("" for the current directory), as `go list -m -json` reports it.
func CAPIModuleDir(moduleDir string) (string, error) {
	cmd := exec.Command("go", "list", "-mod=mod", "-m", "-json", CAPIModule)
	cmd.Dir = moduleDir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("cannot find module %q: %w: %s", CAPIModule, err, strings.TrimSpace(stderr.String()))
	}
	var m struct {
		Dir     string
		Replace *struct{ Dir string }
	}
	if err := json.Unmarshal(out, &m); err != nil {
		return "", fmt.Errorf("cannot decode go list output: %w", err)
	}
	dir := m.Dir
	if m.Replace != nil && m.Replace.Dir != "" {
		dir = m.Replace.Dir
	}
	if dir == "" {
		return "", fmt.Errorf("cannot find module %q: not downloaded (run go mod download %s)", CAPIModule, CAPIModule)
	}
	return dir, nil
}

// capiCRDLayouts are the folders, relative to the module root, that hold the core CRDs: core/config/crd/bases
// since Cluster API v1.11 moved the core manager under core/, config/crd/bases before.
var capiCRDLayouts = []string{filepath.Join("core", "config", "crd", "bases"), filepath.Join("config", "crd", "bases")}

func capiModuleCRDDir() (string, bool) {
	dir, err := CAPIModuleDir("")
	if err != nil {
		return "", false
	}
	return capiCRDDirIn(dir)
}

// capiCRDDirIn returns the core CRD folder of a Cluster API source tree.
func capiCRDDirIn(root string) (string, bool) {
	for _, rel := range capiCRDLayouts {
		crds := filepath.Join(root, rel)
		if _, err := os.Stat(filepath.Join(crds, "cluster.x-k8s.io_clusters.yaml")); err == nil {
			return crds, true
		}
	}
	return "", false
}

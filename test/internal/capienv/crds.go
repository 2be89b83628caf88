package capienv

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/capkit/capkit/providertest/testenv"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// ModuleDir returns the folder of the sigs.k8s.io/cluster-api module in the build list of the Go module in
// dir ("" for the current directory, the package folder under go test).
func ModuleDir(dir string) (string, error) {
	return testenv.CAPIModuleDir(dir)
}

// CRDs returns the CRDs of the components from the Cluster API module in moduleDir ("" looks the module up
// from the current directory), with the labels that the component's config/crd/kustomization.yaml adds
// (clusterctl installs them so; the core controllers find a provider's API version through them). Install
// them with testenv.WithCRDs.
func CRDs(moduleDir string, components ...Component) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	if moduleDir == "" {
		var err error
		if moduleDir, err = ModuleDir(""); err != nil {
			return nil, err
		}
	}
	var out []*apiextensionsv1.CustomResourceDefinition
	for _, c := range components {
		crds, err := componentCRDs(moduleDir, c)
		if err != nil {
			return nil, err
		}
		out = append(out, crds...)
	}
	return out, nil
}

func componentCRDs(moduleDir string, c Component) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	dir := c.CRDDir(moduleDir)
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, fmt.Errorf("cannot find CRDs of %q in %q: %w", c.Name, dir, err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("cannot find CRDs of %q: no YAML file in %q", c.Name, dir)
	}
	sort.Strings(files)
	labels, err := kustomizeLabels(filepath.Join(filepath.Dir(dir), "kustomization.yaml"))
	if err != nil {
		return nil, err
	}
	out := make([]*apiextensionsv1.CustomResourceDefinition, 0, len(files))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("cannot read CRD %q: %w", f, err)
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.Unmarshal(b, crd); err != nil {
			return nil, fmt.Errorf("cannot decode CRD %q: %w", f, err)
		}
		if crd.Kind != "CustomResourceDefinition" || crd.Name == "" {
			return nil, fmt.Errorf("cannot use %q: kind %q, name %q: not a CRD", f, crd.Kind, crd.Name)
		}
		if len(labels) > 0 && crd.Labels == nil {
			crd.Labels = map[string]string{}
		}
		for k, v := range labels {
			crd.Labels[k] = v
		}
		out = append(out, crd)
	}
	return out, nil
}

// kustomizeLabels returns the labels a kustomization adds to every resource (labels[].pairs and the older
// commonLabels); a missing file has none.
func kustomizeLabels(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read %q: %w", path, err)
	}
	var k struct {
		Labels []struct {
			Pairs map[string]string `json:"pairs"`
		} `json:"labels"`
		CommonLabels map[string]string `json:"commonLabels"`
	}
	if err := yaml.Unmarshal(b, &k); err != nil {
		return nil, fmt.Errorf("cannot decode %q: %w", path, err)
	}
	out := map[string]string{}
	for k, v := range k.CommonLabels {
		out[k] = v
	}
	for _, l := range k.Labels {
		for k, v := range l.Pairs {
			out[k] = v
		}
	}
	return out, nil
}

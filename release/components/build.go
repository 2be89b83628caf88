package components

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"sigs.k8s.io/yaml"

	"github.com/capkit/capkit/release/clusterctl"
)

// Build returns infrastructure-components.yaml for the files controller-gen wrote in cfg.ConfigDir: the
// provider's Namespace, its CRDs, RBAC, the manager's Service and Deployment, the cert-manager Issuer and
// Certificate of the webhook server and the webhook configurations, each labelled with the provider and, when
// namespaced, in the Namespace. A CRD with more than one version gets a conversion webhook served by the
// manager at /convert through the Service, with the CA of the Certificate. The Service, Issuer and Certificate
// are written whether or not there are webhook configurations, since the manager's webhook server (and the
// conversion webhook) needs them; webhook/manifests.yaml may be missing, for a provider without admission
// webhooks. The output is deterministic. Build returns an error wrapping ErrInvalidConfig when cfg is invalid
// (see Config.Validate), and an error naming the file when a generated file is missing or is not what
// controller-gen writes.
func Build(cfg Config) ([]byte, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	n := newNames(cfg)
	crds, err := readDir(filepath.Join(cfg.ConfigDir, "crd", "bases"))
	if err != nil {
		return nil, err
	}
	roles, err := readFile(filepath.Join(cfg.ConfigDir, "rbac", "role.yaml"))
	if err != nil {
		return nil, err
	}
	hooks, err := readOptionalFile(filepath.Join(cfg.ConfigDir, "webhook", "manifests.yaml"))
	if err != nil {
		return nil, err
	}

	objs := []object{namespaceObject(n)}
	objs = append(objs, crds...)
	rbac, err := rbacObjects(n, roles, crds)
	if err != nil {
		return nil, err
	}
	for _, c := range crds {
		if err := fixCRDConversion(n, c); err != nil {
			return nil, err
		}
	}
	objs = append(objs, rbac...)
	typed, err := toObjects(managerObjects(n, cfg.Image, cfg.ManagerArgs)...)
	if err != nil {
		return nil, err
	}
	objs = append(objs, typed...)
	objs = append(objs, certificateObjects(n)...)
	for _, h := range hooks {
		if err := fixWebhookConfiguration(n, h); err != nil {
			return nil, err
		}
		objs = append(objs, h)
	}
	return encode(n, objs)
}

// encode labels the objects with the provider, puts the namespaced ones in the Namespace and writes them as
// YAML documents after the header.
func encode(n names, objs []object) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(n.header)
	for _, o := range objs {
		labelProvider(o, n.provider)
		if !clusterScoped(o) {
			meta(o)["namespace"] = n.namespace
		}
		data, err := yaml.Marshal(o)
		if err != nil {
			return nil, fmt.Errorf("cannot encode %s: %w", ref(o), err)
		}
		b.WriteString("---\n")
		b.Write(data)
	}
	return b.Bytes(), nil
}

// readDir reads the objects of every .yaml file in dir, in file name order.
func readDir(dir string) ([]object, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, fmt.Errorf("cannot list %q: %w", dir, err)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("cannot find CRDs in %q: run controller-gen first", dir)
	}
	slices.Sort(names)
	var out []object
	for _, name := range names {
		objs, err := readFile(name)
		if err != nil {
			return nil, err
		}
		out = append(out, objs...)
	}
	return out, nil
}

// readOptionalFile reads the objects of a multi-document YAML file, and returns none when the file does not
// exist: a provider without admission webhooks has no webhook/manifests.yaml.
func readOptionalFile(name string) ([]object, error) {
	if _, err := os.Lstat(name); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return readFile(name)
}

// readFile reads the objects of a multi-document YAML file.
func readFile(name string) ([]object, error) {
	f, err := clusterctl.ReadYAMLFile(name)
	if err != nil {
		return nil, fmt.Errorf("cannot read generated file: %w", err)
	}
	out := make([]object, 0, len(f.Documents))
	for _, d := range f.Documents {
		out = append(out, d.Object.Object)
	}
	return out, nil
}

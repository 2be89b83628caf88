package capienv

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	clusterctlv1 "sigs.k8s.io/cluster-api/cmd/clusterctl/api/v1alpha3"
	clusterctlconfig "sigs.k8s.io/cluster-api/cmd/clusterctl/config"

	"github.com/capkit/capkit/providertest/testenv"
)

// InventoryCRDName is the name of clusterctl's provider inventory CRD (kind Provider).
const InventoryCRDName = "providers.clusterctl.cluster.x-k8s.io"

// InventoryProvider is one provider as `clusterctl init` records it in a management cluster: a Provider object
// (clusterctl.cluster.x-k8s.io/v1alpha3) in the provider's namespace, and clusterctl's labels on the provider's
// CRDs, through which `clusterctl move` discovers the objects to move.
type InventoryProvider struct {
	// Name is the provider's name, e.g. "cluster-api", "kubeadm" or "memcloud".
	Name string
	// Type is the provider's type, e.g. clusterctlv1.InfrastructureProviderType.
	Type clusterctlv1.ProviderType
	// Version is the installed version, a semantic version such as "v1.14.2"; `clusterctl move` requires
	// the target's version of each provider to be at least the source's.
	Version string
	// Namespace is the namespace the provider is installed in, e.g. "capi-system".
	Namespace string
	// CRDs are the names of the provider's CRDs, which must be installed already.
	CRDs []string
}

// ManifestLabel returns the provider's value of the cluster.x-k8s.io/provider label, which is also the name
// of its Provider object, e.g. "bootstrap-kubeadm" or "infrastructure-memcloud".
func (p InventoryProvider) ManifestLabel() string { return clusterctlv1.ManifestLabel(p.Name, p.Type) }

// Labels returns the labels `clusterctl init` puts on every component of the provider: clusterctl's own label
// and cluster.x-k8s.io/provider.
func (p InventoryProvider) Labels() map[string]string {
	return map[string]string{clusterctlv1.ClusterctlLabel: "", clusterv1.ProviderNameLabel: p.ManifestLabel()}
}

// Object returns the Provider object `clusterctl init` writes for p.
func (p InventoryProvider) Object() *clusterctlv1.Provider {
	labels := p.Labels()
	labels[clusterctlv1.ClusterctlCoreLabel] = clusterctlv1.ClusterctlCoreLabelInventoryValue
	return &clusterctlv1.Provider{
		TypeMeta:     metav1.TypeMeta{APIVersion: clusterctlv1.GroupVersion.String(), Kind: "Provider"},
		ObjectMeta:   metav1.ObjectMeta{Namespace: p.Namespace, Name: p.ManifestLabel(), Labels: labels},
		ProviderName: p.Name,
		Type:         string(p.Type),
		Version:      p.Version,
	}
}

func (p InventoryProvider) validate() error {
	if p.Name == "" || p.Namespace == "" || p.Object().GetProviderType() == clusterctlv1.ProviderTypeUnknown {
		return fmt.Errorf("cannot record provider %q of type %q in namespace %q: name, known type and namespace are required", p.Name, p.Type, p.Namespace)
	}
	if !strings.HasPrefix(p.Version, "v") {
		return fmt.Errorf("cannot record provider %q: version %q is not a semantic version starting with v", p.Name, p.Version)
	}
	return nil
}

// InventoryCRD returns clusterctl's inventory CRD from the manifest embedded in the clusterctl library, with the
// label clusterctl gives it when it installs it.
func InventoryCRD() (*apiextensionsv1.CustomResourceDefinition, error) {
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.Unmarshal(clusterctlconfig.ClusterctlAPIManifest, crd); err != nil {
		return nil, fmt.Errorf("cannot decode clusterctl's inventory CRD: %w", err)
	}
	if crd.Name != InventoryCRDName {
		return nil, fmt.Errorf("cannot use clusterctl's API manifest: want CRD %q, got %s %q", InventoryCRDName, crd.Kind, crd.Name)
	}
	if crd.Labels == nil {
		crd.Labels = map[string]string{}
	}
	crd.Labels[clusterctlv1.ClusterctlCoreLabel] = clusterctlv1.ClusterctlCoreLabelInventoryValue
	return crd, nil
}

// InstallInventory leaves the API server of c with clusterctl's inventory as `clusterctl init` leaves it for
// providers: the inventory CRD, installed and established; then for each provider its CRDs labelled
// (LabelCRDs), its namespace and its Provider object. It can be called again: existing objects are updated,
// e.g. to a new version.
func InstallInventory(ctx context.Context, c client.Client, providers ...InventoryProvider) error {
	for _, p := range providers {
		if err := p.validate(); err != nil {
			return err
		}
	}
	crd, err := InventoryCRD()
	if err != nil {
		return err
	}
	if err := c.Create(ctx, crd); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("cannot create CRD %q: %w", crd.Name, err)
	}
	if err := waitEstablished(ctx, c, crd.Name); err != nil {
		return err
	}
	for _, p := range providers {
		if err := LabelCRDs(ctx, c, p); err != nil {
			return err
		}
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: p.Namespace, Labels: p.Labels()}}
		if err := c.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("cannot create namespace %q of provider %q: %w", p.Namespace, p.ManifestLabel(), err)
		}
		if err := writeProvider(ctx, c, p); err != nil {
			return err
		}
	}
	return nil
}

// LabelCRDs adds clusterctl's labels (InventoryProvider.Labels) to each of p's CRDs, keeping their other
// labels. `clusterctl move` moves only objects of kinds whose CRD has the clusterctl.cluster.x-k8s.io label.
func LabelCRDs(ctx context.Context, c client.Client, p InventoryProvider) error {
	for _, name := range p.CRDs {
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			crd := &apiextensionsv1.CustomResourceDefinition{}
			if err := c.Get(ctx, client.ObjectKey{Name: name}, crd); err != nil {
				return err
			}
			if crd.Labels == nil {
				crd.Labels = map[string]string{}
			}
			maps.Copy(crd.Labels, p.Labels())
			return c.Update(ctx, crd)
		})
		if err != nil {
			return fmt.Errorf("cannot label CRD %q of provider %q: %w", name, p.ManifestLabel(), err)
		}
	}
	return nil
}

// writeProvider creates p's Provider object, or updates the one that exists. It writes it unstructured, so
// that c's scheme needs no clusterctl types.
func writeProvider(ctx context.Context, c client.Client, p InventoryProvider) error {
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(p.Object())
	if err != nil {
		return fmt.Errorf("cannot convert provider %q: %w", p.ManifestLabel(), err)
	}
	want := &unstructured.Unstructured{Object: obj}
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		err := c.Create(ctx, want.DeepCopy())
		if !apierrors.IsAlreadyExists(err) {
			return err
		}
		got := &unstructured.Unstructured{}
		got.SetGroupVersionKind(want.GroupVersionKind())
		if err := c.Get(ctx, client.ObjectKeyFromObject(want), got); err != nil {
			return err
		}
		update := want.DeepCopy()
		update.SetResourceVersion(got.GetResourceVersion())
		return c.Update(ctx, update)
	})
	if err != nil {
		return fmt.Errorf("cannot write Provider %s/%s: %w", p.Namespace, p.ManifestLabel(), err)
	}
	return nil
}

// waitEstablished polls CRD name until the API server serves it, at most a minute.
func waitEstablished(ctx context.Context, c client.Client, name string) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := c.Get(ctx, client.ObjectKey{Name: name}, crd); err != nil {
			return fmt.Errorf("cannot read CRD %q: %w", name, err)
		}
		for _, cond := range crd.Status.Conditions {
			if cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("cannot install CRD %q: not established: %w", name, ctx.Err())
		case <-tick.C:
		}
	}
}

// clusterctlNames are the names, types and namespaces clusterctl gives the Cluster API components, by
// Component.ConfigDir.
var clusterctlNames = map[string]InventoryProvider{
	Core.ConfigDir:                    {Name: "cluster-api", Type: clusterctlv1.CoreProviderType, Namespace: "capi-system"},
	KubeadmBootstrap.ConfigDir:        {Name: "kubeadm", Type: clusterctlv1.BootstrapProviderType, Namespace: "capi-kubeadm-bootstrap-system"},
	KubeadmControlPlaneCRDs.ConfigDir: {Name: "kubeadm", Type: clusterctlv1.ControlPlaneProviderType, Namespace: "capi-kubeadm-control-plane-system"},
}

// ClusterAPIProviders returns the inventory entries `clusterctl init` records for components of the Cluster
// API module in moduleDir ("" looks the module up from the current directory) at version (see
// ModuleVersion): core is "cluster-api" in capi-system, the kubeadm bootstrap provider "kubeadm" in
// capi-kubeadm-bootstrap-system, each with the CRDs the component's config/crd/bases holds.
func ClusterAPIProviders(moduleDir, version string, components ...Component) ([]InventoryProvider, error) {
	out := make([]InventoryProvider, 0, len(components))
	for _, comp := range components {
		p, ok := clusterctlNames[comp.ConfigDir]
		if !ok {
			return nil, fmt.Errorf("cannot name component %q in clusterctl's inventory: unknown config folder %q", comp.Name, comp.ConfigDir)
		}
		crds, err := CRDs(moduleDir, comp)
		if err != nil {
			return nil, err
		}
		p.Version = version
		p.CRDs = CRDNames(crds...)
		out = append(out, p)
	}
	return out, nil
}

// Inventory returns the inventory entries `clusterctl init --infrastructure` records with one infrastructure
// provider: Cluster API core and kubeadm bootstrap at the version of the Cluster API module of the current directory
// (ModuleVersion), then infra with the names of the CRDs in folder crdDir.
func Inventory(infra InventoryProvider, crdDir string) ([]InventoryProvider, error) {
	v, err := ModuleVersion("")
	if err != nil {
		return nil, err
	}
	providers, err := ClusterAPIProviders("", v, Core, KubeadmBootstrap)
	if err != nil {
		return nil, err
	}
	crds, err := testenv.ReadCRDs(os.DirFS(crdDir), ".")
	if err != nil {
		return nil, fmt.Errorf("cannot read the CRDs of provider %q: %w", infra.ManifestLabel(), err)
	}
	infra.CRDs = CRDNames(crds...)
	return append(providers, infra), nil
}

// CRDNames returns the names of crds, in order.
func CRDNames(crds ...*apiextensionsv1.CustomResourceDefinition) []string {
	out := make([]string, 0, len(crds))
	for _, crd := range crds {
		out = append(out, crd.Name)
	}
	return out
}

// ModuleVersion returns the version of sigs.k8s.io/cluster-api in the build list of the Go module in dir (""
// for the current directory), as `go list -m -json` reports it: the version a replacement pins, else the
// required one.
func ModuleVersion(dir string) (string, error) {
	cmd := exec.Command("go", "list", "-mod=mod", "-m", "-json", testenv.CAPIModule)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("cannot find module %q: %w: %s", testenv.CAPIModule, err, strings.TrimSpace(stderr.String()))
	}
	var m struct {
		Version string
		Replace *struct{ Version string }
	}
	if err := json.Unmarshal(out, &m); err != nil {
		return "", fmt.Errorf("cannot decode go list output: %w", err)
	}
	v := m.Version
	if m.Replace != nil && m.Replace.Version != "" {
		v = m.Replace.Version
	}
	if v == "" {
		return "", errors.New("cannot find the version of module " + testenv.CAPIModule + ": replaced by a folder")
	}
	return v, nil
}

package vsphere_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/examples/vspherecloud/api/v1beta2"
	"github.com/capkit/capkit/examples/vspherecloud/vspheretest"
	"github.com/capkit/capkit/providertest/testenv"
)

// The machines of both providers: the same template, placement and size.
const (
	numCPUs   = 2
	memoryMiB = 4096
	diskGiB   = 20
	// endpointHost is every cluster's control plane endpoint, given (neither provider makes one on vcsim).
	endpointHost = "10.0.0.2"
	endpointPort = 6443
	// credentials names capkit's credentials Secret in each namespace.
	credentials = "vcenter"
)

// capkitManagerBinary builds vspherecloud's manager once per test binary, into bin/ at the repository's root.
var capkitManagerBinary = sync.OnceValues(func() (string, error) {
	out, err := filepath.Abs(filepath.Join("..", "..", "bin", "vspherecloud-manager"))
	if err != nil {
		return "", err
	}
	cmd := exec.Command("go", "build", "-o", out, "github.com/capkit/capkit/examples/vspherecloud/cmd/manager")
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("cannot build vspherecloud's manager: %w\n%s", err, b)
	}
	return out, nil
})

// capkitProvider is capkit's vSphere example, its manager's flags the defaults but for extra.
func capkitProvider(extra ...string) provider {
	return provider{
		name: "capkit",
		manager: func(tb testing.TB) string {
			path, err := capkitManagerBinary()
			if err != nil {
				tb.Fatal(err)
			}
			return path
		},
		args:    func(testing.TB, *running) []string { return extra },
		group:   v1beta2.GroupName,
		version: v1beta2.GroupVersion.Version,
		infraCluster: func(ns, name string, e *vspheretest.Endpoint) *unstructured.Unstructured {
			return toUnstructured(&v1beta2.VSphereCluster{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
				Spec: v1beta2.VSphereClusterSpec{Server: e.URL, Thumbprint: e.Thumbprint, Datacenter: vspheretest.Datacenter,
					CredentialsSecretRef: v1beta2.SecretReference{Name: credentials},
					ControlPlaneEndpoint: contract.APIEndpoint{Host: endpointHost, Port: endpointPort}}}, "VSphereCluster")
		},
		infraMachine: func(ns, name string) *unstructured.Unstructured {
			return toUnstructured(&v1beta2.VSphereMachine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
				Spec: capkitMachineSpec}, "VSphereMachine")
		},
		prepare: func(ctx context.Context, w *world, ns string) error {
			secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: credentials},
				Data: map[string][]byte{v1beta2.CredentialsUsername: []byte(w.sim.Config.Username), v1beta2.CredentialsPassword: []byte(w.sim.Config.Password)}}
			// No object owns the Secret, which VSphereClusters name: clusterctl move takes it only with this label.
			contract.MarkForMove(secret)
			return env.Client.Create(ctx, secret)
		},
	}
}

// capkitMachineSpec is the spec of capkit's machines.
var capkitMachineSpec = v1beta2.VSphereMachineSpec{Template: vspheretest.Template, Folder: vspheretest.Folder,
	ResourcePool: vspheretest.ResourcePool, Datastore: vspheretest.Datastore, Network: vspheretest.Network,
	NumCPUs: numCPUs, MemoryMiB: memoryMiB, DiskGiB: diskGiB}

// capvGroup is CAPV's API group; its objects are read as unstructured, so that this module need not build
// against CAPV (which pins Cluster API v1.11).
const capvGroup = "infrastructure.cluster.x-k8s.io"

// capvManager returns CAPV's manager, built by hack/capv-manager.sh (its cache: about 3 minutes the first time),
// and installs CAPV's CRDs from beside it once.
var capvManager = sync.OnceValues(func() (string, error) {
	out, err := exec.Command(filepath.Join("..", "..", "hack", "capv-manager.sh")).Output()
	if err != nil {
		return "", fmt.Errorf("cannot build CAPV's manager (hack/capv-manager.sh): %w", err)
	}
	path := strings.TrimSpace(string(out))
	crds, err := testenv.ReadCRDs(os.DirFS(filepath.Join(filepath.Dir(path), "crd")), ".")
	if err != nil {
		return "", err
	}
	for _, crd := range crds {
		// clusterctl adds the contract label through CAPV's kustomization (commonLabels); Cluster API reads it.
		crd.Labels = map[string]string{"cluster.x-k8s.io/v1beta1": "v1beta1"}
	}
	if _, err := envtest.InstallCRDs(env.Config, envtest.CRDInstallOptions{CRDs: crds}); err != nil {
		return "", fmt.Errorf("cannot install CAPV's CRDs: %w", err)
	}
	return path, nil
})

// capvProvider is CAPV v1.14.0 in its govmomi mode, with the manager's credentials (no identityRef).
func capvProvider() provider {
	return provider{
		name:      "capv",
		capiFlags: true,
		manager: func(tb testing.TB) string {
			path, err := capvManager()
			if err != nil {
				tb.Fatal(err)
			}
			return path
		},
		args: func(tb testing.TB, r *running) []string {
			file := filepath.Join(r.dir, "credentials.yaml")
			// CAPV's credentials file (config/base/credentials.yaml): the manager's vCenter user.
			body := fmt.Sprintf("username: %q\npassword: %q\n", r.w.sim.Config.Username, r.w.sim.Config.Password)
			if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
				tb.Fatal(err)
			}
			tb.Setenv("POD_NAMESPACE", "capv-system") // the controller namespace, for identities; it need not exist
			return []string{"--credentials-file=" + file}
		},
		group:   capvGroup,
		version: "v1beta1",
		infraCluster: func(ns, name string, e *vspheretest.Endpoint) *unstructured.Unstructured {
			u := newUnstructured(capvGroup+"/v1beta1", "VSphereCluster", ns, name)
			u.Object["spec"] = map[string]any{"server": e.URL, "thumbprint": e.Thumbprint,
				"controlPlaneEndpoint": map[string]any{"host": endpointHost, "port": int64(endpointPort)}}
			return u
		},
		infraMachine: func(ns, name string) *unstructured.Unstructured {
			u := newUnstructured(capvGroup+"/v1beta1", "VSphereMachine", ns, name)
			u.Object["spec"] = map[string]any{"template": vspheretest.Template, "cloneMode": "fullClone",
				"datacenter": vspheretest.Datacenter, "folder": vspheretest.Folder, "resourcePool": vspheretest.ResourcePool,
				"datastore": vspheretest.Datastore, "numCPUs": int64(numCPUs), "memoryMiB": int64(memoryMiB), "diskGiB": int64(diskGiB),
				"network": map[string]any{"devices": []any{map[string]any{"networkName": vspheretest.Network, "dhcp4": true}}}}
			return u
		},
		prepare: func(context.Context, *world, string) error { return nil },
	}
}

func newUnstructured(apiVersion, kind, ns, name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	u.SetNamespace(ns)
	u.SetName(name)
	return u
}

func toUnstructured(obj runtime.Object, kind string) *unstructured.Unstructured {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		panic(err) // a typed object always converts
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetAPIVersion(v1beta2.GroupVersion.String())
	u.SetKind(kind)
	return u
}

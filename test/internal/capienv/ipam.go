package capienv

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/rest"

	clusterctlv1 "sigs.k8s.io/cluster-api/cmd/clusterctl/api/v1alpha3"

	"github.com/capkit/capkit/providertest/testenv"
)

// IPAMDirEnv names the folder hack/ipam-provider.sh prints: the manager of Cluster API's in-cluster IPAM provider
// (sigs.k8s.io/cluster-api-ipam-provider-in-cluster) and, in crd/, its CRDs.
const IPAMDirEnv = "CAPKIT_IPAM_BIN"

// ipamBinary is the manager's file name in IPAMDir.
const ipamBinary = "ipam-in-cluster-manager"

// ErrNoIPAMProvider is wrapped by IPAMDir's error when the provider is not built.
var ErrNoIPAMProvider = errors.New("in-cluster IPAM provider not found: run hack/ipam-provider.sh and set " +
	IPAMDirEnv + " to the folder it prints ('make test-e2e' does both)")

// IPAMDir returns $CAPKIT_IPAM_BIN after checking that it holds the manager.
func IPAMDir() (string, error) {
	dir := os.Getenv(IPAMDirEnv)
	if dir == "" {
		return "", fmt.Errorf("cannot find the in-cluster IPAM provider: %s is not set: %w", IPAMDirEnv, ErrNoIPAMProvider)
	}
	if _, err := os.Stat(filepath.Join(dir, ipamBinary)); err != nil {
		return "", fmt.Errorf("cannot find the in-cluster IPAM provider: %w: %w", err, ErrNoIPAMProvider)
	}
	return dir, nil
}

// IPAMCRDs returns the in-cluster IPAM provider's CRDs (its manager watches all four pool kinds, so install all
// four) with the labels its release adds through kustomize: clusterctl's, and clusterctl.cluster.x-k8s.io/
// move-hierarchy, without which `clusterctl move` moves the claims but leaves the pools and their IPAddresses
// behind.
func IPAMCRDs() ([]*apiextensionsv1.CustomResourceDefinition, error) {
	dir, err := IPAMDir()
	if err != nil {
		return nil, err
	}
	crds, err := testenv.ReadCRDs(os.DirFS(dir), "crd")
	if err != nil {
		return nil, fmt.Errorf("cannot read the in-cluster IPAM provider's CRDs: %w", err)
	}
	for _, crd := range crds {
		if crd.Labels == nil {
			crd.Labels = map[string]string{}
		}
		crd.Labels[clusterctlv1.ClusterctlLabel] = ""
		crd.Labels[clusterctlv1.ClusterctlMoveHierarchyLabel] = ""
	}
	return crds, nil
}

// StartIPAMProvider starts the in-cluster IPAM provider's manager on the API server of cfg, named name in its log
// file (in t.TempDir()), without its webhook server (its webhooks only validate pools), waits until it is ready,
// and stops it at cleanup, printing its log's tail if the test failed.
func StartIPAMProvider(t testing.TB, cfg *rest.Config, name string) *Process {
	t.Helper()
	dir, err := IPAMDir()
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig, err := Kubeconfig(cfg, name)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	kubeconfigPath := filepath.Join(tmp, name+".kubeconfig")
	if err := os.WriteFile(kubeconfigPath, kubeconfig, 0o600); err != nil {
		t.Fatal(err)
	}
	health, diagnostics := freeAddr(t), freeAddr(t)
	p, err := StartProcess("ipam-"+name, filepath.Join(dir, ipamBinary), []string{
		"--kubeconfig=" + kubeconfigPath, "--leader-elect=false", "--webhook-port=0",
		"--health-probe-bind-address=" + health, "--diagnostics-address=" + diagnostics, "--insecure-diagnostics",
	}, filepath.Join(tmp, "ipam-"+name+".log"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Stop(10 * time.Second); err != nil {
			t.Errorf("in-cluster IPAM provider %s: %v", name, err)
		}
		if t.Failed() {
			t.Logf("in-cluster IPAM provider %s, last 40 lines of %s:\n%s", name, p.LogPath(), p.Tail(40))
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := WaitReady(ctx, p, health); err != nil {
		t.Fatalf("in-cluster IPAM provider %s: %v\n%s", name, err, p.Tail(40))
	}
	return p
}

// freeAddr returns a free loopback address to listen on.
func freeAddr(t testing.TB) string {
	t.Helper()
	ports, err := FreePorts(1)
	if err != nil {
		t.Fatal(err)
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(ports[0]))
}

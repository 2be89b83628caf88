package capienv

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// BinDirEnv names the environment variable holding the folder that hack/capi-managers.sh fills.
const BinDirEnv = "CAPKIT_CAPI_BIN"

// ErrNoBinaries is returned when the Cluster API manager binaries cannot be found.
var ErrNoBinaries = errors.New("cluster API manager binaries not found: run hack/capi-managers.sh and set " +
	BinDirEnv + " to the folder it prints ('make test-e2e' does both)")

// Component is one Cluster API manager: its binary and where its configuration lives in the
// sigs.k8s.io/cluster-api module.
type Component struct {
	// Name is a short name used in log file names and webhook configuration names.
	Name string
	// Binary is the file name of the manager in the folder BinDir returns.
	Binary string
	// ConfigDir is the folder in the sigs.k8s.io/cluster-api module that holds config/crd and config/webhook.
	ConfigDir string
}

// The Cluster API managers that hack/capi-managers.sh builds.
var (
	// Core is the Cluster API core manager (Cluster, Machine, MachineSet, MachineDeployment, ...).
	Core = Component{Name: "core", Binary: "cluster-api-manager", ConfigDir: "core"}
	// KubeadmBootstrap is the kubeadm bootstrap provider (KubeadmConfig, KubeadmConfigTemplate).
	KubeadmBootstrap = Component{Name: "kubeadm-bootstrap", Binary: "kubeadm-bootstrap-manager", ConfigDir: "bootstrap/kubeadm"}
	// KubeadmControlPlaneCRDs are the CRDs of the kubeadm control plane provider (KubeadmControlPlane,
	// KubeadmControlPlaneTemplate), without its manager: for tests that only need the API server to accept
	// the objects, such as a generated cluster template.
	KubeadmControlPlaneCRDs = Component{Name: "kubeadm-control-plane", ConfigDir: "controlplane/kubeadm"}
)

// CRDDir returns the folder of the component's CRDs in the Cluster API module in moduleDir.
func (c Component) CRDDir(moduleDir string) string {
	return filepath.Join(moduleDir, filepath.FromSlash(c.ConfigDir), "config", "crd", "bases")
}

// WebhookManifest returns the file of the component's webhook configurations in the module in moduleDir.
func (c Component) WebhookManifest(moduleDir string) string {
	return filepath.Join(moduleDir, filepath.FromSlash(c.ConfigDir), "config", "webhook", "manifests.yaml")
}

// BinDir returns $CAPKIT_CAPI_BIN after checking that it holds the binary of every component. It returns
// an error wrapping ErrNoBinaries, naming hack/capi-managers.sh, when the variable is unset or a binary is
// missing.
func BinDir(components ...Component) (string, error) {
	dir := os.Getenv(BinDirEnv)
	if dir == "" {
		return "", fmt.Errorf("cannot find Cluster API managers: %s is not set: %w", BinDirEnv, ErrNoBinaries)
	}
	for _, c := range components {
		path := filepath.Join(dir, c.Binary)
		fi, err := os.Stat(path)
		if err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			return "", fmt.Errorf("cannot find Cluster API manager %q in %s=%q: %w", c.Binary, BinDirEnv, dir, ErrNoBinaries)
		}
	}
	return dir, nil
}

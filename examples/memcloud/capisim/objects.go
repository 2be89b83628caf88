package capisim

import (
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
)

// CoreAPIVersion is the API version of the core Cluster and Machine objects the driver creates.
const CoreAPIVersion = contract.GroupName + "/v1beta2"

// ClusterSpec describes the cluster a Driver creates.
type ClusterSpec struct {
	// Namespace and Name of the Cluster; the MemCluster has the same name.
	Namespace, Name string
	// ControlPlane is the number of control plane Machines (at least 1).
	ControlPlane int
	// Workers is the number of worker Machines.
	Workers int
	// KubernetesVersion is the Machines' spec.version; default "v1.34.1".
	KubernetesVersion string
	// FailureDomains are the MemCluster's spec.failureDomains; machines are spread over them.
	FailureDomains []string
}

// ErrInvalidSpec is wrapped by the error of New for a bad ClusterSpec.
var ErrInvalidSpec = errors.New("invalid cluster spec")

func (s *ClusterSpec) validate() error {
	if s.KubernetesVersion == "" {
		s.KubernetesVersion = "v1.34.1"
	}
	switch {
	case len(validation.IsDNS1123Label(s.Name)) > 0:
		return fmt.Errorf("name %q must be a DNS label: %w", s.Name, ErrInvalidSpec)
	case len(validation.IsDNS1123Label(s.Namespace)) > 0:
		return fmt.Errorf("namespace %q must be a DNS label: %w", s.Namespace, ErrInvalidSpec)
	case s.ControlPlane < 1:
		return fmt.Errorf("controlPlane %d must be at least 1: %w", s.ControlPlane, ErrInvalidSpec)
	case s.Workers < 0:
		return fmt.Errorf("workers %d must not be negative: %w", s.Workers, ErrInvalidSpec)
	}
	return nil
}

// MachineName returns the name of the i-th control plane ("<cluster>-cp-<i>") or worker
// ("<cluster>-md-<i>") Machine; its MemMachine and bootstrap Secret have the same name.
func (s ClusterSpec) MachineName(controlPlane bool, i int) string {
	if controlPlane {
		return fmt.Sprintf("%s-cp-%d", s.Name, i)
	}
	return fmt.Sprintf("%s-md-%d", s.Name, i)
}

// machine is one Machine of the spec.
type machine struct {
	name         string
	controlPlane bool
	failure      string
}

func (s ClusterSpec) machines() []machine {
	var out []machine
	for i := range s.ControlPlane + s.Workers {
		cp := i < s.ControlPlane
		idx := i
		if !cp {
			idx = i - s.ControlPlane
		}
		m := machine{name: s.MachineName(cp, idx), controlPlane: cp}
		if len(s.FailureDomains) > 0 {
			m.failure = s.FailureDomains[i%len(s.FailureDomains)]
		}
		out = append(out, m)
	}
	return out
}

// newCluster returns the core Cluster, referencing its MemCluster.
func (s ClusterSpec) newCluster() *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": CoreAPIVersion, "kind": "Cluster",
		"metadata": map[string]any{"namespace": s.Namespace, "name": s.Name},
		"spec": map[string]any{
			"infrastructureRef": map[string]any{"apiGroup": v1beta2.GroupName, "kind": "MemCluster", "name": s.Name},
		},
	}}
}

func (s ClusterSpec) newMemCluster() *v1beta2.MemCluster {
	return &v1beta2.MemCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: s.Namespace, Name: s.Name, Labels: map[string]string{contract.ClusterNameLabel: s.Name}},
		Spec:       v1beta2.MemClusterSpec{FailureDomains: s.FailureDomains},
	}
}

// newMachine returns the core Machine m, with its bootstrap data secret already named (the driver plays the
// bootstrap provider too).
func (s ClusterSpec) newMachine(m machine) *unstructured.Unstructured {
	labels := map[string]any{contract.ClusterNameLabel: s.Name}
	if m.controlPlane {
		labels[contract.ControlPlaneLabel] = ""
	}
	spec := map[string]any{
		"clusterName":       s.Name,
		"version":           s.KubernetesVersion,
		"bootstrap":         map[string]any{"dataSecretName": m.name},
		"infrastructureRef": map[string]any{"apiGroup": v1beta2.GroupName, "kind": "MemMachine", "name": m.name},
	}
	if m.failure != "" {
		spec["failureDomain"] = m.failure
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": CoreAPIVersion, "kind": "Machine",
		"metadata": map[string]any{"namespace": s.Namespace, "name": m.name, "labels": labels},
		"spec":     spec,
	}}
}

func (s ClusterSpec) newMemMachine(m machine) *v1beta2.MemMachine {
	return &v1beta2.MemMachine{ObjectMeta: metav1.ObjectMeta{
		Namespace: s.Namespace, Name: m.name, Labels: map[string]string{contract.ClusterNameLabel: s.Name},
	}}
}

// newBootstrapSecret returns the bootstrap data Secret of m, as a kubeadm bootstrap provider writes it.
func (s ClusterSpec) newBootstrapSecret(m machine) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: s.Namespace, Name: m.name, Labels: map[string]string{contract.ClusterNameLabel: s.Name}},
		Type:       "cluster.x-k8s.io/secret",
		Data: map[string][]byte{
			contract.BootstrapDataKey: BootstrapData(s.Name, m.name, m.controlPlane),
			"format":                  []byte("cloud-config"),
		},
	}
}

// BootstrapTokenMarker is part of every bootstrap data BootstrapData makes, so that tests can assert that
// it appears nowhere but in the cloud's user data.
const BootstrapTokenMarker = "capisim-secret-token"

// BootstrapData returns a kubeadm-style cloud-config for a machine, with a fake join token that contains
// BootstrapTokenMarker.
func BootstrapData(cluster, machine string, controlPlane bool) []byte {
	cmd := "kubeadm join --config /run/kubeadm/kubeadm-join-config.yaml"
	kind := "JoinConfiguration"
	if controlPlane && machine == cluster+"-cp-0" {
		cmd = "kubeadm init --config /run/kubeadm/kubeadm.yaml"
		kind = "InitConfiguration"
	}
	return fmt.Appendf(nil, `## template: jinja
#cloud-config
write_files:
- path: /run/kubeadm/kubeadm.yaml
  owner: root:root
  permissions: '0640'
  content: |
    apiVersion: kubeadm.k8s.io/v1beta4
    kind: %s
    bootstrapToken:
      token: abcdef.%s-%s
    nodeRegistration:
      name: '{{ ds.meta_data.local_hostname }}'
      kubeletExtraArgs:
      - name: provider-id
        value: 'memcloud://{{ ds.meta_data.instance_id }}'
runcmd:
- '%s && echo success > /run/cluster-api/bootstrap-success.complete'
`, kind, BootstrapTokenMarker, machine, cmd)
}

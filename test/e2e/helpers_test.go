package e2e_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	bootstrapv1 "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/test/internal/capienv"
)

const kubernetesVersion = "v1.35.0"

// Generous bounds: they only stop a test that does not converge.
const tick = 250 * time.Millisecond

// memRef references a memcloud object, as Cluster and Machine specs do.
func memRef(kind, name string) clusterv1.ContractVersionedObjectReference {
	return clusterv1.ContractVersionedObjectReference{APIGroup: v1beta2.GroupName, Kind: kind, Name: name}
}

// kubeadmRef references a kubeadm bootstrap config or template.
func kubeadmRef(kind, name string) clusterv1.ContractVersionedObjectReference {
	return clusterv1.ContractVersionedObjectReference{APIGroup: bootstrapv1.GroupVersion.Group, Kind: kind, Name: name}
}

// newCluster returns the kubeconfig Secret (envtest doubles as the workload cluster), the MemCluster and the
// Cluster of namespace/name; create them in this order.
func newCluster(t testing.TB, ns, name string) []client.Object {
	t.Helper()
	kubeconfig, err := capienv.KubeconfigSecret(ns, name, env.Config)
	if err != nil {
		t.Fatal(err)
	}
	cluster := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	cluster.Spec.InfrastructureRef = memRef("MemCluster", name)
	return []client.Object{kubeconfig, &v1beta2.MemCluster{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}, cluster}
}

// newMachine returns a standalone Machine of cluster with its KubeadmConfig (spec config) and MemMachine, all
// named name; create them in this order.
func newMachine(ns, cluster, name string, controlPlane bool, config bootstrapv1.KubeadmConfigSpec) []client.Object {
	m := &clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name,
		Labels: map[string]string{clusterv1.ClusterNameLabel: cluster}}}
	if controlPlane {
		m.Labels[clusterv1.MachineControlPlaneLabel] = ""
	}
	m.Spec = clusterv1.MachineSpec{
		ClusterName:       cluster,
		Version:           kubernetesVersion,
		Bootstrap:         clusterv1.Bootstrap{ConfigRef: kubeadmRef("KubeadmConfig", name)},
		InfrastructureRef: memRef("MemMachine", name),
	}
	return []client.Object{
		&bootstrapv1.KubeadmConfig{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: config},
		&v1beta2.MemMachine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}},
		m,
	}
}

// createAll creates objs in order.
func createAll(ctx context.Context, objs ...client.Object) error {
	for _, o := range objs {
		if err := env.Client.Create(ctx, o); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	return nil
}

// joinNode plays the kubelet of a booted instance: it creates a Node with providerID in the workload cluster
// (envtest) and reports it Ready without memory, disk or PID pressure, which Cluster API's NodeHealthy needs.
// A Node that exists already is left as it is.
func joinNode(ctx context.Context, name, providerID string) error {
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.NodeSpec{ProviderID: providerID}}
	if err := env.Client.Create(ctx, node); err != nil {
		if apierrors.IsAlreadyExists(err) {
			return nil
		}
		return err
	}
	now := metav1.Now()
	for _, c := range []struct {
		typ    corev1.NodeConditionType
		status corev1.ConditionStatus
	}{
		{corev1.NodeReady, corev1.ConditionTrue}, {corev1.NodeMemoryPressure, corev1.ConditionFalse},
		{corev1.NodeDiskPressure, corev1.ConditionFalse}, {corev1.NodePIDPressure, corev1.ConditionFalse},
	} {
		node.Status.Conditions = append(node.Status.Conditions, corev1.NodeCondition{Type: c.typ, Status: c.status,
			Reason: "CapkitE2E", LastHeartbeatTime: now, LastTransitionTime: now})
	}
	return env.Client.Status().Update(ctx, node)
}

// deleteNodes deletes the Nodes named names that are left (Cluster API keeps the last control plane Node of
// a deleted cluster).
func deleteNodes(ctx context.Context, names ...string) error {
	for _, n := range names {
		if err := env.Client.Delete(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n}}); client.IgnoreNotFound(err) != nil {
			return err
		}
	}
	return nil
}

// dumpOnFailure prints the Cluster API objects and memcloud's of namespace ns when the test fails.
func dumpOnFailure(t *testing.T, ns string) {
	t.Cleanup(func() {
		if t.Failed() {
			kinds := append(slices.Clone(capienv.DumpKinds),
				v1beta2.GroupVersion.WithKind("MemCluster"), v1beta2.GroupVersion.WithKind("MemMachine"))
			t.Logf("objects in %q:\n%s", ns, capienv.Dump(context.Background(), env.Client, ns, kinds...))
		}
	})
}

// note holds the last state a require.Eventually condition saw; as a fmt.Stringer in the failure message it
// shows that state, not the one when Eventually was called.
type note struct {
	mu sync.Mutex
	s  string
}

// Set records state and returns ok.
func (n *note) Set(ok bool, state string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.s = state
	return ok
}

func (n *note) String() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.s
}

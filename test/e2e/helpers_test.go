package e2e_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	bootstrapv1 "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/cloud"
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
	return capienv.CreateAll(ctx, env.Client, objs...)
}

// joinNode plays the kubelet of a booted instance in the workload cluster (envtest); see capienv.JoinNode.
func joinNode(ctx context.Context, name, providerID string) error {
	return capienv.JoinNode(ctx, env.Client, name, providerID)
}

// joinFirstControlPlaneNode plays the kubelet of the Cluster's first control plane Machine ns/name until the
// Machine has its nodeRef; see capienv.JoinFirstControlPlaneNode for why joining once is not enough.
func joinFirstControlPlaneNode(ctx context.Context, t *testing.T, ns, name, providerID string) {
	t.Helper()
	state := &note{}
	require.Eventually(t, func() bool {
		ok, err := capienv.JoinFirstControlPlaneNode(ctx, env.Client, client.ObjectKey{Namespace: ns, Name: name}, name, providerID)
		if err != nil {
			return state.Set(false, err.Error())
		}
		return state.Set(ok, "no nodeRef yet")
	}, lifecycleWait, tick, "Machine %q must get the nodeRef of its Node: %s", name, state)
}

// deleteNodes deletes the Nodes that are left.
func deleteNodes(ctx context.Context, names ...string) error {
	return capienv.DeleteNodes(ctx, env.Client, names...)
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

// instanceOf returns the instance of mm from cl (a read the cloud counts, as the provider's).
func instanceOf(ctx context.Context, cl *cloud.Cloud, mm *v1beta2.MemMachine) (*cloud.Instance, error) {
	id, err := v1beta2.InstanceIDFromProviderID(mm.Spec.ProviderID)
	if err != nil {
		return nil, err
	}
	return cl.GetInstance(ctx, id)
}

package capienv_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/capkit/capkit/test/internal/capienv"
)

// startAPIServer starts a bare envtest API server (KUBEBUILDER_ASSETS, as make test-e2e sets it).
func startAPIServer(t *testing.T) *envtest.Environment {
	t.Helper()
	env := &envtest.Environment{}
	_, err := env.Start()
	require.NoError(t, err, "cannot start envtest (KUBEBUILDER_ASSETS from hack/envtest-binaries.sh)")
	t.Cleanup(func() { _ = env.Stop() })
	return env
}

func nodeConditions(t *testing.T, c client.Client, name string) map[corev1.NodeConditionType]corev1.ConditionStatus {
	t.Helper()
	var n corev1.Node
	require.NoError(t, c.Get(t.Context(), client.ObjectKey{Name: name}, &n))
	out := map[corev1.NodeConditionType]corev1.ConditionStatus{}
	for _, c := range n.Status.Conditions {
		out[c.Type] = c.Status
	}
	return out
}

// The flake of TestPodcloudWithRealClusterAPI: KWOK's fake kubelet writes the Node between JoinNode's create and
// its status write. JoinNode must tolerate the other writer and keep the other writer's conditions.
func TestJoinNodeToleratesAnotherWriterOfTheNode(t *testing.T) {
	env := startAPIServer(t)
	ctx := t.Context()
	raw, err := client.NewWithWatch(env.Config, client.Options{})
	require.NoError(t, err)

	// After the create, another writer updates the Node's status (a new resourceVersion) before JoinNode writes.
	otherWriter := interceptor.NewClient(raw, interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			if err := c.Create(ctx, obj, opts...); err != nil {
				return err
			}
			var n corev1.Node
			if err := c.Get(ctx, client.ObjectKeyFromObject(obj), &n); err != nil {
				return err
			}
			n.Status.Conditions = append(n.Status.Conditions, corev1.NodeCondition{Type: "NetworkUnavailable",
				Status: corev1.ConditionFalse, Reason: "OtherWriter", LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now()})
			return c.Status().Update(ctx, &n)
		},
	})

	require.NoError(t, capienv.JoinNode(ctx, otherWriter, "n0", "memcloud://i-0"))
	conds := nodeConditions(t, raw, "n0")
	assert.Equal(t, corev1.ConditionTrue, conds[corev1.NodeReady])
	assert.Equal(t, corev1.ConditionFalse, conds[corev1.NodeDiskPressure])
	assert.Equal(t, corev1.ConditionFalse, conds["NetworkUnavailable"], "the other writer's condition is kept")
}

// A Node that exists already (created by someone else, not ready yet) is reported ready too, and joining twice is
// harmless.
func TestJoinNodeReportsAnExistingNodeReady(t *testing.T) {
	env := startAPIServer(t)
	ctx := t.Context()
	c, err := client.New(env.Config, client.Options{})
	require.NoError(t, err)
	require.NoError(t, c.Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}))

	require.NoError(t, capienv.JoinNode(ctx, c, "n1", "memcloud://i-1"))
	require.NoError(t, capienv.JoinNode(ctx, c, "n1", "memcloud://i-1"))
	assert.Equal(t, corev1.ConditionTrue, nodeConditions(t, c, "n1")[corev1.NodeReady])
}

// A first control plane Machine without a nodeRef is touched (an update event for Cluster API) each time, and once
// it has its nodeRef it is reported and left alone.
func TestJoinFirstControlPlaneNodeNudgesTheMachineUntilItHasItsNodeRef(t *testing.T) {
	crds, err := capienv.CRDs("", capienv.Core)
	require.NoError(t, err)
	env := &envtest.Environment{CRDs: crds}
	_, err = env.Start()
	require.NoError(t, err, "cannot start envtest (KUBEBUILDER_ASSETS from hack/envtest-binaries.sh)")
	t.Cleanup(func() { _ = env.Stop() })
	ctx := t.Context()
	scheme := runtime.NewScheme()
	require.NoError(t, clientgoscheme.AddToScheme(scheme))
	require.NoError(t, clusterv1.AddToScheme(scheme))
	c, err := client.New(env.Config, client.Options{Scheme: scheme})
	require.NoError(t, err)
	require.NoError(t, c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns"}}))
	m := &clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "cp-0"}, Spec: clusterv1.MachineSpec{
		ClusterName: "c", ProviderID: "memcloud://i-0",
		Bootstrap:         clusterv1.Bootstrap{DataSecretName: ptr.To("data")},
		InfrastructureRef: clusterv1.ContractVersionedObjectReference{APIGroup: "infrastructure.example.io", Kind: "FooMachine", Name: "cp-0"}}}
	require.NoError(t, c.Create(ctx, m))
	key := client.ObjectKeyFromObject(m)

	ok, err := capienv.JoinFirstControlPlaneNode(ctx, c, key, "cp-0", "memcloud://i-0")
	require.NoError(t, err)
	assert.False(t, ok, "no nodeRef yet")
	require.NoError(t, c.Get(ctx, key, m))
	first := m.Annotations[capienv.NodeJoinedAnnotation]
	assert.NotEmpty(t, first, "the Machine is touched")
	assert.Equal(t, corev1.ConditionTrue, nodeConditions(t, c, "cp-0")[corev1.NodeReady], "the Node is joined")

	ok, err = capienv.JoinFirstControlPlaneNode(ctx, c, key, "cp-0", "memcloud://i-0")
	require.NoError(t, err)
	assert.False(t, ok)
	require.NoError(t, c.Get(ctx, key, m))
	assert.NotEqual(t, first, m.Annotations[capienv.NodeJoinedAnnotation], "touched again: a new update event")

	m.Status.NodeRef = clusterv1.MachineNodeReference{Name: "cp-0"}
	require.NoError(t, c.Status().Update(ctx, m))
	rv := m.ResourceVersion
	ok, err = capienv.JoinFirstControlPlaneNode(ctx, c, key, "cp-0", "memcloud://i-0")
	require.NoError(t, err)
	assert.True(t, ok, "the nodeRef is reported")
	require.NoError(t, c.Get(ctx, key, m))
	assert.Equal(t, rv, m.ResourceVersion, "a Machine with its nodeRef is left alone")
}

package testenv_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/providertest/testenv"
)

// TestFakeNodesRunPods starts the real kube-scheduler and KWOK against envtest: a Pod is scheduled onto a
// fake node, becomes Running with an IP, and its deletion completes.
func TestFakeNodesRunPods(t *testing.T) {
	ctx := context.Background()
	nodes, err := env.StartFakeNodes(ctx, testenv.NodeSpec{Name: "node-a", Zone: "zone-a"}, testenv.NodeSpec{Name: "node-b", Zone: "zone-b"})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, nodes.Stop()) })
	ns := env.Namespace(t, "nodes")
	require.NoError(t, env.Client.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "default"}}))

	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "machine-0"},
		Spec: corev1.PodSpec{
			Containers:                   []corev1.Container{{Name: "node", Image: "kindest/node:v1.36.0"}},
			NodeSelector:                 map[string]string{corev1.LabelTopologyZone: "zone-b"},
			AutomountServiceAccountToken: ptr.To(false),
		},
	}
	require.NoError(t, env.Client.Create(ctx, pod))
	require.Eventually(t, func() bool {
		err := env.Client.Get(ctx, client.ObjectKeyFromObject(pod), pod)
		return err == nil && pod.Status.Phase == corev1.PodRunning && pod.Status.PodIP != ""
	}, time.Minute, 100*time.Millisecond, "the pod runs: scheduler logs in %s, kwok logs in %s", nodes.Logs("kube-scheduler"), nodes.Logs("kwok"))
	assert.Equal(t, "node-b", pod.Spec.NodeName, "the scheduler honours the zone")

	require.NoError(t, env.Client.Delete(ctx, pod))
	require.Eventually(t, func() bool {
		return apierrors.IsNotFound(env.Client.Get(ctx, client.ObjectKeyFromObject(pod), &corev1.Pod{}))
	}, time.Minute, 100*time.Millisecond, "the pod's deletion completes")
}

func TestNodeAssetsDirNamesTheMakeTarget(t *testing.T) {
	t.Setenv("CAPKIT_KWOK_ASSETS", t.TempDir())
	t.Setenv("CAPKIT_CACHE", t.TempDir())
	_, err := testenv.NodeAssetsDir()
	require.ErrorIs(t, err, testenv.ErrNoNodeAssets)
	assert.Contains(t, err.Error(), "make kwok")
}

// TestFakeNodeNotReady makes a node fail: a new Pod that may only run there stays unscheduled until the node
// is Ready again.
func TestFakeNodeNotReady(t *testing.T) {
	ctx := context.Background()
	nodes, err := env.StartFakeNodes(ctx, testenv.NodeSpec{Name: "node-c", Zone: "zone-c"})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, nodes.Stop()) })
	ns := env.Namespace(t, "notready")
	require.NoError(t, env.Client.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "default"}}))

	require.NoError(t, nodes.SetNotReady(ctx, "node-c"))
	node := &corev1.Node{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Name: "node-c"}, node))
	assert.True(t, hasCondition(node, corev1.NodeReady, corev1.ConditionUnknown), "the node is not Ready")

	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "machine-1"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "node", Image: "kindest/node:v1.36.0"}},
			NodeSelector: map[string]string{corev1.LabelTopologyZone: "zone-c"}, AutomountServiceAccountToken: ptr.To(false)},
	}
	require.NoError(t, env.Client.Create(ctx, pod))
	require.Never(t, func() bool {
		return env.Client.Get(ctx, client.ObjectKeyFromObject(pod), pod) == nil && pod.Spec.NodeName != ""
	}, 2*time.Second, 100*time.Millisecond, "no pod is scheduled onto a node that is not Ready")

	require.NoError(t, nodes.SetReady(ctx, "node-c"))
	require.Eventually(t, func() bool {
		err := env.Client.Get(ctx, client.ObjectKeyFromObject(pod), pod)
		return err == nil && pod.Status.Phase == corev1.PodRunning
	}, time.Minute, 100*time.Millisecond, "the pod runs once the node is Ready again")
}

func hasCondition(n *corev1.Node, t corev1.NodeConditionType, s corev1.ConditionStatus) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == t {
			return c.Status == s
		}
	}
	return false
}

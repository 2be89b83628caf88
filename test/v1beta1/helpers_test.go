package v1beta1_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/capkit/capkit/test/internal/capienv"
)

// createAll creates objs in order.
func createAll(ctx context.Context, objs ...client.Object) error {
	for _, o := range objs {
		if err := env.Client.Create(ctx, o); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	return nil
}

// waitMachinePhase waits until m reaches phase, reading it into m.
func waitMachinePhase(ctx context.Context, t *testing.T, m *clusterv1.Machine, phase clusterv1.MachinePhase) {
	t.Helper()
	require.Eventually(t, func() bool {
		return env.Client.Get(ctx, client.ObjectKeyFromObject(m), m) == nil && m.Status.Phase == string(phase)
	}, wait, tick, "Machine %q must reach phase %s", m.Name, phase)
}

// bootstrapSecret returns the bootstrap data of Machine m, from the Secret CABPK wrote.
func bootstrapSecret(ctx context.Context, t *testing.T, m *clusterv1.Machine) []byte {
	t.Helper()
	require.NotNil(t, m.Spec.Bootstrap.DataSecretName, "the Machine has its bootstrap data secret")
	s := &corev1.Secret{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: m.Namespace, Name: *m.Spec.Bootstrap.DataSecretName}, s))
	return s.Data["value"]
}

// joinNode plays the kubelet of a booted instance: a Node with providerID, Ready and without memory, disk or
// PID pressure, which Cluster API's NodeHealthy needs.
func joinNode(ctx context.Context, name, providerID string) error {
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.NodeSpec{ProviderID: providerID}}
	if err := env.Client.Create(ctx, node); err != nil {
		return err
	}
	now := metav1.Now()
	for typ, status := range map[corev1.NodeConditionType]corev1.ConditionStatus{
		corev1.NodeReady: corev1.ConditionTrue, corev1.NodeMemoryPressure: corev1.ConditionFalse,
		corev1.NodeDiskPressure: corev1.ConditionFalse, corev1.NodePIDPressure: corev1.ConditionFalse,
	} {
		node.Status.Conditions = append(node.Status.Conditions, corev1.NodeCondition{Type: typ, Status: status,
			Reason: "CapkitV1Beta1", LastHeartbeatTime: now, LastTransitionTime: now})
	}
	return env.Client.Status().Update(ctx, node)
}

// deleteNode deletes the Node name if it is left (Cluster API keeps the last control plane Node).
func deleteNode(ctx context.Context, name string) error {
	return client.IgnoreNotFound(env.Client.Delete(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}))
}

// dumpOnFailure prints the Cluster API objects and the provider's of namespace ns when the test fails.
func dumpOnFailure(t *testing.T, ns string) {
	t.Cleanup(func() {
		if t.Failed() {
			kinds := append(append(capienv.DumpKinds[:0:0], capienv.DumpKinds...), oldClusterGVK, oldMachineGVK)
			t.Logf("objects in %q:\n%s", ns, capienv.Dump(context.Background(), env.Client, ns, kinds...))
		}
	})
}

// lowerKind returns kind in lower case, as the default finalizer names it.
func lowerKind(kind string) string { return strings.ToLower(kind) }

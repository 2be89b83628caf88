package v1beta1_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/capkit/capkit/test/internal/capienv"
)

// createAll creates objs in order.
func createAll(ctx context.Context, objs ...client.Object) error {
	return capienv.CreateAll(ctx, env.Client, objs...)
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

// deleteNode deletes the Node name if it is left (Cluster API keeps the last control plane Node).
func deleteNode(ctx context.Context, name string) error {
	return capienv.DeleteNodes(ctx, env.Client, name)
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

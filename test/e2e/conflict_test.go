package e2e_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/scope"
)

// TestAnotherWritersConditionSurvivesSpecCheckpoint replays, step by step, the interleaving in which
// TestChaos saw a MemMachine lose the condition another controller wrote: the other writer's status update
// lands between memcloud's read and its spec.providerID checkpoint (PatchSpecNow, a merge patch that needs
// no resourceVersion), and memcloud's final status patch then writes its own conditions. The final patch
// must not replace the list that holds the other writer's condition.
func TestAnotherWritersConditionSurvivesSpecCheckpoint(t *testing.T) {
	ctx := context.Background()
	startProvider(t, nil, 0) // memcloud's webhooks, which every MemMachine write goes through
	ns, err := env.CreateNamespace(ctx, "conflict")
	require.NoError(t, err)
	dumpOnFailure(t, ns)

	// Objects as Cluster API leaves them; no controller runs, the test plays memcloud and the other writer.
	cluster := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "c"}}
	cluster.Spec.InfrastructureRef = memRef("MemCluster", "c")
	machine := &clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "m", Labels: map[string]string{clusterv1.ClusterNameLabel: "c"}}}
	machine.Spec = clusterv1.MachineSpec{ClusterName: "c", Bootstrap: clusterv1.Bootstrap{DataSecretName: ptr.To("m")},
		InfrastructureRef: memRef("MemMachine", "m")}
	mm := &v1beta2.MemMachine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "m"}}
	require.NoError(t, createAll(ctx, cluster, machine, mm))
	t.Cleanup(func() {
		// No Cluster API controller may find these later; none of them has a finalizer.
		for _, o := range []client.Object{mm, machine, cluster} {
			if err := env.Client.Delete(ctx, o); client.IgnoreNotFound(err) != nil {
				t.Error(err)
			}
		}
	})

	// memcloud reads the MemMachine and builds its scope.
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(mm), mm))
	s, err := scope.NewMachineScope(ctx, env.Client, mm, coreObject(ctx, t, ns, "Machine", "m"), coreObject(ctx, t, ns, "Cluster", "c"),
		scope.WithContractVersion(contract.V1Beta2))
	require.NoError(t, err)

	// Another controller adds its condition (a status update guarded by resourceVersion).
	other := &v1beta2.MemMachine{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(mm), other))
	meta.SetStatusCondition(&other.Status.Conditions, metav1.Condition{Type: chaosCondition, Status: metav1.ConditionTrue, Reason: "Poked"})
	require.NoError(t, env.Client.Status().Update(ctx, other))

	// memcloud checkpoints the instance ID, then reports its own condition and closes the scope.
	s.InfraMachine().Spec.ProviderID = v1beta2.ProviderID("i-00000001")
	require.NoError(t, s.PatchSpecNow(ctx))
	meta.SetStatusCondition(&s.InfraMachine().Status.Conditions, metav1.Condition{Type: v1beta2.InstanceReadyCondition,
		Status: metav1.ConditionTrue, Reason: "Running"})
	require.NoError(t, s.Close(ctx))

	got := &v1beta2.MemMachine{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(mm), got))
	assert.Equal(t, "memcloud://i-00000001", got.Spec.ProviderID)
	assert.NotNil(t, meta.FindStatusCondition(got.Status.Conditions, v1beta2.InstanceReadyCondition), "memcloud's condition is written")
	assert.NotNil(t, meta.FindStatusCondition(got.Status.Conditions, chaosCondition),
		"the other writer's condition must survive memcloud's status patch; conditions: %v", conditionTypes(got.Status.Conditions))
}

func conditionTypes(conds []metav1.Condition) []string {
	out := make([]string, 0, len(conds))
	for _, c := range conds {
		out = append(out, c.Type)
	}
	return out
}

package services_test

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope"
	"github.com/capkit/capkit/scope/scopetest"
)

// clusterFake is the fake scope of a MemCluster.
type clusterFake = *scopetest.FakeClusterScope[*v1beta2.MemCluster]

// machineFake is the fake scope of a MemMachine.
type machineFake = *scopetest.FakeMachineScope[*v1beta2.MemMachine]

// clusterScope returns a new fake scope of the MemCluster mc (when nil, "c1" in namespace "ns") of
// Cluster "c1", with a persisted ownership key.
func clusterScope(mc *v1beta2.MemCluster) clusterFake {
	if mc == nil {
		mc = &v1beta2.MemCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c1", Generation: 1}}
	}
	return &scopetest.FakeClusterScope[*v1beta2.MemCluster]{FakeObject: scopetest.FakeObject[*v1beta2.MemCluster]{
		Object: mc, OwnershipKeyValue: "cluster-key", ClusterInfo: scope.ClusterInfo{Name: "c1", InfrastructureProvisioned: true},
	}}
}

// machineScope returns a new fake scope of MemMachine name of Cluster "c1" with bootstrap data data, placed by
// Cluster API in failure domain "fd-a".
func machineScope(name string, controlPlane bool, data []byte) machineFake {
	return &scopetest.FakeMachineScope[*v1beta2.MemMachine]{
		FakeObject: scopetest.FakeObject[*v1beta2.MemMachine]{
			Object:            &v1beta2.MemMachine{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, Generation: 1}},
			OwnershipKeyValue: "key-" + name,
			ClusterInfo:       scope.ClusterInfo{Name: "c1", InfrastructureProvisioned: true},
		},
		MachineInfo:    scope.MachineInfo{Name: name, ControlPlane: controlPlane, FailureDomain: "fd-a", BootstrapDataSecretName: name},
		BootstrapValue: data,
	}
}

// withPoll returns ctx in the environment of a reconcile whose poll interval is poll, as the reconcilers
// give it to the services.
func withPoll(ctx context.Context) context.Context {
	return step.ContextWithEnv(ctx, reconcile.NewEnv(nil, reconcile.WithPollInterval(poll)))
}

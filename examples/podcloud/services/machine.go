package services

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/examples/podcloud/api/v1beta2"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope"
)

// MachineScope is the scope the machine services work on.
type MachineScope = scope.MachineScoper[*v1beta2.PodMachine]

// ClusterLookup finds what a machine needs of its PodCluster.
type ClusterLookup interface {
	// PodCluster returns the PodCluster of the machine's Cluster; errors wrap scope.ErrNoInfraCluster when
	// there is none.
	PodCluster(ctx context.Context, cluster scope.ClusterInfo) (*v1beta2.PodCluster, error)
}

// ClusterLookupFunc adapts a function to ClusterLookup.
type ClusterLookupFunc func(ctx context.Context, cluster scope.ClusterInfo) (*v1beta2.PodCluster, error)

// PodCluster calls f.
func (f ClusterLookupFunc) PodCluster(ctx context.Context, cluster scope.ClusterInfo) (*v1beta2.PodCluster, error) {
	return f(ctx, cluster)
}

// PodClusterLookup returns the ClusterLookup that reads the PodCluster the Cluster's spec.infrastructureRef
// names, through r (in a manager, its cached client).
func PodClusterLookup(r client.Reader) ClusterLookup {
	return ClusterLookupFunc(func(ctx context.Context, cluster scope.ClusterInfo) (*v1beta2.PodCluster, error) {
		pc := &v1beta2.PodCluster{}
		if err := scope.GetInfraCluster(ctx, r, cluster, "PodCluster", pc); err != nil {
			return nil, err
		}
		return pc, nil
	})
}

// machineTarget is where a machine's objects live in the target cluster, from its PodCluster.
type machineTarget struct {
	namespace, serviceAccount string
	port                      int32
}

// target looks up the machine's PodCluster; ok is false while the PodCluster's ServiceAccount is not
// recorded yet.
func target(ctx context.Context, lookup ClusterLookup, s MachineScope) (machineTarget, bool, error) {
	pc, err := lookup.PodCluster(ctx, s.Cluster())
	if err != nil {
		return machineTarget{}, false, fmt.Errorf("cannot find the PodCluster of PodMachine %q: %w", s.InfraMachine().Name, err)
	}
	port := pc.Spec.ControlPlaneService.Port
	if port == 0 {
		port = 6443
	}
	return machineTarget{namespace: pc.TargetNamespace(), serviceAccount: ServiceAccountName(s.Cluster().Name), port: port},
		pc.Status.Resources[KeyServiceAccount] != "", nil
}

// waitingForPodCluster returns err when there is one, else the result of a step that waits for its PodCluster.
func waitingForPodCluster(err error) (step.Result, error) {
	if err != nil {
		return step.Result{}, err
	}
	return step.Result{Reason: ReasonWaitingForPodCluster, Message: "the PodCluster's service account is not recorded yet"}, nil
}

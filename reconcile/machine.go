package reconcile

import (
	"context"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/scope"
)

// MachineReconciler reconciles a provider's InfraMachine of type T through ordered steps, like
// ClusterReconciler, with the owner Machine found by owner reference and the Cluster by the Machine's
// cluster.x-k8s.io/cluster-name label. Before the first step it waits, without error and without cloud
// calls, until the Cluster's infrastructure is provisioned and the Machine's bootstrap data secret is set
// (not once the InfraMachine is provisioned); the first step's condition says what it waits for. When the
// Machine or the Cluster was deleted before the InfraMachine, deletion runs with placeholders
// (PlaceholderAnnotation) instead of waiting for owners that will never come.
type MachineReconciler[T client.Object] struct {
	*base
	newObject func() T
	steps     []Step[scope.MachineScoper[T]]
}

// NewMachineReconciler returns a reconciler for InfraMachines of type T. newObject returns an empty T (for
// an unstructured T it must set the GroupVersionKind); steps are the provider's services in order.
func NewMachineReconciler[T client.Object](c client.Client, newObject func() T, steps []Step[scope.MachineScoper[T]], opts ...Option) (*MachineReconciler[T], error) {
	b, err := newStepsBase(c, newObject, steps, "InfraMachine", opts)
	if err != nil {
		return nil, err
	}
	return &MachineReconciler[T]{base: b, newObject: newObject, steps: steps}, nil
}

// Reconcile implements controller-runtime's reconcile.Reconciler.
func (r *MachineReconciler[T]) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	ctx, log := r.requestLogger(ctx, req)
	obj, found, err := fetch(ctx, r.base, r.newObject, req)
	if err != nil || !found {
		return ctrl.Result{}, err
	}
	machine, err := r.ownerCore(ctx, obj, "Machine")
	if err != nil {
		return ctrl.Result{}, err
	}
	orphaned := r.orphaned(obj)
	if machine == nil && orphaned {
		// The Machine went first: delete the cloud resources all the same, or they leak.
		machine = r.placeholderMachine(obj.GetNamespace(), ownerName(obj, "Machine", obj.GetName()), clusterNameOf(obj))
		log.Info("owner Machine is gone, deleting without it", "Machine", machine.GetName())
	}
	if machine == nil {
		log.Info("waiting for Cluster API to set the owner Machine")
		return ctrl.Result{}, nil
	}
	clusterName := contract.ClusterNameOf(machine)
	if clusterName == "" {
		clusterName, _ = contract.Machine(contract.V1Beta2).ClusterName().Get(machine)
	}
	if clusterName == "" {
		log.Info("waiting for the Machine's cluster name", "Machine", machine.GetName())
		return ctrl.Result{}, nil
	}
	cluster, err := r.getCore(ctx, machine.GroupVersionKind().GroupVersion().WithKind("Cluster"), obj.GetNamespace(), clusterName)
	if err != nil {
		return ctrl.Result{}, err
	}
	if cluster == nil && orphaned {
		cluster = r.placeholderCluster(obj.GetNamespace(), clusterName, nil)
		log.Info("Cluster is gone, deleting without it", "Cluster", clusterName)
	}
	if cluster == nil {
		log.Info("waiting for the Cluster", "Cluster", clusterName)
		return ctrl.Result{}, nil
	}
	log = log.WithValues("Machine", machine.GetName(), "Cluster", cluster.GetName())
	ctx = ctrl.LoggerInto(ctx, log)
	s, err := scope.NewMachineScope(ctx, r.client, obj, machine, cluster, r.scopeOptions()...)
	if err != nil {
		return ctrl.Result{}, err
	}
	r.rememberVersion(s.ContractVersion())
	gate := func() string {
		switch {
		case s.Provisioned():
			return ""
		case !s.Cluster().InfrastructureProvisioned:
			return ReasonWaitingForClusterInfrastructure
		case s.Machine().BootstrapDataSecretName == "":
			return ReasonWaitingForBootstrapData
		}
		return ""
	}
	return r.run(ctx, s, bindSteps(r.steps, scope.MachineScoper[T](s)), gate)
}

package services_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/examples/podcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/podcloud/services"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope"
	"github.com/capkit/capkit/scope/scopetest"
)

// reconcileAll runs steps in order until one is not done, as capkit's reconcilers do.
func reconcileAll[S any](ctx context.Context, s S, steps ...reconcile.Service[S]) (step.Result, error) {
	for _, st := range steps {
		res, err := st.Reconcile(ctx, s)
		if err != nil || !res.Done {
			return res, err
		}
	}
	return done, nil
}

// deleteAll deletes steps in reverse order until one is not done.
func deleteAll[S any](ctx context.Context, s S, steps ...reconcile.Service[S]) (step.Result, error) {
	for i := len(steps) - 1; i >= 0; i-- {
		res, err := steps[i].Delete(ctx, s)
		if err != nil || !res.Done {
			return res, err
		}
	}
	return done, nil
}

// TestClusterAndMachinesLifecycle runs the steps of a PodCluster and of two PodMachines in order, as the
// reconcilers do, through a client that counts the writes: the control plane Service selects the control
// plane Pod only, a provisioned machine's steady-state reconcile writes nothing and reads no bootstrap data,
// and deleting everything leaves nothing of the cluster in the namespace.
func TestClusterAndMachinesLifecycle(t *testing.T) {
	ctx := t.Context()
	ns := env.Namespace(t, "podcloud")
	cc := scopetest.NewCountingClient(env.Client)

	cs := clusterScope(clusterName, ns)
	sa, err := services.NewServiceAccount(cc)
	require.NoError(t, err)
	ep, err := services.NewEndpoint(cc)
	require.NoError(t, err)
	fd, err := services.NewFailureDomains(cc)
	require.NoError(t, err)
	clusterSteps := []reconcile.Service[services.ClusterScope]{sa, ep, fd}
	res, err := reconcileAll[services.ClusterScope](ctx, cs, clusterSteps...)
	require.NoError(t, err)
	require.Equal(t, done, res)
	require.True(t, cs.Object.IsProvisioned())

	lookup := services.ClusterLookupFunc(func(context.Context, scope.ClusterInfo) (*v1beta2.PodCluster, error) {
		return cs.Object.DeepCopy(), nil // the PodCluster as the cluster steps left it
	})
	bs, err := services.NewBootstrap(cc, lookup)
	require.NoError(t, err)
	pod, err := services.NewPod(cc, cc, lookup)
	require.NoError(t, err)
	machineSteps := []reconcile.Service[services.MachineScope]{bs, pod}

	cp, worker := machineScope("cp-0", controlPlane), machineScope("md-0-x7k2p")
	for i, m := range []machineFake{cp, worker} {
		res, err := reconcileAll[services.MachineScope](ctx, m, machineSteps...)
		require.NoError(t, err)
		require.Equal(t, services.ReasonPodPending, res.Reason)
		setPodStatus(t, podOf(t, ns, m), running(fmt.Sprintf("10.244.0.%d", 5+i)))
		res, err = reconcileAll[services.MachineScope](ctx, m, machineSteps...)
		require.NoError(t, err)
		require.Equal(t, done, res)
		assert.True(t, m.Object.IsProvisioned())
	}

	svc := serviceOf(t, cs)
	selector := labels.SelectorFromSet(svc.Spec.Selector)
	assert.True(t, selector.Matches(labels.Set(podOf(t, ns, cp).Labels)), "the Service sends to the control plane Pod")
	assert.False(t, selector.Matches(labels.Set(podOf(t, ns, worker).Labels)), "and not to a worker")
	assert.Equal(t, cs.Object.Spec.ControlPlaneEndpoint.Port, podOf(t, ns, cp).Spec.Containers[0].Ports[0].ContainerPort)

	cc.Reset()
	res, err = reconcileAll[services.ClusterScope](ctx, cs, clusterSteps...)
	require.NoError(t, err)
	require.Equal(t, done, res)
	for _, m := range []machineFake{cp, worker} {
		res, err := reconcileAll[services.MachineScope](ctx, m, machineSteps...)
		require.NoError(t, err)
		require.Equal(t, done, res)
		assert.Equal(t, 1, m.BootstrapReads, "the bootstrap data is read once, to create the Secret")
	}
	assert.Zero(t, cc.Writes(), "a steady-state reconcile writes nothing: %v", cc.Log())
	assert.Len(t, cc.ReadLog(), 3+2*2, "one read per object and a list of the nodes: %v", cc.ReadLog())

	for _, m := range []machineFake{cp, worker} {
		res, err := deleteAll[services.MachineScope](ctx, m, machineSteps...)
		require.NoError(t, err)
		require.Equal(t, done, res, "Pods never scheduled are deleted at once")
	}
	res, err = deleteAll[services.ClusterScope](ctx, cs, clusterSteps...)
	require.NoError(t, err)
	require.Equal(t, done, res)

	for _, list := range []client.ObjectList{&corev1.PodList{}, &corev1.SecretList{}, &corev1.ServiceList{}, &corev1.ServiceAccountList{}} {
		require.NoError(t, env.Client.List(ctx, list, client.InNamespace(ns), client.MatchingLabels{services.LabelCluster: clusterName}))
		assert.Zero(t, meta.LenList(list), "%T: nothing of the cluster is left", list)
	}
}

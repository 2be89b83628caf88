package services_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/memcloudtest"
	"github.com/capkit/capkit/examples/memcloud/services"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope"
)

const userData = "#cloud-config\nruncmd: [kubeadm join --token SECRET-TOKEN]\n"

// machineEnv is a provisioned cluster network in a cloud, and an instance service that finds it.
type machineEnv struct {
	cloud    *cloud.Cloud
	ids      map[string]string
	instance *services.Instance
}

func newMachineEnv(t *testing.T, opts ...cloud.Option) *machineEnv {
	t.Helper()
	c := memcloudtest.NewCloud(t, opts...)
	s := clusterScope(nil)
	_, err := reconcileAll(t.Context(), clusterSteps(t, c), s)
	require.NoError(t, err)
	e := &machineEnv{cloud: c, ids: s.Object.Status.Resources}
	e.instance, err = services.NewInstance(c, lookupOf(e))
	require.NoError(t, err)
	c.ResetCounters()
	return e
}

func TestInstanceProvisionsMachinesOfEachRole(t *testing.T) {
	tests := []struct {
		name         string
		controlPlane bool
		subnet       string
	}{
		{"control plane", true, "controlplane"},
		{"worker", false, "worker"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			e := newMachineEnv(t)
			s := machineScope("m-0", tt.controlPlane, []byte(userData))
			mm := s.Object

			res, err := e.instance.Reconcile(ctx, s)
			require.NoError(t, err)
			assert.True(t, res.Done)
			id, err := v1beta2.InstanceIDFromProviderID(s.Object.Spec.ProviderID)
			require.NoError(t, err, "the instance ID is the provider ID")
			assert.Empty(t, s.Object.Status.Resources, "the instance is not in the resource-ID map")
			require.Len(t, s.Checkpoints(), 1, "one checkpoint right after the create")
			assert.True(t, s.Checkpoints()[0].SpecOnly, "of spec.providerID only")
			inst, err := e.cloud.GetInstance(ctx, id)
			require.NoError(t, err)
			assert.Equal(t, e.ids[services.SubnetKey(tt.subnet)], inst.SubnetID)
			assert.Equal(t, []string{e.ids[services.KeySecurityGroup]}, inst.SecurityGroupIDs)
			assert.Equal(t, v1beta2.DefaultImage, inst.Image)
			data, err := e.cloud.InstanceUserData(id)
			require.NoError(t, err)
			assert.Equal(t, userData, string(data), "the bootstrap data is the user data")
			assert.Equal(t, []contract.MachineAddress{
				{Type: contract.MachineInternalIP, Address: inst.PrivateIP}, {Type: contract.MachineHostName, Address: "m-0"},
			}, s.Object.Status.Addresses)
			assert.Equal(t, "fd-a", s.Object.Status.FailureDomain)
			assert.True(t, s.Object.IsProvisioned())
			assert.Equal(t, "running", mm.Status.InstanceState)
			assert.Equal(t, 1, s.BootstrapReads)
			lb, err := e.cloud.GetLoadBalancer(ctx, e.ids[services.KeyLoadBalancer])
			require.NoError(t, err)
			assert.Equal(t, tt.controlPlane, slices.Contains(lb.Targets, id), "only control plane instances are targets")

			e.cloud.ResetCounters()
			res, err = e.instance.Reconcile(ctx, s)
			require.NoError(t, err)
			assert.True(t, res.Done)
			wantCalls := map[cloud.Op]int{cloud.VerbGet.On(cloud.KindInstance): 1}
			if tt.controlPlane {
				wantCalls[cloud.VerbGet.On(cloud.KindLoadBalancer)] = 1 // is it still a target?
			}
			assert.Equal(t, wantCalls, e.cloud.Calls().Calls, "a provisioned machine costs one read of its instance")
			assert.Equal(t, 1, s.BootstrapReads, "and no read of its bootstrap data")
			assert.Len(t, s.Checkpoints(), 1)

			res, err = e.instance.Delete(ctx, s)
			require.NoError(t, err)
			assert.True(t, res.Done)
			assert.Zero(t, e.cloud.Count(cloud.KindInstance))
			lb, err = e.cloud.GetLoadBalancer(ctx, e.ids[services.KeyLoadBalancer])
			require.NoError(t, err)
			assert.Empty(t, lb.Targets)
			assert.Equal(t, s.Object.Spec.ProviderID, v1beta2.ProviderID(id), "the provider ID stays after the delete")

			res, err = e.instance.Delete(ctx, s)
			require.NoError(t, err)
			assert.True(t, res.Done, "deleting a deleted instance is done")
		})
	}
}

func TestInstanceSteadyStateNeverReadsBootstrapData(t *testing.T) {
	tests := []struct {
		name         string
		controlPlane bool
		wantReads    int
	}{
		{"worker", false, 1},
		{"control plane: and the load balancer", true, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			e := newMachineEnv(t)
			s := machineScope("m-0", tt.controlPlane, []byte(userData))
			res, err := e.instance.Reconcile(ctx, s)
			require.NoError(t, err)
			require.True(t, res.Done)
			s.BootstrapValue = nil // reading it now fails: scope.ErrBootstrapDataNotReady

			for range 3 {
				e.cloud.ResetCounters()
				res, err = e.instance.Reconcile(ctx, s)
				require.NoError(t, err, "the bootstrap data is not read")
				assert.True(t, res.Done)
				calls := e.cloud.Calls()
				assert.Equal(t, 1, calls.Of(cloud.VerbGet, cloud.KindInstance), "the instance is read once: %v", calls.Calls)
				assert.Equal(t, tt.wantReads, calls.Total(), "%v", calls.Calls)
			}
			assert.Equal(t, 1, s.BootstrapReads, "read once, for the create")
		})
	}
}

func TestInstancePendingUntilRunning(t *testing.T) {
	ctx := withPoll(t.Context())
	e := newMachineEnv(t, cloud.WithPendingGets(1))
	s := machineScope("m-0", true, []byte(userData))
	mm := s.Object

	// The create returns a pending instance; the first Get still sees it pending, the second running.
	for i := range 2 {
		e.cloud.ResetCounters()
		res, err := e.instance.Reconcile(ctx, s)
		require.NoError(t, err)
		assert.False(t, res.Done, "reconcile %d", i)
		assert.Equal(t, services.ReasonInstancePending, res.Reason)
		assert.Equal(t, poll, res.RequeueAfter)
		id, err := v1beta2.InstanceIDFromProviderID(mm.Spec.ProviderID)
		require.NoError(t, err)
		assert.Contains(t, res.Message, "instance "+id+" is booting")
		assert.Equal(t, string(cloud.InstancePending), mm.Status.InstanceState)
		require.Len(t, mm.Status.Addresses, 2, "the addresses are set while the instance boots")
		assert.Equal(t, contract.MachineAddress{Type: contract.MachineHostName, Address: "m-0"}, mm.Status.Addresses[1])
		assert.NotEmpty(t, mm.Status.Addresses[0].Address)
		assert.Equal(t, "fd-a", mm.Status.FailureDomain)
		assert.False(t, mm.IsProvisioned())
		lb, err := e.cloud.GetLoadBalancer(ctx, e.ids[services.KeyLoadBalancer])
		require.NoError(t, err)
		assert.Equal(t, []string{id}, lb.Targets, "registered while it boots")
		if i == 0 {
			assert.Equal(t, 1, e.cloud.Calls().Of(cloud.VerbCreate, cloud.KindInstance))
			assert.Zero(t, e.cloud.Calls().Of(cloud.VerbGet, cloud.KindInstance), "the create's answer is the observation")
		} else {
			assert.Equal(t, 1, e.cloud.Calls().Of(cloud.VerbGet, cloud.KindInstance))
		}
	}
	res, err := e.instance.Reconcile(ctx, s)
	require.NoError(t, err)
	assert.True(t, res.Done)
	assert.True(t, mm.IsProvisioned())
	assert.Equal(t, string(cloud.InstanceRunning), mm.Status.InstanceState)
	assert.Equal(t, 1, s.BootstrapReads)
	assert.Equal(t, 1, e.cloud.Count(cloud.KindInstance))
}

func TestInstanceStates(t *testing.T) {
	tests := []struct {
		name       string
		setup      func(t *testing.T, c *cloud.Cloud)
		opts       []cloud.Option
		wantReason string
		terminal   bool
		// wantRequeue is Ensure's poll interval for a pending instance, the reconciler's default (zero) for
		// the service's own wait.
		wantRequeue time.Duration
	}{
		{name: "pending", opts: []cloud.Option{cloud.WithPendingGets(1)}, wantReason: services.ReasonInstancePending, wantRequeue: poll},
		{name: "failed", opts: []cloud.Option{cloud.WithPendingGets(5)}, wantReason: services.ReasonInstanceFailed, terminal: true,
			setup: func(t *testing.T, c *cloud.Cloud) {
				for _, r := range c.List(cloud.KindInstance) {
					require.NoError(t, c.SetInstanceState(r.ID, cloud.InstanceFailed))
				}
			}},
		{name: "stopped", opts: []cloud.Option{cloud.WithPendingGets(5)}, wantReason: services.ReasonInstanceStopped,
			setup: func(t *testing.T, c *cloud.Cloud) {
				for _, r := range c.List(cloud.KindInstance) {
					require.NoError(t, c.SetInstanceState(r.ID, cloud.InstanceStopped))
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := withPoll(t.Context())
			e := newMachineEnv(t, tt.opts...)
			s := machineScope("m-0", false, []byte(userData))
			mm := s.Object
			if tt.setup != nil {
				_, err := e.instance.Reconcile(ctx, s) // creates the instance, pending
				require.NoError(t, err)
				tt.setup(t, e.cloud)
			}
			res, err := e.instance.Reconcile(ctx, s)
			if tt.terminal {
				var term *step.TerminalError
				require.ErrorAs(t, err, &term)
				assert.Equal(t, tt.wantReason, term.Reason)
			} else {
				require.NoError(t, err)
				assert.False(t, res.Done)
				assert.Equal(t, tt.wantReason, res.Reason)
				assert.Equal(t, tt.wantRequeue, res.RequeueAfter)
			}
			assert.False(t, s.Object.IsProvisioned())
			assert.NotEmpty(t, s.Object.Spec.ProviderID, "the provider ID is set before the instance runs")
			assert.NotEmpty(t, mm.Status.InstanceState)
			assert.Len(t, mm.Status.Addresses, 2, "and the addresses")
			assert.Equal(t, 1, s.BootstrapReads)
			assert.Equal(t, 1, e.cloud.Count(cloud.KindInstance))
		})
	}
}

func TestInstanceWaitsForTheClusterNetwork(t *testing.T) {
	c := memcloudtest.NewCloud(t)
	inst, err := services.NewInstance(c, services.NetworkLookupFunc(func(context.Context, string, scope.ClusterInfo) (services.ClusterNetwork, error) {
		return services.ClusterNetwork{}, nil
	}))
	require.NoError(t, err)
	s := machineScope("m-0", true, []byte(userData))
	res, err := inst.Reconcile(t.Context(), s)
	require.NoError(t, err)
	assert.False(t, res.Done)
	assert.Equal(t, services.ReasonWaitingForNetwork, res.Reason)
	assert.Zero(t, c.Calls().Total())
}

func TestInstanceSurvivesALostCreateResponse(t *testing.T) {
	ctx := t.Context()
	e := newMachineEnv(t, cloud.WithFaults(cloud.FaultConfig{SearchLag: 5}))
	require.NoError(t, e.cloud.FailNext(cloud.VerbCreate.On(cloud.KindInstance), cloud.AfterChange))
	s := machineScope("m-0", false, []byte(userData))

	_, err := e.instance.Reconcile(ctx, s)
	require.ErrorIs(t, err, cloud.ErrInjected)
	assert.Empty(t, s.Object.Spec.ProviderID, "the response was lost: no ID to record")
	assert.Equal(t, 1, e.cloud.Count(cloud.KindInstance), "but the instance exists")

	res, err := e.instance.Reconcile(ctx, s)
	require.NoError(t, err)
	assert.True(t, res.Done)
	assert.Equal(t, 1, e.cloud.Count(cloud.KindInstance), "the retry got it back by its token")
	assert.Equal(t, v1beta2.ProviderID(e.cloud.List(cloud.KindInstance)[0].ID), s.Object.Spec.ProviderID)
}

func TestInstanceDeletedOutOfBandIsTerminal(t *testing.T) {
	ctx := t.Context()
	e := newMachineEnv(t)
	s := machineScope("m-0", false, []byte(userData))
	_, err := e.instance.Reconcile(ctx, s)
	require.NoError(t, err)
	id, err := v1beta2.InstanceIDFromProviderID(s.Object.Spec.ProviderID)
	require.NoError(t, err)
	require.NoError(t, e.cloud.DeleteInstance(ctx, id))

	_, err = e.instance.Reconcile(ctx, s)
	var term *step.TerminalError
	require.ErrorAs(t, err, &term, "a machine never gets a second instance")
	assert.Equal(t, services.ReasonResourceDeleted, term.Reason)
	assert.Zero(t, e.cloud.Count(cloud.KindInstance))
	assert.NotContains(t, err.Error(), "SECRET-TOKEN", "errors never carry the bootstrap data")
}

package controllers_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vmware/govmomi/vim25/types"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/examples/vspherecloud/api/v1beta2"
	"github.com/capkit/capkit/examples/vspherecloud/controllers"
	"github.com/capkit/capkit/examples/vspherecloud/services"
	"github.com/capkit/capkit/examples/vspherecloud/vspheretest"
	"github.com/capkit/capkit/examples/vspherecloud/webhooks"
	"github.com/capkit/capkit/identity"
	"github.com/capkit/capkit/providertest/lifecycle"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/scope"
)

// credentials is the name of the Secret with the simulator's user and password.
const credentials = "vcenter"

// fixture is one cluster of one control plane machine on a simulator, with vspherecloud's controllers running in a
// manager and providertest's lifecycle driver playing Cluster API; the driver plays guest tools too, at each poll.
type fixture struct {
	sim      *vspheretest.Simulator
	endpoint *vspheretest.Endpoint // the cluster's server, when setup.countCalls
	life     *lifecycle.Driver
	guestErr error
}

// setup says what a fixture differs in from the default: a cluster that logs in with the Secret "vcenter" of a new
// namespace, to the simulator's own address.
type setup struct {
	sim []vspheretest.Option
	// namespace is the cluster's, created by the test; "": a new one.
	namespace string
	// identity creates, on the fixture's simulator, the VSphereClusterIdentity the cluster names instead of a Secret,
	// and returns its name; its Secret is in identityNamespace, vspherecloud's. nil: the Secret "vcenter", created in
	// the cluster's namespace.
	identity          func(*vspheretest.Simulator) string
	identityNamespace string
	// countCalls makes the cluster's server an Endpoint of the simulator, which counts the requests it serves.
	countCalls bool
}

func newFixture(t *testing.T, opts ...vspheretest.Option) *fixture {
	t.Helper()
	return newFixtureWith(t, setup{sim: opts})
}

func newFixtureWith(t *testing.T, set setup) *fixture {
	t.Helper()
	ctx := t.Context()
	f := &fixture{sim: vspheretest.New(t, set.sim...)}
	server, thumbprint := f.sim.Config.URL, f.sim.Thumbprint
	if set.countCalls {
		f.endpoint = f.sim.Endpoint()
		server, thumbprint = f.endpoint.URL, f.endpoint.Thumbprint
	}
	ns := set.namespace
	if ns == "" {
		ns = env.Namespace(t, "vsphere")
	}
	spec := v1beta2.VSphereClusterSpec{Server: server, Thumbprint: thumbprint, Datacenter: vspheretest.Datacenter,
		ControlPlaneEndpoint: contract.APIEndpoint{Host: "10.0.0.2", Port: 6443}}
	opts := []controllers.Option{controllers.WithReconcileOptions(reconcile.WithPollInterval(50 * time.Millisecond))}
	if set.identity != nil {
		spec.IdentityRef = &identity.Ref{Kind: v1beta2.VSphereClusterIdentityKind, Name: set.identity(f.sim)}
		opts = append(opts, controllers.WithIdentities(set.identityNamespace))
	} else {
		spec.CredentialsSecretRef = v1beta2.SecretReference{Name: credentials}
		require.NoError(t, env.Client.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: credentials},
			Data: map[string][]byte{v1beta2.CredentialsUsername: []byte(f.sim.Config.Username), v1beta2.CredentialsPassword: []byte(f.sim.Config.Password)}}))
	}

	mgr, err := env.StartManager(ctx, logr.Discard(), func(mgr ctrl.Manager) error {
		// The API server calls vspherecloud's webhooks (testenv.Provider installs config/webhook): serve them.
		return errors.Join(controllers.SetupWithManager(mgr, opts...), webhooks.SetupWithManager(mgr))
	})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, mgr.Stop()) })

	f.life, err = lifecycle.New(env.Client, lifecycle.Spec{
		Namespace: ns, ClusterName: "c1", ControlPlaneMachines: 1, PlayCAPI: true, Timeout: time.Minute,
		InfraClusterGVK: v1beta2.GroupVersion.WithKind("VSphereCluster"), InfraMachineGVK: v1beta2.GroupVersion.WithKind("VSphereMachine"),
		InfraCluster: func(string, string) (client.Object, error) {
			return &v1beta2.VSphereCluster{Spec: spec}, nil
		},
		InfraMachine: func(string, string, bool) (client.Object, error) {
			return &v1beta2.VSphereMachine{Spec: v1beta2.VSphereMachineSpec{Template: vspheretest.Template, Folder: vspheretest.Folder,
				ResourcePool: vspheretest.ResourcePool, Datastore: vspheretest.Datastore, Network: vspheretest.Network,
				NumCPUs: 2, MemoryMiB: 4096, DiskGiB: 20}}, nil
		},
		LeakChecker: lifecycle.LeakCheckerFunc(f.leaks),
		OnPoll: func(context.Context, lifecycle.Poll) {
			if _, err := f.sim.PlayGuestTools(); err != nil && f.guestErr == nil {
				f.guestErr = err
			}
		},
	})
	require.NoError(t, err)
	require.NoError(t, f.life.Create(ctx))
	return f
}

// leaks lists the VMs that carry one of the ownership keys.
func (f *fixture) leaks(ctx context.Context, q lifecycle.LeakQuery) ([]string, error) {
	var out []string
	for _, key := range q.OwnershipKeys {
		vms, err := f.sim.Client.FindVMs(ctx, map[string]string{ensure.TagOwnershipKey: key})
		if err != nil {
			return nil, err
		}
		for _, vm := range vms {
			out = append(out, fmt.Sprintf("VM %q (%s)", vm.Name, vm.UUID))
		}
	}
	return out, nil
}

func (f *fixture) vsphereMachine(t *testing.T, name string) *v1beta2.VSphereMachine {
	t.Helper()
	vm := &v1beta2.VSphereMachine{}
	require.NoError(t, env.Client.Get(t.Context(), client.ObjectKey{Namespace: f.life.Spec().Namespace, Name: name}, vm))
	return vm
}

// TestProvisionAndDelete: the controllers clone the machine's VM with its bootstrap data, record its providerID,
// report the address guest tools give it, and mark cluster and machine provisioned; the delete leaves no VM.
func TestProvisionAndDelete(t *testing.T) {
	ctx := t.Context()
	f := newFixture(t)
	require.NoError(t, f.life.WaitProvisioned(ctx))
	require.NoError(t, f.guestErr)

	vc := &v1beta2.VSphereCluster{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: f.life.Spec().Namespace, Name: "c1"}, vc))
	assert.True(t, vc.IsProvisioned())
	assert.True(t, conditions.IsTrue(vc, v1beta2.VCenterReadyCondition))

	name := f.life.MachineNames()[0]
	vsm := f.vsphereMachine(t, name)
	assert.True(t, vsm.IsProvisioned())
	assert.True(t, conditions.IsTrue(vsm, v1beta2.VMReadyCondition))
	id, err := services.IDFromProviderID(vsm.Spec.ProviderID)
	require.NoError(t, err, "spec.providerID is vsphere://<BIOS UUID>")
	assert.Equal(t, []contract.MachineAddress{{Type: contract.MachineInternalIP, Address: "10.0.0.11"},
		{Type: contract.MachineHostName, Address: name}}, vsm.Status.Addresses)

	assert.Equal(t, 1, f.sim.VMs(t), "exactly one VM")
	inspected, err := f.sim.Inspect(id)
	require.NoError(t, err)
	assert.Equal(t, int32(2), inspected.Config.Hardware.NumCPU)
	assert.Equal(t, int32(4096), inspected.Config.Hardware.MemoryMB)
	assert.Contains(t, extraConfigKeys(inspected.Config.ExtraConfig), "guestinfo.userdata", "the bootstrap data is the VM's guestinfo")

	require.NoError(t, f.life.Delete(ctx))
	assert.Zero(t, f.sim.VMs(t), "no VM left")
	leaks, err := f.life.Leaks(ctx, nil)
	require.NoError(t, err)
	assert.Empty(t, leaks)
}

// TestDeletedWhileTheCloneRuns deletes the VSphereMachine while its clone is held: its delete waits for the clone,
// then destroys what it made, and no VM is left once every clone has ended.
func TestDeletedWhileTheCloneRuns(t *testing.T) {
	ctx := t.Context()
	const cloneTime = 10 * time.Minute
	f := newFixture(t, vspheretest.WithCloneTime(cloneTime))
	require.Eventually(t, func() bool {
		return f.life.SimulateCAPI(ctx) == nil && f.sim.Clones() == 1
	}, 30*time.Second, 50*time.Millisecond, "the controllers start the clone")
	name := f.life.MachineNames()[0]
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		vsm := f.vsphereMachine(t, name)
		assert.Contains(c, vsm.Annotations[scope.PendingAnnotationPrefix+services.KeyVM], "operation ")
		assert.Equal(c, conditions.ReasonResourcePending, conditions.GetReason(vsm, v1beta2.VMReadyCondition))
	}, 30*time.Second, 50*time.Millisecond, "the clone task is checkpointed")

	require.NoError(t, env.Client.Delete(ctx, f.vsphereMachine(t, name)))
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		vsm := f.vsphereMachine(t, name)
		if cond := conditions.Get(vsm, conditions.Deleting); assert.NotNil(c, cond) {
			assert.Equal(c, metav1.ConditionTrue, cond.Status)
			assert.Contains(c, cond.Message, "it is deleted once the operation ends")
		}
	}, 30*time.Second, 50*time.Millisecond, "the delete waits for the clone")
	assert.Equal(t, 1, f.sim.VMs(t), "the held clone")

	f.sim.Advance(cloneTime)
	require.Eventually(t, func() bool {
		err := env.Client.Get(ctx, client.ObjectKey{Namespace: f.life.Spec().Namespace, Name: name}, &v1beta2.VSphereMachine{})
		return apierrors.IsNotFound(err)
	}, 30*time.Second, 50*time.Millisecond, "the VSphereMachine is deleted once its VM is")
	assert.Zero(t, f.sim.VMs(t), "no VM left")
	assert.Equal(t, 1, f.sim.Clones(), "and no second clone")
}

// extraConfigKeys returns the keys of a VM's extraConfig.
func extraConfigKeys(opts []types.BaseOptionValue) []string {
	var keys []string
	for _, o := range opts {
		keys = append(keys, o.GetOptionValue().Key)
	}
	return keys
}

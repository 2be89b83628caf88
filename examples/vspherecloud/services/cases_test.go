package services_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/examples/vspherecloud/api/v1beta2"
	"github.com/capkit/capkit/examples/vspherecloud/services"
	"github.com/capkit/capkit/examples/vspherecloud/vspheretest"
	"github.com/capkit/capkit/providertest"
	"github.com/capkit/capkit/providertest/servicetest"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope"
	"github.com/capkit/capkit/scope/scopetest"
)

// machineDeps are what the machine service's cases run on: a simulator whose clones are held for cloneTime, and
// the reader of the machines' VSphereCluster.
type machineDeps struct {
	sim      *vspheretest.Simulator
	clusters client.Client
}

type machineFake = *scopetest.FakeMachineScope[*v1beta2.VSphereMachine]

func newMachineService(t *testing.T) (reconcile.Service[scope.MachineScoper[*v1beta2.VSphereMachine]], machineDeps) {
	sim := vspheretest.New(t, vspheretest.WithCloneTime(cloneTime))
	scheme := runtime.NewScheme()
	require.NoError(t, v1beta2.AddToScheme(scheme))
	clusters := fake.NewClientBuilder().WithScheme(scheme).WithObjects(vsphereCluster(sim)).Build()
	m, err := services.NewMachine(clusters, sessionsOf(secrets(map[string]string{
		v1beta2.CredentialsUsername: sim.Config.Username, v1beta2.CredentialsPassword: sim.Config.Password})))
	require.NoError(t, err)
	return m, machineDeps{sim: sim, clusters: clusters}
}

// machineScope returns machine m-0 of cluster c1 with bootstrap data of format.
func machineScope(format scope.BootstrapFormat) machineFake {
	vsm := &v1beta2.VSphereMachine{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "m-0"},
		Spec: v1beta2.VSphereMachineSpec{Template: vspheretest.Template, Folder: vspheretest.Folder, ResourcePool: vspheretest.ResourcePool,
			Datastore: vspheretest.Datastore, Network: vspheretest.Network, NumCPUs: 2, MemoryMiB: 4096}}
	return &scopetest.FakeMachineScope[*v1beta2.VSphereMachine]{
		FakeObject: scopetest.FakeObject[*v1beta2.VSphereMachine]{Object: vsm, OwnershipKeyValue: "owner-1",
			ClusterInfo: scope.ClusterInfo{Name: "c1", Object: providertest.NewCluster("ns", "c1").WithInfraRef(v1beta2.GroupVersion.WithKind("VSphereCluster"), "c1").Build()}},
		BootstrapValue: []byte(userData), BootstrapFormat: format,
	}
}

// TestMachineCases: servicetest's checks on every call (the bootstrap data in no error, message or condition; what
// a call records is persisted before it returns) on the simulator, for what one reconcile of a machine does.
func TestMachineCases(t *testing.T) {
	noClone := func(t *testing.T, _ machineFake, d machineDeps) {
		assert.Zero(t, d.sim.Clones(), "no clone")
	}
	servicetest.RunMachineCases(t, newMachineService, []servicetest.MachineCase[*v1beta2.VSphereMachine, machineDeps]{
		{
			Name:    "the first reconcile starts the clone, notes it and its task, and holds no worker",
			Scope:   machineScope(scope.BootstrapFormatCloudConfig),
			Options: []reconcile.Option{reconcile.WithPollInterval(poll)},
			Want:    servicetest.Outcome{Result: step.Result{Reason: conditions.ReasonResourcePending, RequeueAfter: time.Second}, MessageContains: "is being created (operation"},
			Check: func(t *testing.T, s machineFake, d machineDeps) {
				assert.Equal(t, 1, d.sim.Clones())
				assert.Empty(t, s.Object.Spec.ProviderID, "no VM yet: its clone is held")
				assert.Contains(t, s.Object.Annotations, "pending.capkit.io/"+services.KeyVM, "the task is noted on the object")
			},
		},
		{
			Name:  "Ignition bootstrap data is refused before any clone",
			Scope: machineScope(scope.BootstrapFormatIgnition),
			Want: servicetest.Outcome{Class: reconcile.ClassTerminal, Reason: conditions.ReasonInvalidParameters,
				ErrorContains: `bootstrap data of format "ignition"`, Unchanged: true},
			Check: noClone,
		},
		{
			Name:  "a VSphereCluster whose credentials Secret is missing is refused before any clone",
			Scope: machineScope(scope.BootstrapFormatCloudConfig),
			Setup: func(t *testing.T, _ machineFake, d machineDeps) {
				vc := &v1beta2.VSphereCluster{}
				require.NoError(t, d.clusters.Get(context.Background(), client.ObjectKey{Namespace: "ns", Name: "c1"}, vc))
				vc.Spec.CredentialsSecretRef.Name = "absent"
				require.NoError(t, d.clusters.Update(context.Background(), vc))
			},
			Want: servicetest.Outcome{Class: reconcile.ClassRefused, Reason: conditions.ReasonCredentialsSecretNotFound,
				ErrorContains: "credentials Secret ns/absent does not exist", Unchanged: true},
			Check: noClone,
		},
		{
			Name:   "deleting a machine that has no VM and noted no clone is done at once",
			Scope:  machineScope(scope.BootstrapFormatCloudConfig),
			Delete: true,
			Want:   servicetest.Outcome{Result: step.Result{Done: true}, Unchanged: true},
			Check:  noClone,
		},
	}...)
}

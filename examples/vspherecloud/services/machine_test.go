package services_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/examples/vspherecloud/api/v1beta2"
	"github.com/capkit/capkit/examples/vspherecloud/services"
	"github.com/capkit/capkit/examples/vspherecloud/vspheretest"
	"github.com/capkit/capkit/providertest"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope"
	"github.com/capkit/capkit/scope/scopetest"
)

// TestMachine reconciles a VSphereMachine's step until it is done, playing guest tools meanwhile: with cloud-init
// bootstrap data, one VM, recorded in spec.providerID, with its address, provisioned, in the compute cluster of the
// Machine's failure domain if it has one, and deleted with none left; with Ignition, with no resource pool and no
// failure domain, or with a failure domain the VSphereCluster lacks, an error and no VM.
func TestMachine(t *testing.T) {
	tests := []struct {
		name          string
		format        scope.BootstrapFormat
		failureDomain string // the Machine's spec.failureDomain
		noPool        bool   // the VSphereMachine has no spec.resourcePool
		wantCluster   string // the compute cluster the VM runs in
		wantReason    string // the terminal error's reason
		wantErr       string // the error's text
	}{
		{name: "cloud-init", format: scope.BootstrapFormatCloudConfig, wantCluster: vspheretest.ComputeCluster},
		{name: "in a failure domain, without a resource pool", format: scope.BootstrapFormatCloudConfig, failureDomain: "fd-b", noPool: true,
			wantCluster: vspheretest.OtherComputeCluster},
		{name: "in a failure domain, which wins over the resource pool", format: scope.BootstrapFormatCloudConfig, failureDomain: "fd-b",
			wantCluster: vspheretest.OtherComputeCluster},
		{name: "Ignition", format: scope.BootstrapFormatIgnition, wantReason: conditions.ReasonInvalidParameters, wantErr: `format "ignition"`},
		{name: "neither a resource pool nor a failure domain", format: scope.BootstrapFormatCloudConfig, noPool: true,
			wantReason: conditions.ReasonInvalidParameters, wantErr: "spec.resourcePool must be set"},
		{name: "a failure domain the VSphereCluster lacks", format: scope.BootstrapFormatCloudConfig, failureDomain: "fd-z",
			wantErr: `the Machine's failure domain "fd-z" is not in spec.failureDomains of VSphereCluster "c1"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			sim := vspheretest.New(t)
			vc := vsphereCluster(sim)
			vc.Spec.FailureDomains = []v1beta2.VSphereFailureDomain{{Name: "fd-a", ComputeCluster: vspheretest.ComputeCluster},
				{Name: "fd-b", ComputeCluster: vspheretest.OtherComputeCluster}}
			scheme := runtime.NewScheme()
			require.NoError(t, v1beta2.AddToScheme(scheme))
			clusters := fake.NewClientBuilder().WithScheme(scheme).WithObjects(vc).Build()
			sessions := sessionsOf(secrets(map[string]string{v1beta2.CredentialsUsername: sim.Config.Username, v1beta2.CredentialsPassword: sim.Config.Password}))
			m, err := services.NewMachine(clusters, sessions)
			require.NoError(t, err)
			vsm := &v1beta2.VSphereMachine{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "m-0"},
				Spec: v1beta2.VSphereMachineSpec{Template: vspheretest.Template, Folder: vspheretest.Folder, ResourcePool: vspheretest.ResourcePool,
					Datastore: vspheretest.Datastore, Network: vspheretest.Network}}
			if tt.noPool {
				vsm.Spec.ResourcePool = ""
			}
			s := &scopetest.FakeMachineScope[*v1beta2.VSphereMachine]{
				FakeObject: scopetest.FakeObject[*v1beta2.VSphereMachine]{Object: vsm, OwnershipKeyValue: "owner-1",
					ClusterInfo: scope.ClusterInfo{Name: "c1", Object: providertest.NewCluster("ns", "c1").WithInfraRef(v1beta2.GroupVersion.WithKind("VSphereCluster"), "c1").Build()}},
				MachineInfo:    scope.MachineInfo{FailureDomain: tt.failureDomain},
				BootstrapValue: []byte(userData), BootstrapFormat: tt.format,
			}

			var res step.Result
			for range 10 {
				if res, err = m.Reconcile(ctx, s); err != nil || res.Done {
					break
				}
				// The requeue, as a controller waits it: the simulator's clock moves on and the clone it released
				// has ended (Advance waits for it), so the loop does not race the clone's task.
				sim.Advance(res.RequeueAfter)
				_, err := sim.PlayGuestTools()
				require.NoError(t, err)
			}
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				assert.Equal(t, tt.wantReason, step.TerminalReason(err))
				assert.NotContains(t, err.Error(), "s3cr3t")
				assert.Zero(t, sim.Clones(), "no clone")
				return
			}
			require.NoError(t, err)
			require.True(t, res.Done, "%+v", res)
			assert.True(t, vsm.IsProvisioned())
			assert.Equal(t, []contract.MachineAddress{{Type: contract.MachineInternalIP, Address: "10.0.0.11"}, {Type: contract.MachineHostName, Address: "m-0"}},
				vsm.Status.Addresses)
			assert.Equal(t, 1, sim.VMs(t))
			id, err := services.IDFromProviderID(vsm.Spec.ProviderID)
			require.NoError(t, err)
			cc, err := sim.ComputeClusterOf(id)
			require.NoError(t, err)
			assert.Equal(t, tt.wantCluster, cc, "the compute cluster the VM runs in")

			for range 10 {
				if res, err = m.Delete(ctx, s); err != nil || res.Done {
					break
				}
				// The requeue, as a controller waits it: the power-off or destroy the step started has ended on the
				// simulator, so the next reconcile sees its outcome.
				require.NoError(t, sim.WaitVMTasks(id))
			}
			require.NoError(t, err)
			require.True(t, res.Done, "%+v", res)
			assert.Zero(t, sim.VMs(t))
		})
	}
}

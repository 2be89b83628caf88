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
// bootstrap data, one VM, recorded in spec.providerID, with its address, provisioned, and deleted with none left;
// with Ignition, a terminal error and no VM.
func TestMachine(t *testing.T) {
	tests := []struct {
		name       string
		format     scope.BootstrapFormat
		wantReason string
	}{
		{name: "cloud-init", format: scope.BootstrapFormatCloudConfig},
		{name: "Ignition", format: scope.BootstrapFormatIgnition, wantReason: conditions.ReasonInvalidParameters},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			sim := vspheretest.New(t)
			vc := vsphereCluster(sim)
			scheme := runtime.NewScheme()
			require.NoError(t, v1beta2.AddToScheme(scheme))
			clusters := fake.NewClientBuilder().WithScheme(scheme).WithObjects(vc).Build()
			sessions := sessionsOf(secrets(map[string]string{v1beta2.CredentialsUsername: sim.Config.Username, v1beta2.CredentialsPassword: sim.Config.Password}))
			m, err := services.NewMachine(clusters, sessions)
			require.NoError(t, err)
			vsm := &v1beta2.VSphereMachine{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "m-0"},
				Spec: v1beta2.VSphereMachineSpec{Template: vspheretest.Template, Folder: vspheretest.Folder, ResourcePool: vspheretest.ResourcePool,
					Datastore: vspheretest.Datastore, Network: vspheretest.Network}}
			s := &scopetest.FakeMachineScope[*v1beta2.VSphereMachine]{
				FakeObject: scopetest.FakeObject[*v1beta2.VSphereMachine]{Object: vsm, OwnershipKeyValue: "owner-1",
					ClusterInfo: scope.ClusterInfo{Name: "c1", Object: providertest.NewCluster("ns", "c1").WithInfraRef(v1beta2.GroupVersion.WithKind("VSphereCluster"), "c1").Build()}},
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
			if tt.wantReason != "" {
				require.Error(t, err)
				assert.Equal(t, tt.wantReason, step.TerminalReason(err))
				assert.NotContains(t, err.Error(), "s3cr3t")
				assert.Zero(t, sim.VMs(t))
				return
			}
			require.NoError(t, err)
			require.True(t, res.Done, "%+v", res)
			assert.True(t, vsm.IsProvisioned())
			_, err = services.IDFromProviderID(vsm.Spec.ProviderID)
			require.NoError(t, err)
			assert.Equal(t, []contract.MachineAddress{{Type: contract.MachineInternalIP, Address: "10.0.0.11"}, {Type: contract.MachineHostName, Address: "m-0"}},
				vsm.Status.Addresses)
			assert.Equal(t, 1, sim.VMs(t))

			for range 10 {
				if res, err = m.Delete(ctx, s); err != nil || res.Done {
					break
				}
			}
			require.NoError(t, err)
			require.True(t, res.Done, "%+v", res)
			assert.Zero(t, sim.VMs(t))
		})
	}
}

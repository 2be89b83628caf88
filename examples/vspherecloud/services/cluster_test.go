package services_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/examples/vspherecloud/api/v1beta2"
	"github.com/capkit/capkit/examples/vspherecloud/services"
	"github.com/capkit/capkit/examples/vspherecloud/vspheretest"
	"github.com/capkit/capkit/identity"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope/scopetest"
)

// vsphereCluster returns a VSphereCluster of sim whose credentials are the Secret "vcenter".
func vsphereCluster(sim *vspheretest.Simulator) *v1beta2.VSphereCluster {
	return &v1beta2.VSphereCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c1"},
		Spec: v1beta2.VSphereClusterSpec{Server: sim.Config.URL, Thumbprint: sim.Thumbprint, Datacenter: vspheretest.Datacenter,
			CredentialsSecretRef: v1beta2.SecretReference{Name: "vcenter"}, ControlPlaneEndpoint: contract.APIEndpoint{Host: "10.0.0.2", Port: 6443}}}
}

// secrets returns a reader holding the Secret "vcenter" with data.
func secrets(data map[string]string) client.Reader {
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "vcenter"}, Data: map[string][]byte{}}
	for k, v := range data {
		s.Data[k] = []byte(v)
	}
	return fake.NewClientBuilder().WithObjects(s).Build()
}

// sessionsOf returns sessions that read Secrets and their metadata through r.
func sessionsOf(r client.Reader) *services.Sessions { return services.NewSessions(r, r) }

func TestSessions(t *testing.T) {
	sim := vspheretest.New(t)
	good := map[string]string{v1beta2.CredentialsUsername: sim.Config.Username, v1beta2.CredentialsPassword: sim.Config.Password}
	// bound is the context of a reconcile whose identity the reconciler bound (controllers.WithIdentities).
	bound := func(ctx context.Context) context.Context {
		return identity.ContextWithCredentials(ctx, identity.NewCredentials(map[string][]byte{
			v1beta2.CredentialsUsername: []byte(sim.Config.Username), v1beta2.CredentialsPassword: []byte(sim.Config.Password)}))
	}
	useIdentity := func(vc *v1beta2.VSphereCluster) {
		vc.Spec.CredentialsSecretRef = v1beta2.SecretReference{}
		vc.Spec.IdentityRef = &identity.Ref{Kind: v1beta2.VSphereClusterIdentityKind, Name: "team-a"}
	}
	tests := []struct {
		name       string
		secrets    client.Reader
		ctx        func(context.Context) context.Context
		edit       func(*v1beta2.VSphereCluster)
		wantErr    string
		wantReason string // of a refusal
	}{
		{name: "the Secret's credentials", secrets: secrets(good)},
		{name: "no Secret", secrets: fake.NewClientBuilder().Build(), wantErr: "credentials Secret ns/vcenter does not exist"},
		{name: "no password", secrets: secrets(map[string]string{v1beta2.CredentialsUsername: sim.Config.Username}), wantErr: "credentials Secret ns/vcenter lacks keys password"},
		{name: "a wrong password", secrets: secrets(map[string]string{v1beta2.CredentialsUsername: sim.Config.Username, v1beta2.CredentialsPassword: "n0t-the-pa55word"}),
			wantErr: "cannot log in"},
		{name: "a certificate of another thumbprint", secrets: secrets(good), wantErr: "cannot connect",
			edit: func(vc *v1beta2.VSphereCluster) {
				vc.Spec.Thumbprint = "AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01"
			}},
		{name: "the identity's credentials, bound by the reconciler", secrets: fake.NewClientBuilder().Build(), ctx: bound, edit: useIdentity},
		{name: "an identity, but none bound", secrets: secrets(good), edit: useIdentity,
			wantErr: `spec.identityRef names VSphereClusterIdentity "team-a", but vspherecloud runs without identities`, wantReason: conditions.ReasonIdentityNotFound},
		{name: "the Secret even with credentials bound, when no identity is named", secrets: secrets(good),
			ctx: func(ctx context.Context) context.Context {
				return identity.ContextWithCredentials(ctx, identity.NewCredentials(map[string][]byte{v1beta2.CredentialsUsername: []byte("nobody")}))
			}},
		{name: "neither a Secret nor an identity", secrets: secrets(good), edit: func(vc *v1beta2.VSphereCluster) { vc.Spec.CredentialsSecretRef = v1beta2.SecretReference{} },
			wantErr: "neither spec.credentialsSecretRef nor spec.identityRef is set", wantReason: conditions.ReasonIdentityRefMissing},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vc := vsphereCluster(sim)
			if tt.edit != nil {
				tt.edit(vc)
			}
			ctx := t.Context()
			if tt.ctx != nil {
				ctx = tt.ctx(ctx)
			}
			s := services.NewSessions(tt.secrets, tt.secrets)
			c, err := s.Client(ctx, vc)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				assert.NotContains(t, err.Error(), "pa55word", "no password in an error")
				if tt.wantReason != "" {
					var refused *identity.RefusedError
					require.ErrorAs(t, err, &refused)
					assert.Equal(t, tt.wantReason, refused.Reason)
				}
				return
			}
			require.NoError(t, err)
			again, err := s.Client(ctx, vc)
			require.NoError(t, err)
			assert.Same(t, c, again, "one session per vCenter and credentials")
		})
	}
}

func TestVCenter(t *testing.T) {
	sim := vspheretest.New(t)
	sessions := sessionsOf(secrets(map[string]string{v1beta2.CredentialsUsername: sim.Config.Username, v1beta2.CredentialsPassword: sim.Config.Password}))
	v, err := services.NewVCenter(sessions)
	require.NoError(t, err)
	ctrlPlane := func(b bool) *bool { return &b }
	tests := []struct {
		name       string
		edit       func(*v1beta2.VSphereCluster)
		wantFDs    []contract.FailureDomain
		wantReason string
		wantErr    string
	}{
		{name: "logged in, with the endpoint given", edit: func(*v1beta2.VSphereCluster) {}},
		{name: "no endpoint", edit: func(vc *v1beta2.VSphereCluster) { vc.Spec.ControlPlaneEndpoint = contract.APIEndpoint{} },
			wantReason: conditions.ReasonInvalidParameters, wantErr: "spec.controlPlaneEndpoint or spec.virtualIP must be set"},
		{name: "failure domains of both compute clusters", edit: func(vc *v1beta2.VSphereCluster) {
			vc.Spec.FailureDomains = []v1beta2.VSphereFailureDomain{
				{Name: "fd-a", ComputeCluster: vspheretest.ComputeCluster},
				{Name: "fd-b", ComputeCluster: "/DC0/host/" + vspheretest.OtherComputeCluster, Datastore: vspheretest.Datastore,
					Network: vspheretest.Network, ControlPlane: ctrlPlane(false)},
			}
		}, wantFDs: []contract.FailureDomain{
			{Name: "fd-a", ControlPlane: ctrlPlane(true), Attributes: map[string]string{services.AttributeComputeCluster: vspheretest.ComputeCluster}},
			{Name: "fd-b", ControlPlane: ctrlPlane(false), Attributes: map[string]string{services.AttributeComputeCluster: "/DC0/host/" + vspheretest.OtherComputeCluster,
				services.AttributeDatastore: vspheretest.Datastore, services.AttributeNetwork: vspheretest.Network}},
		}},
		{name: "a compute cluster the vCenter lacks", edit: func(vc *v1beta2.VSphereCluster) {
			vc.Spec.FailureDomains = []v1beta2.VSphereFailureDomain{{Name: "fd-a", ComputeCluster: vspheretest.ComputeCluster}, {Name: "fd-z", ComputeCluster: "DC0_C9"}}
		}, wantReason: services.ReasonInventoryNotFound, wantErr: `cannot place spec.failureDomains[1] "fd-z": cannot find compute cluster "DC0_C9"`},
		{name: "a datastore the vCenter lacks", edit: func(vc *v1beta2.VSphereCluster) {
			vc.Spec.FailureDomains = []v1beta2.VSphereFailureDomain{{Name: "fd-a", ComputeCluster: vspheretest.ComputeCluster, Datastore: "nfs-9"}}
		}, wantReason: services.ReasonInventoryNotFound, wantErr: `cannot place spec.failureDomains[0] "fd-a": cannot find datastore "nfs-9"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vc := vsphereCluster(sim)
			tt.edit(vc)
			s := &scopetest.FakeClusterScope[*v1beta2.VSphereCluster]{FakeObject: scopetest.FakeObject[*v1beta2.VSphereCluster]{Object: vc, Version: contract.V1Beta2}}
			res, err := v.Reconcile(t.Context(), s)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				assert.Equal(t, tt.wantReason, step.TerminalReason(err))
				assert.False(t, vc.IsProvisioned())
				assert.Nil(t, vc.Status.FailureDomains)
				return
			}
			require.NoError(t, err)
			assert.True(t, res.Done)
			assert.True(t, vc.IsProvisioned())
			assert.Equal(t, tt.wantFDs, vc.Status.FailureDomains)
			res, err = v.Delete(t.Context(), s)
			require.NoError(t, err)
			assert.True(t, res.Done, "nothing to delete")
		})
	}
}

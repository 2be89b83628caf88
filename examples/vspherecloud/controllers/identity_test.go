package controllers_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/examples/vspherecloud/api/v1beta2"
	"github.com/capkit/capkit/examples/vspherecloud/vspheretest"
	"github.com/capkit/capkit/examples/vspherecloud/webhooks"
	"github.com/capkit/capkit/identity"
	"github.com/capkit/capkit/reconcile"
)

// createIdentity creates a VSphereClusterIdentity named after namespace ns, allowing the namespaces allowed, and its
// Secret in system with the user and password given; it returns the identity's name.
func createIdentity(t *testing.T, system, ns, username, password string, allowed ...string) string {
	t.Helper()
	ctx := t.Context()
	name := ns + "-id"
	require.NoError(t, env.Client.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: system, Name: name},
		Data: map[string][]byte{v1beta2.CredentialsUsername: []byte(username), v1beta2.CredentialsPassword: []byte(password)}}))
	id := &v1beta2.VSphereClusterIdentity{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: v1beta2.VSphereClusterIdentitySpec{SecretName: name, AllowedNamespaces: &identity.AllowedNamespaces{NamespaceList: allowed}}}
	require.NoError(t, env.Client.Create(ctx, id))
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), id) })
	return name
}

// identityCondition returns the IdentityReady condition of obj, nil when it has none or cannot be read.
func identityCondition(ctx context.Context, key client.ObjectKey, obj conditionedObject) *metav1.Condition {
	if env.Client.Get(ctx, key, obj) != nil {
		return nil
	}
	return conditions.Get(obj, reconcile.ConditionIdentityReady)
}

// TestIdentityProvisions: a VSphereCluster whose VSphereClusterIdentity allows its namespace provisions its machine's
// VM with the identity's credentials (its namespace holds no credentials Secret); a new password in the identity's
// Secret is used at the next reconcile, which the Secret's change starts; the delete leaves no VM; no password is in
// a condition or an event.
func TestIdentityProvisions(t *testing.T) {
	ctx := t.Context()
	system, ns := env.Namespace(t, "vsphere-system"), env.Namespace(t, "vsphere")
	var id string
	f := newFixtureWith(t, setup{namespace: ns, identityNamespace: system, countCalls: true,
		identity: func(sim *vspheretest.Simulator) string {
			id = createIdentity(t, system, ns, sim.Config.Username, sim.Config.Password, ns)
			return id
		}})
	require.NoError(t, f.life.WaitProvisioned(ctx))
	require.NoError(t, f.guestErr)
	clusterKey := client.ObjectKey{Namespace: ns, Name: "c1"}
	machineKey := client.ObjectKey{Namespace: ns, Name: f.life.MachineNames()[0]}
	for key, obj := range map[client.ObjectKey]conditionedObject{clusterKey: &v1beta2.VSphereCluster{}, machineKey: &v1beta2.VSphereMachine{}} {
		c := identityCondition(ctx, key, obj)
		require.NotNil(t, c, "%T", obj)
		assert.Equal(t, metav1.ConditionTrue, c.Status, "%T: %s", obj, c.Message)
	}
	assert.Equal(t, 1, f.sim.VMs(t), "exactly one VM")
	assert.Positive(t, f.endpoint.Requests.Total(), "the vCenter was called")
	secrets := &corev1.SecretList{}
	require.NoError(t, env.Client.List(ctx, secrets, client.InNamespace(ns)))
	for _, s := range secrets.Items {
		assert.NotContains(t, s.Data, v1beta2.CredentialsPassword, "Secret %s: the tenant holds no vCenter password", s.Name)
	}

	// Rotation: a wrong password in the identity's Secret is used at once (the Secret's change reconciles the
	// cluster), and so is the right one again.
	const wrong = "r0tated-but-wr0ng-pa55word"
	setPassword(t, system, id, wrong)
	waitVCenterReady(t, clusterKey, metav1.ConditionFalse)
	setPassword(t, system, id, f.sim.Config.Password)
	waitVCenterReady(t, clusterKey, metav1.ConditionTrue)

	vc, vsm := &v1beta2.VSphereCluster{}, &v1beta2.VSphereMachine{}
	require.NoError(t, env.Client.Get(ctx, clusterKey, vc))
	require.NoError(t, env.Client.Get(ctx, machineKey, vsm))
	require.NoError(t, f.life.Delete(ctx))
	assert.Zero(t, f.sim.VMs(t), "no VM left")

	events := &corev1.EventList{}
	require.NoError(t, env.Client.List(ctx, events, client.InNamespace(ns)))
	for _, password := range []string{f.sim.Config.Password, wrong} {
		for _, c := range append(vc.Status.Conditions, vsm.Status.Conditions...) {
			assert.NotContains(t, c.Message, password, "condition %s", c.Type)
		}
		for _, e := range events.Items {
			assert.NotContains(t, e.Message, password, "event %s", e.Reason)
		}
	}
}

// TestIdentityRefusesNamespace: a VSphereCluster whose VSphereClusterIdentity does not allow its namespace is refused,
// and so is its machine, with the condition naming the identity and the namespace, before any vCenter call; once the
// identity allows the namespace, the change reconciles the cluster, which provisions.
func TestIdentityRefusesNamespace(t *testing.T) {
	ctx := t.Context()
	system, ns := env.Namespace(t, "vsphere-system"), env.Namespace(t, "vsphere")
	var id string
	f := newFixtureWith(t, setup{namespace: ns, identityNamespace: system, countCalls: true,
		identity: func(sim *vspheretest.Simulator) string {
			id = createIdentity(t, system, ns, sim.Config.Username, sim.Config.Password, "someone-else")
			return id
		}})
	clusterKey := client.ObjectKey{Namespace: ns, Name: "c1"}
	machineKey := client.ObjectKey{Namespace: ns, Name: f.life.MachineNames()[0]}
	want := `VSphereClusterIdentity "` + id + `" does not allow namespace "` + ns + `"`
	for key, obj := range map[client.ObjectKey]conditionedObject{clusterKey: &v1beta2.VSphereCluster{}, machineKey: &v1beta2.VSphereMachine{}} {
		require.EventuallyWithT(t, func(c *assert.CollectT) {
			assert.NoError(c, f.life.SimulateCAPI(ctx))
			cond := identityCondition(ctx, key, obj)
			if assert.NotNil(c, cond) {
				assert.Equal(c, metav1.ConditionFalse, cond.Status)
				assert.Equal(c, conditions.ReasonNamespaceNotAllowed, cond.Reason)
				assert.Contains(c, cond.Message, want)
			}
		}, 30*time.Second, 50*time.Millisecond, "%T %s is refused", obj, key)
	}
	assert.Zero(t, f.endpoint.Requests.Total(), "no vCenter call for a refused identity: %v", f.endpoint.Requests.ByKind())
	assert.Zero(t, f.sim.VMs(t))

	// Allowed now: the identity's change reconciles the cluster, well before the recheck of refused identities.
	obj := &v1beta2.VSphereClusterIdentity{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Name: id}, obj))
	obj.Spec.AllowedNamespaces.NamespaceList = []string{ns}
	require.NoError(t, env.Client.Update(ctx, obj))
	require.Eventually(t, func() bool {
		c := identityCondition(ctx, clusterKey, &v1beta2.VSphereCluster{})
		return c != nil && c.Status == metav1.ConditionTrue
	}, reconcile.DefaultIdentityRecheck/2, 50*time.Millisecond, "the identity's change reconciles the cluster")
	require.NoError(t, f.life.WaitProvisioned(ctx))
	assert.Equal(t, 1, f.sim.VMs(t))
	require.NoError(t, f.life.Delete(ctx))
	assert.Zero(t, f.sim.VMs(t), "no VM left")
}

// TestCredentialsRefs: the API server takes a VSphereCluster with exactly one of spec.credentialsSecretRef and
// spec.identityRef (the CEL rule of the spec), and refuses both or neither, naming the fields.
func TestCredentialsRefs(t *testing.T) {
	ns := env.Namespace(t, "vsphere")
	// The API server calls vspherecloud's webhooks before it stores the objects: serve them, and nothing else.
	mgr, err := env.StartManager(t.Context(), logr.Discard(), webhooks.SetupWithManager)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, mgr.Stop()) })
	const wantErr = "exactly one of spec.credentialsSecretRef and spec.identityRef must be set"
	secret := v1beta2.SecretReference{Name: credentials}
	ref := &identity.Ref{Kind: v1beta2.VSphereClusterIdentityKind, Name: "team-a"}
	tests := []struct {
		name     string
		secret   v1beta2.SecretReference
		identity *identity.Ref
		wantErr  bool
	}{
		{name: "a credentials Secret", secret: secret},
		{name: "an identity", identity: ref},
		{name: "both", secret: secret, identity: ref, wantErr: true},
		{name: "neither", wantErr: true},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vc := &v1beta2.VSphereCluster{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("c%d", i)},
				Spec: v1beta2.VSphereClusterSpec{Server: "vcenter.example.com", Datacenter: "DC0", CredentialsSecretRef: tt.secret,
					IdentityRef: tt.identity, ControlPlaneEndpoint: contract.APIEndpoint{Host: "10.0.0.2", Port: 6443}}}
			err := env.Client.Create(t.Context(), vc, client.DryRunAll)
			if !tt.wantErr {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.True(t, apierrors.IsInvalid(err), "%v", err)
			assert.Contains(t, err.Error(), wantErr)
		})
	}
}

// conditionedObject is a vspherecloud object with conditions.
type conditionedObject interface {
	client.Object
	conditions.Getter
}

// setPassword writes password into the identity's Secret name in system.
func setPassword(t *testing.T, system, name, password string) {
	t.Helper()
	s := &corev1.Secret{}
	require.NoError(t, env.Client.Get(t.Context(), client.ObjectKey{Namespace: system, Name: name}, s))
	s.Data[v1beta2.CredentialsPassword] = []byte(password)
	require.NoError(t, env.Client.Update(t.Context(), s))
}

// waitVCenterReady waits until the VSphereCluster key has VCenterReady with status.
func waitVCenterReady(t *testing.T, key client.ObjectKey, status metav1.ConditionStatus) {
	t.Helper()
	require.Eventually(t, func() bool {
		vc := &v1beta2.VSphereCluster{}
		if env.Client.Get(t.Context(), key, vc) != nil {
			return false
		}
		c := conditions.Get(vc, v1beta2.VCenterReadyCondition)
		return c != nil && c.Status == status
	}, 30*time.Second, 50*time.Millisecond, "VSphereCluster %s: VCenterReady %s", key, status)
}

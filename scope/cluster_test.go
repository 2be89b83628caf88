package scope_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/internal/testtypes"
	"github.com/capkit/capkit/scope"
	"github.com/capkit/capkit/scope/scopetest"
)

func fooCluster(ns, name string) *testtypes.FooCluster {
	return &testtypes.FooCluster{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
}

func fixedKey(key string) scope.Option {
	return scope.WithOwnershipKeyGenerator(func() (string, error) { return key, nil })
}

func TestNewClusterScopeRejectsBadInput(t *testing.T) {
	c := fake.NewClientBuilder().WithScheme(testScheme()).Build()
	cluster := newCluster(t, nil, "ns", "c1", "v1beta2", nil)
	machineAsCluster := newMachine(t, nil, "ns", "m1", "v1beta2", "c1", nil)
	tests := []struct {
		name    string
		client  client.Client
		obj     *testtypes.FooCluster
		cluster *unstructured.Unstructured
		opts    []scope.Option
		wantIs  error
		wantMsg string
	}{
		{name: "nil client", obj: fooCluster("ns", "a"), cluster: cluster, wantIs: scope.ErrInvalidInput, wantMsg: "client is nil"},
		{name: "nil object", client: c, cluster: cluster, wantIs: scope.ErrInvalidInput, wantMsg: "InfraCluster is nil"},
		{name: "nil cluster", client: c, obj: fooCluster("ns", "a"), wantIs: scope.ErrInvalidInput, wantMsg: "cluster is nil"},
		{name: "not a Cluster", client: c, obj: fooCluster("ns", "a"), cluster: machineAsCluster, wantIs: scope.ErrInvalidInput, wantMsg: `kind "Machine"`},
		{name: "other namespace", client: c, obj: fooCluster("other", "a"), cluster: cluster, wantIs: scope.ErrInvalidInput, wantMsg: `Cluster namespace "ns" differs from "other"`},
		{name: "unknown contract", client: c, obj: fooCluster("ns", "a"), cluster: cluster, opts: []scope.Option{scope.WithContractVersion("v1alpha9")}, wantIs: contract.ErrUnknownVersion, wantMsg: `"v1alpha9"`},
		{name: "bad generated key", client: c, obj: fooCluster("ns", "a"), cluster: cluster, opts: []scope.Option{scope.WithContractVersion(contract.V1Beta2), fixedKey("Not a label!")}, wantIs: scope.ErrInvalidInput, wantMsg: "not a valid label value"},
		{name: "empty resources path", client: c, obj: fooCluster("ns", "a"), cluster: cluster, opts: []scope.Option{scope.WithContractVersion(contract.V1Beta2), scope.WithResourcesPath()}, wantIs: scope.ErrInvalidInput, wantMsg: "resources path"},
		{name: "resources path on a typed object", client: c, obj: fooCluster("ns", "a"), cluster: cluster, opts: []scope.Option{scope.WithContractVersion(contract.V1Beta2), scope.WithResourcesPath("status", "ids")}, wantIs: scope.ErrInvalidInput, wantMsg: "WithResourcesPath is for unstructured objects"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := scope.NewClusterScope(t.Context(), tt.client, tt.obj, tt.cluster, tt.opts...)
			require.Error(t, err)
			assert.ErrorIs(t, err, tt.wantIs)
			assert.Contains(t, err.Error(), tt.wantMsg)
		})
	}
}

func TestClusterScopeDiscoversContractVersionFromCRD(t *testing.T) {
	ns := env.Namespace(t, "scope")
	ctx := t.Context()
	cluster := newCluster(t, env.Client, ns, "c1", "v1beta2", nil)
	obj := fooCluster(ns, "c1")
	require.NoError(t, env.Client.Create(ctx, obj))
	s, err := scope.NewClusterScope(ctx, env.Client, obj, cluster)
	require.NoError(t, err)
	assert.Equal(t, contract.V1Beta2, s.ContractVersion())
}

func TestClusterScopeContractFieldsPersisted(t *testing.T) {
	ns := env.Namespace(t, "scope")
	ctx := t.Context()
	cluster := newCluster(t, env.Client, ns, "c1", "v1beta2", map[string]any{
		"paused": true, "controlPlaneEndpoint": map[string]any{"host": "cp.example", "port": int64(6443)}})
	obj := fooCluster(ns, "c1")
	require.NoError(t, env.Client.Create(ctx, obj))
	cc := scopetest.NewCountingClient(env.Client)
	s, err := scope.NewClusterScope(ctx, cc, obj, cluster, scope.WithContractVersion(contract.V1Beta2), fixedKey("key1"))
	require.NoError(t, err)

	assert.Equal(t, "c1", s.Name())
	assert.Equal(t, ns, s.Namespace())
	assert.Equal(t, "c1", s.ClusterName())
	assert.True(t, s.Paused())
	assert.Equal(t, contract.APIEndpoint{Host: "cp.example", Port: 6443}, s.Cluster().ControlPlaneEndpoint)
	assert.False(t, s.Cluster().InfrastructureProvisioned)
	assert.True(t, s.Cluster().Paused)
	assert.Same(t, cluster, s.Cluster().Object)
	assert.Equal(t, "FooCluster", s.Kind())
	assert.False(t, s.Provisioned())
	assert.Same(t, obj, s.InfraCluster())

	require.NoError(t, s.SetControlPlaneEndpoint(contract.APIEndpoint{Host: "lb.example", Port: 443}))
	require.NoError(t, s.SetProvisioned(true))
	require.NoError(t, s.SetFailureDomains([]contract.FailureDomain{{Name: "b"}, {Name: "a", ControlPlane: ptr.To(true)}}))
	require.NoError(t, s.SetResourceID("vpc", "vpc-123"))
	_, err = conditions.SetTrue(s.Conditions(), "NetworkReady", "Created", "")
	require.NoError(t, err)
	require.NoError(t, s.Close(ctx))
	assert.Equal(t, 2, cc.Writes(), "one patch for metadata and spec, one for status: %v", cc.Log())

	got := &testtypes.FooCluster{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(obj), got))
	assert.Equal(t, contract.APIEndpoint{Host: "lb.example", Port: 443}, got.Spec.ControlPlaneEndpoint)
	require.NotNil(t, got.Status.Initialization)
	assert.Equal(t, ptr.To(true), got.Status.Initialization.Provisioned)
	assert.Equal(t, []contract.FailureDomain{{Name: "a", ControlPlane: ptr.To(true)}, {Name: "b"}}, got.Status.FailureDomains)
	assert.Equal(t, map[string]string{"vpc": "vpc-123"}, got.Status.Resources)
	assert.Equal(t, "key1", got.Labels[scope.OwnershipKeyLabel])
	assert.True(t, conditions.IsTrue(conditions.ForSlice(&got.Status.Conditions), conditions.Ready), "Close writes the Ready summary")

	// Reading back through a new scope gives the same values, and closing it again writes nothing.
	cc.Reset()
	s2, err := scope.NewClusterScope(ctx, cc, got, cluster, scope.WithContractVersion(contract.V1Beta2))
	require.NoError(t, err)
	assert.Equal(t, contract.APIEndpoint{Host: "lb.example", Port: 443}, s2.ControlPlaneEndpoint())
	fds, err := s2.FailureDomains()
	require.NoError(t, err)
	assert.Len(t, fds, 2)
	assert.True(t, s2.Provisioned())
	key, err := s2.OwnershipKey()
	require.NoError(t, err)
	assert.Equal(t, "key1", key)
	require.NoError(t, s2.Close(ctx))
	assert.Zero(t, cc.Writes(), "nothing changed: %v", cc.Log())
}

func TestClusterScopeV1Beta1Paths(t *testing.T) {
	ns := env.Namespace(t, "scope")
	ctx := t.Context()
	cluster := newCluster(t, env.Client, ns, "c1", "v1beta1", nil)
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(testtypes.GroupVersion.WithKind("FooCluster"))
	obj.SetNamespace(ns)
	obj.SetName("c1")
	require.NoError(t, env.Client.Create(ctx, obj))
	s, err := scope.NewUnstructuredClusterScope(ctx, env.Client, obj, cluster, scope.WithContractVersion(contract.V1Beta1))
	require.NoError(t, err)
	require.NoError(t, s.SetProvisioned(true))
	require.NoError(t, s.SetFailureDomains([]contract.FailureDomain{{Name: "az1", ControlPlane: ptr.To(true)}}))
	_, err = conditions.SetFalse(s.Conditions(), "NetworkReady", "Failed", "quota")
	require.NoError(t, err)
	require.NoError(t, s.Close(ctx))

	got := &unstructured.Unstructured{}
	got.SetGroupVersionKind(obj.GroupVersionKind())
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(obj), got))
	ready, _, _ := unstructured.NestedBool(got.Object, "status", "ready")
	assert.True(t, ready, "v1beta1 writes status.ready")
	_, found, _ := unstructured.NestedFieldNoCopy(got.Object, "status", "initialization")
	assert.False(t, found)
	cp, _, _ := unstructured.NestedBool(got.Object, "status", "failureDomains", "az1", "controlPlane")
	assert.True(t, cp, "v1beta1 failure domains are a map")
	conds, found, _ := unstructured.NestedSlice(got.Object, "status", "v1beta2", "conditions")
	require.True(t, found, "v1beta1 keeps metav1.Conditions under status.v1beta2.conditions")
	assert.Len(t, conds, 2) // NetworkReady and Ready
}

func TestPatchNowSendsOnlyWhatChanged(t *testing.T) {
	ns := env.Namespace(t, "scope")
	ctx := t.Context()
	cluster := newCluster(t, env.Client, ns, "c1", "v1beta2", nil)
	obj := fooCluster(ns, "c1")
	require.NoError(t, env.Client.Create(ctx, obj))
	cc := scopetest.NewCountingClient(env.Client)
	s, err := scope.NewClusterScope(ctx, cc, obj, cluster, scope.WithContractVersion(contract.V1Beta2))
	require.NoError(t, err)

	_, err = s.OwnershipKey()
	require.ErrorIs(t, err, scope.ErrOwnershipKeyNotPersisted, "the key is generated but not written yet")
	changed, err := s.HasChanges()
	require.NoError(t, err)
	assert.True(t, changed)

	require.NoError(t, s.PatchNow(ctx))
	assert.Equal(t, []scopetest.Write{{Verb: "patch", Kind: "*testtypes.FooCluster", Name: ns + "/c1"}}, cc.Log(), "the label is metadata only")
	key, err := s.OwnershipKey()
	require.NoError(t, err)
	assert.Len(t, key, 26)

	cc.Reset()
	require.NoError(t, s.PatchNow(ctx))
	assert.Zero(t, cc.Writes(), "no change, no write")

	require.NoError(t, s.SetResourceID("vpc", "vpc-1"))
	require.NoError(t, s.PatchNow(ctx))
	assert.Equal(t, []scopetest.Write{{Verb: "patch", SubResource: "status", Kind: "*testtypes.FooCluster", Name: ns + "/c1"}}, cc.Log())

	cc.Reset()
	require.NoError(t, s.DeleteResourceID("vpc"))
	require.NoError(t, s.DeleteResourceID("absent"))
	require.NoError(t, s.PatchNow(ctx))
	assert.Equal(t, 1, cc.Writes())
	got := &testtypes.FooCluster{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(obj), got))
	assert.Empty(t, got.Status.Resources)
	assert.Equal(t, map[string]string{}, s.ResourceIDs())
}

func TestPatchConflictOnConditionsKeepsBothWriters(t *testing.T) {
	ns := env.Namespace(t, "scope")
	ctx := t.Context()
	cluster := newCluster(t, env.Client, ns, "c1", "v1beta2", nil)
	obj := fooCluster(ns, "c1")
	require.NoError(t, env.Client.Create(ctx, obj))

	a, err := scope.NewClusterScope(ctx, env.Client, obj.DeepCopyObject().(*testtypes.FooCluster), cluster, scope.WithContractVersion(contract.V1Beta2))
	require.NoError(t, err)
	b, err := scope.NewClusterScope(ctx, env.Client, obj.DeepCopyObject().(*testtypes.FooCluster), cluster, scope.WithContractVersion(contract.V1Beta2))
	require.NoError(t, err)

	_, err = conditions.SetTrue(b.Conditions(), "LoadBalancerReady", "Created", "")
	require.NoError(t, err)
	require.NoError(t, b.SetResourceID("lb", "lb-1"))
	require.NoError(t, b.PatchNow(ctx))

	_, err = conditions.SetFalse(a.Conditions(), "NetworkReady", "Creating", "")
	require.NoError(t, err)
	require.NoError(t, a.SetResourceID("vpc", "vpc-1"))
	require.NoError(t, a.PatchNow(ctx), "a conflict on conditions is resolved by re-reading and re-applying")

	got := &testtypes.FooCluster{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(obj), got))
	types := []string{}
	for _, c := range got.Status.Conditions {
		types = append(types, c.Type)
	}
	assert.ElementsMatch(t, []string{"LoadBalancerReady", "NetworkReady"}, types)
	assert.Equal(t, map[string]string{"lb": "lb-1", "vpc": "vpc-1"}, got.Status.Resources, "map entries merge")
	assert.Equal(t, got.Labels[scope.OwnershipKeyLabel], b.InfraCluster().Labels[scope.OwnershipKeyLabel], "the first writer's key wins")
	ka, err := a.OwnershipKey()
	require.NoError(t, err)
	kb, err := b.OwnershipKey()
	require.NoError(t, err)
	assert.Equal(t, kb, ka, "a stale scope adopts the persisted key instead of overwriting it")
}

func TestPatchReportsWhichObjectFailed(t *testing.T) {
	ns := env.Namespace(t, "scope")
	ctx := t.Context()
	cluster := newCluster(t, env.Client, ns, "c1", "v1beta2", nil)
	obj := fooCluster(ns, "never-created")
	s, err := scope.NewClusterScope(ctx, env.Client, obj, cluster, scope.WithContractVersion(contract.V1Beta2))
	require.NoError(t, err)
	err = s.PatchNow(ctx)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "cannot patch FooCluster "+ns+"/never-created")
}

func TestPatchConflictRetriesAreBounded(t *testing.T) {
	ns := env.Namespace(t, "scope")
	ctx := t.Context()
	cluster := newCluster(t, env.Client, ns, "c1", "v1beta2", nil)
	obj := fooCluster(ns, "c1")
	require.NoError(t, env.Client.Create(ctx, obj))
	// A client whose every guarded write conflicts: the scope gives up after the retries.
	cc := &alwaysConflict{Client: env.Client}
	s, err := scope.NewClusterScope(ctx, cc, obj, cluster, scope.WithContractVersion(contract.V1Beta2), scope.WithConflictRetries(2))
	require.NoError(t, err)
	err = s.PatchNow(ctx)
	require.Error(t, err)
	assert.Equal(t, 3, cc.patches, "first attempt plus two retries")
	assert.Contains(t, err.Error(), "FooCluster "+ns+"/c1")
}

type alwaysConflict struct {
	client.Client
	patches int
}

func (c *alwaysConflict) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	c.patches++
	// Bump the object on the server so that the guarded patch's resourceVersion is stale.
	fresh := &testtypes.FooCluster{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(obj), fresh); err != nil {
		return err
	}
	fresh.Annotations = map[string]string{"bump": fresh.ResourceVersion}
	if err := c.Update(ctx, fresh); err != nil {
		return err
	}
	return c.Client.Patch(ctx, obj, patch, opts...)
}

func TestSetControlPlaneEndpointValidates(t *testing.T) {
	c := fake.NewClientBuilder().WithScheme(testScheme()).Build()
	s, err := scope.NewClusterScope(t.Context(), c, fooCluster("ns", "a"), newCluster(t, nil, "ns", "c", "v1beta2", nil), scope.WithContractVersion(contract.V1Beta2))
	require.NoError(t, err)
	err = s.SetControlPlaneEndpoint(contract.APIEndpoint{Host: "h"})
	require.ErrorIs(t, err, scope.ErrInvalidInput)
	assert.Contains(t, err.Error(), `host "h" and port 0`)
	err = s.SetFailureDomains([]contract.FailureDomain{{Name: "a"}, {Name: "a"}})
	assert.ErrorIs(t, err, scope.ErrInvalidInput)
	assert.ErrorContains(t, err, `item 1: duplicate name "a"`)
	assert.ErrorContains(t, s.SetFailureDomains([]contract.FailureDomain{{Name: ""}}), "item 0")
	assert.Zero(t, s.ControlPlaneEndpoint(), "nothing is written when validation fails")
	fds, err := s.FailureDomains()
	require.NoError(t, err)
	assert.Empty(t, fds)
	assert.True(t, errors.Is(s.SetResourceID("", "x"), scope.ErrInvalidInput))
	assert.ErrorContains(t, s.SetResourceID("Bad_Key", "x"), `"Bad_Key"`)
	assert.ErrorContains(t, s.SetResourceID("vpc", ""), "id must not be empty")
}

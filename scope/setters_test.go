package scope_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/internal/testtypes"
	"github.com/capkit/capkit/scope"
)

// setterCase is one scope call a service may make while it holds references into its object.
type setterCase[S any] struct {
	name string
	call func(s S) error
	// replaces names the held slice the call sets, which it legitimately replaces ("" for none).
	replaces string
}

// assertHeld checks that a write through the held map reaches the object and the scope, and that every
// held slice but the one the call replaces is still the object's (same backing array).
func assertHeld(t *testing.T, tag string, held, objMap map[string]string, scopeID func(string) (string, bool), before, after map[string]any, replaces string) {
	t.Helper()
	held["held"] = tag
	assert.Equal(t, tag, objMap["held"], "a write through the held map reaches the object")
	id, ok := scopeID("held")
	assert.True(t, ok && id == tag, "a write through the held map reaches the scope: %q %v", id, ok)
	for name, p := range before {
		if name == replaces {
			assert.NotSame(t, p, after[name], "%s sets %s", tag, name)
			continue
		}
		assert.Same(t, p, after[name], "the held %s slice is still the object's", name)
	}
}

// testHeldReferences runs every case on a fresh scope, then all of them in order on one scope, and checks
// after each call that the object's resource-ID map and the slices named by slices (the address of their
// first element, by name) are still the ones a service holds; final checks the object after the last call.
func testHeldReferences[S interface{ ResourceID(string) (string, bool) }, O scope.ResourceIDsAccessor](t *testing.T,
	newScope func(*testing.T) (S, O), slices func(O) map[string]any, tests []setterCase[S], final func(*testing.T, O)) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, obj := newScope(t)
			held, before := obj.GetResourceIDs(), slices(obj)
			require.NoError(t, tt.call(s))
			assertHeld(t, tt.name, held, obj.GetResourceIDs(), s.ResourceID, before, slices(obj), tt.replaces)
		})
	}
	t.Run("all in order on one scope", func(t *testing.T) {
		s, obj := newScope(t)
		held, before := obj.GetResourceIDs(), slices(obj)
		for _, tt := range tests {
			require.NoError(t, tt.call(s), tt.name)
			after := slices(obj)
			assertHeld(t, tt.name, held, obj.GetResourceIDs(), s.ResourceID, before, after, tt.replaces)
			before = after // a slice a setter replaced is held anew
		}
		final(t, obj)
	})
}

func ltt() metav1.Time { return metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)) }

// TestHeldReferencesStayValidAcrossSetters: a service holds the object's resource-ID map and its slices
// (m.Status.Resources, m.Status.Addresses, m.Status.Conditions) and calls scope setters in between. No
// setter may swap the map or a slice it does not set, or the service's later writes would be lost.
func TestHeldReferencesStayValidAcrossSetters(t *testing.T) {
	ctx := context.Background()
	cluster := newCluster(t, nil, "ns", "c1", "v1beta2", nil)

	t.Run("InfraMachine", func(t *testing.T) {
		type S = *scope.MachineScope[*testtypes.FooMachine]
		newScope := func(t *testing.T) (S, *testtypes.FooMachine) {
			m := fooMachine("ns", "m1")
			m.Status = testtypes.FooMachineStatus{
				Resources:  map[string]string{"vm": "i-1", "disk": "d-1"},
				Addresses:  []contract.MachineAddress{{Type: contract.MachineInternalIP, Address: "10.0.0.1"}},
				Conditions: []metav1.Condition{{Type: "VMReady", Status: metav1.ConditionFalse, Reason: "Booting", LastTransitionTime: ltt()}},
			}
			c := fake.NewClientBuilder().WithScheme(testScheme()).WithObjects(m).WithStatusSubresource(m).Build()
			s, err := scope.NewMachineScope(ctx, c, m, newMachine(t, nil, "ns", "m1", "v1beta2", "c1", nil), cluster,
				scope.WithContractVersion(contract.V1Beta2))
			require.NoError(t, err)
			return s, m
		}
		slices := func(m *testtypes.FooMachine) map[string]any {
			return map[string]any{"addresses": &m.Status.Addresses[0], "conditions": &m.Status.Conditions[0]}
		}
		testHeldReferences(t, newScope, slices, []setterCase[S]{
			{name: "SetProvisioned", call: func(s S) error { return s.SetProvisioned(true) }},
			{name: "SetProviderID", call: func(s S) error { return s.SetProviderID("foo://i-1") }},
			{name: "SetAddresses", replaces: "addresses", call: func(s S) error {
				return s.SetAddresses([]contract.MachineAddress{{Type: contract.MachineExternalIP, Address: "192.0.2.1"}})
			}},
			{name: "SetFailureDomain", call: func(s S) error { return s.SetFailureDomain("az1") }},
			{name: "SetResourceID of a new key", call: func(s S) error { return s.SetResourceID("nic", "n-1") }},
			{name: "SetResourceID of an existing key", call: func(s S) error { return s.SetResourceID("vm", "i-2") }},
			{name: "DeleteResourceID of another key", call: func(s S) error { return s.DeleteResourceID("disk") }},
			{name: "conditions.Set", replaces: "conditions", call: func(s S) error {
				_, err := conditions.SetTrue(s.Conditions(), "VMReady", "Running", "")
				return err
			}},
			{name: "ProviderIDTracker.SetResourceID", call: func(s S) error {
				tr, err := scope.ProviderIDTracker(s, s.InfraMachine(), "vm", fooFormat, fooParse)
				if err != nil {
					return err
				}
				return tr.SetResourceID("vm", "i-1")
			}},
			{name: "PatchNow", call: func(s S) error {
				if err := s.SetResourceID("nic", "n-1"); err != nil {
					return err
				}
				return s.PatchNow(ctx)
			}},
		}, func(t *testing.T, m *testtypes.FooMachine) {
			assert.Equal(t, map[string]string{"vm": "i-2", "nic": "n-1", "held": "PatchNow"}, m.Status.Resources)
			assert.True(t, m.IsProvisioned())
			assert.Equal(t, "az1", m.Status.FailureDomain)
		})
	})

	t.Run("InfraCluster", func(t *testing.T) {
		type S = *scope.ClusterScope[*testtypes.FooCluster]
		newScope := func(t *testing.T) (S, *testtypes.FooCluster) {
			obj := fooCluster("ns", "c1")
			obj.Status = testtypes.FooClusterStatus{
				Resources:      map[string]string{"vpc": "vpc-1", "subnet": "s-1"},
				FailureDomains: []contract.FailureDomain{{Name: "az1"}},
				Conditions:     []metav1.Condition{{Type: "NetworkReady", Status: metav1.ConditionFalse, Reason: "Creating", LastTransitionTime: ltt()}},
			}
			c := fake.NewClientBuilder().WithScheme(testScheme()).WithObjects(obj).WithStatusSubresource(obj).Build()
			s, err := scope.NewClusterScope(ctx, c, obj, cluster, scope.WithContractVersion(contract.V1Beta2))
			require.NoError(t, err)
			return s, obj
		}
		slices := func(obj *testtypes.FooCluster) map[string]any {
			return map[string]any{"failureDomains": &obj.Status.FailureDomains[0], "conditions": &obj.Status.Conditions[0]}
		}
		testHeldReferences(t, newScope, slices, []setterCase[S]{
			{name: "SetProvisioned", call: func(s S) error { return s.SetProvisioned(true) }},
			{name: "SetControlPlaneEndpoint", call: func(s S) error {
				return s.SetControlPlaneEndpoint(contract.APIEndpoint{Host: "lb.example", Port: 6443})
			}},
			{name: "SetFailureDomains", replaces: "failureDomains", call: func(s S) error {
				return s.SetFailureDomains([]contract.FailureDomain{{Name: "az2", ControlPlane: ptr.To(true)}, {Name: "az1"}})
			}},
			{name: "SetResourceID of a new key", call: func(s S) error { return s.SetResourceID("lb", "lb-1") }},
			{name: "DeleteResourceID of another key", call: func(s S) error { return s.DeleteResourceID("subnet") }},
			{name: "conditions.Set", replaces: "conditions", call: func(s S) error {
				_, err := conditions.SetTrue(s.Conditions(), "NetworkReady", "Created", "")
				return err
			}},
		}, func(t *testing.T, obj *testtypes.FooCluster) {
			assert.Equal(t, map[string]string{"vpc": "vpc-1", "lb": "lb-1", "held": "conditions.Set"}, obj.Status.Resources)
			assert.Equal(t, []contract.FailureDomain{{Name: "az1"}, {Name: "az2", ControlPlane: ptr.To(true)}}, obj.Status.FailureDomains)
		})
	})
}

// TestEmptiedResourceMapStaysTheObjects: forgetting the last ID leaves the object the (empty) map a service
// holds, so a later write through that map still reaches the object and the scope.
func TestEmptiedResourceMapStaysTheObjects(t *testing.T) {
	m := fooMachine("ns", "m1")
	m.Status.Resources = map[string]string{"vm": "i-1"}
	c := fake.NewClientBuilder().WithScheme(testScheme()).WithObjects(m).WithStatusSubresource(m).Build()
	s, err := scope.NewMachineScope(t.Context(), c, m, newMachine(t, nil, "ns", "m1", "v1beta2", "c1", nil),
		newCluster(t, nil, "ns", "c1", "v1beta2", nil), scope.WithContractVersion(contract.V1Beta2))
	require.NoError(t, err)
	held := m.Status.Resources
	require.NoError(t, s.DeleteResourceID("vm"))
	_, ok := s.ResourceID("vm")
	assert.False(t, ok)
	assert.Equal(t, map[string]string{}, s.ResourceIDs())

	held["disk"] = "d-1"
	id, ok := s.ResourceID("disk")
	assert.True(t, ok, "the emptied map is still the object's")
	assert.Equal(t, "d-1", id)
	assert.Equal(t, map[string]string{"disk": "d-1"}, m.Status.Resources)
}

func TestUnstructuredResourceIDsAtACustomPath(t *testing.T) {
	ctx := t.Context()
	c := fake.NewClientBuilder().WithScheme(testScheme()).Build()
	cluster := newCluster(t, nil, "ns", "c1", "v1beta2", nil)
	newObj := func() *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{}}
		u.SetGroupVersionKind(testtypes.GroupVersion.WithKind("FooCluster"))
		u.SetNamespace("ns")
		u.SetName("c1")
		return u
	}
	u := newObj()
	s, err := scope.NewUnstructuredClusterScope(ctx, c, u, cluster, scope.WithContractVersion(contract.V1Beta2), scope.WithResourcesPath("status", "cloudIDs"))
	require.NoError(t, err)
	require.NoError(t, s.SetResourceID("vpc", "vpc-1"))
	ids, _, _ := unstructured.NestedStringMap(u.Object, "status", "cloudIDs")
	assert.Equal(t, map[string]string{"vpc": "vpc-1"}, ids)
	_, found, _ := unstructured.NestedFieldNoCopy(u.Object, "status", "resources")
	assert.False(t, found, "the default path is not written")
	id, ok := s.ResourceID("vpc")
	assert.True(t, ok)
	assert.Equal(t, "vpc-1", id)
	require.NoError(t, s.DeleteResourceID("vpc"))
	_, found, _ = unstructured.NestedFieldNoCopy(u.Object, "status", "cloudIDs")
	assert.False(t, found, "an emptied map is removed from an unstructured object")

	bad := newObj()
	require.NoError(t, unstructured.SetNestedField(bad.Object, "vpc-1", "status", "cloudIDs"))
	_, err = scope.NewUnstructuredClusterScope(ctx, c, bad, cluster, scope.WithContractVersion(contract.V1Beta2), scope.WithResourcesPath("status", "cloudIDs"))
	require.ErrorIs(t, err, contract.ErrFieldType)
	assert.ErrorContains(t, err, "cannot read the resource IDs of FooCluster")
}

func TestUnstructuredScopeRejectsMalformedField(t *testing.T) {
	ctx := t.Context()
	c := fake.NewClientBuilder().WithScheme(testScheme()).Build()
	cluster := newCluster(t, nil, "ns", "c1", "v1beta2", nil)
	machine := newMachine(t, nil, "ns", "m1", "v1beta2", "c1", nil)
	tests := []struct {
		name     string
		kind     string
		value    any
		path     []string
		wantPath string
	}{
		{name: "addresses not a list", kind: "FooMachine", value: "10.0.0.1", path: []string{"status", "addresses"}, wantPath: "status.addresses"},
		{name: "providerID not a string", kind: "FooMachine", value: int64(7), path: []string{"spec", "providerID"}, wantPath: "spec.providerID"},
		{name: "conditions not a list", kind: "FooMachine", value: map[string]any{"Ready": "True"}, path: []string{"status", "conditions"}, wantPath: "status.conditions"},
		{name: "resources not a map", kind: "FooMachine", value: []any{"vm"}, path: []string{"status", "resources"}, wantPath: "status.resources"},
		{name: "provisioned not a bool", kind: "FooCluster", value: "yes", path: []string{"status", "initialization", "provisioned"}, wantPath: "status.initialization.provisioned"},
		{name: "endpoint not an object", kind: "FooCluster", value: "cp.example:6443", path: []string{"spec", "controlPlaneEndpoint"}, wantPath: "spec.controlPlaneEndpoint"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := &unstructured.Unstructured{Object: map[string]any{}}
			u.SetGroupVersionKind(testtypes.GroupVersion.WithKind(tt.kind))
			u.SetNamespace("ns")
			u.SetName(map[string]string{"FooMachine": "m1", "FooCluster": "c1"}[tt.kind])
			require.NoError(t, unstructured.SetNestedField(u.Object, tt.value, tt.path...))
			var err error
			if tt.kind == "FooMachine" {
				_, err = scope.NewUnstructuredMachineScope(ctx, c, u, machine, cluster, scope.WithContractVersion(contract.V1Beta2))
			} else {
				_, err = scope.NewUnstructuredClusterScope(ctx, c, u, cluster, scope.WithContractVersion(contract.V1Beta2))
			}
			require.Error(t, err)
			assert.ErrorIs(t, err, contract.ErrFieldType)
			assert.Contains(t, err.Error(), `"`+tt.wantPath+`"`)
			assert.Contains(t, err.Error(), tt.kind+" ns/"+u.GetName())
		})
	}
}

// deepCopyJSON is the DeepCopyObject of the test types below; controller-gen writes it for a real type.
func deepCopyJSON[T any](in *T) *T {
	out := new(T)
	b, _ := json.Marshal(in)
	_ = json.Unmarshal(b, out)
	return out
}

// bareMachine and bareCluster implement only the accessors their scope requires, none of the optional ones.
type bareMachine struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	ProviderID        string             `json:"providerID,omitempty"`
	Provisioned       bool               `json:"provisioned,omitempty"`
	Conditions        []metav1.Condition `json:"conditions,omitempty"`
}

func (m *bareMachine) GetConditions() []metav1.Condition  { return m.Conditions }
func (m *bareMachine) SetConditions(c []metav1.Condition) { m.Conditions = c }
func (m *bareMachine) IsProvisioned() bool                { return m.Provisioned }
func (m *bareMachine) SetProvisioned(v bool)              { m.Provisioned = v }
func (m *bareMachine) GetProviderID() string              { return m.ProviderID }
func (m *bareMachine) SetProviderID(id string)            { m.ProviderID = id }
func (m *bareMachine) DeepCopyObject() runtime.Object     { return deepCopyJSON(m) }

type bareCluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Endpoint          contract.APIEndpoint `json:"endpoint,omitempty"`
	Provisioned       bool                 `json:"provisioned,omitempty"`
	Conditions        []metav1.Condition   `json:"conditions,omitempty"`
}

func (c *bareCluster) GetConditions() []metav1.Condition               { return c.Conditions }
func (c *bareCluster) SetConditions(conds []metav1.Condition)          { c.Conditions = conds }
func (c *bareCluster) IsProvisioned() bool                             { return c.Provisioned }
func (c *bareCluster) SetProvisioned(v bool)                           { c.Provisioned = v }
func (c *bareCluster) GetControlPlaneEndpoint() contract.APIEndpoint   { return c.Endpoint }
func (c *bareCluster) SetControlPlaneEndpoint(ep contract.APIEndpoint) { c.Endpoint = ep }
func (c *bareCluster) DeepCopyObject() runtime.Object                  { return deepCopyJSON(c) }

func TestOptionalFieldOfATypeWithoutItsAccessor(t *testing.T) {
	ctx := context.Background()
	scheme := testScheme()
	scheme.AddKnownTypes(testtypes.GroupVersion, &bareMachine{}, &bareCluster{})
	c := fake.NewClientBuilder().WithScheme(scheme).Build()
	cluster := newCluster(t, nil, "ns", "c1", "v1beta2", nil)
	m := &bareMachine{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "m1"}}
	ms, err := scope.NewMachineScope(ctx, c, m, newMachine(t, nil, "ns", "m1", "v1beta2", "c1", nil), cluster, scope.WithContractVersion(contract.V1Beta2))
	require.NoError(t, err, "the optional accessors are not required")
	cs, err := scope.NewClusterScope(ctx, c, &bareCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c1"}}, cluster, scope.WithContractVersion(contract.V1Beta2))
	require.NoError(t, err)

	tests := []struct {
		name     string
		call     func() error
		wantType string
		wantMsg  string
	}{
		{"SetAddresses", func() error {
			return ms.SetAddresses([]contract.MachineAddress{{Type: contract.MachineInternalIP, Address: "10.0.0.1"}})
		}, "*scope_test.bareMachine", "contract.AddressesAccessor (GetAddresses, SetAddresses) for status.addresses"},
		{"Addresses", func() error { _, err := ms.Addresses(); return err },
			"*scope_test.bareMachine", "contract.AddressesAccessor"},
		{"SetFailureDomain", func() error { return ms.SetFailureDomain("az1") },
			"*scope_test.bareMachine", "contract.StatusFailureDomainAccessor (GetStatusFailureDomain, SetStatusFailureDomain) for status.failureDomain"},
		{"FailureDomain", func() error { _, err := ms.FailureDomain(); return err },
			"*scope_test.bareMachine", "contract.StatusFailureDomainAccessor"},
		{"machine SetResourceID", func() error { return ms.SetResourceID("vm", "i-1") },
			"*scope_test.bareMachine", "scope.ResourceIDsAccessor (GetResourceIDs, SetResourceIDs) for status.resources"},
		{"SetFailureDomains", func() error { return cs.SetFailureDomains([]contract.FailureDomain{{Name: "az1"}}) },
			"*scope_test.bareCluster", "contract.FailureDomainsAccessor (GetFailureDomains, SetFailureDomains) for status.failureDomains"},
		{"FailureDomains", func() error { _, err := cs.FailureDomains(); return err },
			"*scope_test.bareCluster", "contract.FailureDomainsAccessor"},
		{"cluster SetResourceID", func() error { return cs.SetResourceID("vpc", "vpc-1") },
			"*scope_test.bareCluster", "scope.ResourceIDsAccessor"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			require.ErrorIs(t, err, scope.ErrFieldNotInType)
			assert.Contains(t, err.Error(), "type "+tt.wantType+" does not implement "+tt.wantMsg)
		})
	}

	// Reading or forgetting an ID the type cannot hold is not an error: there is none.
	_, ok := ms.ResourceID("vm")
	assert.False(t, ok)
	assert.Equal(t, map[string]string{}, ms.ResourceIDs())
	assert.NoError(t, ms.DeleteResourceID("vm"))
	// The required accessors work as on any type.
	require.NoError(t, ms.SetProviderID("foo://m1"))
	require.NoError(t, ms.SetProvisioned(true))
	assert.Equal(t, "foo://m1", m.ProviderID)
	assert.True(t, ms.Provisioned())
}

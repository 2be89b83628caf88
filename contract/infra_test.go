package contract

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func ptrTo[T any](v T) *T { return &v }

func TestInfraAccessorPaths(t *testing.T) {
	tests := []struct {
		name     string
		path     Path
		v1beta1  string
		v1beta2  string
		pathOfV2 Path
	}{
		{"InfraCluster.ControlPlaneEndpoint", InfraCluster(V1Beta1).ControlPlaneEndpoint().Path(), "spec.controlPlaneEndpoint", "spec.controlPlaneEndpoint", InfraCluster(V1Beta2).ControlPlaneEndpoint().Path()},
		{"InfraCluster.Provisioned", InfraCluster(V1Beta1).Provisioned().Path(), "status.ready", "status.initialization.provisioned", InfraCluster(V1Beta2).Provisioned().Path()},
		{"InfraCluster.FailureDomains", InfraCluster(V1Beta1).FailureDomains().Path(), "status.failureDomains", "status.failureDomains", InfraCluster(V1Beta2).FailureDomains().Path()},
		{"InfraCluster.Conditions", InfraCluster(V1Beta1).Conditions().Path(), "status.v1beta2.conditions", "status.conditions", InfraCluster(V1Beta2).Conditions().Path()},
		{"InfraMachine.ProviderID", InfraMachine(V1Beta1).ProviderID().Path(), "spec.providerID", "spec.providerID", InfraMachine(V1Beta2).ProviderID().Path()},
		{"InfraMachine.Provisioned", InfraMachine(V1Beta1).Provisioned().Path(), "status.ready", "status.initialization.provisioned", InfraMachine(V1Beta2).Provisioned().Path()},
		{"InfraMachine.Addresses", InfraMachine(V1Beta1).Addresses().Path(), "status.addresses", "status.addresses", InfraMachine(V1Beta2).Addresses().Path()},
		{"InfraMachine.FailureDomain", InfraMachine(V1Beta1).FailureDomain().Path(), "status.failureDomain", "status.failureDomain", InfraMachine(V1Beta2).FailureDomain().Path()},
		{"InfraMachine.SpecFailureDomain", InfraMachine(V1Beta1).SpecFailureDomain().Path(), "spec.failureDomain", "spec.failureDomain", InfraMachine(V1Beta2).SpecFailureDomain().Path()},
		{"InfraMachine.Conditions", InfraMachine(V1Beta1).Conditions().Path(), "status.v1beta2.conditions", "status.conditions", InfraMachine(V1Beta2).Conditions().Path()},
		{"BootstrapConfig.DataSecretName", BootstrapConfig(V1Beta1).DataSecretName().Path(), "status.dataSecretName", "status.dataSecretName", BootstrapConfig(V1Beta2).DataSecretName().Path()},
		{"BootstrapConfig.DataSecretCreated", BootstrapConfig(V1Beta1).DataSecretCreated().Path(), "status.ready", "status.initialization.dataSecretCreated", BootstrapConfig(V1Beta2).DataSecretCreated().Path()},
		{"BootstrapConfig.Conditions", BootstrapConfig(V1Beta1).Conditions().Path(), "status.v1beta2.conditions", "status.conditions", BootstrapConfig(V1Beta2).Conditions().Path()},
		{"TemplateSpec", TemplateSpec().Path(), "spec.template.spec", "spec.template.spec", TemplateSpec().Path()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.v1beta1, tt.path.String())
			assert.Equal(t, tt.v1beta2, tt.pathOfV2.String())
		})
	}
}

func TestInfraAccessorsRoundTrip(t *testing.T) {
	now := metav1.Date(2025, 1, 2, 3, 4, 5, 0, time.Local) // metav1.Time decodes into local time
	conds := []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue, Reason: "Provisioned", Message: "", LastTransitionTime: now, ObservedGeneration: 3}}
	for _, v := range Versions {
		t.Run(string(v), func(t *testing.T) {
			u := &unstructured.Unstructured{Object: map[string]any{}}
			require.NoError(t, InfraCluster(v).Provisioned().Set(u, true))
			require.NoError(t, InfraCluster(v).ControlPlaneEndpoint().Set(u, APIEndpoint{Host: "10.0.0.1", Port: 6443}))
			require.NoError(t, InfraCluster(v).Conditions().Set(u, conds))
			require.NoError(t, InfraMachine(v).ProviderID().Set(u, "mem://a"))
			require.NoError(t, InfraMachine(v).Addresses().Set(u, []MachineAddress{{Type: MachineInternalIP, Address: "10.0.0.2"}}))
			require.NoError(t, InfraMachine(v).FailureDomain().Set(u, "fd-a"))
			require.NoError(t, BootstrapConfig(v).DataSecretName().Set(u, "m-bootstrap"))

			p, err := InfraCluster(v).Provisioned().Get(u)
			require.NoError(t, err)
			assert.True(t, p)
			p, err = InfraMachine(v).Provisioned().Get(u)
			require.NoError(t, err)
			assert.True(t, p, "InfraMachine and InfraCluster share the provisioned path")
			p, err = BootstrapConfig(v).DataSecretCreated().Get(u)
			if v == V1Beta1 {
				require.NoError(t, err)
				assert.True(t, p, "v1beta1 bootstrap configs use status.ready too")
			} else {
				require.ErrorIs(t, err, ErrFieldNotFound)
			}
			ep, err := InfraCluster(v).ControlPlaneEndpoint().Get(u)
			require.NoError(t, err)
			assert.Equal(t, APIEndpoint{Host: "10.0.0.1", Port: 6443}, ep)
			gotConds, err := InfraCluster(v).Conditions().Get(u)
			require.NoError(t, err)
			assert.Equal(t, conds, gotConds)
			id, err := InfraMachine(v).ProviderID().Get(u)
			require.NoError(t, err)
			assert.Equal(t, "mem://a", id)
			addrs, err := InfraMachine(v).Addresses().Get(u)
			require.NoError(t, err)
			assert.Equal(t, []MachineAddress{{Type: MachineInternalIP, Address: "10.0.0.2"}}, addrs)
			name, err := BootstrapConfig(v).DataSecretName().Get(u)
			require.NoError(t, err)
			assert.Equal(t, "m-bootstrap", name)

			// The other version's accessor does not see this version's readiness.
			other := pick(v, V1Beta2, V1Beta1)
			_, err = InfraCluster(other).Provisioned().Get(u)
			require.ErrorIs(t, err, ErrFieldNotFound)
		})
	}
}

func TestConditionsWrongShape(t *testing.T) {
	u := fromJSON(t, `{"status":{"conditions":[{"type":"Ready","status":"True","lastTransitionTime":"yesterday","reason":"R","message":""}]}}`)
	_, err := InfraCluster(V1Beta2).Conditions().Get(u)
	require.ErrorIs(t, err, ErrFieldType)
	u = fromJSON(t, `{"status":{"conditions":{"Ready":"True"}}}`)
	_, err = InfraCluster(V1Beta2).Conditions().Get(u)
	require.ErrorIs(t, err, ErrFieldType)
}

func TestFailureDomainsGet(t *testing.T) {
	tests := []struct {
		name    string
		v       Version
		json    string
		want    []FailureDomain
		wantErr error
	}{
		{"v1beta2 list sorted", V1Beta2, `{"status":{"failureDomains":[{"name":"b"},{"name":"a","controlPlane":true,"attributes":{"zone":"z1"}}]}}`,
			[]FailureDomain{{Name: "a", ControlPlane: ptrTo(true), Attributes: map[string]string{"zone": "z1"}}, {Name: "b"}}, nil},
		{"v1beta2 empty list", V1Beta2, `{"status":{"failureDomains":[]}}`, []FailureDomain{}, nil},
		{"v1beta1 map to list", V1Beta1, `{"status":{"failureDomains":{"b":{},"a":{"controlPlane":true,"attributes":{"zone":"z1"}}}}}`,
			[]FailureDomain{{Name: "a", ControlPlane: ptrTo(true), Attributes: map[string]string{"zone": "z1"}}, {Name: "b", ControlPlane: ptrTo(false)}}, nil},
		{"v1beta1 empty map", V1Beta1, `{"status":{"failureDomains":{}}}`, []FailureDomain{}, nil},
		{"v1beta2 absent", V1Beta2, `{"status":{}}`, nil, ErrFieldNotFound},
		{"v1beta1 absent", V1Beta1, `{}`, nil, ErrFieldNotFound},
		{"v1beta2 reading a map", V1Beta2, `{"status":{"failureDomains":{"a":{}}}}`, nil, ErrFieldType},
		{"v1beta1 reading a list", V1Beta1, `{"status":{"failureDomains":[{"name":"a"}]}}`, nil, ErrFieldType},
		{"v1beta2 bad item", V1Beta2, `{"status":{"failureDomains":[{"name":"a","controlPlane":"yes"}]}}`, nil, ErrFieldType},
		{"v1beta1 bad entry", V1Beta1, `{"status":{"failureDomains":{"a":{"controlPlane":"yes"}}}}`, nil, ErrFieldType},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := InfraCluster(tt.v).FailureDomains().Get(fromJSON(t, tt.json))
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				assert.Nil(t, got)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
	_, err := InfraCluster(V1Beta2).FailureDomains().Get(nil)
	require.ErrorIs(t, err, ErrFieldNotFound)
	_, err = InfraCluster(V1Beta1).FailureDomains().Get(nil)
	require.ErrorIs(t, err, ErrFieldNotFound)
}

func TestFailureDomainsSet(t *testing.T) {
	domains := []FailureDomain{
		{Name: "b", Attributes: map[string]string{"zone": "z2"}},
		{Name: "a", ControlPlane: ptrTo(true)},
	}
	u := &unstructured.Unstructured{Object: map[string]any{}}
	require.NoError(t, InfraCluster(V1Beta2).FailureDomains().Set(u, domains))
	assert.Equal(t, []any{
		map[string]any{"name": "a", "controlPlane": true},
		map[string]any{"name": "b", "attributes": map[string]any{"zone": "z2"}},
	}, u.Object["status"].(map[string]any)["failureDomains"], "v1beta2 writes a list sorted by name")
	assert.Equal(t, "b", domains[0].Name, "Set does not reorder the caller's slice")

	u = &unstructured.Unstructured{Object: map[string]any{}}
	require.NoError(t, InfraCluster(V1Beta1).FailureDomains().Set(u, domains))
	assert.Equal(t, map[string]any{
		"a": map[string]any{"controlPlane": true},
		"b": map[string]any{"attributes": map[string]any{"zone": "z2"}},
	}, u.Object["status"].(map[string]any)["failureDomains"], "v1beta1 writes a map keyed by name")

	// v1beta1 -> list -> v1beta2 -> list keeps the domains.
	fromV1, err := InfraCluster(V1Beta1).FailureDomains().Get(u)
	require.NoError(t, err)
	u2 := &unstructured.Unstructured{Object: map[string]any{}}
	require.NoError(t, InfraCluster(V1Beta2).FailureDomains().Set(u2, fromV1))
	fromV2, err := InfraCluster(V1Beta2).FailureDomains().Get(u2)
	require.NoError(t, err)
	assert.Equal(t, fromV1, fromV2)
}

func TestFailureDomainsSetRejectsBadNames(t *testing.T) {
	for _, v := range Versions {
		f := InfraCluster(v).FailureDomains()
		u := fromJSON(t, `{"status":{"failureDomains":null}}`)
		err := f.Set(u, []FailureDomain{{Name: "a"}, {Name: "a"}})
		require.Error(t, err)
		assert.Contains(t, err.Error(), `item 1: duplicate name "a"`)
		err = f.Set(u, []FailureDomain{{Name: "a"}, {}})
		require.Error(t, err)
		assert.Contains(t, err.Error(), `item 1: name must not be empty`)
		assert.Equal(t, map[string]any{"failureDomains": nil}, u.Object["status"], "nothing written on error")
		require.Error(t, f.Set(nil, []FailureDomain{{Name: "a"}}))
		require.Error(t, f.Set(nil, nil))
	}
}

func TestFailureDomainsSetNilAndEmpty(t *testing.T) {
	for _, v := range Versions {
		f := InfraCluster(v).FailureDomains()
		u := &unstructured.Unstructured{Object: map[string]any{}}
		require.NoError(t, f.Set(u, []FailureDomain{}))
		got, err := f.Get(u)
		require.NoError(t, err, "an empty list is written as an empty %s", v)
		assert.Empty(t, got)
		require.NoError(t, f.Set(u, nil))
		_, err = f.Get(u)
		require.ErrorIs(t, err, ErrFieldNotFound, "nil removes the field")
		require.NoError(t, f.Set(u, []FailureDomain{{Name: "a"}}))
		f.Delete(u)
		_, err = f.Get(u)
		require.ErrorIs(t, err, ErrFieldNotFound)
	}
}

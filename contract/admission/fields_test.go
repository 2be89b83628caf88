package admission_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/contract/admission"
)

// errorStrings returns the messages of errs, nil for none.
func errorStrings(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

func TestValidateUnchanged(t *testing.T) {
	path := field.NewPath("spec")
	assert.Empty(t, admission.ValidateUnchanged(path.Child("datacenter"), "dc1", "dc1"))
	assert.Equal(t, []string{`spec.datacenter: Invalid value: "dc2": field is immutable (was "dc1")`},
		errorStrings(admission.ValidateUnchanged(path.Child("datacenter"), "dc1", "dc2")))
	assert.Equal(t, []string{`spec.datacenter: Invalid value: "": field is immutable (was "dc1")`},
		errorStrings(admission.ValidateUnchanged(path.Child("datacenter"), "dc1", "")))
	assert.Equal(t, []string{`spec.numCPUs: Invalid value: 4: field is immutable (was 2)`},
		errorStrings(admission.ValidateUnchanged(path.Child("numCPUs"), int32(2), 4)))
	assert.Empty(t, admission.ValidateUnchanged(path.Child("numCPUs"), int64(0), 0))
	type serviceType string // a named string type is quoted as field.Invalid quotes the new value
	assert.Equal(t, []string{`spec.type: Invalid value: "NodePort": field is immutable (was "ClusterIP")`},
		errorStrings(admission.ValidateUnchanged(path.Child("type"), serviceType("ClusterIP"), "NodePort")))
}

func TestValidateSetOnce(t *testing.T) {
	path := field.NewPath("spec", "providerID")
	for _, tc := range []struct {
		name, oldV, newV string
		want             []string
	}{
		{"empty stays empty", "", "", nil},
		{"set from empty", "", "vsphere://a", nil},
		{"unchanged", "vsphere://a", "vsphere://a", nil},
		{"changed", "vsphere://a", "vsphere://b", []string{`spec.providerID: Invalid value: "vsphere://b": field is immutable once set (was "vsphere://a")`}},
		{"cleared", "vsphere://a", "", []string{`spec.providerID: Invalid value: "": field is immutable once set (was "vsphere://a")`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, errorStrings(admission.ValidateSetOnce(path, tc.oldV, tc.newV)))
		})
	}
}

func TestValidateEndpoint(t *testing.T) {
	path := field.NewPath("spec", "controlPlaneEndpoint")
	for _, tc := range []struct {
		name string
		ep   contract.APIEndpoint
		want []string
	}{
		{"none", contract.APIEndpoint{}, nil},
		{"both", contract.APIEndpoint{Host: "10.0.0.2", Port: 6443}, nil},
		{"host only", contract.APIEndpoint{Host: "10.0.0.2"},
			[]string{`spec.controlPlaneEndpoint.port: Required value: must be set when host is set (host "10.0.0.2")`}},
		{"port only", contract.APIEndpoint{Port: 6443},
			[]string{`spec.controlPlaneEndpoint.host: Required value: must be set when port is set (port 6443)`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, errorStrings(admission.ValidateEndpoint(path, tc.ep)))
		})
	}
}

func TestValidateEndpointUpdate(t *testing.T) {
	path := field.NewPath("spec", "controlPlaneEndpoint")
	ep := contract.APIEndpoint{Host: "10.0.0.2", Port: 6443}
	for _, tc := range []struct {
		name     string
		old, new contract.APIEndpoint
		want     []string
	}{
		{"none", contract.APIEndpoint{}, contract.APIEndpoint{}, nil},
		{"set from empty", contract.APIEndpoint{}, ep, nil},
		{"unchanged", ep, ep, nil},
		{"port changed", ep, contract.APIEndpoint{Host: "10.0.0.2", Port: 443},
			[]string{`spec.controlPlaneEndpoint: Invalid value: "10.0.0.2:443": field is immutable once set (was "10.0.0.2:6443")`}},
		{"IPv6 host", contract.APIEndpoint{Host: "fd00::1", Port: 6443}, ep,
			[]string{`spec.controlPlaneEndpoint: Invalid value: "10.0.0.2:6443": field is immutable once set (was "[fd00::1]:6443")`}},
		{"cleared", ep, contract.APIEndpoint{},
			[]string{`spec.controlPlaneEndpoint: Invalid value: "": field is immutable once set (was "10.0.0.2:6443")`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, errorStrings(admission.ValidateEndpointUpdate(path, tc.old, tc.new)))
		})
	}
}

func TestWebhookValidateName(t *testing.T) {
	wh := machineWebhook
	wh.ValidateName = func(name string, path *field.Path) field.ErrorList {
		if len(name) > 4 {
			return field.ErrorList{field.Invalid(path, name, "must be at most 4 characters")}
		}
		return nil
	}
	long := machine("huge", "", false)
	long.Name = "m-long"
	_, err := wh.ValidateCreate(context.Background(), long)
	require.True(t, apierrors.IsInvalid(err), "want Invalid, got %v", err)
	assert.EqualError(t, err, `MyMachine.infrastructure.example.com "m-long" is invalid: [metadata.name: Invalid value: "m-long": must be at most 4 characters, spec.flavor: Unsupported value: "huge": supported values: "small", "large"]`)

	_, err = wh.ValidateCreate(context.Background(), machine("small", "", false))
	require.NoError(t, err)

	old := long.DeepCopyObject().(*Machine)
	old.Spec.Flavor = "small"
	_, err = wh.ValidateUpdate(context.Background(), old, old)
	require.NoError(t, err, "names never change: an update does not check them")
}

// An InfraMachine's webhook lets providerID go from empty to a value, once; the error names both values.
func ExampleValidateSetOnce() {
	path := field.NewPath("spec", "providerID")
	fmt.Println(admission.ValidateSetOnce(path, "", "vsphere://4207d9e2-5c33-4a2c-9b65-61b4a3e0c9a1"))
	errs := admission.ValidateSetOnce(path, "vsphere://4207d9e2-5c33-4a2c-9b65-61b4a3e0c9a1", "vsphere://other")
	fmt.Println(apierrors.NewInvalid(schema.GroupKind{Group: "infrastructure.example.com", Kind: "MyMachine"}, "m-0", errs))
	// Output:
	// []
	// MyMachine.infrastructure.example.com "m-0" is invalid: spec.providerID: Invalid value: "vsphere://other": field is immutable once set (was "vsphere://4207d9e2-5c33-4a2c-9b65-61b4a3e0c9a1")
}

package contract_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"

	"github.com/capkit/capkit/contract"
)

// Every accessor writes at the path of its contract version and reads back what it wrote.
func TestUnstructuredAccessorPaths(t *testing.T) {
	for _, tc := range []struct {
		v                   contract.Version
		provisioned, conds  []string
		failureDomainsIsMap bool
	}{
		{contract.V1Beta2, []string{"status", "initialization", "provisioned"}, []string{"status", "conditions"}, false},
		{contract.V1Beta1, []string{"status", "ready"}, []string{"status", "v1beta2", "conditions"}, true},
	} {
		t.Run(string(tc.v), func(t *testing.T) {
			u := &unstructured.Unstructured{Object: map[string]any{}}
			a := contract.Unstructured(u, tc.v)
			require.NoError(t, a.Validate())
			a.SetProvisioned(true)
			a.SetControlPlaneEndpoint(contract.APIEndpoint{Host: "h", Port: 6443})
			a.SetFailureDomains([]contract.FailureDomain{{Name: "b", ControlPlane: ptr.To(false)}, {Name: "a", ControlPlane: ptr.To(true)}})
			a.SetProviderID("x://1")
			a.SetAddresses([]contract.MachineAddress{{Type: contract.MachineInternalIP, Address: "10.0.0.1"}})
			a.SetStatusFailureDomain("a")
			a.SetConditions([]metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue, Reason: "R"}})
			require.NoError(t, a.Err())

			got, found, err := unstructured.NestedBool(u.Object, tc.provisioned...)
			require.NoError(t, err)
			assert.True(t, found && got, "provisioned at %v", tc.provisioned)
			_, found, _ = unstructured.NestedSlice(u.Object, tc.conds...)
			assert.True(t, found, "conditions at %v", tc.conds)
			_, isMap, _ := unstructured.NestedMap(u.Object, "status", "failureDomains")
			assert.Equal(t, tc.failureDomainsIsMap, isMap, "failure domains shape")

			assert.True(t, a.IsProvisioned())
			assert.Equal(t, contract.APIEndpoint{Host: "h", Port: 6443}, a.GetControlPlaneEndpoint())
			assert.Equal(t, []string{"a", "b"}, []string{a.GetFailureDomains()[0].Name, a.GetFailureDomains()[1].Name}, "sorted by name")
			assert.Equal(t, "x://1", a.GetProviderID())
			assert.Equal(t, "10.0.0.1", a.GetAddresses()[0].Address)
			assert.Equal(t, "a", a.GetStatusFailureDomain())
			assert.Equal(t, "Ready", a.GetConditions()[0].Type)
			assert.Same(t, u, a.Object())
			require.NoError(t, a.Validate(), "what the accessors write validates")
		})
	}
}

func TestUnstructuredAccessorRejectsMalformedFields(t *testing.T) {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"providerID": int64(1)}}}
	err := contract.Unstructured(u, contract.V1Beta2).Validate()
	require.ErrorIs(t, err, contract.ErrFieldType)
	assert.Contains(t, err.Error(), "spec.providerID")

	require.Error(t, contract.Unstructured(nil, contract.V1Beta2).Validate())
	require.ErrorIs(t, contract.Unstructured(u, "v9").Validate(), contract.ErrUnknownVersion)
}

// A write under a parent that is not an object fails; the error is kept, the first one wins, and the
// object is left as it was.
func TestUnstructuredAccessorKeepsTheFirstWriteError(t *testing.T) {
	u := &unstructured.Unstructured{Object: map[string]any{"status": "broken", "spec": "broken"}}
	a := contract.Unstructured(u, contract.V1Beta2)
	assert.False(t, a.IsProvisioned(), "a getter on a malformed object returns the zero value")
	a.SetProvisioned(true)
	a.SetProviderID("x://1")
	require.ErrorIs(t, a.Err(), contract.ErrFieldType)
	assert.Contains(t, a.Err().Error(), "status.initialization.provisioned")
	assert.Equal(t, "broken", u.Object["status"])
	assert.Equal(t, "broken", u.Object["spec"])
}

package testtypes

import (
	"testing"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/capkit/capkit/contract"
)

// TestGeneratedAccessors checks the behaviour of the generated accessors on the types' pointer
// status.initialization, and that FooMachinePool keeps its hand-written SetProvisioned.
func TestGeneratedAccessors(t *testing.T) {
	tests := []struct {
		name  string
		check func(t *testing.T)
	}{
		{"cluster provisioned allocates initialization", func(t *testing.T) {
			c := &FooCluster{}
			assert.False(t, c.IsProvisioned())
			c.SetProvisioned(true)
			assert.NotNil(t, c.Status.Initialization)
			assert.True(t, c.IsProvisioned())
		}},
		{"machine provisioned allocates initialization", func(t *testing.T) {
			m := &FooMachine{}
			assert.False(t, m.IsProvisioned())
			m.SetProvisioned(false)
			assert.NotNil(t, m.Status.Initialization)
			assert.False(t, m.IsProvisioned())
			m.SetProvisioned(true)
			assert.True(t, m.IsProvisioned())
		}},
		{"machine pool sets status.ready too", func(t *testing.T) {
			p := &FooMachinePool{}
			p.SetProvisioned(true)
			assert.True(t, p.IsProvisioned())
			assert.True(t, p.Status.Ready)
		}},
		{"fields are written in place", func(t *testing.T) {
			m := &FooMachine{}
			ids := map[string]string{"instance": "i-1"}
			m.SetResourceIDs(ids)
			m.GetResourceIDs()["disk"] = "d-1"
			assert.Equal(t, "d-1", ids["disk"])
			m.SetProviderID("foo://1")
			m.SetStatusFailureDomain("a")
			m.SetAddresses([]contract.MachineAddress{{Type: "InternalIP", Address: "10.0.0.1"}})
			m.SetConditions([]metav1.Condition{{Type: "Ready"}})
			assert.Equal(t, "foo://1", m.Spec.ProviderID)
			assert.Equal(t, "a", m.Status.FailureDomain)
			assert.Equal(t, "10.0.0.1", m.GetAddresses()[0].Address)
			assert.Equal(t, "Ready", m.GetConditions()[0].Type)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, tt.check)
	}
}

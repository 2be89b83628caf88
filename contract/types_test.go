package contract

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAPIEndpoint(t *testing.T) {
	assert.True(t, APIEndpoint{}.IsZero())
	assert.False(t, APIEndpoint{}.IsValid())
	assert.False(t, APIEndpoint{Host: "h"}.IsZero())
	assert.False(t, APIEndpoint{Host: "h"}.IsValid())
	assert.False(t, APIEndpoint{Port: 6443}.IsValid())
	assert.True(t, APIEndpoint{Host: "h", Port: 6443}.IsValid())
}

func TestTypesJSONShape(t *testing.T) {
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"empty endpoint", APIEndpoint{}, `{}`},
		{"endpoint", APIEndpoint{Host: "h", Port: 6443}, `{"host":"h","port":6443}`},
		{"failure domain keeps its name", FailureDomain{}, `{"name":""}`},
		{"failure domain", FailureDomain{Name: "a", ControlPlane: ptrTo(false), Attributes: map[string]string{"k": "v"}},
			`{"name":"a","controlPlane":false,"attributes":{"k":"v"}}`},
		{"address", MachineAddress{Type: MachineExternalDNS, Address: "m.example.com"}, `{"type":"ExternalDNS","address":"m.example.com"}`},
		{"unset initialization", InfraClusterInitialization{}, `{}`},
		{"provisioned false is written", InfraMachineInitialization{Provisioned: ptrTo(false)}, `{"provisioned":false}`},
		{"data secret created", BootstrapConfigInitialization{DataSecretCreated: ptrTo(true)}, `{"dataSecretCreated":true}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(tt.v)
			require.NoError(t, err)
			assert.JSONEq(t, tt.want, string(b))
		})
	}
}

func TestTypesDeepCopy(t *testing.T) {
	fd := &FailureDomain{Name: "a", ControlPlane: ptrTo(true), Attributes: map[string]string{"k": "v"}}
	cp := fd.DeepCopy()
	require.Equal(t, fd, cp)
	*cp.ControlPlane = false
	cp.Attributes["k"] = "changed"
	assert.True(t, *fd.ControlPlane, "the copy does not share the pointer")
	assert.Equal(t, "v", fd.Attributes["k"], "the copy does not share the map")

	ic := &InfraClusterInitialization{Provisioned: ptrTo(true)}
	icCopy := ic.DeepCopy()
	*icCopy.Provisioned = false
	assert.True(t, *ic.Provisioned)

	im := &InfraMachineInitialization{Provisioned: ptrTo(true)}
	imCopy := im.DeepCopy()
	*imCopy.Provisioned = false
	assert.True(t, *im.Provisioned)

	bc := &BootstrapConfigInitialization{DataSecretCreated: ptrTo(true)}
	bcCopy := bc.DeepCopy()
	*bcCopy.DataSecretCreated = false
	assert.True(t, *bc.DataSecretCreated)

	assert.Equal(t, &APIEndpoint{Host: "h", Port: 1}, (&APIEndpoint{Host: "h", Port: 1}).DeepCopy())
	assert.Equal(t, &MachineAddress{Type: MachineHostName, Address: "m"}, (&MachineAddress{Type: MachineHostName, Address: "m"}).DeepCopy())

	var nilFD *FailureDomain
	assert.Nil(t, nilFD.DeepCopy())
	assert.Nil(t, (*APIEndpoint)(nil).DeepCopy())
	assert.Nil(t, (*MachineAddress)(nil).DeepCopy())
	assert.Nil(t, (*InfraClusterInitialization)(nil).DeepCopy())
	assert.Nil(t, (*InfraMachineInitialization)(nil).DeepCopy())
	assert.Nil(t, (*BootstrapConfigInitialization)(nil).DeepCopy())
}

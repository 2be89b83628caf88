package v1beta2_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/contract/lint"
	"github.com/capkit/capkit/providertest"

	"github.com/capkit/capkit/internal/scaffold/template/api/v1beta2"
)

func TestGoTypesFollowContractV1Beta2(t *testing.T) {
	for _, tc := range []struct {
		obj  any
		kind lint.Kind
	}{
		{&v1beta2.QuuxCluster{}, lint.KindInfraCluster},
		{&v1beta2.QuuxMachine{}, lint.KindInfraMachine},
		{&v1beta2.QuuxClusterTemplate{}, lint.KindInfraClusterTemplate},
		{&v1beta2.QuuxMachineTemplate{}, lint.KindInfraMachineTemplate},
		// +capkit:scaffold:contracttest
	} {
		t.Run(string(tc.kind), func(t *testing.T) {
			providertest.AssertTypeConformance(t, tc.obj, tc.kind, contract.V1Beta2)
		})
	}
}

func TestProviderIDRoundTrip(t *testing.T) {
	tests := []struct {
		providerID, want string
		wantErr          bool
	}{
		{providerID: v1beta2.ProviderID("i-1"), want: "i-1"},
		{providerID: "other://i-1", wantErr: true},
		{providerID: v1beta2.ProviderIDPrefix, wantErr: true},
		{providerID: v1beta2.ProviderID("a/b"), wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.providerID, func(t *testing.T) {
			got, err := v1beta2.InstanceIDFromProviderID(tt.providerID)
			if tt.wantErr {
				require.ErrorIs(t, err, v1beta2.ErrInvalidProviderID)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

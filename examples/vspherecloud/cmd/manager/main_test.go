package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/examples/vspherecloud/controllers"
)

// The standard flags are tested in capkit's reconcile/manager; these are vspherecloud's defaults and its own flag.
func TestFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr string
		check   func(t *testing.T, f *flags)
	}{
		{name: "defaults", args: []string{"--cloud-qps=20"}, check: func(t *testing.T, f *flags) {
			assert.Equal(t, controllers.DefaultPollInterval, f.PollInterval, "a clone task is looked at every 10s, as CAPV does")
			assert.Equal(t, "vspherecloud-controller-manager.vspherecloud.capkit.io", f.LeaderElectionID)
			assert.InDelta(t, 20, f.CloudQPS, 0)
			assert.Empty(t, f.identityNamespace, "no identities unless asked")
		}},
		{name: "identities", args: []string{"--identity-namespace=vspherecloud-system"}, check: func(t *testing.T, f *flags) {
			assert.Equal(t, "vspherecloud-system", f.identityNamespace)
		}},
		{name: "the server is the VSphereCluster's, not a flag", args: []string{"--server=vc.example.com"}, wantErr: "server"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var f flags
			p := f.provider()
			err := f.Parse(tt.args, p.Defaults, p.Flags)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			tt.check(t, &f)
		})
	}
}

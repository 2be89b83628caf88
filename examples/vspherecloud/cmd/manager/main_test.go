package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/examples/vspherecloud/controllers"
	"github.com/capkit/capkit/reconcile/manager"
)

// The standard flags are tested in capkit's reconcile/manager; these are vspherecloud's defaults.
func TestDefaults(t *testing.T) {
	var f manager.Flags
	p := provider()
	require.NoError(t, f.Parse([]string{"--cloud-qps=20"}, p.Defaults, p.Flags))
	assert.Equal(t, controllers.DefaultPollInterval, f.PollInterval, "a clone task is looked at every 10s, as CAPV does")
	assert.Equal(t, "vspherecloud-controller-manager.vspherecloud.capkit.io", f.LeaderElectionID)
	assert.InDelta(t, 20, f.CloudQPS, 0)
	require.Error(t, f.Parse([]string{"--server=vc.example.com"}, p.Defaults, p.Flags), "the server is the VSphereCluster's, not a flag")
}

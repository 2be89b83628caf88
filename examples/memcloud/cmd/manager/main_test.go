package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/examples/memcloud/cloud"
)

// The standard flags are tested in capkit's reconcile/manager; these are memcloud's own and the Deployment's.
func TestParseFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		check   func(t *testing.T, f flags)
		wantErr string
	}{
		{name: "the Deployment's arguments", args: []string{"--leader-elect", "--health-probe-bind-address=:9440",
			"--webhook-port=9443", "--webhook-cert-dir=/certs", "--cloud-seed=7", "--identity-namespace=memcloud-system", "--cloud-qps=50"}, check: func(t *testing.T, f flags) {
			assert.Equal(t, "memcloud-system", f.identityNamespace)
			assert.InDelta(t, 50, f.CloudQPS, 0)
			assert.True(t, f.LeaderElect)
			assert.Equal(t, "memcloud-controller-manager.memcloud.capkit.io", f.LeaderElectionID)
			assert.Equal(t, "/certs", f.WebhookCertDir)
			assert.Equal(t, uint64(7), f.cloudSeed)
			assert.Zero(t, f.ResyncPeriod, "memcloud's cloud needs no resync")
		}},
		{name: "a cloud that is synchronous, consistent and honours tokens by default", check: func(t *testing.T, f flags) {
			c, err := cloud.New(f.cloudOptions()...)
			require.NoError(t, err)
			assert.Equal(t, cloud.Behavior{}, c.Behavior())
		}},
		{name: "a cloud of issue 41", args: []string{"--async-creates=500ms", "--search-lag=1s", "--no-tokens"}, check: func(t *testing.T, f flags) {
			c, err := cloud.New(f.cloudOptions()...)
			require.NoError(t, err)
			assert.Equal(t, cloud.Behavior{AsyncCreates: 500 * time.Millisecond, SearchLag: time.Second, IgnoresTokens: true}, c.Behavior())
		}},
		{name: "a negative lag is refused when the cloud is created", args: []string{"--search-lag=-1s"}, check: func(t *testing.T, f flags) {
			_, err := cloud.New(f.cloudOptions()...)
			require.ErrorIs(t, err, cloud.ErrInvalidParameter)
		}},
		{name: "bad port", args: []string{"--webhook-port=70000"}, wantErr: "invalid --webhook-port 70000"},
		{name: "stray argument", args: []string{"extra"}, wantErr: `unexpected arguments ["extra"]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var f flags
			p := f.provider()
			err := f.Parse(tt.args, p.Defaults, p.Flags)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			tt.check(t, f)
		})
	}
}

package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime"
)

func TestParseFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		check   func(t *testing.T, f flags)
		wantErr string
	}{
		{name: "defaults", check: func(t *testing.T, f flags) {
			assert.Equal(t, ":9440", f.probeAddr)
			assert.Equal(t, 9443, f.webhookPort)
			assert.Equal(t, "0", f.metricsAddr)
			assert.False(t, f.leaderElect)
			assert.Equal(t, 5*time.Second, f.pollInterval)
		}},
		{name: "the Deployment's arguments", args: []string{"--leader-elect", "--health-probe-bind-address=:9440",
			"--webhook-port=9443", "--webhook-cert-dir=/certs"}, check: func(t *testing.T, f flags) {
			assert.True(t, f.leaderElect)
			assert.Equal(t, "/certs", f.webhookCert)
		}},
		{name: "namespace and filter", args: []string{"--namespace=team-a", "--watch-filter=blue", "--metrics-bind-address=:8443"},
			check: func(t *testing.T, f flags) {
				o := f.options(runtime.NewScheme())
				assert.Contains(t, o.Cache.DefaultNamespaces, "team-a")
				assert.Equal(t, "blue", f.watchFilter)
				assert.Equal(t, ":8443", o.Metrics.BindAddress)
			}},
		{name: "bad port", args: []string{"--webhook-port=70000"}, wantErr: "invalid --webhook-port 70000"},
		{name: "bad poll", args: []string{"--poll-interval=0s"}, wantErr: "invalid --poll-interval 0s"},
		{name: "stray argument", args: []string{"extra"}, wantErr: `unexpected arguments ["extra"]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := parseFlags(tt.args)
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

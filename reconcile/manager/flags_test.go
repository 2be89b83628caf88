package manager_test

import (
	"flag"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/capkit/capkit/reconcile/manager"
)

func parse(t *testing.T, args ...string) (manager.Flags, error) {
	t.Helper()
	var f manager.Flags
	fs := flag.NewFlagSet("manager", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f.Bind(fs, manager.Defaults{LeaderElectionID: "x-controller-manager.x.example.com", ResyncPeriod: time.Minute})
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	return f, f.Validate()
}

func TestFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr string
		check   func(t *testing.T, f manager.Flags)
	}{
		{name: "defaults", check: func(t *testing.T, f manager.Flags) {
			assert.Equal(t, 9443, f.WebhookPort)
			assert.Equal(t, 5*time.Second, f.PollInterval)
			assert.Equal(t, time.Minute, f.ResyncPeriod, "the provider's default")
			assert.Equal(t, "x-controller-manager.x.example.com", f.LeaderElectionID)
			l, err := f.RateLimiter()
			require.NoError(t, err)
			assert.Nil(t, l, "no cloud rate limit unless asked for")
		}},
		{name: "cloud rate limit", args: []string{"--cloud-qps=20", "--cloud-burst=5"}, check: func(t *testing.T, f manager.Flags) {
			l, err := f.RateLimiter()
			require.NoError(t, err)
			assert.NotNil(t, l)
		}},
		{name: "bad qps", args: []string{"--cloud-qps=-1"}, wantErr: "invalid --cloud-qps -1"},
		{name: "bad burst", args: []string{"--cloud-qps=5", "--cloud-burst=0"}, wantErr: "invalid --cloud-burst 0"},
		{name: "resync off", args: []string{"--resync-period=0"}, check: func(t *testing.T, f manager.Flags) { assert.Zero(t, f.ResyncPeriod) }},
		{name: "bad port", args: []string{"--webhook-port=0"}, wantErr: "invalid --webhook-port 0"},
		{name: "bad poll", args: []string{"--poll-interval=-1s"}, wantErr: "invalid --poll-interval -1s"},
		{name: "bad resync", args: []string{"--resync-period=-1s"}, wantErr: "invalid --resync-period -1s"},
		{name: "election without id", args: []string{"--leader-elect", "--leader-election-id="}, wantErr: `invalid --leader-election-id ""`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := parse(t, tt.args...)
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

func TestOptions(t *testing.T) {
	f, err := parse(t, "--namespace=team-a", "--leader-elect", "--metrics-bind-address=:8080")
	require.NoError(t, err)
	o := f.Options(runtime.NewScheme())
	assert.True(t, o.LeaderElection)
	assert.Equal(t, ":8080", o.Metrics.BindAddress)
	assert.Contains(t, o.Cache.DefaultNamespaces, "team-a", "one namespace watched")
	require.NotNil(t, o.Client.Cache)
	assert.True(t, o.Client.Cache.Unstructured, "the unstructured core objects come from the cache")
}

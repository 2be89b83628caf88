package manager_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	ctrlmanager "sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/capkit/capkit/providertest/testenv"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/reconcile/manager"
)

func TestReconcileOptions(t *testing.T) {
	extra := reconcile.WithFinalizer("x.example.com/finalizer")
	tests := []struct {
		name    string
		f       manager.Flags
		extra   []reconcile.Option
		wantLen int
		wantErr string
	}{
		{name: "zero flags: watch filter and resync only", wantLen: 2},
		{name: "bound defaults: poll interval and concurrency too", f: manager.Flags{PollInterval: time.Second, MaxConcurrentReconciles: 10}, wantLen: 4},
		{name: "cloud rate limit shared", f: manager.Flags{PollInterval: time.Second, MaxConcurrentReconciles: 1, CloudQPS: 5, CloudBurst: 2}, wantLen: 5},
		{name: "extra options last", f: manager.Flags{WatchFilter: "a"}, extra: []reconcile.Option{extra}, wantLen: 3},
		{name: "bad rate limit", f: manager.Flags{CloudQPS: 5, CloudBurst: 0}, wantErr: "cannot create the cloud rate limiter"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts, err := tt.f.ReconcileOptions(tt.extra...)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Len(t, opts, tt.wantLen)
		})
	}
}

func TestParse(t *testing.T) {
	var f manager.Flags
	var seed int
	err := f.Parse([]string{"--seed=7", "--max-concurrent-reconciles=3"}, manager.Defaults{LeaderElectionID: "x"},
		func(fs *flag.FlagSet) { fs.IntVar(&seed, "seed", 1, "the provider's own flag") })
	require.NoError(t, err)
	assert.Equal(t, 7, seed)
	assert.Equal(t, 3, f.MaxConcurrentReconciles)

	var g manager.Flags
	assert.ErrorContains(t, g.Parse([]string{"extra"}, manager.Defaults{}, nil), `unexpected arguments ["extra"]`)
	assert.ErrorIs(t, g.Parse([]string{"-h"}, manager.Defaults{}, nil), flag.ErrHelp)
	assert.ErrorContains(t, g.Parse([]string{"--max-concurrent-reconciles=0"}, manager.Defaults{}, nil), "invalid --max-concurrent-reconciles 0")
}

func TestMainExitCodes(t *testing.T) {
	failing := manager.Provider{Name: "x", Config: &rest.Config{Host: "http://127.0.0.1:1"},
		Setup: func(ctrl.Manager, []reconcile.Option) error { return errors.New("no cloud") }}
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStderr string
	}{
		{name: "help", args: []string{"-h"}, wantCode: 0},
		{name: "bad flag", args: []string{"--webhook-port=0"}, wantCode: 2, wantStderr: "x manager: invalid --webhook-port 0"},
		{name: "setup fails", args: []string{"--health-probe-bind-address=0"}, wantCode: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var f manager.Flags
			var stderr bytes.Buffer
			assert.Equal(t, tt.wantCode, manager.MainWith(tt.args, &f, failing, &stderr, context.Background))
			assert.Contains(t, stderr.String(), tt.wantStderr)
		})
	}
}

// Run builds the scheme and the manager, hands the flags' reconcile options to Setup and stops with its
// context.
func TestRun(t *testing.T) {
	env, err := testenv.NewEnvironment(testenv.WithoutCAPICRDs())
	require.NoError(t, err)
	t.Cleanup(func() { _ = env.Stop() })
	wo := env.WebhookInstallOptions()

	var f manager.Flags
	require.NoError(t, f.Parse([]string{"--health-probe-bind-address=0", "--webhook-port=" + strconv.Itoa(wo.LocalServingPort),
		"--webhook-cert-dir=" + wo.LocalServingCertDir, "--cloud-qps=10"}, manager.Defaults{LeaderElectionID: "x"}, nil))
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	var got []reconcile.Option
	var scheme *runtime.Scheme
	p := manager.Provider{Name: "x", Config: env.Config, Setup: func(mgr ctrl.Manager, opts []reconcile.Option) error {
		got, scheme = opts, mgr.GetScheme()
		return mgr.Add(ctrlmanager.RunnableFunc(func(context.Context) error { cancel(); return nil }))
	}}
	require.NoError(t, manager.Run(ctx, f, p), "a manager stopped by its context stops cleanly")
	assert.Len(t, got, 5, "watch filter, resync, poll interval, concurrency and the cloud rate limit")
	assert.True(t, scheme.IsGroupRegistered(""), "client-go's types are in the scheme")

	err = manager.Run(ctx, f, manager.Provider{Name: "x", Config: env.Config})
	assert.ErrorContains(t, err, "Setup must not be nil")
}

// TestParseKnowsKubeconfig: --kubeconfig, which Provider.Config's documentation and ctrl.GetConfig name, is a flag
// of the manager, and the config Run loads comes from that file.
func TestParseKnowsKubeconfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(path, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://kubeconfig-flag.invalid:6443"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`), 0o600))
	t.Setenv("KUBECONFIG", "")
	var f manager.Flags
	require.NoError(t, f.Parse([]string{"--kubeconfig", path}, manager.Defaults{}, nil))
	cfg, err := ctrl.GetConfig()
	require.NoError(t, err)
	assert.Equal(t, "https://kubeconfig-flag.invalid:6443", cfg.Host)

	require.NoError(t, f.Parse(nil, manager.Defaults{}, nil), "a second Parse without the flag")
	var unknown manager.Flags
	err = unknown.Parse([]string{"--no-such-flag"}, manager.Defaults{}, nil)
	require.ErrorContains(t, err, "flag provided but not defined: -no-such-flag")
}

package main

import (
	"flag"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr string
		check   func(t *testing.T, f flags)
	}{
		{name: "defaults", check: func(t *testing.T, f flags) {
			assert.Empty(t, f.targetKubeconfig, "the management cluster is the target")
			assert.Equal(t, 9443, f.webhookPort)
			assert.Equal(t, 5*time.Second, f.pollInterval)
		}},
		{name: "target", args: []string{"--target-kubeconfig", "/k/config", "--poll-interval", "2s"}, check: func(t *testing.T, f flags) {
			assert.Equal(t, "/k/config", f.targetKubeconfig)
			assert.Equal(t, 2*time.Second, f.pollInterval)
		}},
		{name: "bad port", args: []string{"--webhook-port", "70000"}, wantErr: "invalid --webhook-port 70000"},
		{name: "bad poll", args: []string{"--poll-interval", "0s"}, wantErr: "invalid --poll-interval 0s"},
		{name: "extra", args: []string{"x"}, wantErr: `unexpected arguments ["x"]`},
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
	_, err := parseFlags([]string{"-h"})
	assert.ErrorIs(t, err, flag.ErrHelp)
}

func TestTargetClientNamesTheFile(t *testing.T) {
	_, err := flags{targetKubeconfig: "/does/not/exist"}.targetClient(nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `--target-kubeconfig "/does/not/exist"`)
}

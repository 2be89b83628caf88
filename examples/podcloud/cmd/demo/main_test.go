package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/providertest/lifecycle"
)

func TestParseFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    options
		wantErr string
	}{
		{name: "defaults", want: options{DemoFlags: lifecycle.DemoFlags{Machines: lifecycle.Machines{ControlPlane: 1, Workers: 3}, Timeout: time.Minute}, deletePod: true}},
		{name: "custom", args: []string{"--machines=3+0", "--delete-pod=false", "--timeout=10s"},
			want: options{DemoFlags: lifecycle.DemoFlags{Machines: lifecycle.Machines{ControlPlane: 3}, Timeout: 10 * time.Second}}},
		{name: "no worker to delete", args: []string{"--machines=1+0"}, wantErr: "invalid --delete-pod with no workers"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got options
			err := got.parse(tt.args)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

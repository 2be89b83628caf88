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
		{name: "defaults", want: options{DemoFlags: lifecycle.DemoFlags{Machines: lifecycle.Machines{ControlPlane: 1, Workers: 3}, Timeout: 45 * time.Second}, faults: 0.1, searchLag: 2, seed: 1, cloudRate: 40}},
		{name: "custom", args: []string{"--machines=3+0", "--faults=0", "--seed=9", "--timeout=10s", "--search-lag=0", "--cloud-rate=0"},
			want: options{DemoFlags: lifecycle.DemoFlags{Machines: lifecycle.Machines{ControlPlane: 3}, Timeout: 10 * time.Second}, faults: 0, seed: 9}},
		{name: "negative rate", args: []string{"--cloud-rate=-1"}, wantErr: "invalid --cloud-rate -1"},
		{name: "faults above 1", args: []string{"--faults=1.5"}, wantErr: "invalid --faults 1.5"},
		{name: "negative lag", args: []string{"--search-lag=-1"}, wantErr: "invalid --search-lag -1"},
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

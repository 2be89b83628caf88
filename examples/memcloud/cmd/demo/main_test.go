package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    options
		wantErr string
	}{
		{name: "defaults", want: options{controlPlane: 1, workers: 3, faults: 0.1, searchLag: 2, seed: 1, timeout: 45 * time.Second, cloudRate: 40}},
		{name: "custom", args: []string{"--machines=3+0", "--faults=0", "--seed=9", "--timeout=10s", "--search-lag=0", "--cloud-rate=0"},
			want: options{controlPlane: 3, faults: 0, seed: 9, timeout: 10 * time.Second}},
		{name: "negative rate", args: []string{"--cloud-rate=-1"}, wantErr: "invalid --cloud-rate -1"},
		{name: "no control plane", args: []string{"--machines=0+3"}, wantErr: `invalid --machines "0+3"`},
		{name: "not a pair", args: []string{"--machines=4"}, wantErr: `invalid --machines "4"`},
		{name: "faults above 1", args: []string{"--faults=1.5"}, wantErr: "invalid --faults 1.5"},
		{name: "negative lag", args: []string{"--search-lag=-1"}, wantErr: "invalid --search-lag -1"},
		{name: "zero timeout", args: []string{"--timeout=0s"}, wantErr: "invalid --timeout 0s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseFlags(tt.args)
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

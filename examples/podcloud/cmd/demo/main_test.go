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
		{name: "defaults", want: options{controlPlane: 1, workers: 3, deletePod: true, timeout: time.Minute}},
		{name: "custom", args: []string{"--machines=3+0", "--delete-pod=false", "--timeout=10s"},
			want: options{controlPlane: 3, timeout: 10 * time.Second}},
		{name: "no control plane", args: []string{"--machines=0+3"}, wantErr: `invalid --machines "0+3"`},
		{name: "no worker to delete", args: []string{"--machines=1+0"}, wantErr: "invalid --delete-pod with no workers"},
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

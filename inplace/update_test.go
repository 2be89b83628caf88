package inplace_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/capkit/capkit/inplace"
	"github.com/capkit/capkit/redact"
)

func TestUpdateMachine(t *testing.T) {
	tests := []struct {
		name     string
		progress string
		kind     string // of the request's infrastructureMachine; MemMachine when ""
		noInfra  bool
		want     inplace.UpdateMachineResponse
	}{{
		name:     "done",
		progress: "done",
		want:     inplace.UpdateMachineResponse{Status: inplace.ResponseStatusSuccess, Message: "flavor is m2"},
	}, {
		name: "in progress, default retry",
		want: inplace.UpdateMachineResponse{Status: inplace.ResponseStatusSuccess, Message: "waiting", RetryAfterSeconds: 5},
	}, {
		name:     "in progress, retry rounded up",
		progress: "slow",
		want:     inplace.UpdateMachineResponse{Status: inplace.ResponseStatusSuccess, Message: "resizing", RetryAfterSeconds: 2},
	}, {
		name:     "error",
		progress: "error",
		want: inplace.UpdateMachineResponse{Status: inplace.ResponseStatusFailure,
			Message: `cannot update MemMachine "m-1" in place: instance i-123 is stopped`},
	}, {
		name:     "panic",
		progress: "panic",
		want:     inplace.UpdateMachineResponse{Status: inplace.ResponseStatusFailure, Message: `in-place update of MemMachine "m-1" panicked: boom`},
	}, {
		name: "foreign kind",
		kind: "DockerMachine",
		want: inplace.UpdateMachineResponse{Status: inplace.ResponseStatusFailure,
			Message: `infrastructureMachine "DockerMachine" of group "infrastructure.memcloud.capkit.io" is not handled by "memcloud", which handles "MemMachine" of group "infrastructure.memcloud.capkit.io"`},
	}, {
		name:    "no infrastructure machine",
		noInfra: true,
		want:    inplace.UpdateMachineResponse{Status: inplace.ResponseStatusFailure, Message: "the request has no desired infrastructureMachine"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := config()
			cfg.Reader = apiServer(liveMachine(), liveInfra(tt.progress))
			req := updateRequest()
			if tt.kind != "" {
				req.Desired.InfrastructureMachine.SetKind(tt.kind)
			}
			if tt.noInfra {
				req.Desired.InfrastructureMachine = nil
			}
			got := cfg.UpdateMachine(t.Context(), req)
			got.TypeMeta = tt.want.TypeMeta
			assert.Equal(t, tt.want, *got)
		})
	}
}

// TestUpdateMachineRedactsCredentials: a secret that Update's context learnt (as an identity binder registers
// an account's credentials) never reaches Cluster API, in an error, a panic or a progress message.
func TestUpdateMachineRedactsCredentials(t *testing.T) {
	const secret = "s3cr3t-access-key-0123456789"
	for _, tc := range []struct {
		name   string
		update func(ctx context.Context) (inplace.Progress, error)
	}{
		{"error", func(context.Context) (inplace.Progress, error) {
			return inplace.Progress{}, errors.New("cloud said: bad key " + secret)
		}},
		{"panic", func(context.Context) (inplace.Progress, error) { panic("key " + secret + " refused") }},
		{"message", func(context.Context) (inplace.Progress, error) {
			return inplace.Progress{Message: "resizing with " + secret}, nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := config()
			c.Update = func(ctx context.Context, _ *unstructured.Unstructured) (inplace.Progress, error) {
				redact.FromContext(ctx).Add([]byte(secret))
				return tc.update(ctx)
			}
			got := c.UpdateMachine(t.Context(), updateRequest())
			assert.NotEmpty(t, got.Message)
			assert.NotContains(t, got.Message, secret)
			assert.NotContains(t, got.Message, "s3cr3t")
		})
	}
}

func TestUpdateMachineRetryAfter(t *testing.T) {
	tests := []struct {
		retryAfter string
		want       int32
	}{
		{"0s", 5}, {"1ns", 1}, {"999ms", 1}, {"1s", 1}, {"1.001s", 2}, {"90s", 90}, {"-3s", 5}, {"1000000h", 2147483647},
	}
	for _, tt := range tests {
		t.Run(tt.retryAfter, func(t *testing.T) {
			cfg := config()
			d, err := time.ParseDuration(tt.retryAfter)
			require.NoError(t, err)
			cfg.Update = func(context.Context, *unstructured.Unstructured) (inplace.Progress, error) {
				return inplace.Progress{RetryAfter: d}, nil
			}
			resp := cfg.UpdateMachine(t.Context(), updateRequest())
			assert.Equal(t, inplace.ResponseStatusSuccess, resp.Status)
			assert.Equal(t, tt.want, resp.RetryAfterSeconds)
		})
	}
}

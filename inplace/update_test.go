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
	infra := func(kind, progress string) *unstructured.Unstructured {
		m := u(group+"/v1beta2", kind, "m-1", obj{"flavor": "m2"})
		if progress != "" {
			m.SetAnnotations(map[string]string{"progress": progress})
		}
		return m
	}
	tests := []struct {
		name  string
		infra *unstructured.Unstructured
		want  inplace.UpdateMachineResponse
	}{{
		name:  "done",
		infra: infra("MemMachine", "done"),
		want:  inplace.UpdateMachineResponse{Status: inplace.ResponseStatusSuccess, Message: "flavor is m2"},
	}, {
		name:  "in progress, default retry",
		infra: infra("MemMachine", ""),
		want:  inplace.UpdateMachineResponse{Status: inplace.ResponseStatusSuccess, Message: "waiting", RetryAfterSeconds: 5},
	}, {
		name:  "in progress, retry rounded up",
		infra: infra("MemMachine", "slow"),
		want:  inplace.UpdateMachineResponse{Status: inplace.ResponseStatusSuccess, Message: "resizing", RetryAfterSeconds: 2},
	}, {
		name:  "error",
		infra: infra("MemMachine", "error"),
		want: inplace.UpdateMachineResponse{Status: inplace.ResponseStatusFailure,
			Message: `cannot update MemMachine "m-1" in place: instance i-123 is stopped`},
	}, {
		name:  "panic",
		infra: infra("MemMachine", "panic"),
		want:  inplace.UpdateMachineResponse{Status: inplace.ResponseStatusFailure, Message: `in-place update of MemMachine "m-1" panicked: boom`},
	}, {
		name:  "foreign kind",
		infra: infra("DockerMachine", "done"),
		want: inplace.UpdateMachineResponse{Status: inplace.ResponseStatusFailure,
			Message: `infrastructureMachine "DockerMachine" of group "infrastructure.memcloud.capkit.io" is not handled by "memcloud", which handles "MemMachine" of group "infrastructure.memcloud.capkit.io"`},
	}, {
		name: "no infrastructure machine",
		want: inplace.UpdateMachineResponse{Status: inplace.ResponseStatusFailure, Message: "the request has no desired infrastructureMachine"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := &inplace.UpdateMachineRequest{Desired: inplace.MachineObjects{
				Machine:               u("cluster.x-k8s.io/v1beta2", "Machine", "m-1", machineSpec("v1.35.0", "t2")),
				InfrastructureMachine: tt.infra,
			}}
			got := config().UpdateMachine(context.Background(), req)
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
			req := &inplace.UpdateMachineRequest{Desired: inplace.MachineObjects{
				Machine:               u("cluster.x-k8s.io/v1beta2", "Machine", "m-1", machineSpec("v1.35.0", "t2")),
				InfrastructureMachine: u(group+"/v1beta2", "MemMachine", "m-1", obj{"flavor": "m2"}),
			}}
			got := c.UpdateMachine(context.Background(), req)
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
			resp := cfg.UpdateMachine(context.Background(), &inplace.UpdateMachineRequest{Desired: inplace.MachineObjects{
				InfrastructureMachine: u(group+"/v1beta2", "MemMachine", "m-1", obj{}),
			}})
			assert.Equal(t, inplace.ResponseStatusSuccess, resp.Status)
			assert.Equal(t, tt.want, resp.RetryAfterSeconds)
		})
	}
}

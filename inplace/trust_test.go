package inplace_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/capkit/capkit/inplace"
	"github.com/capkit/capkit/internal/logtest"
	"github.com/capkit/capkit/redact"
)

// refused is the one answer to a request the API server does not confirm.
const refused = "refused: the request does not name a Machine that Cluster API is updating in place with this extension"

// TestUpdateMachineActsOnlyOnWhatTheAPIServerHolds: Cluster API's Runtime SDK does not authenticate to an
// extension, so a forged UpdateMachine request (any pod that reaches the port can send one) must not reach
// Update: the Machine it names must exist and be in an in-place update with this extension, and its
// InfraMachine must be the Machine's own. Every refusal says the same, whether the objects exist or not; the
// reason is logged.
func TestUpdateMachineActsOnlyOnWhatTheAPIServerHolds(t *testing.T) {
	without := func(m map[string]string, k string) map[string]string { delete(m, k); return m }
	tests := []struct {
		name    string
		machine func(m *unstructured.Unstructured)
		infra   func(m *unstructured.Unstructured)
		req     func(r *inplace.UpdateMachineRequest)
		reason  string // part of the logged reason
	}{
		{name: "a Machine that does not exist", req: func(r *inplace.UpdateMachineRequest) { r.Desired.Machine.SetName("m-404") },
			reason: `Machine default/m-404 does not exist`},
		{name: "a Machine not being updated in place",
			machine: func(m *unstructured.Unstructured) {
				m.SetAnnotations(without(m.GetAnnotations(), inplace.UpdateInProgressAnnotation))
			},
			reason: "Machine default/m-1 has no in-place-updates.internal.cluster.x-k8s.io/update-in-progress annotation"},
		{name: "a Machine with no UpdateMachine pending",
			machine: func(m *unstructured.Unstructured) {
				m.SetAnnotations(map[string]string{inplace.UpdateInProgressAnnotation: "", inplace.PendingHooksAnnotation: "UpdateMachineSet"})
			},
			reason: "has no pending UpdateMachine hook"},
		{name: "an InfraMachine that is not the Machine's",
			req:    func(r *inplace.UpdateMachineRequest) { r.Desired.InfrastructureMachine.SetName("victim") },
			reason: `infrastructureRef names MemMachine "m-1" of group "infrastructure.memcloud.capkit.io", not the request's`},
		{name: "an InfraMachine the Machine does not reference",
			machine: func(m *unstructured.Unstructured) {
				_ = unstructured.SetNestedField(m.Object, "other.example.com", "spec", "infrastructureRef", "apiGroup")
			},
			reason: "not the request's"},
		{name: "an InfraMachine not being updated in place",
			infra:  func(m *unstructured.Unstructured) { m.SetAnnotations(nil) },
			reason: "MemMachine default/m-1 has no in-place-updates"},
		{name: "an InfraMachine owned by another Machine of that name",
			infra: func(m *unstructured.Unstructured) {
				m.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: "cluster.x-k8s.io/v1beta2", Kind: "Machine", Name: "m-1", UID: "old"}})
			},
			reason: "MemMachine default/m-1 is not owned by Machine default/m-1"},
		{name: "an InfraMachine of another cluster",
			infra: func(m *unstructured.Unstructured) {
				m.SetLabels(map[string]string{"cluster.x-k8s.io/cluster-name": "victim"})
			},
			reason: `labelled for cluster "victim", its Machine belongs to "c1"`},
		{name: "an InfraMachine in another namespace",
			req:    func(r *inplace.UpdateMachineRequest) { r.Desired.InfrastructureMachine.SetNamespace("victim") },
			reason: `infrastructureMachine is in namespace "victim"`},
		{name: "no Machine", req: func(r *inplace.UpdateMachineRequest) { r.Desired.Machine = nil },
			reason: "the request has no desired machine"},
		{name: "a MachineSet for a Machine",
			req:    func(r *inplace.UpdateMachineRequest) { r.Desired.Machine.SetKind("MachineSet") },
			reason: `machine is a "MachineSet"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			machine, infra := liveMachine(), liveInfra("done")
			for f, o := range map[*func(*unstructured.Unstructured)]*unstructured.Unstructured{&tt.machine: machine, &tt.infra: infra} {
				if *f != nil {
					(*f)(o)
				}
			}
			cfg := config()
			cfg.Reader = apiServer(machine, infra)
			called := false
			cfg.Update = func(context.Context, *unstructured.Unstructured) (inplace.Progress, error) {
				called = true
				return inplace.Progress{Done: true}, nil
			}
			req := updateRequest()
			if tt.req != nil {
				tt.req(req)
			}
			var logs logtest.Sink
			resp := cfg.UpdateMachine(log.IntoContext(t.Context(), logs.Logger()), req)

			assert.False(t, called, "Update must not run")
			assert.Equal(t, inplace.ResponseStatusFailure, resp.Status)
			assert.Equal(t, refused, resp.Message, "the answer reveals nothing")
			assert.Contains(t, strings.ReplaceAll(logs.String(), `\"`, `"`), tt.reason, "the reason is logged")
		})
	}
}

// TestUpdateMachineIgnoresTheRequestsCopy: Update gets the InfraMachine as the API server holds it, whatever
// spec, labels or annotations the request carries.
func TestUpdateMachineIgnoresTheRequestsCopy(t *testing.T) {
	cfg := config()
	var got *unstructured.Unstructured
	cfg.Update = func(_ context.Context, desired *unstructured.Unstructured) (inplace.Progress, error) {
		got = desired
		return inplace.Progress{Done: true}, nil
	}
	req := updateRequest()
	forged := req.Desired.InfrastructureMachine
	forged.Object["spec"] = obj{"flavor": "xxl", "providerID": "memcloud://victim"}
	forged.SetLabels(map[string]string{"cluster.x-k8s.io/cluster-name": "victim"})
	forged.SetAnnotations(map[string]string{"progress": "panic"})

	resp := cfg.UpdateMachine(t.Context(), req)
	require.Equal(t, inplace.ResponseStatusSuccess, resp.Status, resp.Message)
	require.NotNil(t, got)
	assert.Equal(t, obj{"flavor": "m2"}, got.Object["spec"])
	assert.Equal(t, "c1", got.GetLabels()["cluster.x-k8s.io/cluster-name"])
	assert.Equal(t, "uid-m-1", string(got.GetOwnerReferences()[0].UID))
}

// TestUpdateMachineLogsThroughItsRedactor: what Update logs through its context's logger passes through the
// call's Redactor, as the reconcilers' loggers do.
func TestUpdateMachineLogsThroughItsRedactor(t *testing.T) {
	const secret = "s3cr3t-access-key-0123456789"
	cfg := config()
	cfg.Update = func(ctx context.Context, _ *unstructured.Unstructured) (inplace.Progress, error) {
		redact.FromContext(ctx).Add([]byte(secret))
		log.FromContext(ctx).Info("calling the cloud", "key", secret)
		log.FromContext(ctx).V(4).Info("calling the cloud with key " + secret)
		return inplace.Progress{Done: true}, nil
	}
	var logs logtest.Sink
	resp := cfg.UpdateMachine(log.IntoContext(t.Context(), logs.Logger()), updateRequest())
	require.Equal(t, inplace.ResponseStatusSuccess, resp.Status, resp.Message)
	assert.Contains(t, logs.String(), "calling the cloud")
	assert.NotContains(t, logs.String(), "s3cr3t")
}

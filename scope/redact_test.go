package scope_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/go-logr/logr/funcr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/internal/testtypes"
	"github.com/capkit/capkit/redact"
	"github.com/capkit/capkit/scope"
)

// TestScopeRegistersBootstrapDataAndRedactsConditions: the bootstrap data the scope reads is registered with
// its Redactor and the one of the context, and a condition a service writes with it (a cloud error, say) is
// persisted masked, the Ready summary too; a condition without secrets is persisted as it is.
func TestScopeRegistersBootstrapDataAndRedactsConditions(t *testing.T) {
	ns := env.Namespace(t, "scope")
	ctx := t.Context()
	cluster := newCluster(t, env.Client, ns, "c1", "v1beta2", nil)
	require.NoError(t, env.Client.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "data"},
		Data: map[string][]byte{"value": []byte(secretData)}}))
	machine := newMachine(t, env.Client, ns, "m1", "v1beta2", "c1", map[string]any{"bootstrap": map[string]any{"dataSecretName": "data"}})
	obj := fooMachine(ns, "m1")
	require.NoError(t, env.Client.Create(ctx, obj))
	red, fromCtx := redact.New(), redact.New()
	var logs strings.Builder
	logger := funcr.New(func(prefix, args string) { logs.WriteString(prefix + args + "\n") }, funcr.Options{Verbosity: 10})
	s, err := scope.NewMachineScope(ctx, env.Client, obj, machine, cluster, scope.WithContractVersion(contract.V1Beta2),
		scope.WithRedactor(red), scope.WithSecretReader(env.Client), scope.WithLogger(logger))
	require.NoError(t, err)
	s.SetSummaryConditions("VMReady", "DiskReady")

	data, _, err := s.BootstrapData(redact.NewContext(ctx, fromCtx))
	require.NoError(t, err)
	const secret = "TOP-SECRET-TOKEN-abc123"
	assert.Equal(t, "[REDACTED]", red.String(secret), "registered with the scope's Redactor")
	assert.Equal(t, "[REDACTED]", fromCtx.String(secret), "and with the context's")
	s.Logger().Info("creating", "userData", string(data))
	assert.Contains(t, logs.String(), "creating")
	assert.NotContains(t, logs.String(), secret, "the scope's Logger masks too")

	_, err = conditions.SetFalse(s.Conditions(), "VMReady", "CreateFailed", fmt.Sprintf("cloud rejected user data %q", data))
	require.NoError(t, err)
	_, err = conditions.SetFalse(s.Conditions(), "DiskReady", "QuotaExceeded", "quota exceeded for disks")
	require.NoError(t, err)
	require.NoError(t, s.Close(ctx))

	got := &testtypes.FooMachine{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(obj), got))
	require.Len(t, got.Status.Conditions, 3)
	for _, c := range got.Status.Conditions {
		assert.NotContains(t, c.Message, secret, c.Type)
	}
	assert.Equal(t, `cloud rejected user data "[REDACTED]"`, conditions.GetMessage(got, "VMReady"))
	assert.Equal(t, "quota exceeded for disks", conditions.GetMessage(got, "DiskReady"), "no secret: unchanged")
	assert.Contains(t, conditions.GetMessage(got, conditions.Ready), "[REDACTED]")
}

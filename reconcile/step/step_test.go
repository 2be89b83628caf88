package step_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	crreconcile "sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/reconcile/step"
)

func TestIsTerminal(t *testing.T) {
	cause := errors.New("bad flavor")
	tests := []struct {
		name       string
		err        error
		want       bool
		wantReason string
	}{
		{"controller-runtime TerminalError", crreconcile.TerminalError(cause), true, conditions.ReasonTerminalError},
		{"Terminal", step.Terminal("InvalidImage", cause), true, "InvalidImage"},
		{"wrapped controller-runtime TerminalError", fmt.Errorf("wrap: %w", crreconcile.TerminalError(cause)), true, conditions.ReasonTerminalError},
		{"wrapped Terminal", fmt.Errorf("wrap: %w", step.Terminal("InvalidImage", cause)), true, "InvalidImage"},
		{"joined with a terminal error", errors.Join(step.Throttled(errors.New("429"), 0), crreconcile.TerminalError(cause)), true, conditions.ReasonTerminalError},
		{"plain error", cause, false, ""},
		{"wrapped plain error", fmt.Errorf("wrap: %w", cause), false, ""},
		{"nil", nil, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, step.IsTerminal(tt.err))
			assert.Equal(t, tt.wantReason, step.TerminalReason(tt.err))
		})
	}
}

func TestTerminal(t *testing.T) {
	cause := errors.New("image \"x\" does not exist")
	assert.Nil(t, step.Terminal("InvalidImage", nil), "a nil error stays nil")

	err := step.Terminal("InvalidImage", cause)
	assert.ErrorIs(t, err, cause)
	assert.ErrorIs(t, err, crreconcile.TerminalError(nil), "controller-runtime sees it as terminal too")
	assert.Equal(t, `terminal error (InvalidImage): image "x" does not exist`, err.Error())
	var te *step.TerminalError
	require.ErrorAs(t, err, &te)
	assert.Equal(t, "InvalidImage", te.Reason)

	require.ErrorAs(t, step.Terminal("", cause), &te)
	assert.Equal(t, conditions.ReasonTerminalError, te.Reason, "the default reason")
}

func TestThrottled(t *testing.T) {
	cause := errors.New("429 Too Many Requests")
	assert.Nil(t, step.Throttled(nil, time.Second), "a nil error stays nil")
	err := fmt.Errorf("cannot create network: %w", step.Throttled(cause, -time.Second))
	assert.True(t, step.IsThrottled(err))
	assert.False(t, step.IsTerminal(err))
	assert.ErrorIs(t, err, cause)
	var te *step.ThrottledError
	require.ErrorAs(t, err, &te)
	assert.Zero(t, te.RetryAfter, "a negative hint is no hint")
	assert.False(t, step.IsThrottled(cause))
}

func TestEnvOutsideAReconcile(t *testing.T) {
	ctx := t.Context()
	env := step.EnvFrom(ctx)
	assert.Nil(t, env)
	assert.Equal(t, step.DefaultPollInterval, env.PollInterval())
	assert.Empty(t, env.Account())
	assert.False(t, env.RateLimited())
	waited, err := env.Wait(ctx)
	require.NoError(t, err)
	assert.Zero(t, waited)
	step.RecordChange(ctx) // no Env: nothing to count, no panic
	assert.Zero(t, env.Changes())
}

func TestEnvCountsChangesAndAccounts(t *testing.T) {
	env := step.NewEnv(nil, step.EnvOptions{PollInterval: 3 * time.Second})
	ctx := step.ContextWithEnv(t.Context(), env)
	step.RecordChange(ctx)
	step.RecordChange(ctx)
	assert.Equal(t, int64(2), env.Changes())
	assert.Equal(t, 3*time.Second, env.PollInterval())

	tenant := step.WithAccount(ctx, "tenant-a")
	assert.Equal(t, "tenant-a", step.EnvFrom(tenant).Account())
	assert.Empty(t, env.Account(), "the reconcile's own Env keeps its account")
	step.RecordChange(tenant)
	assert.Equal(t, int64(3), env.Changes(), "a copy for an account counts into the same reconcile")

	outside := step.WithAccount(t.Context(), "tenant-b")
	assert.Equal(t, step.DefaultPollInterval, step.EnvFrom(outside).PollInterval())
}

package reconcile_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/internal/testtypes"
	"github.com/capkit/capkit/ratelimit"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/reconcile/internal/fakecloud"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/redact"
)

func TestEnvPollInterval(t *testing.T) {
	obj := &testtypes.FooMachine{}
	tests := []struct {
		name string
		env  *step.Env
		want time.Duration
	}{
		{name: "outside a reconcile", env: nil, want: step.DefaultPollInterval},
		{name: "reconciler default", env: reconcile.NewEnv(obj), want: step.DefaultPollInterval},
		{name: "WithDefaultRequeue", env: reconcile.NewEnv(obj, reconcile.WithPollInterval(3*time.Second)), want: 3 * time.Second},
		{name: "non-positive requeue", env: reconcile.NewEnv(obj, reconcile.WithPollInterval(-1)), want: step.DefaultPollInterval},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.env.PollInterval())
			ctx := t.Context()
			if tt.env != nil {
				ctx = step.ContextWithEnv(ctx, tt.env)
			}
			assert.Same(t, tt.env, step.EnvFrom(ctx))
		})
	}
}

// TestEnsureInheritsThePollInterval: Ensure and EnsureDeleted wait with the reconcile's poll interval (the
// reconciler's WithDefaultRequeue), unless the resource has its own (WithPollInterval).
func TestEnsureInheritsThePollInterval(t *testing.T) {
	tests := []struct {
		name string
		env  *step.Env
		opts []ensure.Option
		want time.Duration
	}{
		{name: "no env", want: step.DefaultPollInterval},
		{name: "env", env: reconcile.NewEnv(&testtypes.FooMachine{}, reconcile.WithPollInterval(2*time.Second)), want: 2 * time.Second},
		{name: "own interval wins", env: reconcile.NewEnv(&testtypes.FooMachine{}, reconcile.WithPollInterval(2*time.Second)),
			opts: []ensure.Option{ensure.WithPollInterval(5 * time.Second)}, want: 5 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			if tt.env != nil {
				ctx = step.ContextWithEnv(ctx, tt.env)
			}
			c, tr := fakecloud.New(), fakecloud.NewTracker()
			c.CreateState = "creating"
			res, err := ensure.Exists(ctx, tr, "vpc", fakecloud.WithStates{Cloud: c}, ensure.Given(fakecloud.Spec{CIDR: "10.0.0.0/16"}), tt.opts...)
			require.NoError(t, err)
			assert.Equal(t, conditions.ReasonResourcePending, res.Result.Reason)
			assert.Equal(t, tt.want, res.Result.RequeueAfter, "Ensure")

			c.Nets[res.ID].State = "deleting-slowly"
			del, err := ensure.Deleted(ctx, tr, "vpc", fakecloud.WithStates{Cloud: c}, tt.opts...)
			require.NoError(t, err)
			assert.False(t, del.Done)
			assert.Equal(t, tt.want, del.RequeueAfter, "EnsureDeleted")
		})
	}
}

// TestEventfAlwaysGoesSomewhere: with a recorder the event is recorded; without one, or outside a reconcile,
// it is logged; masked by the reconcile's Redactor either way.
func TestEventfAlwaysGoesSomewhere(t *testing.T) {
	const secret = "hunter2-very-secret-token"
	tests := []struct {
		name       string
		env        func(rec *fakecloud.Recorder) *step.Env
		wantEvents []string
		wantLogged bool
	}{
		{name: "recorder", env: func(rec *fakecloud.Recorder) *step.Env {
			return reconcile.NewEnv(&testtypes.FooMachine{}, reconcile.WithEventRecorder(rec))
		}, wantEvents: []string{"Warning CreateFailed Reconcile the cloud said: token [REDACTED]"}},
		{name: "env without recorder", env: func(*fakecloud.Recorder) *step.Env { return reconcile.NewEnv(&testtypes.FooMachine{}) }, wantLogged: true},
		{name: "outside a reconcile", env: func(*fakecloud.Recorder) *step.Env { return nil }, wantLogged: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs strings.Builder
			ctx := ctrl.LoggerInto(t.Context(), funcr.New(func(prefix, args string) { logs.WriteString(prefix + args + "\n") }, funcr.Options{}))
			red := redact.New()
			red.Add([]byte(secret))
			ctx = redact.NewContext(ctx, red)
			rec := &fakecloud.Recorder{}
			if env := tt.env(rec); env != nil {
				ctx = step.ContextWithEnv(ctx, env)
			}
			step.Eventf(ctx, step.EventWarning, "CreateFailed", "the cloud said: token %s", secret)
			assert.Equal(t, tt.wantEvents, rec.All())
			assert.NotContains(t, logs.String(), secret)
			if tt.wantLogged {
				assert.Contains(t, logs.String(), `"reason"="CreateFailed"`)
				assert.Contains(t, logs.String(), `the cloud said: token`)
			} else {
				assert.Empty(t, logs.String())
			}
		})
	}
}

func TestEnvWait(t *testing.T) {
	ctx := t.Context()
	var none *step.Env
	w, err := none.Wait(ctx)
	require.NoError(t, err)
	assert.Zero(t, w, "no rate limiter: no wait")
	assert.Empty(t, none.Account())
	assert.Nil(t, none.Object())

	l, err := ratelimit.New(1, 1)
	require.NoError(t, err)
	obj := &testtypes.FooMachine{}
	env := reconcile.NewEnv(obj, reconcile.WithRateLimiter(l))
	assert.Same(t, obj, env.Object())
	_, err = env.Wait(ctx)
	require.NoError(t, err, "the burst")
	short, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
	defer cancel()
	_, err = env.Wait(short)
	assert.ErrorContains(t, err, `cannot wait for the rate limit of ""`, "a wait longer than the context fails at once")
}

// A service test runs a service in the environment a reconciler would give it: events go to the recorder,
// Ensure waits with the reconciler's poll interval. Outside a reconcile, an event is logged, never dropped.
func ExampleNewEnv() {
	rec := &fakecloud.Recorder{}
	env := reconcile.NewEnv(&testtypes.FooMachine{}, reconcile.WithEventRecorder(rec), reconcile.WithPollInterval(3*time.Second))
	ctx := step.ContextWithEnv(context.Background(), env)
	step.Eventf(ctx, step.EventNormal, "Resized", "disk resized to %d GiB", 20)
	fmt.Println(rec.All(), step.EnvFrom(ctx).PollInterval())

	logger := funcr.New(func(_, args string) { fmt.Println(args) }, funcr.Options{})
	step.Eventf(ctrl.LoggerInto(context.Background(), logger), step.EventWarning, "Stuck", "no recorder")
	fmt.Println(step.EnvFrom(context.Background()).PollInterval())
	// Output:
	// [Normal Resized Reconcile disk resized to 20 GiB] 3s
	// "level"=0 "msg"="event" "type"="Warning" "reason"="Stuck" "action"="Reconcile" "note"="no recorder"
	// 10s
}

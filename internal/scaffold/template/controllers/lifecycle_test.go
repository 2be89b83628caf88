package controllers_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/stretchr/testify/require"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/capkit/capkit/providertest/lifecycle"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/reconcile/ensure"

	"github.com/capkit/capkit/internal/scaffold/template/api/v1beta2"
	"github.com/capkit/capkit/internal/scaffold/template/cloud"
	"github.com/capkit/capkit/internal/scaffold/template/controllers"
	"github.com/capkit/capkit/internal/scaffold/template/webhooks"
)

// TestLifecycle runs the controllers and webhooks on a real API server, creates a cluster with one control
// plane machine and two workers, waits until everything is provisioned, deletes it and checks that the cloud
// holds nothing of it any more.
func TestLifecycle(t *testing.T) {
	ctx := context.Background()
	c := cloud.NewMemory()
	poll := 50 * time.Millisecond
	m, err := env.StartManager(ctx, logr.Discard(), func(mgr ctrl.Manager) error {
		return errors.Join(controllers.SetupWithManager(mgr, c, reconcile.WithPollInterval(poll), reconcile.WithResyncPeriod(poll)),
			webhooks.SetupWithManager(mgr))
	})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, m.Stop()) })
	ns, err := env.CreateNamespace(ctx, "lifecycle")
	require.NoError(t, err)

	lifecycle.Run(t, env.Client, lifecycle.Spec{
		Namespace: ns, ClusterName: "lc",
		InfraClusterGVK:      v1beta2.GroupVersion.WithKind("QuuxCluster"),
		InfraMachineGVK:      v1beta2.GroupVersion.WithKind("QuuxMachine"),
		ControlPlaneMachines: 1, WorkerMachines: 2,
		PlayCAPI: true, Timeout: time.Minute,
		LeakChecker: lifecycle.LeakCheckerFunc(func(_ context.Context, q lifecycle.LeakQuery) ([]string, error) {
			return c.Tagged(ensure.TagOwnershipKey, q.OwnershipKeys...), nil
		}),
	})
}

package reconcile

import (
	"context"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/controller"

	"github.com/capkit/capkit/reconcile/step"
)

// RecorderForTest returns the event recorder of a reconciler, for tests of SetupWithManager.
func (r *base) RecorderForTest() step.EventRecorder { return r.recorder }

// ControllerOptionsForTest returns the controller options SetupWithManager gives the reconciler's controller
// in mgr.
func (r *base) ControllerOptionsForTest(mgr ctrl.Manager) controller.Options {
	return r.controllerOptions(mgr)
}

// IdentityUsersForTest returns the names of the InfraClusters in mgr's cache that the identity watches map an
// event of the identity named name, or (name empty) of the Secret named secret, to.
func (r *base) IdentityUsersForTest(ctx context.Context, mgr ctrl.Manager, name, secret string) ([]string, error) {
	u, err := r.identityUsers(mgr)
	if err != nil {
		return nil, err
	}
	ics := u.ofSecret(ctx, secret)
	if name != "" {
		ics = u.ofIdentities(ctx, name)
	}
	var out []string
	for _, ic := range ics {
		out = append(out, ic.GetNamespace()+"/"+ic.GetName())
	}
	return out, nil
}

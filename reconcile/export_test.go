package reconcile

import (
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/controller"
)

// RecorderForTest returns the event recorder of a reconciler, for tests of SetupWithManager.
func (r *base) RecorderForTest() EventRecorder { return r.recorder }

// ControllerOptionsForTest returns the controller options SetupWithManager gives the reconciler's controller
// in mgr.
func (r *base) ControllerOptionsForTest(mgr ctrl.Manager) controller.Options {
	return r.controllerOptions(mgr)
}

package services

import (
	"context"
	"errors"
	"fmt"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/examples/vspherecloud/api/v1beta2"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope"
)

// The services of this package plug into capkit's reconcilers without glue.
var (
	_ reconcile.Service[scope.ClusterScoper[*v1beta2.VSphereCluster]] = (*VCenter)(nil)
	_ reconcile.Service[scope.MachineScoper[*v1beta2.VSphereMachine]] = (*Machine)(nil)
)

var errNilSessions = errors.New("sessions must not be nil")

// VCenter is the step of a VSphereCluster: it logs in to the vCenter with the credentials Secret, and marks the
// cluster provisioned once spec.controlPlaneEndpoint is set (vspherecloud does not make one). It creates nothing in
// the vCenter, so its delete has nothing to do.
type VCenter struct {
	sessions *Sessions
}

// NewVCenter returns the VSphereCluster's step on sessions.
func NewVCenter(sessions *Sessions) (*VCenter, error) {
	if sessions == nil {
		return nil, fmt.Errorf("cannot create the vCenter service: %w", errNilSessions)
	}
	return &VCenter{sessions: sessions}, nil
}

// Reconcile logs in and marks the cluster provisioned.
func (v *VCenter) Reconcile(ctx context.Context, s scope.ClusterScoper[*v1beta2.VSphereCluster]) (step.Result, error) {
	vc := s.InfraCluster()
	if !vc.Spec.ControlPlaneEndpoint.IsValid() {
		return step.Result{}, step.Terminal(conditions.ReasonInvalidParameters,
			errors.New("spec.controlPlaneEndpoint must be set: vspherecloud does not make one"))
	}
	if _, err := v.sessions.Client(ctx, vc); err != nil {
		return step.Result{}, err
	}
	vc.SetProvisioned(true)
	return step.Result{Done: true}, nil
}

// Delete has nothing to delete.
func (v *VCenter) Delete(context.Context, scope.ClusterScoper[*v1beta2.VSphereCluster]) (step.Result, error) {
	return step.Result{Done: true}, nil
}

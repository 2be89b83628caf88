package services

import (
	"context"
	"fmt"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope"

	"github.com/capkit/capkit/internal/scaffold/template/api/v1beta2"
	"github.com/capkit/capkit/internal/scaffold/template/cloud"
)

// Instance is the step of a QuuxMachine: it creates the instance with the Machine's bootstrap data as user
// data and sets spec.providerID, status.addresses and, once the instance runs, the provisioned flag.
//
// The instance's ID is recorded in spec.providerID through scope.ProviderIDTracker, so that the checkpoint
// after the create is a single spec write.
type Instance struct {
	instances ensure.Resource[cloud.InstanceSpec, *cloud.Instance]
}

// NewInstance returns the instance service on c.
func NewInstance(c cloud.Instances) (*Instance, error) {
	if c == nil {
		return nil, fmt.Errorf("cannot create the instance service: %w", errNilCloud)
	}
	return &Instance{instances: Instances(c)}, nil
}

// tracker keeps the instance's ID in spec.providerID and every other ID in status.resources.
func (n *Instance) tracker(s scope.MachineScoper[*v1beta2.QuuxMachine]) (scope.ResourceTracker, error) {
	return scope.ProviderIDTracker(s, s.InfraMachine(), KeyInstance, v1beta2.ProviderID, v1beta2.InstanceIDFromProviderID)
}

// Reconcile ensures the instance exists and reports it.
func (n *Instance) Reconcile(ctx context.Context, s scope.MachineScoper[*v1beta2.QuuxMachine]) (step.Result, error) {
	qm := s.InfraMachine()
	tracker, err := n.tracker(s)
	if err != nil {
		return step.Result{}, err
	}
	// The bootstrap data is read only when the instance must be created.
	desired := ensure.Lazy(func(ctx context.Context) (cloud.InstanceSpec, error) {
		data, _, err := s.BootstrapData(ctx) // secret: never logged, never in an error
		if err != nil {
			return cloud.InstanceSpec{}, err
		}
		return cloud.InstanceSpec{Name: qm.Name, Image: orDefault(qm.Spec.Image, v1beta2.DefaultImage),
			Type: orDefault(qm.Spec.InstanceType, v1beta2.DefaultInstanceType), UserData: data}, nil
	})
	res, err := ensure.Exists(ctx, tracker, KeyInstance, n.instances, desired, ensure.CreateOnce())
	if err != nil {
		return step.Result{}, err
	}
	qm.Status.Addresses = []contract.MachineAddress{
		{Type: contract.MachineInternalIP, Address: res.Observed.PrivateIP},
		{Type: contract.MachineHostName, Address: res.Observed.Name},
	}
	if !res.Result.Done { // booting
		return res.Result, nil
	}
	qm.SetProvisioned(true)
	return step.Result{Done: true}, nil
}

// Delete deletes the instance, recorded in spec.providerID or found by its ownership tags.
func (n *Instance) Delete(ctx context.Context, s scope.MachineScoper[*v1beta2.QuuxMachine]) (step.Result, error) {
	tracker, err := n.tracker(s)
	if err != nil {
		return step.Result{}, err
	}
	return ensure.Deleted(ctx, tracker, KeyInstance, n.instances)
}

// orDefault returns v, or def when v is empty.
func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// Package services holds the VM service of the documentation's provider: the README's "provider in an
// afternoon" sketch, whole.
package services

import (
	"context"
	"errors"
	"time"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/internal/docstest/myprovider/api/v1beta2"
	"github.com/capkit/capkit/internal/docstest/myprovider/mycloud"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope"
)

// VMSpec is the VM a MyMachine wants.
type VMSpec struct {
	Image    string
	UserData []byte
}

// Validate refuses a spec the cloud would refuse.
func (s VMSpec) Validate() error {
	if s.Image == "" {
		return errors.New("cannot create a VM: spec.image is empty")
	}
	return nil
}

// KeyVM is the resource key of a MyMachine's VM.
const KeyVM = "vm"

// snippet:start sketch

// VMs is mycloud's VMs as a ensure.Resource: one per kind of cloud resource.
func VMs(cloud *mycloud.Client) ensure.Resource[VMSpec, *mycloud.VM] {
	return ensure.NewResource(ensure.ResourceFuncs[VMSpec, *mycloud.VM]{
		ValidateFunc:   VMSpec.Validate, // before any call that sends the spec: a terminal condition
		IDFunc:         func(vm *mycloud.VM) string { return vm.ID },
		GetFunc:        ensure.GoneIfNotFound(cloud.DescribeVM, mycloud.IsNotFound), // NotFound: gone
		FindByTagsFunc: ensure.FindOldest(cloud.ListVMs, func(vm *mycloud.VM) time.Time { return vm.LaunchTime }),
		DeleteFunc:     ensure.IgnoreErrors(cloud.TerminateVM, mycloud.IsNotFound),
		CreateFunc: func(ctx context.Context, s VMSpec, token string, tags map[string]string) (*mycloud.VM, error) {
			return cloud.RunVM(ctx, s.Image, s.UserData, token, tags) // token: the cloud's idempotency token
		},
		// What mycloud promises: ensure relies on exactly this; declaring nothing gets the careful default.
		Guarantees: ensure.Guarantees{Idempotency: ensure.IdempotentByToken, ImmediateSearch: true},
		// Optional: PendingFunc (states to wait out), DiffFunc and UpdateFunc (in-place updates),
		// ClassifyFunc (quota errors made step.Terminal, 429s step.Throttled), PollOperationFunc (a
		// CreateFunc that returns ensure.Accepted(operationID)).
	})
}

// S is what a machine service sees: typed, no lifecycle methods.
type S = scope.MachineScoper[*v1beta2.MyMachine]

// VM is the step of a MyMachine: its VM, whose ID is spec.providerID.
func VM(vms ensure.Resource[VMSpec, *mycloud.VM]) reconcile.Service[S] {
	// tracker keeps the VM's ID in spec.providerID ("mycloud://vm-1"): the checkpoint is one spec write.
	tracker := func(s S) (scope.ResourceTracker, error) {
		return scope.ProviderIDTracker(s, s.InfraMachine(), KeyVM, v1beta2.ProviderID, v1beta2.VMIDFromProviderID)
	}
	return reconcile.ServiceFuncs[S]{
		ReconcileFunc: func(ctx context.Context, s S) (step.Result, error) {
			m := s.InfraMachine() // *v1beta2.MyMachine: no type assertion
			tr, err := tracker(s)
			if err != nil {
				return step.Result{}, err
			}
			spec := ensure.Lazy(func(ctx context.Context) (VMSpec, error) { // only when the VM must be created
				data, _, err := s.BootstrapData(ctx) // never logged, never in errors or conditions
				return VMSpec{Image: m.Spec.Image, UserData: data}, err
			})
			res, err := ensure.Exists(ctx, tr, KeyVM, vms, spec, ensure.CreateOnce()) // steady state: one Get
			if err != nil || !res.Result.Done {
				return res.Result, err // errors retried with backoff (step.Terminal: condition, no retry)
			}
			m.Status.Addresses = []contract.MachineAddress{ // the observation: no second read
				{Type: contract.MachineInternalIP, Address: res.Observed.PrivateIP},
			}
			m.SetProvisioned(true) // status.initialization.provisioned
			return step.Result{Done: true}, nil
		},
		DeleteFunc: func(ctx context.Context, s S) (step.Result, error) {
			tr, err := tracker(s)
			if err != nil {
				return step.Result{}, err
			}
			return ensure.Deleted(ctx, tr, KeyVM, vms) // not done: requeued, no error
		},
	}
}

// snippet:end sketch

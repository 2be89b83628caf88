package services_test

import (
	"testing"

	"github.com/capkit/capkit/examples/vspherecloud/cloud"
	"github.com/capkit/capkit/examples/vspherecloud/services"
	"github.com/capkit/capkit/examples/vspherecloud/vspheretest"
	"github.com/capkit/capkit/providertest/ensuretest"
	"github.com/capkit/capkit/reconcile/ensure"
)

// TestVMScenarios runs ensuretest's scenarios for the VM resource on the simulator, whose clones take cloneTime on
// its clock. The update scenarios are not run: the VM resource updates nothing in place.
func TestVMScenarios(t *testing.T) {
	invalid := validSpec()
	invalid.Name = "M_0"
	ensuretest.RunScenarios(t, ensuretest.ResourceUnderTest[cloud.CloneSpec, *cloud.VM]{
		Key:             services.KeyVM,
		ValidSpec:       validSpec(),
		InvalidSpec:     invalid,
		OutOfBandDelete: ensuretest.Recreate, // a VM's name is free again once it is deleted
		Options:         []ensure.Option{clusterTags},
		New: func(t testing.TB) ensuretest.CloudFixture[cloud.CloneSpec, *cloud.VM] {
			s := vspheretest.New(t, vspheretest.WithCloneTime(cloneTime))
			return ensuretest.CloudFixture[cloud.CloneSpec, *cloud.VM]{
				Resource:        services.NewVMs(s.Client, services.WithMaxCloneTime(maxCloneTime)),
				Count:           func() int { return s.VMs(t) },
				DeleteOutOfBand: s.Delete,
				// The search always lags: it lists a VM once its clone has ended.
				LagSearch:         func() error { return nil },
				MakePending:       func(id string) error { return s.SetGuestIP(id, "") },
				Advance:           s.Advance,
				AsyncCreate:       true,
				FailNextOperation: func() error { s.FailNextClone(); return nil },
			}
		},
	})
}

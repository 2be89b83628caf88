package providertest_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"go.uber.org/mock/gomock"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/mocks"
	"github.com/capkit/capkit/providertest"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/scope"
)

type vmSpec struct {
	Image    string
	UserData string
}

// vmService is a provider's machine service, written against scope.MachineScoper and a Resource.
type vmService struct{ vms reconcile.Resource[vmSpec] }

func (v *vmService) Reconcile(ctx context.Context, s scope.MachineScoper) (reconcile.Result, error) {
	if !s.ClusterInfrastructureProvisioned() {
		return reconcile.Result{Reason: "WaitingForCluster", RequeueAfter: 5 * time.Second}, nil
	}
	data, _, err := s.BootstrapData(ctx)
	if errors.Is(err, scope.ErrBootstrapDataNotReady) {
		return reconcile.Result{Reason: reconcile.ReasonWaitingForBootstrapData}, nil
	}
	if err != nil {
		return reconcile.Result{}, err
	}
	out, err := reconcile.Ensure(ctx, s, "vm", v.vms, vmSpec{Image: "ubuntu", UserData: string(data)})
	if err != nil {
		return reconcile.Result{}, err
	}
	if err := s.SetProviderID("mem://" + out.ID); err != nil {
		return reconcile.Result{}, err
	}
	if err := s.SetAddresses([]contract.MachineAddress{{Type: contract.MachineInternalIP, Address: "10.0.0.4"}}); err != nil {
		return reconcile.Result{}, err
	}
	return reconcile.Result{Done: true}, s.SetProvisioned(true)
}

func (v *vmService) Delete(ctx context.Context, s scope.MachineScoper) (reconcile.Result, error) {
	done, err := reconcile.EnsureDeleted(ctx, s, "vm", v.vms)
	return reconcile.Result{Done: done}, err
}

// newVMService is the constructor the cases share: the service and its mocked cloud.
func newVMService(ctrl *gomock.Controller) (reconcile.Service[scope.MachineScoper], *mocks.MockResource[vmSpec]) {
	vms := mocks.NewMockResource[vmSpec](ctrl)
	return &vmService{vms: vms}, vms
}

func TestMachineServiceCases(t *testing.T) {
	ready := providertest.ScopeState{
		ClusterInfrastructureProvisioned: true,
		BootstrapDataSecretName:          "m-1",
		BootstrapData:                    []byte("#cloud-config\nsecret-token: abc\n"),
	}
	spec := vmSpec{Image: "ubuntu", UserData: string(ready.BootstrapData)}
	tags := reconcile.OwnershipTags(providertest.DefaultOwnershipKey, "vm")
	provisioned := ready
	provisioned.ResourceIDs = map[string]string{"vm": "vm-1"}
	provisioned.ProviderID = "mem://vm-1"
	provisioned.Addresses = []contract.MachineAddress{{Type: contract.MachineInternalIP, Address: "10.0.0.4"}}
	provisioned.Provisioned = true

	providertest.RunMachineServiceCases(t, newVMService,
		providertest.MachineCase[*mocks.MockResource[vmSpec]]{
			Name:  "creates the VM and records it",
			Given: ready,
			Expect: func(_ *mocks.MockMachineScoper, vms *mocks.MockResource[vmSpec]) {
				vms.EXPECT().Validate(spec).Return(nil)
				vms.EXPECT().FindByTags(gomock.Any(), tags).Return("", false, nil)
				vms.EXPECT().Create(gomock.Any(), spec, reconcile.IdempotencyToken(providertest.DefaultOwnershipKey, "vm"), tags).Return("vm-1", nil)
			},
			Want: providertest.Outcome{
				Result: reconcile.Result{Done: true},
				State: func(s *providertest.ScopeState) {
					s.ResourceIDs["vm"] = "vm-1"
					s.ProviderID = "mem://vm-1"
					s.Addresses = provisioned.Addresses
					s.Provisioned = true
				},
				Checkpoints: 1,
			},
		},
		providertest.MachineCase[*mocks.MockResource[vmSpec]]{
			Name:  "finds the tracked VM and changes nothing",
			Given: provisioned,
			Expect: func(_ *mocks.MockMachineScoper, vms *mocks.MockResource[vmSpec]) {
				vms.EXPECT().Validate(spec).Return(nil)
				vms.EXPECT().Get(gomock.Any(), "vm-1").Return(true, nil)
			},
			Want: providertest.Outcome{Result: reconcile.Result{Done: true}},
		},
		providertest.MachineCase[*mocks.MockResource[vmSpec]]{
			Name:  "waits for the cluster infrastructure",
			Given: providertest.ScopeState{BootstrapDataSecretName: "m-1"},
			Want:  providertest.Outcome{Result: reconcile.Result{Reason: "WaitingForCluster", RequeueAfter: 5 * time.Second}},
		},
		providertest.MachineCase[*mocks.MockResource[vmSpec]]{
			Name:  "waits for the bootstrap data",
			Given: providertest.ScopeState{ClusterInfrastructureProvisioned: true},
			Want:  providertest.Outcome{Result: reconcile.Result{Reason: reconcile.ReasonWaitingForBootstrapData}},
		},
		providertest.MachineCase[*mocks.MockResource[vmSpec]]{
			Name:  "a bootstrap Secret without data is an error",
			Given: providertest.ScopeState{ClusterInfrastructureProvisioned: true, BootstrapDataSecretName: "m-1"},
			Want:  providertest.Outcome{Error: providertest.Transient, ErrorIs: scope.ErrBootstrapDataMalformed},
		},
		providertest.MachineCase[*mocks.MockResource[vmSpec]]{
			Name:  "invalid parameters are terminal and reach no cloud",
			Given: ready,
			Expect: func(_ *mocks.MockMachineScoper, vms *mocks.MockResource[vmSpec]) {
				vms.EXPECT().Validate(spec).Return(errors.New("image \"ubuntu\" is not in the catalog"))
			},
			Want: providertest.Outcome{Error: providertest.Terminal, Reason: reconcile.ReasonInvalidParameters, ErrorContains: "catalog"},
		},
		providertest.MachineCase[*mocks.MockResource[vmSpec]]{
			Name:  "a failed checkpoint after the create is transient",
			Given: ready,
			Expect: func(m *mocks.MockMachineScoper, vms *mocks.MockResource[vmSpec]) {
				m.EXPECT().PatchNow(gomock.Any()).Return(errors.New("conflict"))
				vms.EXPECT().Validate(spec).Return(nil)
				vms.EXPECT().FindByTags(gomock.Any(), tags).Return("", false, nil)
				vms.EXPECT().Create(gomock.Any(), spec, gomock.Any(), tags).Return("vm-1", nil)
			},
			Want: providertest.Outcome{
				Error: providertest.Transient, ErrorContains: "conflict",
				State: func(s *providertest.ScopeState) { s.ResourceIDs["vm"] = "vm-1" },
			},
		},
		providertest.MachineCase[*mocks.MockResource[vmSpec]]{
			Name:   "deletes the VM and forgets it",
			Given:  provisioned,
			Delete: true,
			Expect: func(_ *mocks.MockMachineScoper, vms *mocks.MockResource[vmSpec]) {
				gomock.InOrder(
					vms.EXPECT().Get(gomock.Any(), "vm-1").Return(true, nil),
					vms.EXPECT().Delete(gomock.Any(), "vm-1").Return(nil),
					vms.EXPECT().Get(gomock.Any(), "vm-1").Return(false, nil),
					vms.EXPECT().FindByTags(gomock.Any(), tags).Return("", false, nil),
				)
			},
			Want: providertest.Outcome{
				Result: reconcile.Result{Done: true},
				State:  func(s *providertest.ScopeState) { delete(s.ResourceIDs, "vm") },
			},
			Verify: func(t *testing.T, got providertest.ScopeState, _ *mocks.MockResource[vmSpec]) {
				assert.Empty(t, got.ResourceIDs)
			},
		},
	)
}

// endpointService is a provider's cluster service that needs no cloud: it publishes a fixed endpoint.
type endpointService struct{}

func (endpointService) Reconcile(ctx context.Context, s scope.ClusterScoper) (reconcile.Result, error) {
	if s.Paused() {
		return reconcile.Result{}, nil
	}
	ep, err := s.ControlPlaneEndpoint()
	if err != nil {
		return reconcile.Result{}, err
	}
	if !ep.IsValid() {
		ep = contract.APIEndpoint{Host: s.ClusterName() + ".example.com", Port: 6443}
		if err := s.SetControlPlaneEndpoint(ep); err != nil {
			return reconcile.Result{}, err
		}
	}
	domains, err := s.FailureDomains()
	if err != nil {
		return reconcile.Result{}, err
	}
	if len(domains) == 0 {
		if err := s.SetFailureDomains([]contract.FailureDomain{{Name: "zone-a"}}); err != nil {
			return reconcile.Result{}, err
		}
	}
	if _, err := conditions.MarkTrue(s.Conditions(), "EndpointReady", "Published", fmt.Sprintf("%s:%d", ep.Host, ep.Port)); err != nil {
		return reconcile.Result{}, err
	}
	s.SetSummaryConditions("EndpointReady")
	return reconcile.Result{Done: true}, s.SetProvisioned(true)
}

func (endpointService) Delete(context.Context, scope.ClusterScoper) (reconcile.Result, error) {
	return reconcile.Result{Done: true}, nil
}

func TestClusterServiceCases(t *testing.T) {
	newService := func(*gomock.Controller) (reconcile.Service[scope.ClusterScoper], struct{}) {
		return endpointService{}, struct{}{}
	}
	providertest.RunClusterServiceCases(t, newService,
		providertest.ClusterCase[struct{}]{
			Name:  "publishes the endpoint and a condition",
			Given: providertest.ScopeState{ClusterName: "demo"},
			Want: providertest.Outcome{
				Result: reconcile.Result{Done: true},
				State: func(s *providertest.ScopeState) {
					s.ControlPlaneEndpoint = contract.APIEndpoint{Host: "demo.example.com", Port: 6443}
					s.FailureDomains = []contract.FailureDomain{{Name: "zone-a"}}
					s.Conditions = []metav1.Condition{{Type: "EndpointReady", Status: metav1.ConditionTrue, Reason: "Published", Message: "demo.example.com:6443"}}
					s.SummaryConditions = []string{"EndpointReady"}
					s.Provisioned = true
				},
			},
		},
		providertest.ClusterCase[struct{}]{
			Name:  "paused: nothing happens",
			Given: providertest.ScopeState{Paused: true},
			Expect: func(m *mocks.MockClusterScoper, _ struct{}) {
				m.EXPECT().SetControlPlaneEndpoint(gomock.Any()).Times(0)
			},
			Want: providertest.Outcome{},
		},
		providertest.ClusterCase[struct{}]{
			Name:   "delete is done at once",
			Delete: true,
			Want:   providertest.Outcome{Result: reconcile.Result{Done: true}},
		},
	)
}

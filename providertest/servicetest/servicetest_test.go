package servicetest_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/mock/gomock"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/internal/testtypes"
	"github.com/capkit/capkit/mocks"
	"github.com/capkit/capkit/providertest/servicetest"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope"
	"github.com/capkit/capkit/scope/scopetest"
)

type vmSpec struct {
	Image    string
	UserData string
}

func providerID(id string) string { return "mem://" + id }

func instanceID(pid string) (string, error) {
	id, ok := strings.CutPrefix(pid, "mem://")
	if !ok || id == "" {
		return "", fmt.Errorf("cannot parse provider ID %q", pid)
	}
	return id, nil
}

// declared is a mocked Resource of a cloud with idempotency tokens whose search lists a resource as soon as its
// create returns, as the cases here expect (the next Ensure adopts what a failed checkpoint left): it declares so,
// and ensure notes no create before calling it.
type declared[S, O any] struct{ *mocks.MockResource[S, O] }

// Guarantees declares the tokens and the immediate search.
func (declared[S, O]) Guarantees() ensure.Guarantees {
	return ensure.Guarantees{Idempotency: ensure.IdempotentByToken, ImmediateSearch: true}
}

// vmService is a provider's machine service: one VM per machine, its ID in spec.providerID.
// Its VMs are observed as their IDs (string): all this service reads of them.
type vmService struct {
	vms ensure.Resource[vmSpec, string]
}

func (v *vmService) Reconcile(ctx context.Context, s scope.MachineScoper[*testtypes.FooMachine]) (step.Result, error) {
	if !s.Cluster().InfrastructureProvisioned {
		return step.Result{Reason: "WaitingForCluster", RequeueAfter: 5 * time.Second}, nil
	}
	m := s.InfraMachine()
	tr, err := scope.ProviderIDTracker(s, m, "vm", providerID, instanceID)
	if err != nil {
		return step.Result{}, err
	}
	// The bootstrap data is read only when the VM must be created.
	spec := ensure.Lazy(func(ctx context.Context) (vmSpec, error) {
		data, _, err := s.BootstrapData(ctx)
		return vmSpec{Image: "ubuntu", UserData: string(data)}, err
	})
	res, err := ensure.Exists(ctx, tr, "vm", v.vms, spec)
	if errors.Is(err, scope.ErrBootstrapDataNotReady) {
		return step.Result{Reason: conditions.ReasonWaitingForBootstrapData}, nil
	}
	if err != nil || !res.Result.Done {
		return res.Result, err
	}
	m.Status.Addresses = []contract.MachineAddress{{Type: contract.MachineInternalIP, Address: "10.0.0.4"}}
	m.SetProvisioned(true)
	return step.Result{Done: true}, nil
}

func (v *vmService) Delete(ctx context.Context, s scope.MachineScoper[*testtypes.FooMachine]) (step.Result, error) {
	tr, err := scope.ProviderIDTracker(s, s.InfraMachine(), "vm", providerID, instanceID)
	if err != nil {
		return step.Result{}, err
	}
	return ensure.Deleted(ctx, tr, "vm", v.vms)
}

const bootstrapData = "#cloud-config\nsecret-token: abc\n"

// machine returns a new fake scope of a machine whose Cluster is provisioned and whose bootstrap data is
// ready; edit changes it.
func machine(edit ...func(s *scopetest.FakeMachineScope[*testtypes.FooMachine])) *scopetest.FakeMachineScope[*testtypes.FooMachine] {
	s := &scopetest.FakeMachineScope[*testtypes.FooMachine]{
		FakeObject: scopetest.FakeObject[*testtypes.FooMachine]{
			Object:            &testtypes.FooMachine{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "m-0"}},
			OwnershipKeyValue: "key-m-0",
			ClusterInfo:       scope.ClusterInfo{Name: "c1", InfrastructureProvisioned: true},
		},
		MachineInfo:    scope.MachineInfo{Name: "m-0", BootstrapDataSecretName: "m-0"},
		BootstrapValue: []byte(bootstrapData),
	}
	for _, e := range edit {
		e(s)
	}
	return s
}

func provisioned(s *scopetest.FakeMachineScope[*testtypes.FooMachine]) {
	s.Object.Spec.ProviderID = providerID("vm-1")
	s.Object.Status.Addresses = []contract.MachineAddress{{Type: contract.MachineInternalIP, Address: "10.0.0.4"}}
	s.Object.SetProvisioned(true)
}

func TestRunMachineCases(t *testing.T) {
	spec := vmSpec{Image: "ubuntu", UserData: bootstrapData}
	tags := ensure.OwnershipTags("key-m-0", "vm")
	newService := func(t *testing.T) (reconcile.Service[scope.MachineScoper[*testtypes.FooMachine]], *mocks.MockResource[vmSpec, string]) {
		vms := mocks.NewMockResource[vmSpec, string](gomock.NewController(t))
		vms.EXPECT().ID(gomock.Any()).DoAndReturn(func(id string) string { return id }).AnyTimes()
		return &vmService{vms: declared[vmSpec, string]{vms}}, vms
	}
	type fake = *scopetest.FakeMachineScope[*testtypes.FooMachine]
	type vms = *mocks.MockResource[vmSpec, string]

	servicetest.RunMachineCases(t, newService, []servicetest.MachineCase[*testtypes.FooMachine, vms]{
		{
			Name:  "creates the VM and checkpoints its provider ID",
			Scope: machine(),
			Setup: func(_ *testing.T, _ fake, vms vms) {
				vms.EXPECT().FindByTags(gomock.Any(), tags).Return("", false, nil)
				vms.EXPECT().Validate(spec).Return(nil)
				vms.EXPECT().Create(gomock.Any(), spec, ensure.IdempotencyToken("key-m-0", "vm"), tags).Return("vm-1", nil)
			},
			Want: servicetest.Outcome{Result: step.Result{Done: true}},
			Check: func(t *testing.T, s fake, _ vms) {
				assert.Equal(t, "mem://vm-1", s.Object.Spec.ProviderID)
				assert.True(t, s.Object.IsProvisioned())
				require.Len(t, s.Checkpoints(), 1)
				assert.True(t, s.Checkpoints()[0].SpecOnly, "a provider ID needs a spec checkpoint only")
				assert.Equal(t, 1, s.BootstrapReads)
			},
		},
		{
			Name:  "finds the tracked VM with one read, and reads no bootstrap data",
			Scope: machine(provisioned),
			Setup: func(_ *testing.T, _ fake, vms vms) {
				vms.EXPECT().Get(gomock.Any(), "vm-1").Return("vm-1", true, nil)
			},
			Want: servicetest.Outcome{Result: step.Result{Done: true}, Unchanged: true},
			Check: func(t *testing.T, s fake, _ vms) {
				assert.Zero(t, s.BootstrapReads, "the Lazy spec is not computed for a VM that exists")
			},
		},
		{
			Name:  "waits for the cluster infrastructure",
			Scope: machine(func(s fake) { s.ClusterInfo.InfrastructureProvisioned = false }),
			Want:  servicetest.Outcome{Result: step.Result{Reason: "WaitingForCluster", RequeueAfter: 5 * time.Second}, Unchanged: true},
		},
		{
			Name:  "waits for the bootstrap data",
			Scope: machine(func(s fake) { s.BootstrapValue = nil }),
			Setup: func(_ *testing.T, _ fake, vms vms) {
				vms.EXPECT().FindByTags(gomock.Any(), tags).Return("", false, nil)
			},
			Want: servicetest.Outcome{Result: step.Result{Reason: conditions.ReasonWaitingForBootstrapData}, Unchanged: true},
		},
		{
			Name:  "a malformed bootstrap Secret is retried",
			Scope: machine(func(s fake) { s.BootstrapErr = scope.ErrBootstrapDataMalformed }),
			Setup: func(_ *testing.T, _ fake, vms vms) {
				vms.EXPECT().FindByTags(gomock.Any(), tags).Return("", false, nil)
			},
			Want: servicetest.Outcome{Class: reconcile.ClassTransient, ErrorIs: scope.ErrBootstrapDataMalformed},
		},
		{
			Name:  "a quota error is terminal and creates nothing",
			Scope: machine(),
			Setup: func(_ *testing.T, _ fake, vms vms) {
				vms.EXPECT().FindByTags(gomock.Any(), tags).Return("", false, nil)
				vms.EXPECT().Validate(spec).Return(nil)
				vms.EXPECT().Create(gomock.Any(), spec, gomock.Any(), tags).Return("", step.Terminal("QuotaExceeded", errors.New("quota")))
			},
			Want: servicetest.Outcome{Class: reconcile.ClassTerminal, Reason: "QuotaExceeded", Unchanged: true},
		},
		{
			Name:  "a failed checkpoint is retried",
			Scope: machine(func(s fake) { s.PatchErr = errors.New("conflict") }),
			Setup: func(_ *testing.T, _ fake, vms vms) {
				vms.EXPECT().FindByTags(gomock.Any(), tags).Return("", false, nil)
				vms.EXPECT().Validate(spec).Return(nil)
				vms.EXPECT().Create(gomock.Any(), spec, gomock.Any(), tags).Return("vm-1", nil)
			},
			Want: servicetest.Outcome{Class: reconcile.ClassTransient, ErrorContains: "conflict"},
			Check: func(t *testing.T, s fake, _ vms) {
				assert.Empty(t, s.Checkpoints(), "nothing persisted: the next Ensure adopts the VM by its tags")
			},
		},
		{
			Name:   "deletes the VM and keeps the provider ID",
			Scope:  machine(provisioned),
			Delete: true,
			Setup: func(_ *testing.T, _ fake, vms vms) {
				gomock.InOrder(
					vms.EXPECT().Get(gomock.Any(), "vm-1").Return("vm-1", true, nil),
					vms.EXPECT().Delete(gomock.Any(), "vm-1").Return(nil),
					vms.EXPECT().Get(gomock.Any(), "vm-1").Return("", false, nil),
					vms.EXPECT().FindByTags(gomock.Any(), tags).Return("", false, nil),
				)
			},
			Want: servicetest.Outcome{Result: step.Result{Done: true}, Unchanged: true},
		},
	}...)
}

// TestProviderIDFromAnEnsuredID runs the README's pattern: ensure.Exists records the VM's ID in
// status.resources and checkpoints it, then the service sets the provider ID from that ID without a
// checkpoint of its own. A crash after the call loses nothing: the next reconcile finds the VM by its ID.
func TestProviderIDFromAnEnsuredID(t *testing.T) {
	spec := vmSpec{Image: "ubuntu"}
	tags := ensure.OwnershipTags("key-m-0", "vm")
	svc := func(vms ensure.Resource[vmSpec, string]) reconcile.Service[scope.MachineScoper[*testtypes.FooMachine]] {
		return reconcile.ServiceFuncs[scope.MachineScoper[*testtypes.FooMachine]]{
			ReconcileFunc: func(ctx context.Context, s scope.MachineScoper[*testtypes.FooMachine]) (step.Result, error) {
				res, err := ensure.Exists(ctx, s, "vm", vms, ensure.Given(spec))
				if err != nil || !res.Result.Done {
					return res.Result, err
				}
				s.InfraMachine().SetProviderID(providerID(res.ID))
				return step.Result{Done: true}, nil
			},
		}
	}
	newService := func(t *testing.T) (reconcile.Service[scope.MachineScoper[*testtypes.FooMachine]], *mocks.MockResource[vmSpec, string]) {
		vms := mocks.NewMockResource[vmSpec, string](gomock.NewController(t))
		vms.EXPECT().ID(gomock.Any()).DoAndReturn(func(id string) string { return id }).AnyTimes()
		vms.EXPECT().Validate(gomock.Any()).Return(nil).AnyTimes()
		return svc(declared[vmSpec, string]{vms}), vms
	}
	type fake = *scopetest.FakeMachineScope[*testtypes.FooMachine]
	type vms = *mocks.MockResource[vmSpec, string]
	servicetest.RunMachineCases(t, newService,
		servicetest.MachineCase[*testtypes.FooMachine, vms]{
			Name:  "creates the VM, checkpoints its ID and sets the provider ID from it",
			Scope: machine(),
			Setup: func(_ *testing.T, _ fake, vms vms) {
				vms.EXPECT().FindByTags(gomock.Any(), tags).Return("", false, nil)
				vms.EXPECT().Create(gomock.Any(), spec, gomock.Any(), tags).Return("vm-1", nil)
			},
			Want: servicetest.Outcome{Result: step.Result{Done: true}},
			Check: func(t *testing.T, s fake, _ vms) {
				assert.Equal(t, "mem://vm-1", s.Object.Spec.ProviderID)
				require.Len(t, s.Checkpoints(), 1)
				assert.Empty(t, s.Checkpoints()[0].Object.Spec.ProviderID, "the provider ID has no checkpoint of its own")
			},
		},
		servicetest.MachineCase[*testtypes.FooMachine, vms]{
			Name:  "after a crash: finds the recorded VM and sets the provider ID again",
			Scope: machine(func(s fake) { s.Object.Status.Resources = map[string]string{"vm": "vm-1"} }),
			Setup: func(_ *testing.T, _ fake, vms vms) {
				vms.EXPECT().Get(gomock.Any(), "vm-1").Return("vm-1", true, nil)
			},
			Want: servicetest.Outcome{Result: step.Result{Done: true}},
		},
	)
}

// networkService is a provider's cluster service: a network recorded in status.resources, the endpoint,
// a condition.
type networkService struct {
	nets ensure.Resource[string, string]
}

func (n networkService) Reconcile(ctx context.Context, s scope.ClusterScoper[*testtypes.FooCluster]) (step.Result, error) {
	c := s.InfraCluster()
	if res, err := ensure.Exists(ctx, s, "network", n.nets, ensure.Given("10.0.0.0/16")); err != nil || !res.Result.Done {
		return res.Result, err
	}
	if !c.Spec.ControlPlaneEndpoint.IsValid() {
		c.Spec.ControlPlaneEndpoint = contract.APIEndpoint{Host: s.Cluster().Name + ".example.com", Port: 6443}
	}
	if _, err := conditions.SetTrue(c, "EndpointReady", "Published", c.Spec.ControlPlaneEndpoint.Host); err != nil {
		return step.Result{}, err
	}
	c.SetProvisioned(true)
	return step.Result{Done: true}, nil
}

func (n networkService) Delete(ctx context.Context, s scope.ClusterScoper[*testtypes.FooCluster]) (step.Result, error) {
	return ensure.Deleted(ctx, s, "network", n.nets)
}

func cluster(ids map[string]string) *scopetest.FakeClusterScope[*testtypes.FooCluster] {
	c := &testtypes.FooCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c1"}}
	c.Status.Resources = ids
	return &scopetest.FakeClusterScope[*testtypes.FooCluster]{FakeObject: scopetest.FakeObject[*testtypes.FooCluster]{
		Object: c, OwnershipKeyValue: "key-c1", ClusterInfo: scope.ClusterInfo{Name: "c1"},
	}}
}

func TestRunClusterCases(t *testing.T) {
	newService := func(t *testing.T) (reconcile.Service[scope.ClusterScoper[*testtypes.FooCluster]], *mocks.MockResource[string, string]) {
		nets := mocks.NewMockResource[string, string](gomock.NewController(t))
		nets.EXPECT().Validate(gomock.Any()).Return(nil).AnyTimes()
		nets.EXPECT().ID(gomock.Any()).DoAndReturn(func(id string) string { return id }).AnyTimes()
		return networkService{nets: declared[string, string]{nets}}, nets
	}
	type fake = *scopetest.FakeClusterScope[*testtypes.FooCluster]
	type nets = *mocks.MockResource[string, string]
	servicetest.RunClusterCases(t, newService,
		servicetest.ClusterCase[*testtypes.FooCluster, nets]{
			Name:  "creates the network, records it at once and publishes the endpoint",
			Scope: cluster(nil),
			Setup: func(_ *testing.T, _ fake, nets nets) {
				nets.EXPECT().FindByTags(gomock.Any(), gomock.Any()).Return("", false, nil)
				nets.EXPECT().Create(gomock.Any(), "10.0.0.0/16", gomock.Any(), gomock.Any()).Return("net-1", nil)
			},
			Want: servicetest.Outcome{Result: step.Result{Done: true}},
			Check: func(t *testing.T, s fake, _ nets) {
				id, _ := s.PersistedResourceID("network")
				assert.Equal(t, "net-1", id)
				assert.Equal(t, "c1.example.com", s.Object.Spec.ControlPlaneEndpoint.Host)
				assert.True(t, conditions.IsTrue(s.Object, "EndpointReady"))
			},
		},
		servicetest.ClusterCase[*testtypes.FooCluster, nets]{
			Name:   "delete forgets the network",
			Scope:  cluster(map[string]string{"network": "net-1"}),
			Delete: true,
			Setup: func(_ *testing.T, _ fake, nets nets) {
				nets.EXPECT().Get(gomock.Any(), "net-1").Return("", false, nil)
				nets.EXPECT().FindByTags(gomock.Any(), gomock.Any()).Return("", false, nil)
			},
			Want: servicetest.Outcome{Result: step.Result{Done: true}},
			Check: func(t *testing.T, s fake, _ nets) {
				assert.Empty(t, s.Object.Status.Resources)
			},
		},
		servicetest.ClusterCase[*testtypes.FooCluster, nets]{
			Name:     "NewScope builds the fake from the dependencies",
			NewScope: func(*testing.T, nets) fake { return cluster(map[string]string{"network": "net-1"}) },
			Setup: func(_ *testing.T, _ fake, nets nets) {
				nets.EXPECT().Get(gomock.Any(), "net-1").Return("net-1", true, nil)
			},
			Want: servicetest.Outcome{Result: step.Result{Done: true}},
		},
	)
}

// TestCaseOptionsSetTheReconcileEnvironment checks that a case runs in the environment the reconciler would
// set up from its options: the poll interval Ensure and a step not done use, and the event recorder.
func TestCaseOptionsSetTheReconcileEnvironment(t *testing.T) {
	type fake = *scopetest.FakeClusterScope[*testtypes.FooCluster]
	// waiting reports not done, with the poll interval it sees, after an event.
	waiting := reconcile.ServiceFuncs[scope.ClusterScoper[*testtypes.FooCluster]]{
		ReconcileFunc: func(ctx context.Context, _ scope.ClusterScoper[*testtypes.FooCluster]) (step.Result, error) {
			step.Eventf(ctx, step.EventNormal, "Waiting", "network %s", "net-1")
			return step.Result{Reason: "Waiting", Message: step.EnvFrom(ctx).PollInterval().String()}, nil
		},
	}
	rec := mocks.NewMockEventRecorder(gomock.NewController(t))
	servicetest.RunClusterCases(t, func(*testing.T) (reconcile.Service[scope.ClusterScoper[*testtypes.FooCluster]], struct{}) {
		return waiting, struct{}{}
	},
		servicetest.ClusterCase[*testtypes.FooCluster, struct{}]{
			Name:    "the reconciler's default requeue and recorder",
			Scope:   cluster(nil),
			Options: []reconcile.Option{reconcile.WithPollInterval(3 * time.Second), reconcile.WithEventRecorder(rec)},
			Setup: func(_ *testing.T, s fake, _ struct{}) {
				rec.EXPECT().Eventf(s.Object, nil, step.EventNormal, "Waiting", "Reconcile", "%s", "network net-1")
			},
			Want: servicetest.Outcome{Class: reconcile.ClassInProgress, Reason: "Waiting", RequeueAfter: 3 * time.Second,
				Result: step.Result{Reason: "Waiting", Message: "3s"}},
		},
		servicetest.ClusterCase[*testtypes.FooCluster, struct{}]{
			Name:  "without options: the defaults",
			Scope: cluster(nil),
			Want: servicetest.Outcome{Class: reconcile.ClassInProgress, Reason: "Waiting", RequeueAfter: step.DefaultPollInterval,
				Result: step.Result{Reason: "Waiting", Message: step.DefaultPollInterval.String()}},
		},
	)
}

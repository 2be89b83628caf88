package bench_test

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	capiconditions "sigs.k8s.io/cluster-api/util/conditions"
	"sigs.k8s.io/cluster-api/util/patch"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	capkitpatch "github.com/capkit/capkit/patch"
	"github.com/capkit/capkit/scope"
)

const (
	clusterName = "bench"
	// ownershipKey is already persisted on the starting object, as on every object after its first reconcile.
	ownershipKey = "benchbenchbenchbenchbenchb"
	providerID   = "memcloud://i-0a1b2c3d"
)

// since is the LastTransitionTime of the starting conditions, whole seconds as the API server keeps them.
var since = metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))

// baseMachine returns the starting MemMachine: created, finalizer and ownership key persisted, instance
// pending. Every case starts from it.
func baseMachine(ns, name string) *v1beta2.MemMachine {
	return &v1beta2.MemMachine{
		ObjectMeta: metav1.ObjectMeta{
			Namespace:  ns,
			Name:       name,
			Labels:     map[string]string{contract.ClusterNameLabel: clusterName, scope.OwnershipKeyLabel: ownershipKey},
			Finalizers: []string{v1beta2.MemMachineFinalizer},
		},
		Spec: v1beta2.MemMachineSpec{Image: v1beta2.DefaultImage, Flavor: v1beta2.DefaultFlavor},
		Status: v1beta2.MemMachineStatus{
			Conditions: []metav1.Condition{
				{Type: v1beta2.ReadyCondition, Status: metav1.ConditionFalse, Reason: "InstanceNotReady", ObservedGeneration: 1, LastTransitionTime: since},
				{Type: v1beta2.InstanceReadyCondition, Status: metav1.ConditionFalse, Reason: "InstancePending", ObservedGeneration: 1, LastTransitionTime: since},
			},
			Resources:     map[string]string{"instance": "i-0a1b2c3d"},
			InstanceState: "pending",
		},
	}
}

// coreObjects returns the Machine and Cluster a reconcile has read before it creates the scope.
func coreObjects(ns, machineName string) (machine, cluster *unstructured.Unstructured) {
	cluster = &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": contract.GroupName + "/v1beta2", "kind": "Cluster",
		"metadata": map[string]any{"namespace": ns, "name": clusterName},
	}}
	machine = &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": contract.GroupName + "/v1beta2", "kind": "Machine",
		"metadata": map[string]any{"namespace": ns, "name": machineName, "labels": map[string]any{contract.ClusterNameLabel: clusterName}},
		"spec":     map[string]any{"clusterName": clusterName},
	}}
	return machine, cluster
}

var addresses = []contract.MachineAddress{
	{Type: contract.MachineInternalIP, Address: "10.0.1.5"},
	{Type: contract.MachineHostName, Address: "bench-md-0"},
}

func instanceRunning() metav1.Condition {
	return metav1.Condition{Type: v1beta2.InstanceReadyCondition, Status: metav1.ConditionTrue, Reason: "InstanceRunning"}
}

type machineScope = *scope.MachineScope[*v1beta2.MemMachine]

// patchCase is one change, written the way each side writes it.
type patchCase struct {
	name string
	// capi mutates the object directly, with Cluster API's condition helpers.
	capi func(m *v1beta2.MemMachine)
	// capkit mutates through the scope's setters and capkit's condition helpers.
	capkit func(s machineScope) error
	// want says what the server holds afterwards; both sides must agree.
	want func(m *v1beta2.MemMachine) error
}

// noChange is the name of the case that changes nothing.
const noChange = "no-change"

var patchCases = []patchCase{
	{
		name:   noChange,
		capi:   func(*v1beta2.MemMachine) {},
		capkit: func(machineScope) error { return nil },
		want: func(m *v1beta2.MemMachine) error {
			return expect(m, "", false, 0, metav1.ConditionFalse)
		},
	},
	{
		name: "status",
		capi: func(m *v1beta2.MemMachine) {
			m.Status.Addresses = addresses
			m.Status.Initialization.Provisioned = ptr.To(true)
		},
		capkit: func(s machineScope) error {
			if err := s.SetAddresses(addresses); err != nil {
				return err
			}
			return s.SetProvisioned(true)
		},
		want: func(m *v1beta2.MemMachine) error {
			return expect(m, "", true, len(addresses), metav1.ConditionFalse)
		},
	},
	{
		name: "conditions",
		capi: func(m *v1beta2.MemMachine) { capiconditions.Set(m, instanceRunning()) },
		capkit: func(s machineScope) error {
			_, err := conditions.Set(s.Conditions(), instanceRunning())
			return err
		},
		want: func(m *v1beta2.MemMachine) error {
			return expect(m, "", false, 0, metav1.ConditionTrue)
		},
	},
	{
		name: "spec+status",
		capi: func(m *v1beta2.MemMachine) {
			m.Spec.ProviderID = providerID
			m.Status.Initialization.Provisioned = ptr.To(true)
			capiconditions.Set(m, instanceRunning())
		},
		capkit: func(s machineScope) error {
			if err := s.SetProviderID(providerID); err != nil {
				return err
			}
			if err := s.SetProvisioned(true); err != nil {
				return err
			}
			_, err := conditions.Set(s.Conditions(), instanceRunning())
			return err
		},
		want: func(m *v1beta2.MemMachine) error {
			return expect(m, providerID, true, 0, metav1.ConditionTrue)
		},
	},
}

// expect checks the fields the cases change, and that the fields they do not change are intact.
func expect(m *v1beta2.MemMachine, id string, provisioned bool, addrs int, instanceReady metav1.ConditionStatus) error {
	got := fmt.Sprintf("providerID=%q provisioned=%t addresses=%d InstanceReady=%s Ready=%s key=%q finalizers=%v resources=%v",
		m.Spec.ProviderID, ptr.Deref(m.Status.Initialization.Provisioned, false), len(m.Status.Addresses),
		conditionStatus(m, v1beta2.InstanceReadyCondition), conditionStatus(m, v1beta2.ReadyCondition),
		m.Labels[scope.OwnershipKeyLabel], m.Finalizers, m.Status.Resources)
	want := fmt.Sprintf("providerID=%q provisioned=%t addresses=%d InstanceReady=%s Ready=%s key=%q finalizers=%v resources=%v",
		id, provisioned, addrs, instanceReady, metav1.ConditionFalse, ownershipKey, []string{v1beta2.MemMachineFinalizer},
		map[string]string{"instance": "i-0a1b2c3d"})
	if got != want {
		return fmt.Errorf("server holds %s, want %s", got, want)
	}
	return nil
}

func conditionStatus(m *v1beta2.MemMachine, t string) metav1.ConditionStatus {
	if c := conditions.Get(m, t); c != nil {
		return c.Status
	}
	return ""
}

// reconcileInput is what a reconcile has read before it patches: the MemMachine, its Machine and Cluster.
type reconcileInput struct {
	infra            *v1beta2.MemMachine
	machine, cluster *unstructured.Unstructured
}

func newInput(m *v1beta2.MemMachine) reconcileInput {
	machine, cluster := coreObjects(m.Namespace, m.Name)
	return reconcileInput{infra: m, machine: machine, cluster: cluster}
}

// impl is one way of persisting a change: what a provider does in one reconcile, from the objects it has
// read to the end of the patch.
type impl struct {
	name string
	run  func(ctx context.Context, c client.Client, in reconcileInput, pc patchCase) error
}

var impls = []impl{
	{name: "capi", run: runCAPI},
	{name: "capkit", run: func(ctx context.Context, c client.Client, in reconcileInput, pc patchCase) error {
		return runCapkit(ctx, c, in, pc, scope.WithContractVersion(contract.V1Beta2))
	}},
	{name: "capkit-discover", run: func(ctx context.Context, c client.Client, in reconcileInput, pc patchCase) error {
		return runCapkit(ctx, c, in, pc)
	}},
	{name: "capkit-patch", run: runPatch},
}

// runPatch is capkit's standalone patch helper without a scope: the same pattern as Cluster API's helper,
// the object mutated directly.
func runPatch(ctx context.Context, c client.Client, in reconcileInput, pc patchCase) error {
	m := in.infra
	h, err := capkitpatch.NewHelper(c, m, capkitpatch.WithWriteOnceLabels(scope.OwnershipKeyLabel))
	if err != nil {
		return err
	}
	pc.capi(m)
	return h.Patch(ctx, m)
}

// runCAPI is Cluster API's pattern: NewHelper before the changes, Patch after, with the controller's
// condition types declared owned.
func runCAPI(ctx context.Context, c client.Client, in reconcileInput, pc patchCase) error {
	m := in.infra
	h, err := patch.NewHelper(m, c)
	if err != nil {
		return err
	}
	pc.capi(m)
	return h.Patch(ctx, m, patch.WithOwnedConditions{Conditions: []string{v1beta2.ReadyCondition, v1beta2.InstanceReadyCondition}})
}

// runCapkit is capkit's pattern: a scope per reconcile, the setters, PatchNow.
func runCapkit(ctx context.Context, c client.Client, in reconcileInput, pc patchCase, opts ...scope.Option) error {
	s, err := scope.NewMachineScope(ctx, c, in.infra, in.machine, in.cluster, opts...)
	if err != nil {
		return err
	}
	if err := pc.capkit(s); err != nil {
		return err
	}
	return s.PatchNow(ctx)
}

package capacity_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/reconcile/capacity"
	"github.com/capkit/capkit/scope/scopetest"
)

func TestReconciler(t *testing.T) {
	ctx := t.Context()
	sch := runtime.NewScheme()
	require.NoError(t, v1beta2.AddToScheme(sch))
	tmpl := &v1beta2.MemMachineTemplate{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "workers"}}
	tmpl.Spec.Template.Spec.Flavor = v1beta2.FlavorSmall
	c := fake.NewClientBuilder().WithScheme(sch).WithObjects(tmpl).WithStatusSubresource(tmpl).Build()
	cc := scopetest.NewCountingClient(c)
	calls := 0
	r, err := capacity.NewReconcilerFor(cc, &v1beta2.MemMachineTemplate{},
		func(t *v1beta2.MemMachineTemplate) (contract.MachineTemplateCapacity, error) {
			calls++
			if t.Spec.Template.Spec.Flavor == "huge" {
				return contract.MachineTemplateCapacity{}, errors.New("cannot size: flavor \"huge\"")
			}
			return contract.MachineTemplateCapacity{Capacity: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")},
				NodeInfo: contract.NodeInfo{Architecture: contract.ArchitectureArm64, OperatingSystem: "linux"}}, nil
		})
	require.NoError(t, err)
	req := ctrl.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: "workers"}}

	_, err = r.Reconcile(ctx, req)
	require.NoError(t, err)
	got := &v1beta2.MemMachineTemplate{}
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(tmpl), got))
	assert.Equal(t, "1", got.Status.Capacity.Cpu().String())
	assert.Equal(t, contract.ArchitectureArm64, got.Status.NodeInfo.Architecture)
	assert.Equal(t, 1, cc.Writes(), "one status patch")

	cc.Reset()
	_, err = r.Reconcile(ctx, req)
	require.NoError(t, err)
	assert.Zero(t, cc.Writes(), "an unchanged capacity writes nothing")

	got.Spec.Template.Spec.Flavor = "huge"
	require.NoError(t, c.Update(ctx, got))
	cc.Reset()
	_, err = r.Reconcile(ctx, req)
	require.NoError(t, err, "a template that cannot be sized is not retried")
	assert.Zero(t, cc.Writes(), "and its status is left as it is")

	_, err = r.Reconcile(ctx, ctrl.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: "gone"}})
	require.NoError(t, err)
	assert.Equal(t, 3, calls)
}

func TestNewReconcilerForNeedsItsArguments(t *testing.T) {
	c := fake.NewClientBuilder().Build()
	size := func(*v1beta2.MemMachineTemplate) (contract.MachineTemplateCapacity, error) {
		return contract.MachineTemplateCapacity{}, nil
	}
	var nilTemplate *v1beta2.MemMachineTemplate
	tests := []struct {
		name     string
		c        client.Client
		object   *v1beta2.MemMachineTemplate
		capacity capacity.Func[*v1beta2.MemMachineTemplate]
		wantMsg  string
	}{
		{name: "nil client", object: &v1beta2.MemMachineTemplate{}, capacity: size,
			wantMsg: "cannot create the capacity reconciler: client and capacity must not be nil"},
		{name: "nil capacity", c: c, object: &v1beta2.MemMachineTemplate{},
			wantMsg: "cannot create the capacity reconciler: client and capacity must not be nil"},
		{name: "nil object", c: c, object: nilTemplate, capacity: size,
			wantMsg: "cannot create the capacity reconciler: object is a nil *v1beta2.MemMachineTemplate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := capacity.NewReconcilerFor(tt.c, tt.object, tt.capacity)
			assert.ErrorContains(t, err, tt.wantMsg)
		})
	}
}

// TestDeprecatedNewReconcilerTakesAFactory: the v0.1.0 form still builds the reconciler, and refuses a nil
// factory.
func TestDeprecatedNewReconcilerTakesAFactory(t *testing.T) {
	size := func(*v1beta2.MemMachineTemplate) (contract.MachineTemplateCapacity, error) {
		return contract.MachineTemplateCapacity{}, nil
	}
	_, err := capacity.NewReconciler[*v1beta2.MemMachineTemplate](fake.NewClientBuilder().Build(), nil, size)
	require.EqualError(t, err, "cannot create the capacity reconciler: newObject is nil")
	_, err = capacity.NewReconciler(fake.NewClientBuilder().Build(),
		func() *v1beta2.MemMachineTemplate { return &v1beta2.MemMachineTemplate{} }, size)
	require.NoError(t, err)
}

package mocks_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/mock/gomock"

	"github.com/capkit/capkit/internal/testtypes"
	"github.com/capkit/capkit/mocks"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope"
)

// vm is a VM as the cloud reports it.
type vm struct{ ID string }

type vmSpec struct{ Image string }

// recordInstance is provider logic written against the narrow, typed scope interface: no downcast.
func recordInstance(ctx context.Context, s scope.MachineScoper[*testtypes.FooMachine], id string) error {
	if _, ok := s.ResourceID("vm"); ok {
		return nil
	}
	if err := s.SetResourceID("vm", id); err != nil {
		return err
	}
	s.InfraMachine().Spec.ProviderID = "foo://" + id
	return s.PatchNow(ctx)
}

func TestMachineScoperMock(t *testing.T) {
	ctrl := gomock.NewController(t)
	ctx := t.Context()
	m := &testtypes.FooMachine{}
	s := mocks.NewMockMachineScoper[*testtypes.FooMachine](ctrl)
	gomock.InOrder(
		s.EXPECT().ResourceID("vm").Return("", false),
		s.EXPECT().SetResourceID("vm", "vm-1").Return(nil),
		s.EXPECT().InfraMachine().Return(m),
		s.EXPECT().PatchNow(gomock.Any()).Return(nil),
	)
	require.NoError(t, recordInstance(ctx, s, "vm-1"))
	assert.Equal(t, "foo://vm-1", m.Spec.ProviderID)

	s2 := mocks.NewMockMachineScoper[*testtypes.FooMachine](ctrl)
	s2.EXPECT().ResourceID("vm").Return("vm-1", true)
	require.NoError(t, recordInstance(ctx, s2, "vm-1"), "a recorded instance is left alone")
}

func TestEnsureWithMockedTrackerAndResource(t *testing.T) {
	ctrl := gomock.NewController(t)
	ctx := t.Context()
	tr := mocks.NewMockResourceTracker(ctrl)
	res := mocks.NewMockResource[vmSpec, *vm](ctrl)
	spec := vmSpec{Image: "ubuntu"}
	tags := ensure.OwnershipTags("key1", "vm")
	gomock.InOrder(
		res.EXPECT().Validate(spec).Return(nil),
		tr.EXPECT().OwnershipKey().Return("key1", nil),
		tr.EXPECT().ResourceID("vm").Return("", false),
		res.EXPECT().FindByTags(gomock.Any(), tags).Return(nil, false, nil),
		res.EXPECT().Create(gomock.Any(), spec, ensure.IdempotencyToken("key1", "vm"), tags).Return(&vm{ID: "vm-1"}, nil),
		res.EXPECT().ID(&vm{ID: "vm-1"}).Return("vm-1"),
		tr.EXPECT().SetResourceID("vm", "vm-1").Return(nil),
		tr.EXPECT().PatchNow(gomock.Any()).Return(nil),
	)
	out, err := ensure.Exists(ctx, tr, "vm", res, ensure.Given(spec))
	require.NoError(t, err)
	assert.Equal(t, ensure.Result[*vm]{ID: "vm-1", Observed: &vm{ID: "vm-1"}, Action: ensure.ActionCreated,
		Result: step.Result{Done: true}}, out)

	// Bad parameters: Validate fails and nothing else is called (gomock fails on any unexpected call).
	res.EXPECT().Validate(vmSpec{}).Return(errors.New("image must not be empty"))
	_, err = ensure.Exists(ctx, tr, "vm", res, ensure.Given(vmSpec{}))
	assert.True(t, step.IsTerminal(err))
}

func TestServiceAndRecorderMocks(t *testing.T) {
	ctrl := gomock.NewController(t)
	svc := mocks.NewMockService[scope.ClusterScoper[*testtypes.FooCluster]](ctrl)
	svc.EXPECT().Reconcile(gomock.Any(), gomock.Nil()).Return(step.Result{Done: true}, nil)
	r, err := svc.Reconcile(t.Context(), nil)
	require.NoError(t, err)
	assert.True(t, r.Done)
	rec := mocks.NewMockEventRecorder(ctrl)
	rec.EXPECT().Eventf(nil, nil, "Normal", "R", "A", "n")
	rec.Eventf(nil, nil, "Normal", "R", "A", "n")
}

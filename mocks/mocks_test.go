package mocks_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/mock/gomock"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/mocks"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/scope"
)

type vmSpec struct{ Image string }

// setMachineFacts is provider logic written against the narrow scope interface.
func setMachineFacts(s scope.MachineScoper, id, ip string) error {
	if s.ProviderID() != "" {
		return nil
	}
	if err := s.SetProviderID("memcloud://" + id); err != nil {
		return err
	}
	if err := s.SetAddresses([]contract.MachineAddress{{Type: contract.MachineInternalIP, Address: ip}}); err != nil {
		return err
	}
	return s.SetProvisioned(true)
}

func TestMachineScoperMock(t *testing.T) {
	ctrl := gomock.NewController(t)
	s := mocks.NewMockMachineScoper(ctrl)
	gomock.InOrder(
		s.EXPECT().ProviderID().Return(""),
		s.EXPECT().SetProviderID("memcloud://vm-1").Return(nil),
		s.EXPECT().SetAddresses([]contract.MachineAddress{{Type: contract.MachineInternalIP, Address: "10.0.0.1"}}).Return(nil),
		s.EXPECT().SetProvisioned(true).Return(nil),
	)
	require.NoError(t, setMachineFacts(s, "vm-1", "10.0.0.1"))

	s2 := mocks.NewMockMachineScoper(ctrl)
	s2.EXPECT().ProviderID().Return("memcloud://vm-1")
	require.NoError(t, setMachineFacts(s2, "vm-1", "10.0.0.1"), "an already provisioned machine is left alone")
}

func TestEnsureWithMockedTrackerAndResource(t *testing.T) {
	ctrl := gomock.NewController(t)
	ctx := context.Background()
	tr := mocks.NewMockResourceTracker(ctrl)
	res := mocks.NewMockResource[vmSpec](ctrl)
	spec := vmSpec{Image: "ubuntu"}
	tags := reconcile.OwnershipTags("key1", "vm")
	gomock.InOrder(
		res.EXPECT().Validate(spec).Return(nil),
		tr.EXPECT().OwnershipKey().Return("key1", nil),
		tr.EXPECT().ResourceID("vm").Return("", false),
		res.EXPECT().FindByTags(gomock.Any(), tags).Return("", false, nil),
		res.EXPECT().Create(gomock.Any(), spec, reconcile.IdempotencyToken("key1", "vm"), tags).Return("vm-1", nil),
		tr.EXPECT().SetResourceID("vm", "vm-1").Return(nil),
		tr.EXPECT().PatchNow(gomock.Any()).Return(nil),
	)
	out, err := reconcile.Ensure[vmSpec](ctx, tr, "vm", res, spec)
	require.NoError(t, err)
	assert.Equal(t, reconcile.EnsureResult{ID: "vm-1", Action: reconcile.ActionCreated}, out)

	// Bad parameters: Validate fails and nothing else is called (gomock fails on any unexpected call).
	res.EXPECT().Validate(vmSpec{}).Return(errors.New("image must not be empty"))
	_, err = reconcile.Ensure[vmSpec](ctx, tr, "vm", res, vmSpec{})
	assert.True(t, reconcile.IsTerminal(err))
}

func TestServiceAndRecorderMocks(t *testing.T) {
	ctrl := gomock.NewController(t)
	svc := mocks.NewMockService[scope.ClusterScoper](ctrl)
	svc.EXPECT().Reconcile(gomock.Any(), gomock.Nil()).Return(reconcile.Result{Done: true}, nil)
	r, err := svc.Reconcile(context.Background(), nil)
	require.NoError(t, err)
	assert.True(t, r.Done)
	rec := mocks.NewMockEventRecorder(ctrl)
	rec.EXPECT().Eventf(nil, nil, "Normal", "R", "A", "n")
	rec.Eventf(nil, nil, "Normal", "R", "A", "n")
}

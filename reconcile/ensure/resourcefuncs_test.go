package ensure_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/internal/testtypes"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/reconcile/internal/fakecloud"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope/scopetest"
)

// errNoSuchVM is the toy SDK's NotFound.
var errNoSuchVM = errors.New("no such vm")

// sdkVM is a VM as a toy cloud SDK lists it, by value.
type sdkVM struct {
	ID      string
	Created time.Time
	State   string
}

// toySDK is a cloud SDK: Get fails with errNoSuchVM, List lists by tags, Delete of a missing VM fails.
type toySDK struct{ vms []sdkVM }

func (c *toySDK) Get(_ context.Context, id string) (*sdkVM, error) {
	for i := range c.vms {
		if c.vms[i].ID == id {
			return &c.vms[i], nil
		}
	}
	return nil, fmt.Errorf("cannot get vm %q: %w", id, errNoSuchVM)
}

func (c *toySDK) List(context.Context, map[string]string) ([]sdkVM, error) { return c.vms, nil }

func (c *toySDK) Create(_ context.Context, image string) (*sdkVM, error) {
	c.vms = append(c.vms, sdkVM{ID: fmt.Sprintf("vm-%d", len(c.vms)+1), Created: time.Unix(int64(len(c.vms)), 0), State: "booting"})
	return &c.vms[len(c.vms)-1], nil
}

func (c *toySDK) Delete(ctx context.Context, id string) error {
	for i := range c.vms {
		if c.vms[i].ID == id {
			c.vms = append(c.vms[:i], c.vms[i+1:]...)
			return nil
		}
	}
	return fmt.Errorf("cannot delete vm %q: %w", id, errNoSuchVM)
}

func isNoSuchVM(err error) bool { return errors.Is(err, errNoSuchVM) }

// vms returns the toy SDK as a Resource, pending while booting when pending is true.
func vms(sdk *toySDK, pending bool) ensure.Resource[string, *sdkVM] {
	f := ensure.ResourceFuncs[string, *sdkVM]{
		ResourceKind:   "vm",
		GetFunc:        ensure.GoneIfNotFound(sdk.Get, isNoSuchVM),
		FindByTagsFunc: ensure.FindOldest(sdk.List, func(v *sdkVM) time.Time { return v.Created }),
		CreateFunc: func(ctx context.Context, image, _ string, _ map[string]string) (*sdkVM, error) {
			return sdk.Create(ctx, image)
		},
		DeleteFunc: ensure.IgnoreErrors(sdk.Delete, isNoSuchVM),
		IDFunc:     func(v *sdkVM) string { return v.ID },
		// The SDK lists a VM as soon as it is created, and ignores the token.
		Guarantees: ensure.Guarantees{Idempotency: ensure.NotIdempotent, ImmediateSearch: true},
	}
	if pending {
		f.PendingFunc = func(v *sdkVM) (string, string, bool) { return "Booting", "vm is booting", v.State == "booting" }
	}
	return ensure.NewResource(f)
}

// A Resource built from a cloud SDK's calls: NotFound means gone, the oldest tagged VM is adopted, and a
// booting VM is waited for with the reconcile's poll interval.
func ExampleNewResource() {
	sdk := &toySDK{}
	s := &scopetest.FakeMachineScope[*v1beta2.MemMachine]{FakeObject: scopetest.FakeObject[*v1beta2.MemMachine]{
		Object: &v1beta2.MemMachine{}, OwnershipKeyValue: "k7x2"}}
	ctx := step.ContextWithEnv(context.Background(), reconcile.NewEnv(s.Object, reconcile.WithPollInterval(2*time.Second)))

	res, _ := ensure.Exists(ctx, s, "vm", vms(sdk, true), ensure.Given("ubuntu-24.04"))
	fmt.Println(res.Action, res.ID, res.Result.Reason, res.Result.RequeueAfter)
	sdk.vms[0].State = "running"
	res, _ = ensure.Exists(ctx, s, "vm", vms(sdk, true), ensure.Given("ubuntu-24.04"))
	fmt.Println(res.Action, res.ID, res.Result.Done)
	del, _ := ensure.Deleted(ctx, s, "vm", vms(sdk, true))
	fmt.Println("deleted:", del.Done, "vms:", len(sdk.vms))
	// Output:
	// Created vm-1 Booting 2s
	// Found vm-1 true
	// deleted: true vms: 0
}

func TestNewResourceOptionalInterfaces(t *testing.T) {
	base := ensure.ResourceFuncs[string, *sdkVM]{GetFunc: ensure.GoneIfNotFound((&toySDK{}).Get, isNoSuchVM)}
	pending := func(*sdkVM) (string, string, bool) { return "", "", false }
	diff := func(string, *sdkVM) ([]string, bool) { return nil, false }
	tests := []struct {
		name                 string
		pendingFn            func(*sdkVM) (string, string, bool)
		diffFn               func(string, *sdkVM) ([]string, bool)
		wantPending, wantUpd bool
	}{
		{name: "plain"},
		{name: "pending", pendingFn: pending, wantPending: true},
		{name: "updater", diffFn: diff, wantUpd: true},
		{name: "both", pendingFn: pending, diffFn: diff, wantPending: true, wantUpd: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := base
			f.PendingFunc, f.DiffFunc = tt.pendingFn, tt.diffFn
			r := ensure.NewResource(f)
			_, isPending := r.(ensure.PendingReporter[*sdkVM])
			_, isUpdater := r.(ensure.Updater[string, *sdkVM])
			assert.Equal(t, tt.wantPending, isPending, "PendingReporter")
			assert.Equal(t, tt.wantUpd, isUpdater, "Updater")
		})
	}
}

func TestNewResourceMissingAndClassifiedErrors(t *testing.T) {
	ctx := context.Background()
	quota := errors.New("quota exceeded")
	r := ensure.NewResource(ensure.ResourceFuncs[string, *sdkVM]{
		DiffFunc:     func(string, *sdkVM) ([]string, bool) { return []string{"image"}, false },
		DeleteFunc:   func(context.Context, string) error { return quota },
		ClassifyFunc: func(err error) error { return step.Terminal("QuotaExceeded", err) },
	})
	tests := []struct {
		name      string
		call      func() error
		wantMsg   string
		wantClass bool
	}{
		{name: "get", call: func() error { _, _, err := r.Get(ctx, "x"); return err }, wantMsg: "ResourceFuncs.GetFunc is nil"},
		{name: "find", call: func() error { _, _, err := r.FindByTags(ctx, nil); return err }, wantMsg: "ResourceFuncs.FindByTagsFunc is nil"},
		{name: "create", call: func() error { _, err := r.Create(ctx, "", "", nil); return err }, wantMsg: "ResourceFuncs.CreateFunc is nil"},
		{name: "update", call: func() error {
			_, err := r.(ensure.Updater[string, *sdkVM]).Update(ctx, "x", "", nil)
			return err
		}, wantMsg: "ResourceFuncs.UpdateFunc is nil"},
		{name: "classified", call: func() error { return r.Delete(ctx, "x") }, wantMsg: "quota exceeded", wantClass: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			require.ErrorContains(t, err, tt.wantMsg)
			assert.Equal(t, tt.wantClass, step.IsTerminal(err))
		})
	}
	assert.NoError(t, r.Validate("anything"), "no ValidateFunc accepts every spec")
	assert.Empty(t, r.ID(&sdkVM{ID: "x"}), "no IDFunc")
}

func TestFindOldestAndNotFoundHelpers(t *testing.T) {
	ctx := t.Context()
	sdk := &toySDK{vms: []sdkVM{{ID: "b", Created: time.Unix(20, 0)}, {ID: "a", Created: time.Unix(10, 0)}, {ID: "c", Created: time.Unix(10, 0)}}}
	tests := []struct {
		name      string
		createdAt func(*sdkVM) time.Time
		list      []sdkVM
		wantID    string
	}{
		{name: "oldest by creation time, first of a tie", createdAt: func(v *sdkVM) time.Time { return v.Created }, list: sdk.vms, wantID: "a"},
		{name: "listed in creation order", list: sdk.vms, wantID: "b"},
		{name: "none", list: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			find := ensure.FindOldest(func(context.Context, map[string]string) ([]sdkVM, error) { return tt.list, nil }, tt.createdAt)
			got, found, err := find(ctx, nil)
			require.NoError(t, err)
			assert.Equal(t, tt.wantID != "", found)
			if found {
				assert.Equal(t, tt.wantID, got.ID)
			}
		})
	}
	boom := errors.New("boom")
	_, found, err := ensure.FindOldest(func(context.Context, map[string]string) ([]sdkVM, error) { return nil, boom }, nil)(ctx, nil)
	assert.ErrorIs(t, err, boom)
	assert.False(t, found)

	get := ensure.GoneIfNotFound(sdk.Get, isNoSuchVM)
	v, found, err := get(ctx, "a")
	require.NoError(t, err)
	assert.True(t, found)
	assert.Equal(t, "a", v.ID)
	_, found, err = get(ctx, "zz")
	require.NoError(t, err, "NotFound means gone")
	assert.False(t, found)
	_, _, err = ensure.GoneIfNotFound(func(context.Context, string) (*sdkVM, error) { return nil, boom }, isNoSuchVM)(ctx, "a")
	assert.ErrorIs(t, err, boom, "other errors are returned")

	del := ensure.IgnoreErrors(sdk.Delete, isNoSuchVM)
	require.NoError(t, del(ctx, "zz"), "deleting what is gone is not an error")
	assert.ErrorIs(t, ensure.IgnoreErrors(func(context.Context, string) error { return boom }, isNoSuchVM)(ctx, "a"), boom)
}

// TestNewResourceWithEnsure: Ensure adopts the oldest tagged resource of a ResourceFuncs and never asks a
// non-Updater for its spec.
func TestNewResourceWithEnsure(t *testing.T) {
	c, tr := fakecloud.New(), fakecloud.NewTracker()
	c.Put("net-2", nil)
	c.Put("net-1", nil)
	r := ensure.NewResource(ensure.ResourceFuncs[fakecloud.Spec, *fakecloud.Net]{
		GetFunc: c.Get,
		FindByTagsFunc: ensure.FindOldest(func(context.Context, map[string]string) ([]fakecloud.Net, error) {
			return []fakecloud.Net{*c.Nets["net-2"], *c.Nets["net-1"]}, nil
		}, func(n *fakecloud.Net) time.Time {
			return map[string]time.Time{"net-1": time.Unix(1, 0), "net-2": time.Unix(2, 0)}[n.ID]
		}),
		CreateFunc: c.Create, DeleteFunc: c.Delete, IDFunc: c.ID,
	})
	computed := false
	res, err := ensure.Exists(step.ContextWithEnv(t.Context(), reconcile.NewEnv(&testtypes.FooMachine{})), tr, "vpc", r,
		ensure.Lazy(func(context.Context) (fakecloud.Spec, error) {
			computed = true
			return fakecloud.Spec{CIDR: "10.0.0.0/16"}, nil
		}))
	require.NoError(t, err)
	assert.Equal(t, ensure.ActionAdopted, res.Action)
	assert.Equal(t, "net-1", res.ID)
	assert.False(t, computed, "a Resource that is not an Updater is never asked for the spec of what it finds")
}

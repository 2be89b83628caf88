package ensure_test

import (
	"context"
	"errors"
	"fmt"
	"maps"

	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope/scopetest"
)

// vmSpec is what a provider asks of its cloud for one VM.
type vmSpec struct{ Image string }

// vm is a VM as the toy cloud reports it.
type vm struct {
	ID   string
	Tags map[string]string
}

// toyCloud is a cloud API of VMs (ID → VM) implementing ensure.Resource[vmSpec, *vm].
type toyCloud map[string]*vm

func (c toyCloud) Validate(spec vmSpec) error {
	if spec.Image == "" {
		return errors.New("image must not be empty")
	}
	return nil
}

func (c toyCloud) ID(v *vm) string { return v.ID }

func (c toyCloud) Get(_ context.Context, id string) (*vm, bool, error) {
	v, ok := c[id]
	return v, ok, nil
}

func (c toyCloud) FindByTags(_ context.Context, tags map[string]string) (*vm, bool, error) {
	for _, v := range c {
		if hasTags(v.Tags, tags) {
			return v, true, nil
		}
	}
	return nil, false, nil
}

func (c toyCloud) Create(_ context.Context, _ vmSpec, _ string, tags map[string]string) (*vm, error) {
	v := &vm{ID: fmt.Sprintf("vm-%d", len(c)+1), Tags: maps.Clone(tags)}
	c[v.ID] = v
	return v, nil
}

func (c toyCloud) Delete(_ context.Context, id string) error { delete(c, id); return nil }

// Guarantees declares what the toy cloud promises (ensure.Declarer): its search lists a VM as soon as Create
// returns, and it has no idempotency tokens. Undeclared, Exists would note each create on the object first.
func (c toyCloud) Guarantees() ensure.Guarantees {
	return ensure.Guarantees{Idempotency: ensure.NotIdempotent, ImmediateSearch: true}
}

// hasTags reports whether tags has every tag of want.
func hasTags(tags, want map[string]string) bool {
	for k, v := range want {
		if tags[k] != v {
			return false
		}
	}
	return true
}

// Exists creates a resource once, then finds it by its tracked ID; a lost ID is recovered by tags. The
// tracker here is scopetest's fake machine scope, as in a provider's service tests.
func ExampleExists() {
	ctx := context.Background()
	cloud := toyCloud{}
	s := &scopetest.FakeMachineScope[*v1beta2.MemMachine]{FakeObject: scopetest.FakeObject[*v1beta2.MemMachine]{
		Object: &v1beta2.MemMachine{}, OwnershipKeyValue: "k7x2"}}

	spec := ensure.Given(vmSpec{Image: "ubuntu-24.04"})
	first, _ := ensure.Exists(ctx, s, "vm", cloud, spec)
	second, _ := ensure.Exists(ctx, s, "vm", cloud, spec)
	_ = s.DeleteResourceID("vm") // status lost, e.g. by clusterctl move
	third, _ := ensure.Exists(ctx, s, "vm", cloud, spec)
	_, err := ensure.Exists(ctx, s, "data-disk", cloud, ensure.Given(vmSpec{}))

	fmt.Println(first.Action, first.ID)
	fmt.Println(second.Action, second.ID)
	fmt.Println(third.Action, third.ID)
	fmt.Println("VMs:", len(cloud), "tags:", cloud["vm-1"].Tags)
	fmt.Println("checkpoints:", len(s.Checkpoints()))
	fmt.Println("terminal:", step.IsTerminal(err))
	// Output:
	// Created vm-1
	// Found vm-1
	// Adopted vm-1
	// VMs: 1 tags: map[capkit.io/ownership-key:k7x2 capkit.io/resource:vm]
	// checkpoints: 2
	// terminal: true
}

package services_test

import (
	"context"
	"fmt"

	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/services"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/reconcile/step"
)

// tracker is the smallest scope.ResourceTracker: a map, and a checkpoint that does nothing.
type tracker map[string]string

func (t tracker) PatchNow(context.Context) error     { return nil }
func (t tracker) OwnershipKey() (string, error)      { return "owner-1", nil }
func (t tracker) ResourceID(k string) (string, bool) { id, ok := t[k]; return id, ok }
func (t tracker) SetResourceID(k, id string) error   { t[k] = id; return nil }
func (t tracker) DeleteResourceID(k string) error    { delete(t, k); return nil }

// NewResources adapts memcloud to ensure.Exists: a second Ensure finds the network instead of creating
// another one, and returns it as the cloud reports it.
func ExampleNewResources() {
	ctx := context.Background()
	c, _ := cloud.New(cloud.WithSeed(1))
	res := services.NewResources(c)
	t := tracker{}
	spec := ensure.Given(cloud.NetworkSpec{Name: "demo", CIDR: "10.0.0.0/16"})

	first, _ := ensure.Exists(ctx, t, services.KeyNetwork, res.Networks, spec)
	second, _ := ensure.Exists(ctx, t, services.KeyNetwork, res.Networks, spec)
	fmt.Println(first.Action, second.Action, first.ID == second.ID, second.Observed.CIDR, c.Count(cloud.KindNetwork))

	_, err := ensure.Exists(ctx, t, "other", res.Networks, ensure.Given(cloud.NetworkSpec{Name: "bad", CIDR: "10.0.0.1/16"}))
	fmt.Println(step.IsTerminal(err))
	// Output:
	// Created Found true 10.0.0.0/16 1
	// true
}

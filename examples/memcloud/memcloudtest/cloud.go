package memcloudtest

import (
	"context"
	"fmt"
	"testing"

	"github.com/capkit/capkit/examples/memcloud/cloud"
)

// NewCloud returns a fresh in-memory cloud with opts for one test, and fails the test when opts are
// invalid. Without cloud.WithSeed the cloud uses cloud.DefaultSeed, so its IDs are the same on every run.
func NewCloud(t testing.TB, opts ...cloud.Option) *cloud.Cloud {
	t.Helper()
	c, err := cloud.New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Network is a network with a subnet and a security group, to create the resources under test in.
type Network struct {
	Network       *cloud.Network
	Subnet        *cloud.Subnet
	SecurityGroup *cloud.SecurityGroup
}

// NewNetwork creates, in c and named name, a network of 10.0.0.0/16, a subnet of 10.0.1.0/24 and a security
// group without rules; it fails the test when one cannot be created. On a cloud with asynchronous creates
// (cloud.WithAsyncCreates) it ends each create operation at once (cloud.CompleteOperation).
func NewNetwork(t testing.TB, c *cloud.Cloud, name string) Network {
	t.Helper()
	ctx := t.Context()
	net := Created(t, c, c.GetNetwork)(c.CreateNetwork(ctx, cloud.NetworkSpec{Name: name, CIDR: "10.0.0.0/16"}))
	subnet := Created(t, c, c.GetSubnet)(c.CreateSubnet(ctx, cloud.SubnetSpec{Name: name, NetworkID: net.ID, CIDR: "10.0.1.0/24"}))
	sg := Created(t, c, c.GetSecurityGroup)(c.CreateSecurityGroup(ctx, cloud.SecurityGroupSpec{Name: name, NetworkID: net.ID}))
	return Network{Network: net, Subnet: subnet, SecurityGroup: sg}
}

// Created returns a function that returns the resource a create call of c returned, and fails the test when
// the call failed. When c accepted the create as an operation (cloud.WithAsyncCreates), it ends the operation
// at once (cloud.CompleteOperation) and reads the resource with get. NewNetwork above shows the use: the create
// call's two results are passed straight to the returned function.
func Created[R any](t testing.TB, c *cloud.Cloud, get func(context.Context, string) (*R, error)) func(*R, error) *R {
	return func(res *R, err error) *R {
		t.Helper()
		if op, ok := cloud.Accepted(err); ok {
			res, err = completed(t.Context(), c, op, get)
		}
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
}

// completed ends the operation op of c and returns the resource it created.
func completed[R any](ctx context.Context, c *cloud.Cloud, op string, get func(context.Context, string) (*R, error)) (*R, error) {
	if err := c.CompleteOperation(op); err != nil {
		return nil, err
	}
	o, err := c.GetOperation(ctx, op)
	switch {
	case err != nil:
		return nil, err
	case o.Failed():
		return nil, fmt.Errorf("operation %q failed: %s", op, o.Error)
	}
	return get(ctx, o.ResourceID)
}

package memcloudtest

import (
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
// group without rules; it fails the test when one cannot be created.
func NewNetwork(t testing.TB, c *cloud.Cloud, name string) Network {
	t.Helper()
	ctx := t.Context()
	net, err := c.CreateNetwork(ctx, cloud.NetworkSpec{Name: name, CIDR: "10.0.0.0/16"})
	if err != nil {
		t.Fatal(err)
	}
	subnet, err := c.CreateSubnet(ctx, cloud.SubnetSpec{Name: name, NetworkID: net.ID, CIDR: "10.0.1.0/24"})
	if err != nil {
		t.Fatal(err)
	}
	sg, err := c.CreateSecurityGroup(ctx, cloud.SecurityGroupSpec{Name: name, NetworkID: net.ID})
	if err != nil {
		t.Fatal(err)
	}
	return Network{Network: net, Subnet: subnet, SecurityGroup: sg}
}

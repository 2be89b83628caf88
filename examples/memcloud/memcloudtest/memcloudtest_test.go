package memcloudtest_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/memcloudtest"
	"github.com/capkit/capkit/examples/memcloud/services"
	"github.com/capkit/capkit/providertest/lifecycle"
	"github.com/capkit/capkit/reconcile/ensure"
)

func TestLifecycleSpecSpreadsMachinesOverFailureDomains(t *testing.T) {
	c, err := cloud.New()
	require.NoError(t, err)
	spec := memcloudtest.LifecycleSpec(memcloudtest.Cluster{Namespace: "ns", Name: "c", ControlPlane: 2, Workers: 2,
		FailureDomains: []string{"fd-a", "fd-b", "fd-c"}}, memcloudtest.LeakChecker(c))
	s, err := memcloudtest.Scheme()
	require.NoError(t, err)
	l, err := lifecycle.New(fake.NewClientBuilder().WithScheme(s).Build(), spec)
	require.NoError(t, err, "a valid lifecycle spec")
	var got []string
	for _, name := range l.MachineNames() {
		obj, err := spec.InfraMachine("ns", name, strings.Contains(name, "-cp-"))
		require.NoError(t, err)
		got = append(got, obj.(*v1beta2.MemMachine).Spec.FailureDomain)
	}
	assert.Equal(t, []string{"fd-a", "fd-b", "fd-c", "fd-a"}, got)
	mc, err := spec.InfraCluster("ns", "c")
	require.NoError(t, err)
	assert.Equal(t, []string{"fd-a", "fd-b", "fd-c"}, mc.(*v1beta2.MemCluster).Spec.FailureDomains)

	_, err = spec.InfraMachine("ns", "other-name", false)
	assert.ErrorContains(t, err, `cannot place machine "other-name" in a failure domain`)
}

func TestBootstrapDataIsKubeadmStyle(t *testing.T) {
	first := string(memcloudtest.BootstrapData("c", "c-cp-0", true))
	join := string(memcloudtest.BootstrapData("c", "c-md-0", false))
	assert.True(t, strings.HasPrefix(first, "## template: jinja\n#cloud-config\n"))
	assert.Contains(t, first, "kubeadm init")
	assert.Contains(t, join, "kubeadm join")
	assert.Contains(t, join, memcloudtest.BootstrapTokenMarker)
}

func TestLeakCheckerFindsResourcesByClusterTagAndOwnershipKey(t *testing.T) {
	ctx := t.Context()
	c, err := cloud.New(cloud.WithSeed(1))
	require.NoError(t, err)
	byCluster, err := c.CreateNetwork(ctx, cloud.NetworkSpec{Name: "a", CIDR: "10.0.0.0/16", Tags: map[string]string{services.TagCluster: "ns/c"}})
	require.NoError(t, err)
	keyTags := func(role string) map[string]string {
		return map[string]string{ensure.TagOwnershipKey: "key-1", ensure.TagResourceKey: role}
	}
	dup1, err := c.CreateNetwork(ctx, cloud.NetworkSpec{Name: "b", CIDR: "10.1.0.0/16", Tags: keyTags("vpc")})
	require.NoError(t, err)
	dup2, err := c.CreateNetwork(ctx, cloud.NetworkSpec{Name: "b2", CIDR: "10.2.0.0/16", Tags: keyTags("vpc")})
	require.NoError(t, err)
	_, err = c.CreateNetwork(ctx, cloud.NetworkSpec{Name: "other", CIDR: "10.3.0.0/16", Tags: map[string]string{services.TagCluster: "ns/other"}})
	require.NoError(t, err)

	leaks, err := memcloudtest.LeakChecker(c).Leaks(ctx, lifecycle.LeakQuery{Namespace: "ns", ClusterName: "c", OwnershipKeys: []string{"key-1"}})
	require.NoError(t, err)
	assert.Equal(t, []string{"Network " + byCluster.ID, "Network " + dup1.ID, "Network " + dup2.ID,
		`duplicate: 2 Network with owner "key-1" and role "vpc": ` + dup1.ID + ", " + dup2.ID}, leaks)

	leaks, err = memcloudtest.LeakChecker(c).Leaks(ctx, lifecycle.LeakQuery{Namespace: "ns", ClusterName: "gone"})
	require.NoError(t, err)
	assert.Empty(t, leaks, "another cluster's resources are not its leaks")
}

func TestNewNetwork(t *testing.T) {
	c := memcloudtest.NewCloud(t)
	n := memcloudtest.NewNetwork(t, c, "base")
	assert.Equal(t, "10.0.0.0/16", n.Network.CIDR)
	assert.Equal(t, n.Network.ID, n.Subnet.NetworkID)
	assert.Equal(t, "10.0.1.0/24", n.Subnet.CIDR)
	assert.Equal(t, n.Network.ID, n.SecurityGroup.NetworkID)
	assert.Empty(t, n.SecurityGroup.Ingress)
	for _, name := range []string{n.Network.Name, n.Subnet.Name, n.SecurityGroup.Name} {
		assert.Equal(t, "base", name)
	}
	assert.Len(t, c.All(), 3)
}

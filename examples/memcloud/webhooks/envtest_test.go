package webhooks_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/contract/lint"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/memcloudtest"
	"github.com/capkit/capkit/providertest"
)

// startWebhooks starts an API server with memcloud's CRDs and webhook configurations (memcloudtest's
// providertest options), and memcloud's manager serving only the webhooks, and returns a client of the API
// server and a namespace to work in.
func startWebhooks(t *testing.T) (client.Client, string) {
	t.Helper()
	env, err := memcloudtest.TestEnv().NewEnvironment()
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, env.Stop()) })
	p, err := memcloudtest.StartProvider(context.Background(), env, memcloudtest.Options{WebhooksOnly: true})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, p.Stop()) })
	ns := env.Namespace(t, "webhooks")
	return env.Client, ns
}

func TestWebhooksInAPIServer(t *testing.T) {
	c, ns := startWebhooks(t)
	ctx := t.Context()

	t.Run("an empty MemCluster is defaulted by schema and webhook", func(t *testing.T) {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(v1beta2.GroupVersion.WithKind("MemCluster"))
		u.SetNamespace(ns)
		u.SetName("empty")
		require.NoError(t, c.Create(ctx, u))

		got := &v1beta2.MemCluster{}
		require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(u), got))
		assert.Equal(t, defaultedSpec, got.Spec, "as DefaultMemClusterSpec defaults it")
	})

	t.Run("ingress rules may change, and are validated", func(t *testing.T) {
		mc := &v1beta2.MemCluster{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "rules"}}
		require.NoError(t, c.Create(ctx, mc))
		mc.Spec.SecurityGroup.IngressRules = []v1beta2.IngressRule{{Protocol: v1beta2.ProtocolTCP, Port: 6443, CIDR: "203.0.113.0/24"}}
		require.NoError(t, c.Update(ctx, mc))

		mc.Spec.SecurityGroup.IngressRules = append(mc.Spec.SecurityGroup.IngressRules,
			v1beta2.IngressRule{Protocol: v1beta2.ProtocolUDP, Port: 53, CIDR: "10.0.0.1/8"})
		err := c.Update(ctx, mc)
		require.True(t, apierrors.IsInvalid(err), "want Invalid, got %v", err)
		assert.Contains(t, err.Error(), `spec.securityGroup.ingressRules[1].cidr: Invalid value: "10.0.0.1/8": must not have host bits set`)

		mc.Spec.SecurityGroup.IngressRules[1] = v1beta2.IngressRule{Protocol: "icmp", Port: 0, CIDR: "10.0.0.0/8"}
		err = c.Update(ctx, mc)
		require.True(t, apierrors.IsInvalid(err), "the schema rejects it: want Invalid, got %v", err)
		assert.Contains(t, err.Error(), `spec.securityGroup.ingressRules[1].protocol: Unsupported value: "icmp"`)
	})

	t.Run("a MemCluster with a subnet outside its network is rejected", func(t *testing.T) {
		bad := &v1beta2.MemCluster{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "bad"},
			Spec: v1beta2.MemClusterSpec{Network: v1beta2.NetworkSpec{CIDR: "10.0.0.0/16", Subnets: []v1beta2.SubnetSpec{
				{Name: "cp", CIDR: "10.0.0.0/24", Role: v1beta2.SubnetRoleControlPlane},
				{Name: "w", CIDR: "10.9.0.0/24", Role: v1beta2.SubnetRoleWorker},
			}}},
		}
		err := c.Create(ctx, bad)
		require.True(t, apierrors.IsInvalid(err), "want Invalid, got %v", err)
		assert.Contains(t, err.Error(), `spec.network.subnets[1].cidr: Invalid value: "10.9.0.0/24": must be inside the network cidr "10.0.0.0/16"`)
	})

	t.Run("the CRD schema rejects an unknown flavor before the webhooks", func(t *testing.T) {
		m := &v1beta2.MemMachine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "huge"}, Spec: v1beta2.MemMachineSpec{Flavor: "huge"}}
		err := c.Create(ctx, m)
		require.True(t, apierrors.IsInvalid(err), "want Invalid, got %v", err)
		assert.Contains(t, err.Error(), `spec.flavor: Unsupported value: "huge"`)
	})

	t.Run("a MemMachine's flavor and tags change in place, and the tags are checked", func(t *testing.T) {
		m := &v1beta2.MemMachine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "in-place"},
			Spec: v1beta2.MemMachineSpec{Tags: map[string]string{"team": "blue"}}}
		require.NoError(t, c.Create(ctx, m))
		m.Spec.Flavor, m.Spec.Tags = v1beta2.FlavorLarge, map[string]string{"team": "red", "example.com/cost-center": "42"}
		require.NoError(t, c.Update(ctx, m))

		m.Spec.Tags = map[string]string{"capkit.io/resource": "instance"}
		err := c.Update(ctx, m)
		require.True(t, apierrors.IsInvalid(err), "want Invalid, got %v", err)
		assert.Contains(t, err.Error(), `spec.tags[capkit.io/resource]: Forbidden: tag key "capkit.io/resource" is reserved`)

		m.Spec.Tags = map[string]string{"-bad": "x", "long": strings.Repeat("v", 256)}
		err = c.Update(ctx, m)
		require.True(t, apierrors.IsInvalid(err), "the schema rejects it: want Invalid, got %v", err)
		assert.Contains(t, err.Error(), "tag keys must be qualified names of at most 63 characters")
		assert.Contains(t, err.Error(), "tag values must be at most 255 characters")
	})

	t.Run("a MemMachine's spec is immutable except providerID set once", func(t *testing.T) {
		m := &v1beta2.MemMachine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "m-0"}}
		require.NoError(t, c.Create(ctx, m))
		assert.Equal(t, v1beta2.MemMachineSpec{Image: "ubuntu-24.04", Flavor: v1beta2.FlavorMedium}, m.Spec)

		changed := m.DeepCopy()
		changed.Spec.Image = "debian-13"
		err := c.Update(ctx, changed)
		require.True(t, apierrors.IsInvalid(err), "want Invalid, got %v", err)
		assert.Contains(t, err.Error(), "spec.image: Forbidden: field is immutable")

		m.Spec.ProviderID = v1beta2.ProviderID("i-1f2e3d4c")
		require.NoError(t, c.Update(ctx, m))

		m.Spec.ProviderID = v1beta2.ProviderID("i-00000000")
		err = c.Update(ctx, m)
		require.True(t, apierrors.IsInvalid(err), "want Invalid, got %v", err)
		assert.Contains(t, err.Error(), "spec.providerID: Forbidden: field is immutable once set")
	})

	t.Run("a MemMachine's IPAM pools are checked by the schema and immutable", func(t *testing.T) {
		pool := v1beta2.IPPoolRef{APIGroup: "ipam.cluster.x-k8s.io", Kind: "InClusterIPPool", Name: "nodes"}
		twice := &v1beta2.MemMachine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "pool-twice"},
			Spec: v1beta2.MemMachineSpec{AddressesFromPools: []v1beta2.IPPoolRef{pool, pool}}}
		err := c.Create(ctx, twice)
		require.True(t, apierrors.IsInvalid(err), "the schema rejects it: want Invalid, got %v", err)
		assert.Contains(t, err.Error(), "a pool must not be listed twice")

		bad := &v1beta2.MemMachine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "pool-bad"},
			Spec: v1beta2.MemMachineSpec{AddressesFromPools: []v1beta2.IPPoolRef{{APIGroup: "ipam.cluster.x-k8s.io", Kind: "In Cluster", Name: "nodes"}}}}
		err = c.Create(ctx, bad)
		require.True(t, apierrors.IsInvalid(err), "want Invalid, got %v", err)
		assert.Contains(t, err.Error(), "spec.addressesFromPools[0].kind")

		m := &v1beta2.MemMachine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "pools"},
			Spec: v1beta2.MemMachineSpec{AddressesFromPools: []v1beta2.IPPoolRef{pool}}}
		require.NoError(t, c.Create(ctx, m))
		m.Spec.AddressesFromPools = append(m.Spec.AddressesFromPools, v1beta2.IPPoolRef{APIGroup: pool.APIGroup, Kind: pool.Kind, Name: "more"})
		err = c.Update(ctx, m)
		require.True(t, apierrors.IsInvalid(err), "want Invalid, got %v", err)
		assert.Contains(t, err.Error(), "spec.addressesFromPools: Forbidden: field is immutable")
	})

	t.Run("a MemMachineTemplate cannot change", func(t *testing.T) {
		tmpl := &v1beta2.MemMachineTemplate{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "workers"}}
		require.NoError(t, c.Create(ctx, tmpl))
		assert.Equal(t, v1beta2.FlavorMedium, tmpl.Spec.Template.Spec.Flavor)

		tmpl.Spec.Template.Spec.Flavor = v1beta2.FlavorLarge
		err := c.Update(ctx, tmpl)
		require.True(t, apierrors.IsInvalid(err), "want Invalid, got %v", err)
		assert.Contains(t, err.Error(), "spec.template.spec.flavor: Forbidden: field is immutable")

		// Cluster API's topology controller: server-side-apply dry-runs of the annotated template, changed and not.
		// snippet:start topology-dry-run
		fresh := &v1beta2.MemMachineTemplate{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "workers-topology"}}
		providertest.AssertTemplateAcceptsTopologyDryRun(ctx, t, c, fresh, func(tmpl *v1beta2.MemMachineTemplate) {
			tmpl.Spec.Template.Spec.Flavor = v1beta2.FlavorLarge
		})
		// snippet:end topology-dry-run
	})

	t.Run("a MemClusterTemplate passes Cluster API's topology dry-runs", func(t *testing.T) {
		tmpl := &v1beta2.MemClusterTemplate{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "clusters-topology"}}
		providertest.AssertTemplateAcceptsTopologyDryRun(ctx, t, c, tmpl, func(tmpl *v1beta2.MemClusterTemplate) {
			tmpl.Spec.Template.Spec.LoadBalancer.Port = 7443
		})
	})

	t.Run("status keeps every contract field", func(t *testing.T) {
		mc := &v1beta2.MemCluster{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "provisioned"}}
		require.NoError(t, c.Create(ctx, mc))
		mc.Spec.ControlPlaneEndpoint = contract.APIEndpoint{Host: "lb-1f2e3d4c.memcloud.local", Port: 6443}
		require.NoError(t, c.Update(ctx, mc))
		mc.Status = v1beta2.MemClusterStatus{
			Initialization: contract.InfraClusterInitialization{Provisioned: ptr.To(true)},
			FailureDomains: []contract.FailureDomain{{Name: "az-1", ControlPlane: ptr.To(true)}},
			Resources:      map[string]string{"network": "net-1f2e3d4c"},
			Conditions: []metav1.Condition{{Type: v1beta2.ReadyCondition, Status: metav1.ConditionTrue, Reason: "Ready",
				LastTransitionTime: metav1.Now()}},
		}
		require.NoError(t, c.Status().Update(ctx, mc))

		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(v1beta2.GroupVersion.WithKind("MemCluster"))
		require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(mc), u))
		assert.Empty(t, lint.CheckInfraCluster(u, contract.V1Beta2).Strings())
		fields := contract.InfraCluster(contract.V1Beta2)
		provisioned, err := fields.Provisioned().Get(u)
		require.NoError(t, err)
		assert.True(t, provisioned)
		domains, err := fields.FailureDomains().Get(u)
		require.NoError(t, err)
		assert.Equal(t, []contract.FailureDomain{{Name: "az-1", ControlPlane: ptr.To(true)}}, domains)
	})
}

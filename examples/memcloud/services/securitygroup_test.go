package services_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/memcloudtest"
	"github.com/capkit/capkit/examples/memcloud/services"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/reconcile/step"
)

var (
	apiRule      = cloud.Rule{Protocol: "tcp", Port: 6443, Source: "0.0.0.0/0"}
	internalRule = cloud.Rule{Protocol: "all", Source: "10.0.0.0/16"}
	sshRule      = cloud.Rule{Protocol: "tcp", Port: 22, Source: "203.0.113.0/24"}
	updateSG     = cloud.VerbUpdate.On(cloud.KindSecurityGroup)
)

func TestIngressRules(t *testing.T) {
	tests := []struct {
		name string
		spec v1beta2.MemClusterSpec
		want []cloud.Rule
	}{
		{"defaulted: the API server port from anywhere", v1beta2.MemClusterSpec{}, []cloud.Rule{apiRule, internalRule}},
		{"the default follows the load balancer port", v1beta2.MemClusterSpec{LoadBalancer: v1beta2.LoadBalancerSpec{Port: 443}},
			[]cloud.Rule{{Protocol: "tcp", Port: 443, Source: "0.0.0.0/0"}, internalRule}},
		{"rules of the spec, and the network", v1beta2.MemClusterSpec{
			Network: v1beta2.NetworkSpec{CIDR: "192.168.0.0/20"},
			SecurityGroup: v1beta2.SecurityGroupSpec{IngressRules: []v1beta2.IngressRule{
				{Protocol: v1beta2.ProtocolTCP, Port: 22, CIDR: "203.0.113.0/24"},
				{Protocol: v1beta2.ProtocolUDP, Port: 51820, CIDR: "0.0.0.0/0"},
			}}},
			[]cloud.Rule{sshRule, {Protocol: "udp", Port: 51820, Source: "0.0.0.0/0"}, {Protocol: "all", Source: "192.168.0.0/20"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := *tt.spec.DeepCopy()
			assert.Equal(t, tt.want, services.IngressRules(tt.spec))
			assert.Equal(t, before, tt.spec, "the spec is not changed")
		})
	}
}

func TestSecurityGroupDiff(t *testing.T) {
	u, ok := services.NewResources(memcloudtest.NewCloud(t)).SecurityGroups.(ensure.Updater[cloud.SecurityGroupSpec, *cloud.SecurityGroup])
	require.True(t, ok, "security groups are updated in place")
	spec := cloud.SecurityGroupSpec{Name: "c1-sg", NetworkID: "net-1", Description: "cluster ns/c1", Ingress: []cloud.Rule{apiRule, internalRule}}
	tests := []struct {
		name        string
		obs         cloud.SecurityGroup
		wantFields  []string
		wantReplace bool
	}{
		{"up to date", cloud.SecurityGroup{Meta: cloud.Meta{Name: "c1-sg"}, NetworkID: "net-1", Description: "cluster ns/c1",
			Ingress: []cloud.Rule{apiRule, internalRule}}, nil, false},
		{"rules in another order", cloud.SecurityGroup{Meta: cloud.Meta{Name: "c1-sg"}, NetworkID: "net-1", Description: "cluster ns/c1",
			Ingress: []cloud.Rule{internalRule, apiRule}}, nil, false},
		{"a rule missing", cloud.SecurityGroup{Meta: cloud.Meta{Name: "c1-sg"}, NetworkID: "net-1", Description: "cluster ns/c1",
			Ingress: []cloud.Rule{internalRule}}, []string{"ingress"}, false},
		{"a rule added", cloud.SecurityGroup{Meta: cloud.Meta{Name: "c1-sg"}, NetworkID: "net-1", Description: "cluster ns/c1",
			Ingress: []cloud.Rule{apiRule, sshRule, internalRule}}, []string{"ingress"}, false},
		{"a rule listed twice", cloud.SecurityGroup{Meta: cloud.Meta{Name: "c1-sg"}, NetworkID: "net-1", Description: "cluster ns/c1",
			Ingress: []cloud.Rule{apiRule, apiRule}}, []string{"ingress"}, false},
		{"no rules", cloud.SecurityGroup{Meta: cloud.Meta{Name: "c1-sg"}, NetworkID: "net-1", Description: "cluster ns/c1"},
			[]string{"ingress"}, false},
		{"another network", cloud.SecurityGroup{Meta: cloud.Meta{Name: "c1-sg"}, NetworkID: "net-2", Description: "cluster ns/c1",
			Ingress: []cloud.Rule{apiRule, internalRule}}, []string{"networkID"}, true},
		{"another name and rules", cloud.SecurityGroup{Meta: cloud.Meta{Name: "other"}, NetworkID: "net-1", Description: "cluster ns/c1",
			Ingress: []cloud.Rule{apiRule}}, []string{"name", "ingress"}, true},
		{"another description", cloud.SecurityGroup{Meta: cloud.Meta{Name: "c1-sg"}, NetworkID: "net-1", Description: "cluster ns/c2",
			Ingress: []cloud.Rule{apiRule, internalRule}}, []string{"description"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fields, replace := u.Diff(spec, &tt.obs)
			assert.Equal(t, tt.wantFields, fields)
			assert.Equal(t, tt.wantReplace, replace)
		})
	}
}

// provisionedSG returns a cloud with a provisioned cluster, the cluster's scope, its security group step and
// the group's ID; the call counters are reset.
func provisionedSG(t *testing.T) (*cloud.Cloud, clusterFake, *services.SecurityGroup, string) {
	t.Helper()
	c := memcloudtest.NewCloud(t)
	s := clusterScope(nil)
	res, err := reconcileAll(t.Context(), clusterSteps(t, c), s)
	require.NoError(t, err)
	require.True(t, res.Done)
	g, err := services.NewSecurityGroup(c)
	require.NoError(t, err)
	c.ResetCounters()
	return c, s, g, s.Object.Status.Resources[services.KeySecurityGroup]
}

func TestSecurityGroupCorrectsDrift(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, c *cloud.Cloud, s clusterFake, id string)
		want   []cloud.Rule
	}{
		{"rules changed out of band", func(t *testing.T, c *cloud.Cloud, _ clusterFake, id string) {
			_, err := c.UpdateSecurityGroupRules(context.Background(), id, []cloud.Rule{sshRule})
			require.NoError(t, err)
		}, []cloud.Rule{apiRule, internalRule}},
		{"rules removed out of band", func(t *testing.T, c *cloud.Cloud, _ clusterFake, id string) {
			_, err := c.UpdateSecurityGroupRules(context.Background(), id, nil)
			require.NoError(t, err)
		}, []cloud.Rule{apiRule, internalRule}},
		{"rules changed in the spec", func(t *testing.T, _ *cloud.Cloud, s clusterFake, _ string) {
			s.Object.Spec.SecurityGroup.IngressRules = []v1beta2.IngressRule{
				{Protocol: v1beta2.ProtocolTCP, Port: 6443, CIDR: "203.0.113.0/24"}, {Protocol: v1beta2.ProtocolTCP, Port: 22, CIDR: "203.0.113.0/24"},
			}
		}, []cloud.Rule{{Protocol: "tcp", Port: 6443, Source: "203.0.113.0/24"}, sshRule, internalRule}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := withPoll(t.Context())
			c, s, g, id := provisionedSG(t)
			tt.change(t, c, s, id)
			c.ResetCounters()

			res, err := g.Reconcile(ctx, s)
			require.NoError(t, err)
			assert.False(t, res.Done, "the step looks again at the updated group")
			assert.Equal(t, conditions.ReasonDriftCorrected, res.Reason)
			assert.Equal(t, poll, res.RequeueAfter)
			assert.Contains(t, res.Message, "ingress")
			calls := c.Calls()
			assert.Equal(t, 1, calls.Of(cloud.VerbUpdate, cloud.KindSecurityGroup), "one in-place update: %v", calls.Calls)
			assert.Equal(t, 1, calls.Mutations, "and nothing else changes")
			assert.Equal(t, id, s.Object.Status.Resources[services.KeySecurityGroup], "the same group")
			assert.Equal(t, 1, c.Count(cloud.KindSecurityGroup))
			sg, err := c.GetSecurityGroup(ctx, id)
			require.NoError(t, err)
			assert.ElementsMatch(t, tt.want, sg.Ingress)

			c.ResetCounters()
			res, err = g.Reconcile(ctx, s)
			require.NoError(t, err)
			assert.True(t, res.Done, "up to date at the next reconcile")
			assert.Equal(t, map[cloud.Op]int{cloud.VerbGet.On(cloud.KindSecurityGroup): 1}, c.Calls().Calls, "one read, no update")
		})
	}
}

func TestSecurityGroupInSync(t *testing.T) {
	tests := []struct {
		name  string
		rules []cloud.Rule
	}{
		{"as created", nil},
		{"the same rules in another order", []cloud.Rule{internalRule, apiRule}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, s, g, id := provisionedSG(t)
			if tt.rules != nil {
				_, err := c.UpdateSecurityGroupRules(t.Context(), id, tt.rules)
				require.NoError(t, err)
				c.ResetCounters()
			}
			res, err := g.Reconcile(t.Context(), s)
			require.NoError(t, err)
			assert.Equal(t, step.Result{Done: true}, res)
			assert.Equal(t, map[cloud.Op]int{cloud.VerbGet.On(cloud.KindSecurityGroup): 1}, c.Calls().Calls)
		})
	}
}

func TestSecurityGroupDriftFailures(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(t *testing.T, c *cloud.Cloud, s clusterFake)
		check   func(t *testing.T, res step.Result, err error)
		updates int
	}{
		{"a failed update is retried", func(t *testing.T, c *cloud.Cloud, _ clusterFake) {
			require.NoError(t, c.FailNext(updateSG, cloud.BeforeChange))
		}, func(t *testing.T, _ step.Result, err error) {
			require.ErrorIs(t, err, cloud.ErrInjected)
			assert.False(t, step.IsTerminal(err))
		}, 1},
		{"a bad rule never reaches the cloud", func(t *testing.T, _ *cloud.Cloud, s clusterFake) {
			s.Object.Spec.SecurityGroup.IngressRules = []v1beta2.IngressRule{{Protocol: "tcp", Port: 22, CIDR: "203.0.113.1/24"}}
		}, func(t *testing.T, _ step.Result, err error) {
			var term *step.TerminalError
			require.ErrorAs(t, err, &term)
			assert.Equal(t, conditions.ReasonInvalidParameters, term.Reason)
			assert.Contains(t, err.Error(), `ingress[0].source "203.0.113.1/24"`)
		}, 0},
		{"a group of another network needs replacement: reported, never repaired", func(t *testing.T, c *cloud.Cloud, s clusterFake) {
			other, err := c.CreateNetwork(context.Background(), cloud.NetworkSpec{Name: "other", CIDR: "10.9.0.0/16"})
			require.NoError(t, err)
			s.Object.Status.Resources[services.KeyNetwork] = other.ID
			s.Object.Spec.SecurityGroup.IngressRules = []v1beta2.IngressRule{{Protocol: "tcp", Port: 22, CIDR: "203.0.113.0/24"}}
		}, func(t *testing.T, res step.Result, err error) {
			require.NoError(t, err)
			assert.False(t, res.Done)
			assert.Equal(t, conditions.ReasonNeedsReplacement, res.Reason)
			assert.Equal(t, poll, res.RequeueAfter)
		}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := withPoll(t.Context())
			c, s, g, id := provisionedSG(t)
			_, err := c.UpdateSecurityGroupRules(ctx, id, []cloud.Rule{sshRule})
			require.NoError(t, err)
			tt.setup(t, c, s)
			c.ResetCounters()

			res, err := g.Reconcile(ctx, s)
			tt.check(t, res, err)
			assert.Equal(t, tt.updates, c.Calls().Of(cloud.VerbUpdate, cloud.KindSecurityGroup))
			sg, err := c.GetSecurityGroup(ctx, id)
			require.NoError(t, err)
			assert.Equal(t, []cloud.Rule{sshRule}, sg.Ingress, "the group is unchanged")
			assert.Equal(t, 1, c.Count(cloud.KindSecurityGroup), "and never replaced")
		})
	}
}

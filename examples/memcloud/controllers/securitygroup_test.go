package controllers_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/memcloudtest"
	"github.com/capkit/capkit/examples/memcloud/services"
)

func (f *fixture) memCluster(t *testing.T) *v1beta2.MemCluster {
	t.Helper()
	mc := &v1beta2.MemCluster{}
	require.NoError(t, env.Client.Get(t.Context(), client.ObjectKey{Namespace: f.ns, Name: f.clusterName()}, mc))
	return mc
}

// securityGroup returns the cluster's security group as the cloud has it.
func (f *fixture) securityGroup(t *testing.T, id string) *cloud.SecurityGroup {
	t.Helper()
	sg, err := f.cloud.GetSecurityGroup(context.Background(), id)
	require.NoError(t, err)
	return sg
}

func TestSecurityGroupRulesFollowTheSpec(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, f *fixture, sgID string)
		want   func(mc *v1beta2.MemCluster) []cloud.Rule
	}{
		{
			name: "a rule changed in the MemCluster's spec reaches the cloud",
			change: func(t *testing.T, f *fixture, _ string) {
				mc := f.memCluster(t)
				mc.Spec.SecurityGroup.IngressRules = []v1beta2.IngressRule{
					{Protocol: v1beta2.ProtocolTCP, Port: 6443, CIDR: "203.0.113.0/24"},
					{Protocol: v1beta2.ProtocolUDP, Port: 51820, CIDR: "0.0.0.0/0"},
				}
				require.NoError(t, env.Client.Update(context.Background(), mc), "the webhook accepts a rule change")
			},
			want: func(*v1beta2.MemCluster) []cloud.Rule {
				return []cloud.Rule{{Protocol: "tcp", Port: 6443, Source: "203.0.113.0/24"},
					{Protocol: "udp", Port: 51820, Source: "0.0.0.0/0"}, {Protocol: "all", Source: "10.0.0.0/16"}}
			},
		},
		{
			name: "a rule changed out of band is put back",
			change: func(t *testing.T, f *fixture, sgID string) {
				_, err := f.cloud.UpdateSecurityGroupRules(context.Background(), sgID, []cloud.Rule{{Protocol: "tcp", Port: 22, Source: "0.0.0.0/0"}})
				require.NoError(t, err)
			},
			want: func(mc *v1beta2.MemCluster) []cloud.Rule { return services.IngressRules(mc.Spec) },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			f := newFixture(t, memcloudtest.Cluster{Name: "sg", ControlPlane: 1})
			f.provisionCluster(t)
			mc := f.memCluster(t)
			sgID := mc.Status.Resources[services.KeySecurityGroup]
			require.NotEmpty(t, sgID)
			assert.Equal(t, []v1beta2.IngressRule{{Protocol: v1beta2.ProtocolTCP, Port: 6443, CIDR: "0.0.0.0/0"}},
				mc.Spec.SecurityGroup.IngressRules, "the webhook defaults the API server rule")
			assert.ElementsMatch(t, services.IngressRules(mc.Spec), f.securityGroup(t, sgID).Ingress)

			tt.change(t, f, sgID)
			f.cloud.ResetCounters()
			res, err := f.cluster.Reconcile(ctx, f.req(f.clusterName()))
			require.NoError(t, err)
			assert.Positive(t, res.RequeueAfter, "the step looks again at the updated group")
			calls := f.cloud.Calls()
			assert.Equal(t, 1, calls.Of(cloud.VerbUpdate, cloud.KindSecurityGroup), "one in-place update: %v", calls.Calls)
			assert.Equal(t, 1, calls.Mutations, "%v", calls.Calls)
			mc = f.memCluster(t)
			assert.Equal(t, sgID, mc.Status.Resources[services.KeySecurityGroup], "the same group")
			assert.Equal(t, 1, f.cloud.Count(cloud.KindSecurityGroup))
			assert.ElementsMatch(t, tt.want(mc), f.securityGroup(t, sgID).Ingress)
			assert.Equal(t, conditions.ReasonDriftCorrected, conditions.GetReason(mc, v1beta2.SecurityGroupReadyCondition))

			f.cloud.ResetCounters()
			_, err = f.cluster.Reconcile(ctx, f.req(f.clusterName()))
			require.NoError(t, err)
			assert.Zero(t, f.cloud.Calls().Mutations, "up to date: %v", f.cloud.Calls().Calls)
			mc = f.memCluster(t)
			assert.True(t, conditions.IsTrue(mc, v1beta2.SecurityGroupReadyCondition), "%+v", mc.Status.Conditions)
			assert.True(t, conditions.IsTrue(mc, v1beta2.ReadyCondition))
			assert.Equal(t, mc.Generation, mc.Status.ObservedGeneration)
		})
	}
}

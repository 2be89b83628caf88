package cloud_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/memcloudtest"
)

var (
	apiRule  = cloud.Rule{Protocol: "tcp", Port: 6443, Source: "0.0.0.0/0"}
	sshRule  = cloud.Rule{Protocol: "tcp", Port: 22, Source: "192.168.0.0/24"}
	dnsRule  = cloud.Rule{Protocol: "udp", Port: 53, Source: "10.0.0.0/16"}
	allRule  = cloud.Rule{Protocol: "all", Source: "10.0.0.0/16"}
	updateSG = cloud.VerbUpdate.On(cloud.KindSecurityGroup)
)

// ruleEnv is an env whose security group has the API server rule.
func ruleEnv(t *testing.T) env {
	t.Helper()
	e := newEnv(t)
	sg, err := e.c.UpdateSecurityGroupRules(t.Context(), e.sg.ID, []cloud.Rule{apiRule})
	require.NoError(t, err)
	e.sg = sg
	e.c.ResetCounters()
	return e
}

func TestUpdateSecurityGroupRules(t *testing.T) {
	tests := []struct {
		name        string
		rules       []cloud.Rule
		wantUpdated int
	}{
		{"adds rules", []cloud.Rule{apiRule, sshRule, dnsRule, allRule}, 1},
		{"replaces a rule", []cloud.Rule{sshRule}, 1},
		{"removes every rule", nil, 1},
		{"the same rules change nothing", []cloud.Rule{apiRule}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			e := ruleEnv(t)

			sg, err := e.c.UpdateSecurityGroupRules(ctx, e.sg.ID, tt.rules)
			require.NoError(t, err)
			assert.ElementsMatch(t, tt.rules, sg.Ingress, "the returned group has the new rules")
			assert.Equal(t, e.sg.Meta, sg.Meta, "same group: ID, name, tags")
			got, err := e.c.GetSecurityGroup(ctx, e.sg.ID)
			require.NoError(t, err)
			assert.ElementsMatch(t, tt.rules, got.Ingress, "and keeps them")

			s := e.c.Calls()
			assert.Equal(t, 1, s.Of(cloud.VerbUpdate, cloud.KindSecurityGroup))
			assert.Equal(t, 1, s.Mutations, "an update is a mutating call")
			assert.Equal(t, tt.wantUpdated, s.Updated[cloud.KindSecurityGroup])
			assert.Empty(t, s.Created)
		})
	}
}

func TestUpdateSecurityGroupRulesReturnsACopy(t *testing.T) {
	ctx := t.Context()
	e := ruleEnv(t)
	rules := []cloud.Rule{sshRule}
	sg, err := e.c.UpdateSecurityGroupRules(ctx, e.sg.ID, rules)
	require.NoError(t, err)
	rules[0].Port = 2222
	sg.Ingress[0].Port = 2223
	got, err := e.c.GetSecurityGroup(ctx, e.sg.ID)
	require.NoError(t, err)
	assert.Equal(t, []cloud.Rule{sshRule}, got.Ingress, "neither the request nor the response aliases the cloud's state")
}

func TestUpdateSecurityGroupRulesRejects(t *testing.T) {
	tests := []struct {
		name    string
		id      func(e env) string
		rules   []cloud.Rule
		wantIs  error
		wantMsg string
	}{
		{name: "bad protocol", rules: []cloud.Rule{{Protocol: "sctp", Port: 1, Source: "0.0.0.0/0"}},
			wantIs: cloud.ErrInvalidParameter, wantMsg: `ingress[0].protocol "sctp" must be one of tcp, udp, icmp, all`},
		{name: "port zero", rules: []cloud.Rule{apiRule, {Protocol: "tcp", Source: "0.0.0.0/0"}},
			wantIs: cloud.ErrInvalidParameter, wantMsg: `ingress[1].port "0" must be from 1 to 65535 for tcp`},
		{name: "port too large", rules: []cloud.Rule{{Protocol: "udp", Port: 65536, Source: "0.0.0.0/0"}},
			wantIs: cloud.ErrInvalidParameter, wantMsg: `ingress[0].port "65536" must be from 1 to 65535 for udp`},
		{name: "port on all", rules: []cloud.Rule{{Protocol: "all", Port: 80, Source: "0.0.0.0/0"}},
			wantIs: cloud.ErrInvalidParameter, wantMsg: `ingress[0].port "80" must be 0 for all`},
		{name: "host bits in the source", rules: []cloud.Rule{{Protocol: "tcp", Port: 22, Source: "10.0.0.1/16"}},
			wantIs: cloud.ErrInvalidParameter, wantMsg: `ingress[0].source "10.0.0.1/16" has host bits set`},
		{name: "source not a CIDR", rules: []cloud.Rule{{Protocol: "tcp", Port: 22, Source: "anywhere"}},
			wantIs: cloud.ErrInvalidParameter, wantMsg: `ingress[0].source "anywhere" is not an IPv4 CIDR`},
		{name: "not a security group ID", id: func(e env) string { return e.net.ID }, rules: []cloud.Rule{sshRule},
			wantIs: cloud.ErrInvalidParameter, wantMsg: `is not a security group ID`},
		{name: "unknown group", id: func(env) string { return "sg-00000000" }, rules: []cloud.Rule{sshRule},
			wantIs: cloud.ErrNotFound, wantMsg: `cannot update the rules of security group "sg-00000000": resource not found`},
		{name: "deleted group", rules: []cloud.Rule{sshRule}, wantIs: cloud.ErrNotFound,
			id: func(e env) string {
				require.NoError(t, e.c.DeleteSecurityGroup(context.Background(), e.sg.ID))
				return e.sg.ID
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			e := ruleEnv(t)
			id := e.sg.ID
			if tt.id != nil {
				id = tt.id(e)
			}
			_, err := e.c.UpdateSecurityGroupRules(ctx, id, tt.rules)
			require.ErrorIs(t, err, tt.wantIs)
			assert.Contains(t, err.Error(), tt.wantMsg)
			assert.Empty(t, e.c.Calls().Updated, "nothing changed")
			if got, err := e.c.GetSecurityGroup(ctx, e.sg.ID); err == nil {
				assert.Equal(t, []cloud.Rule{apiRule}, got.Ingress, "the rules are unchanged")
			}
		})
	}
}

func TestUpdateSecurityGroupRulesFaults(t *testing.T) {
	tests := faultCases(updateSG)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			e := ruleEnv(t)
			tt.inject(t, e.c)

			_, err := e.c.UpdateSecurityGroupRules(ctx, e.sg.ID, []cloud.Rule{sshRule})
			require.ErrorIs(t, err, cloud.ErrInjected)
			var fe *cloud.FaultError
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, updateSG, fe.Op)
			assert.Equal(t, tt.wantApplied, fe.Applied)
			assert.Contains(t, err.Error(), "injected fault in UpdateSecurityGroup")
			assert.Equal(t, 1, e.c.Calls().Faults)

			require.NoError(t, e.c.SetFaults(cloud.FaultConfig{}))
			got, err := e.c.GetSecurityGroup(ctx, e.sg.ID)
			require.NoError(t, err)
			want := []cloud.Rule{apiRule}
			if tt.wantApplied {
				want = []cloud.Rule{sshRule}
			}
			assert.Equal(t, want, got.Ingress)
		})
	}
}

func TestUpdateOnlyExistsForSecurityGroups(t *testing.T) {
	c := memcloudtest.NewCloud(t)
	require.NoError(t, c.FailNext(updateSG, cloud.BeforeChange))
	err := c.FailNext(cloud.VerbUpdate.On(cloud.KindNetwork), cloud.BeforeChange)
	require.ErrorIs(t, err, cloud.ErrInvalidParameter)
	assert.Contains(t, err.Error(), `op "UpdateNetwork" is not an operation of the API`)
}

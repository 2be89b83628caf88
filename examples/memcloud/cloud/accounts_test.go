package cloud_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/memcloudtest"
)

// tenantTags are the tags of every tenant's base resources: two tenants deploying the same
// cluster use the same names, tags and idempotency tokens.
var tenantTags = map[string]string{"capkit.io/cluster": "default/demo", "role": "base"}

// tenant is an account of a shared cloud with one resource of every kind, a load balancer
// target registered, and a context carrying its credentials.
type tenant struct {
	env
	name  string
	ctx   context.Context
	creds cloud.Credentials
	lb    *cloud.LoadBalancer
	group *cloud.InstanceGroup
	inst  *cloud.Instance
}

// newTenant creates an account and its base resources in c.
func newTenant(t *testing.T, c *cloud.Cloud, name string) tenant {
	t.Helper()
	creds, err := c.CreateAccount(name)
	require.NoError(t, err)
	return buildTenant(t, c, name, cloud.WithCredentials(t.Context(), creds), creds)
}

// buildTenant creates the base resources with ctx: the same names, CIDRs, tags and tokens for
// every tenant.
func buildTenant(t *testing.T, c *cloud.Cloud, name string, ctx context.Context, creds cloud.Credentials) tenant {
	t.Helper()
	tn := tenant{name: name, ctx: ctx, creds: creds}
	tn.c = c
	var err error
	tn.net, err = c.CreateNetwork(ctx, cloud.NetworkSpec{Name: "base", CIDR: "10.0.0.0/16", Tags: tenantTags, IdempotencyToken: "net"})
	require.NoError(t, err)
	tn.subnet, err = c.CreateSubnet(ctx, cloud.SubnetSpec{Name: "base", NetworkID: tn.net.ID, CIDR: "10.0.1.0/24", Tags: tenantTags, IdempotencyToken: "subnet"})
	require.NoError(t, err)
	tn.sg, err = c.CreateSecurityGroup(ctx, cloud.SecurityGroupSpec{Name: "base", NetworkID: tn.net.ID, Tags: tenantTags, IdempotencyToken: "sg",
		Ingress: []cloud.Rule{{Protocol: "tcp", Port: 6443, Source: "0.0.0.0/0"}}})
	require.NoError(t, err)
	tn.lb, err = c.CreateLoadBalancer(ctx, cloud.LoadBalancerSpec{Name: "base", NetworkID: tn.net.ID, Tags: tenantTags, IdempotencyToken: "lb"})
	require.NoError(t, err)
	tn.group, err = c.CreateInstanceGroup(ctx, cloud.InstanceGroupSpec{Name: "base", SubnetID: tn.subnet.ID, Image: "img", Flavor: "small",
		SecurityGroupIDs: []string{tn.sg.ID}, UserData: []byte("join-1"), Size: 1, Tags: tenantTags, IdempotencyToken: "group"})
	require.NoError(t, err)
	tn.inst, err = c.CreateInstance(ctx, cloud.InstanceSpec{Name: "base", SubnetID: tn.subnet.ID, Image: "img", Flavor: "small",
		SecurityGroupIDs: []string{tn.sg.ID}, Tags: tenantTags, IdempotencyToken: "inst"})
	require.NoError(t, err)
	require.NoError(t, c.RegisterTarget(ctx, tn.lb.ID, tn.inst.ID))
	return tn
}

// id returns the ID of the tenant's base resource of a kind.
func (tn tenant) id(k cloud.Kind) string {
	return map[cloud.Kind]string{
		cloud.KindNetwork: tn.net.ID, cloud.KindSubnet: tn.subnet.ID, cloud.KindSecurityGroup: tn.sg.ID,
		cloud.KindLoadBalancer: tn.lb.ID, cloud.KindInstanceGroup: tn.group.ID, cloud.KindInstance: tn.inst.ID,
	}[k]
}

// apiCall is one API method called on a tenant's resources: creates use them as parents,
// the others as targets. It returns the IDs created or found.
type apiCall struct {
	op cloud.Op
	do func(ctx context.Context, tn tenant) ([]string, error)
}

// apiCalls lists every API method.
var apiCalls = func() []apiCall {
	var calls []apiCall
	for _, m := range makers {
		calls = append(calls,
			apiCall{cloud.VerbCreate.On(m.kind), func(ctx context.Context, tn tenant) ([]string, error) {
				id, err := m.create(ctx, tn.env, req{name: "x", token: "x", tags: tenantTags, n: 1})
				return []string{id}, err
			}},
			apiCall{cloud.VerbGet.On(m.kind), func(ctx context.Context, tn tenant) ([]string, error) {
				return nil, m.get(ctx, tn.env, tn.id(m.kind))
			}},
			apiCall{cloud.VerbFind.On(m.kind), func(ctx context.Context, tn tenant) ([]string, error) {
				return m.find(ctx, tn.env, tenantTags)
			}},
			apiCall{cloud.VerbDelete.On(m.kind), func(ctx context.Context, tn tenant) ([]string, error) {
				return nil, m.del(ctx, tn.env, tn.id(m.kind))
			}},
		)
	}
	return append(calls,
		apiCall{cloud.VerbUpdate.On(cloud.KindSecurityGroup), func(ctx context.Context, tn tenant) ([]string, error) {
			_, err := tn.c.UpdateSecurityGroupRules(ctx, tn.sg.ID, nil)
			return nil, err
		}},
		apiCall{cloud.VerbUpdate.On(cloud.KindInstanceGroup), func(ctx context.Context, tn tenant) ([]string, error) {
			return nil, tn.c.UpdateInstanceGroupUserData(ctx, tn.group.ID, []byte("join-2"))
		}},
		apiCall{cloud.VerbScale.On(cloud.KindInstanceGroup), func(ctx context.Context, tn tenant) ([]string, error) {
			_, err := tn.c.ScaleInstanceGroup(ctx, tn.group.ID, 2)
			return nil, err
		}},
		apiCall{cloud.VerbRegister.On(cloud.KindLoadBalancer), func(ctx context.Context, tn tenant) ([]string, error) {
			return nil, tn.c.RegisterTarget(ctx, tn.lb.ID, tn.inst.ID)
		}},
		apiCall{cloud.VerbDeregister.On(cloud.KindLoadBalancer), func(ctx context.Context, tn tenant) ([]string, error) {
			return nil, tn.c.DeregisterTarget(ctx, tn.lb.ID, tn.inst.ID)
		}},
	)
}()

func TestAPICallsListsEveryOperation(t *testing.T) {
	seen := map[cloud.Op]bool{}
	for _, call := range apiCalls {
		assert.False(t, seen[call.op], call.op)
		seen[call.op] = true
	}
	assert.Len(t, seen, 4*len(cloud.Kinds())+5, "create, get, find and delete of every kind, 2 updates, scale, register and deregister")
}

// state is everything a tenant could change in the cloud, read from the god view.
type state struct {
	Resources []cloud.Resource
	Rules     []cloud.Rule
	Targets   []string
	Size      int
	UserData  string
	Created   int
}

func stateOf(t *testing.T, c *cloud.Cloud, tn tenant) state {
	t.Helper()
	ctx := tn.ctx
	s := state{Resources: c.All(), Created: c.TotalCreated()}
	before := c.Calls()
	sg, err := c.GetSecurityGroup(ctx, tn.sg.ID)
	require.NoError(t, err)
	lb, err := c.GetLoadBalancer(ctx, tn.lb.ID)
	require.NoError(t, err)
	g, err := c.GetInstanceGroup(ctx, tn.group.ID)
	require.NoError(t, err)
	data, err := c.InstanceGroupUserData(tn.group.ID)
	require.NoError(t, err)
	s.Rules, s.Targets, s.Size, s.UserData = sg.Ingress, lb.Targets, g.Size, string(data)
	// The reads above are not part of what the test counts.
	after := c.Calls()
	require.Equal(t, before.ByAccount[tn.name]+3, after.ByAccount[tn.name])
	return s
}

func TestNoAccountKeepsTodaysBehaviour(t *testing.T) {
	c := memcloudtest.NewCloud(t)
	tn := buildTenant(t, c, "", t.Context(), cloud.Credentials{})
	c.ResetCounters()
	for _, call := range apiCalls {
		t.Run(call.op.String(), func(t *testing.T) {
			_, err := call.do(t.Context(), tn)
			assert.NotErrorIs(t, err, cloud.ErrUnauthorized)
		})
	}
	s := c.Calls()
	assert.Equal(t, len(apiCalls), s.Total())
	assert.Empty(t, s.ByAccount)
	assert.Zero(t, s.Unauthorized)
	assert.Empty(t, c.Accounts())
	for _, r := range c.All() {
		assert.Empty(t, r.Account, r.ID)
		account, ok := c.AccountOf(r.ID)
		assert.True(t, ok)
		assert.Empty(t, account)
	}
	_, ok := c.AccountOf("net-00000000")
	assert.False(t, ok)
}

func TestCredentialsOnACloudWithoutAccountsAreRefused(t *testing.T) {
	c := memcloudtest.NewCloud(t)
	ctx := cloud.WithCredentials(t.Context(), testCreds)
	_, err := c.CreateNetwork(ctx, cloud.NetworkSpec{Name: "n", CIDR: "10.0.0.0/16"})
	require.ErrorIs(t, err, cloud.ErrUnauthorized)
	assert.Equal(t, `cannot create network "n": unauthorized: CreateNetwork with access key "MCAK0123456789ABCDEF": unknown access key ID`, err.Error())
	assert.Zero(t, c.TotalCreated())
	_, err = c.CreateNetwork(t.Context(), cloud.NetworkSpec{Name: "n", CIDR: "10.0.0.0/16"})
	require.NoError(t, err, "calls without credentials still work")
}

func TestCreateAccount(t *testing.T) {
	c := memcloudtest.NewCloud(t)
	a, err := c.CreateAccount("team-a")
	require.NoError(t, err)
	b, err := c.CreateAccount("0")
	require.NoError(t, err)
	long, err := c.CreateAccount(strings.Repeat("a", 63))
	require.NoError(t, err)
	assert.Equal(t, []string{"0", strings.Repeat("a", 63), "team-a"}, c.Accounts())

	keyID := regexp.MustCompile(`^MCAK[0-9A-F]{16}$`)
	secret := regexp.MustCompile(`^[A-Za-z0-9+/]{40}$`)
	for _, creds := range []cloud.Credentials{a, b, long} {
		assert.Regexp(t, keyID, creds.AccessKeyID)
		assert.Regexp(t, secret, creds.SecretAccessKey)
		assert.NotContains(t, creds.SecretAccessKey, creds.AccessKeyID[4:])
	}
	assert.NotEqual(t, a.AccessKeyID, b.AccessKeyID)
	assert.NotEqual(t, a.SecretAccessKey, b.SecretAccessKey)

	// Access key IDs follow the seed; secrets do not, so they cannot be guessed from the key.
	same := memcloudtest.NewCloud(t)
	a2, err := same.CreateAccount("team-a")
	require.NoError(t, err)
	assert.Equal(t, a.AccessKeyID, a2.AccessKeyID)
	assert.NotEqual(t, a.SecretAccessKey, a2.SecretAccessKey)
}

func TestCreateAccountRejectsBadNames(t *testing.T) {
	c := memcloudtest.NewCloud(t)
	_, err := c.CreateAccount("taken")
	require.NoError(t, err)
	tests := []struct {
		name, reason string
	}{
		{"", "must be 1 to 63 lowercase letters"},
		{"Team-A", "must be 1 to 63 lowercase letters"},
		{"team_a", "must be 1 to 63 lowercase letters"},
		{"team a", "must be 1 to 63 lowercase letters"},
		{"-team", "must be 1 to 63 lowercase letters"},
		{"team-", "must be 1 to 63 lowercase letters"},
		{strings.Repeat("a", 64), "must be 1 to 63 lowercase letters"},
		{"taken", "is already an account"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			creds, err := c.CreateAccount(tt.name)
			require.ErrorIs(t, err, cloud.ErrInvalidParameter)
			assert.Zero(t, creds)
			assert.Contains(t, err.Error(), fmt.Sprintf("cannot create account %q: invalid parameter: name %q %s", tt.name, tt.name, tt.reason))
		})
	}
	assert.Equal(t, []string{"taken"}, c.Accounts())
}

// TestUnauthorizedCallsChangeNothing makes every API call with every kind of bad credentials
// and checks that it fails with ErrUnauthorized before anything happens: no change, no fault
// used up, no delay, nothing revealed, and the refusal counted.
func TestUnauthorizedCallsChangeNothing(t *testing.T) {
	tests := []struct {
		name string
		// creds returns the context of the call and the message it must fail with (%s is the
		// operation). a is a valid account, whose credentials it may rotate; b is another one.
		creds func(t *testing.T, c *cloud.Cloud, a *tenant, b tenant) (context.Context, string)
	}{
		{"no credentials", func(*testing.T, *cloud.Cloud, *tenant, tenant) (context.Context, string) {
			return context.Background(), "unauthorized: %s without credentials"
		}},
		{"unknown access key", func(*testing.T, *cloud.Cloud, *tenant, tenant) (context.Context, string) {
			return cloud.WithCredentials(context.Background(), testCreds),
				`unauthorized: %s with access key "MCAK0123456789ABCDEF": unknown access key ID`
		}},
		{"empty credentials", func(*testing.T, *cloud.Cloud, *tenant, tenant) (context.Context, string) {
			return cloud.WithCredentials(context.Background(), cloud.Credentials{}),
				`unauthorized: %s with access key "": unknown access key ID`
		}},
		{"wrong secret", func(_ *testing.T, _ *cloud.Cloud, a *tenant, _ tenant) (context.Context, string) {
			return cloud.WithCredentials(context.Background(), cloud.Credentials{AccessKeyID: a.creds.AccessKeyID, SecretAccessKey: testSecret}),
				`unauthorized: %s with access key "` + a.creds.AccessKeyID + `": wrong secret access key`
		}},
		{"secret of another account", func(_ *testing.T, _ *cloud.Cloud, a *tenant, b tenant) (context.Context, string) {
			return cloud.WithCredentials(context.Background(), cloud.Credentials{AccessKeyID: a.creds.AccessKeyID, SecretAccessKey: b.creds.SecretAccessKey}),
				`unauthorized: %s with access key "` + a.creds.AccessKeyID + `": wrong secret access key`
		}},
		{"rotated credentials", func(t *testing.T, c *cloud.Cloud, a *tenant, _ tenant) (context.Context, string) {
			old := *a
			creds, err := c.RotateCredentials(a.name)
			require.NoError(t, err)
			a.creds, a.ctx = creds, cloud.WithCredentials(context.Background(), creds)
			return old.ctx, `unauthorized: %s with access key "` + old.creds.AccessKeyID + `": unknown access key ID`
		}},
		{"deleted account", func(t *testing.T, c *cloud.Cloud, _ *tenant, _ tenant) (context.Context, string) {
			creds, err := c.CreateAccount("gone")
			require.NoError(t, err)
			require.NoError(t, c.DeleteAccount("gone"))
			return cloud.WithCredentials(context.Background(), creds),
				`unauthorized: %s with access key "` + creds.AccessKeyID + `": unknown access key ID`
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, call := range apiCalls {
				t.Run(call.op.String(), func(t *testing.T) {
					c := memcloudtest.NewCloud(t)
					a, b := newTenant(t, c, "team-a"), newTenant(t, c, "team-b")
					oldSecret := a.creds.SecretAccessKey
					ctx, want := tt.creds(t, c, &a, b)
					before := stateOf(t, c, a)
					require.NoError(t, c.FailNext(call.op, cloud.BeforeChange))
					// A refused call is not delayed: were it, the deadline would end it first.
					require.NoError(t, c.SetFaults(cloud.FaultConfig{Latency: time.Hour}))
					ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
					defer cancel()
					c.ResetCounters()

					ids, err := call.do(ctx, a)
					require.ErrorIs(t, err, cloud.ErrUnauthorized)
					var ue *cloud.UnauthorizedError
					require.ErrorAs(t, err, &ue)
					assert.Equal(t, call.op, ue.Op)
					assert.True(t, strings.HasSuffix(err.Error(), ": "+fmt.Sprintf(want, call.op)), err.Error())
					for _, secret := range []string{testSecret, oldSecret, a.creds.SecretAccessKey, b.creds.SecretAccessKey} {
						assert.NotContains(t, err.Error(), secret)
					}
					assert.Empty(t, slices.DeleteFunc(ids, func(id string) bool { return id == "" }), "nothing found or created")

					s := c.Calls()
					assert.Equal(t, 1, s.Unauthorized)
					assert.Equal(t, 1, s.Total(), "the refused call is counted")
					assert.Equal(t, 1, s.Calls[call.op])
					assert.Empty(t, s.ByAccount, "and charged to no account")
					assert.Zero(t, s.Faults)

					require.NoError(t, c.SetFaults(cloud.FaultConfig{}))
					_, err = call.do(a.ctx, a)
					require.ErrorIs(t, err, cloud.ErrInjected, "the queued fault was not used up by the refused call")
					assert.Equal(t, before, stateOf(t, c, a))
				})
			}
		})
	}
}

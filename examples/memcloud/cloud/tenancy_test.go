package cloud_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/memcloudtest"
)

// TestTenantsNeverSeeEachOther gives two accounts the same resources (names, CIDRs, tags and
// idempotency tokens), then makes every API call with b's credentials on a's resources: b sees
// nothing of a, changes nothing of a, and a makes no call.
func TestTenantsNeverSeeEachOther(t *testing.T) {
	c := memcloudtest.NewCloud(t)
	a, b := newTenant(t, c, "team-a"), newTenant(t, c, "team-b")
	for _, k := range cloud.Kinds() {
		assert.NotEqual(t, a.id(k), b.id(k), "the same token in two accounts creates two resources")
		for _, tn := range []tenant{a, b} {
			account, ok := c.AccountOf(tn.id(k))
			assert.True(t, ok)
			assert.Equal(t, tn.name, account)
		}
	}
	assert.Empty(t, c.Duplicates(cloud.OwnerTagValue("capkit.io/cluster"), "role"), "resources of two accounts are never duplicates")
	before := stateOf(t, c, a)
	c.ResetCounters()

	for _, call := range apiCalls {
		t.Run(call.op.String(), func(t *testing.T) {
			ids, err := call.do(b.ctx, a) // b's credentials, a's IDs
			switch {
			case call.op.Verb == cloud.VerbFind:
				require.NoError(t, err)
				assert.NotEmpty(t, ids, "b finds its own resources")
				for _, id := range ids {
					account, _ := c.AccountOf(id)
					assert.Equal(t, b.name, account, id)
				}
			case call.op == cloud.VerbCreate.On(cloud.KindNetwork):
				require.NoError(t, err, "a network has no parent: b creates its own")
				account, _ := c.AccountOf(ids[0])
				assert.Equal(t, b.name, account)
				require.NoError(t, c.DeleteNetwork(b.ctx, ids[0]))
			case call.op.Verb == cloud.VerbCreate:
				require.ErrorIs(t, err, cloud.ErrInvalidParameter, "a's parent does not exist for b")
				assert.Contains(t, err.Error(), "does not exist")
			default:
				require.ErrorIs(t, err, cloud.ErrNotFound)
			}
		})
	}

	s := c.Calls()
	assert.Zero(t, s.ByAccount[a.name], "no call was made for a")
	assert.Equal(t, len(apiCalls)+1, s.ByAccount[b.name])
	assert.Zero(t, s.Unauthorized)
	assert.Equal(t, s.Total(), s.ByAccount[b.name])
	before.Created++ // b's own network, deleted since
	assert.Equal(t, before, stateOf(t, c, a), "nothing of a changed")
}

// TestNotFoundLooksTheSameAsNeverExisted checks that the error about another account's
// resource is the error about an ID that was never issued: nothing tells them apart.
func TestNotFoundLooksTheSameAsNeverExisted(t *testing.T) {
	c := memcloudtest.NewCloud(t)
	a, b := newTenant(t, c, "team-a"), newTenant(t, c, "team-b")
	never := "net-00000000"
	_, errNever := c.GetNetwork(b.ctx, never)
	_, errOther := c.GetNetwork(b.ctx, a.net.ID)
	require.ErrorIs(t, errOther, cloud.ErrNotFound)
	assert.Equal(t, fmt.Sprintf("cannot get network %q: resource not found", a.net.ID), errOther.Error())
	assert.Equal(t, fmt.Sprintf("cannot get network %q: resource not found", never), errNever.Error())

	_, errNever = c.CreateSubnet(b.ctx, cloud.SubnetSpec{Name: "s", NetworkID: never, CIDR: "10.0.9.0/24"})
	_, errOther = c.CreateSubnet(b.ctx, cloud.SubnetSpec{Name: "s", NetworkID: a.net.ID, CIDR: "10.0.9.0/24"})
	assert.Equal(t, `cannot create subnet "s": invalid parameter: networkID "`+never+`" does not exist`, errNever.Error())
	assert.Equal(t, `cannot create subnet "s": invalid parameter: networkID "`+a.net.ID+`" does not exist`, errOther.Error())
}

// TestParentsOfAnotherAccountDoNotExist mixes b's own parents with one of a's in every field
// of a spec that refers to another resource.
func TestParentsOfAnotherAccountDoNotExist(t *testing.T) {
	c := memcloudtest.NewCloud(t)
	a, b := newTenant(t, c, "team-a"), newTenant(t, c, "team-b")
	tests := []struct {
		name  string
		call  func() error
		field string
	}{
		{"subnet in a's network", func() error {
			_, err := c.CreateSubnet(b.ctx, cloud.SubnetSpec{Name: "s", NetworkID: a.net.ID, CIDR: "10.0.2.0/24"})
			return err
		}, `networkID "` + a.net.ID + `"`},
		{"security group in a's network", func() error {
			_, err := c.CreateSecurityGroup(b.ctx, cloud.SecurityGroupSpec{Name: "s", NetworkID: a.net.ID})
			return err
		}, `networkID "` + a.net.ID + `"`},
		{"load balancer in a's network", func() error {
			_, err := c.CreateLoadBalancer(b.ctx, cloud.LoadBalancerSpec{Name: "s", NetworkID: a.net.ID})
			return err
		}, `networkID "` + a.net.ID + `"`},
		{"instance in a's subnet", func() error {
			_, err := c.CreateInstance(b.ctx, cloud.InstanceSpec{Name: "i", SubnetID: a.subnet.ID, Image: "img", Flavor: "small"})
			return err
		}, `subnetID "` + a.subnet.ID + `"`},
		{"instance with a's security group", func() error {
			_, err := c.CreateInstance(b.ctx, cloud.InstanceSpec{Name: "i", SubnetID: b.subnet.ID, Image: "img", Flavor: "small",
				SecurityGroupIDs: []string{b.sg.ID, a.sg.ID}})
			return err
		}, `securityGroupIDs[1] "` + a.sg.ID + `"`},
		{"instance group in a's subnet", func() error {
			_, err := c.CreateInstanceGroup(b.ctx, cloud.InstanceGroupSpec{Name: "g", SubnetID: a.subnet.ID, Image: "img", Flavor: "small", Size: 1})
			return err
		}, `subnetID "` + a.subnet.ID + `"`},
		{"instance group with a's security group", func() error {
			_, err := c.CreateInstanceGroup(b.ctx, cloud.InstanceGroupSpec{Name: "g", SubnetID: b.subnet.ID, Image: "img", Flavor: "small", Size: 1,
				SecurityGroupIDs: []string{a.sg.ID}})
			return err
		}, `securityGroupIDs[0] "` + a.sg.ID + `"`},
		{"a's instance behind b's load balancer", func() error {
			return c.RegisterTarget(b.ctx, b.lb.ID, a.inst.ID)
		}, `instanceID "` + a.inst.ID + `"`},
	}
	created := c.TotalCreated()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			require.ErrorIs(t, err, cloud.ErrInvalidParameter)
			assert.Contains(t, err.Error(), tt.field+" does not exist")
		})
	}
	assert.Equal(t, created, c.TotalCreated())
	lb, err := c.GetLoadBalancer(b.ctx, b.lb.ID)
	require.NoError(t, err)
	assert.Equal(t, []string{b.inst.ID}, lb.Targets)

	// Deregistering a's instance from b's load balancer is the no-op of an unknown instance.
	require.NoError(t, c.DeregisterTarget(b.ctx, b.lb.ID, a.inst.ID))
	lb, err = c.GetLoadBalancer(a.ctx, a.lb.ID)
	require.NoError(t, err)
	assert.Equal(t, []string{a.inst.ID}, lb.Targets)
}

func TestIdempotencyTokensArePerAccount(t *testing.T) {
	c := memcloudtest.NewCloud(t)
	a, b := newTenant(t, c, "team-a"), newTenant(t, c, "team-b")
	spec := cloud.NetworkSpec{Name: "base", CIDR: "10.0.0.0/16", Tags: tenantTags, IdempotencyToken: "net"}

	for _, tn := range []tenant{a, b} {
		got, err := c.CreateNetwork(tn.ctx, spec)
		require.NoError(t, err)
		assert.Equal(t, tn.net.ID, got.ID, "a replay returns the account's own resource")
	}

	// Different parameters under one token: a mismatch in one account only.
	other := cloud.NetworkSpec{Name: "other", CIDR: "10.1.0.0/16", IdempotencyToken: "t2"}
	_, err := c.CreateNetwork(a.ctx, other)
	require.NoError(t, err)
	other.Name = "other-b"
	_, err = c.CreateNetwork(b.ctx, other)
	require.NoError(t, err, "b never used t2")
	_, err = c.CreateNetwork(a.ctx, other)
	require.ErrorIs(t, err, cloud.ErrTokenMismatch)

	// A token used up in a stays usable in b.
	for _, id := range []string{a.inst.ID} {
		require.NoError(t, c.DeleteInstance(a.ctx, id))
	}
	inst := cloud.InstanceSpec{Name: "base", SubnetID: a.subnet.ID, Image: "img", Flavor: "small",
		SecurityGroupIDs: []string{a.sg.ID}, Tags: tenantTags, IdempotencyToken: "inst"}
	_, err = c.CreateInstance(a.ctx, inst)
	require.ErrorIs(t, err, cloud.ErrTokenReused)
	inst.SubnetID, inst.SecurityGroupIDs = b.subnet.ID, []string{b.sg.ID}
	got, err := c.CreateInstance(b.ctx, inst)
	require.NoError(t, err)
	assert.Equal(t, b.inst.ID, got.ID)
}

func TestQuotasArePerAccount(t *testing.T) {
	ctx := t.Context()
	c := memcloudtest.NewCloud(t, cloud.WithQuota(cloud.KindNetwork, 1))
	// Created without credentials before the first account: a bucket of its own.
	_, err := c.CreateNetwork(ctx, cloud.NetworkSpec{Name: "old", CIDR: "10.0.0.0/16"})
	require.NoError(t, err)
	ctxs := map[string]context.Context{}
	for _, name := range []string{"team-a", "team-b"} {
		creds, err := c.CreateAccount(name)
		require.NoError(t, err)
		ctxs[name] = cloud.WithCredentials(ctx, creds)
		_, err = c.CreateNetwork(ctxs[name], cloud.NetworkSpec{Name: "n", CIDR: "10.0.0.0/16"})
		require.NoError(t, err, "each account has its own quota")
	}
	_, err = c.CreateNetwork(ctxs["team-a"], cloud.NetworkSpec{Name: "n2", CIDR: "10.0.0.0/16"})
	require.ErrorIs(t, err, cloud.ErrQuotaExceeded)
	assert.Contains(t, err.Error(), "1 of 1 Network resources in use")
	assert.Equal(t, 3, c.Count(cloud.KindNetwork))
}

func TestSearchLagIsPerAccount(t *testing.T) {
	c := memcloudtest.NewCloud(t, cloud.WithFaults(cloud.FaultConfig{SearchLag: 1}))
	a, b := newTenant(t, c, "team-a"), newTenant(t, c, "team-b")
	tags := map[string]string{"lag": "x"}
	n, err := c.CreateNetwork(a.ctx, cloud.NetworkSpec{Name: "n", CIDR: "10.0.0.0/16", Tags: tags})
	require.NoError(t, err)
	for range 3 {
		found, err := c.FindNetworks(b.ctx, tags) // b's searches do not move a's clock
		require.NoError(t, err)
		assert.Empty(t, found)
	}
	found, err := c.FindNetworks(a.ctx, tags)
	require.NoError(t, err)
	assert.Empty(t, found, "a's first search after the creation still lags")
	found, err = c.FindNetworks(a.ctx, tags)
	require.NoError(t, err)
	require.Len(t, found, 1)
	assert.Equal(t, n.ID, found[0].ID)
}

func TestInstanceGroupInstancesBelongToTheGroupsAccount(t *testing.T) {
	c := memcloudtest.NewCloud(t, cloud.WithQuota(cloud.KindInstance, 3))
	a, b := newTenant(t, c, "team-a"), newTenant(t, c, "team-b")
	g, err := c.ScaleInstanceGroup(a.ctx, a.group.ID, 2) // a: base instance + 2 = 3
	require.NoError(t, err)
	for _, gi := range g.Instances {
		account, ok := c.AccountOf(gi.ID)
		assert.True(t, ok)
		assert.Equal(t, a.name, account)
		_, err := c.GetInstance(b.ctx, gi.ID)
		require.ErrorIs(t, err, cloud.ErrNotFound)
	}
	_, err = c.ScaleInstanceGroup(a.ctx, a.group.ID, 3)
	require.ErrorIs(t, err, cloud.ErrQuotaExceeded, "a's instances count in a's quota")
	_, err = c.ScaleInstanceGroup(b.ctx, b.group.ID, 2)
	require.NoError(t, err, "and not in b's")
	found, err := c.FindInstances(b.ctx, map[string]string{cloud.TagInstanceGroup: a.group.ID})
	require.NoError(t, err)
	assert.Empty(t, found)
	for _, r := range c.List(cloud.KindInstance) {
		if r.Tags[cloud.TagInstanceGroup] == a.group.ID {
			assert.Equal(t, a.name, r.Account)
		}
	}
}

func TestRotateCredentials(t *testing.T) {
	c := memcloudtest.NewCloud(t)
	a := newTenant(t, c, "team-a")
	creds, err := c.RotateCredentials("team-a")
	require.NoError(t, err)
	assert.NotEqual(t, a.creds.AccessKeyID, creds.AccessKeyID)
	assert.NotEqual(t, a.creds.SecretAccessKey, creds.SecretAccessKey)

	_, err = c.GetNetwork(a.ctx, a.net.ID)
	require.ErrorIs(t, err, cloud.ErrUnauthorized, "the old credentials stop working at once")
	got, err := c.GetNetwork(cloud.WithCredentials(t.Context(), creds), a.net.ID)
	require.NoError(t, err, "the account keeps its resources")
	assert.Equal(t, a.net.ID, got.ID)
	_, err = c.GetNetwork(cloud.WithCredentials(t.Context(), cloud.Credentials{AccessKeyID: creds.AccessKeyID, SecretAccessKey: a.creds.SecretAccessKey}), a.net.ID)
	require.ErrorIs(t, err, cloud.ErrUnauthorized, "the old secret does not go with the new key")

	_, err = c.RotateCredentials("nobody")
	require.ErrorIs(t, err, cloud.ErrNotFound)
	assert.Equal(t, `cannot rotate the credentials of account "nobody": resource not found`, err.Error())
}

func TestDeleteAccount(t *testing.T) {
	c := memcloudtest.NewCloud(t)
	a := newTenant(t, c, "team-a")
	err := c.DeleteAccount("team-a")
	require.ErrorIs(t, err, cloud.ErrDependencyViolation)
	assert.Contains(t, err.Error(), `cannot delete account "team-a": dependency violation: still owns network "`+a.net.ID+`", subnet "`+a.subnet.ID+`", security group "`+a.sg.ID+`" and`)
	require.ErrorIs(t, c.DeleteAccount("nobody"), cloud.ErrNotFound)

	for _, id := range []string{a.inst.ID} {
		require.NoError(t, c.DeleteInstance(a.ctx, id))
	}
	require.NoError(t, c.DeleteInstanceGroup(a.ctx, a.group.ID))
	require.NoError(t, c.DeleteLoadBalancer(a.ctx, a.lb.ID))
	require.NoError(t, c.DeleteSecurityGroup(a.ctx, a.sg.ID))
	require.NoError(t, c.DeleteSubnet(a.ctx, a.subnet.ID))
	require.NoError(t, c.DeleteNetwork(a.ctx, a.net.ID))
	found, err := c.FindNetworks(a.ctx, tenantTags)
	require.NoError(t, err)
	assert.Empty(t, found)
	require.NoError(t, c.DeleteAccount("team-a"))
	assert.Empty(t, c.Accounts())

	_, err = c.FindNetworks(a.ctx, tenantTags)
	require.ErrorIs(t, err, cloud.ErrUnauthorized, "the deleted account's credentials stop working")
	_, err = c.FindNetworks(t.Context(), tenantTags)
	require.ErrorIs(t, err, cloud.ErrUnauthorized, "deleting the last account does not bring back calls without credentials")

	// A new account of the same name starts afresh: its tokens are unused.
	again := newTenant(t, c, "team-a")
	assert.NotEqual(t, a.net.ID, again.net.ID)
}

// TestResourcesCreatedBeforeTheFirstAccount checks that resources created without credentials
// belong to no account once the cloud has one: the god view sees them, no API call does.
func TestResourcesCreatedBeforeTheFirstAccount(t *testing.T) {
	c := memcloudtest.NewCloud(t)
	old := buildTenant(t, c, "", t.Context(), cloud.Credentials{})
	a := newTenant(t, c, "team-a")

	account, ok := c.AccountOf(old.net.ID)
	assert.True(t, ok)
	assert.Empty(t, account)
	_, err := c.GetNetwork(a.ctx, old.net.ID)
	require.ErrorIs(t, err, cloud.ErrNotFound)
	_, err = c.GetNetwork(t.Context(), old.net.ID)
	require.ErrorIs(t, err, cloud.ErrUnauthorized)
	found, err := c.FindNetworks(a.ctx, tenantTags)
	require.NoError(t, err)
	require.Len(t, found, 1)
	assert.Equal(t, a.net.ID, found[0].ID)

	byAccount := map[string]int{}
	for _, r := range c.All() {
		byAccount[r.Account]++
	}
	assert.Equal(t, map[string]int{"": 7, "team-a": 7}, byAccount, "6 kinds and the group's instance each")
	assert.Equal(t, 14, c.Report(cloud.OwnerTagValue("capkit.io/cluster")).Total())
	_, err = c.InstanceUserData(old.inst.ID)
	require.NoError(t, err, "inspection sees every account")
}

// TestAccountDeletedDuringACall deletes an account while one of its creates waits for its
// latency: the create, admitted before, creates nothing.
func TestAccountDeletedDuringACall(t *testing.T) {
	c := memcloudtest.NewCloud(t, cloud.WithFaults(cloud.FaultConfig{Latency: 300 * time.Millisecond}))
	creds, err := c.CreateAccount("brief")
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() {
		_, err := c.CreateNetwork(cloud.WithCredentials(context.Background(), creds), cloud.NetworkSpec{Name: "n", CIDR: "10.0.0.0/16"})
		done <- err
	}()
	require.Eventually(t, func() bool { return c.Calls().ByAccount["brief"] == 1 }, 5*time.Second, time.Millisecond, "the call was admitted")
	require.NoError(t, c.DeleteAccount("brief"))
	err = <-done
	require.ErrorIs(t, err, cloud.ErrUnauthorized)
	assert.Equal(t, `cannot create network "n": unauthorized: CreateNetwork with access key "`+creds.AccessKeyID+`": account deleted during the call`, err.Error())
	assert.Zero(t, c.TotalCreated())
}

func TestReportAndDuplicatesNameTheAccount(t *testing.T) {
	ctx := t.Context()
	c := memcloudtest.NewCloud(t)
	creds, err := c.CreateAccount("team-a")
	require.NoError(t, err)
	actx := cloud.WithCredentials(ctx, creds)
	tags := map[string]string{"owner": "demo"}
	var ids []string
	for range 2 {
		n, err := c.CreateNetwork(actx, cloud.NetworkSpec{Name: "vpc", CIDR: "10.0.0.0/16", Tags: tags})
		require.NoError(t, err)
		ids = append(ids, n.ID)
	}
	dups := c.Duplicates(cloud.OwnerTagValue("owner"), "")
	require.Len(t, dups, 1)
	assert.Equal(t, cloud.Duplicate{Kind: cloud.KindNetwork, Account: "team-a", Owner: "demo", Role: "vpc", IDs: ids}, dups[0])
	assert.Equal(t, fmt.Sprintf(`2 Network with owner "demo" and role "vpc" in account "team-a": %s, %s`, ids[0], ids[1]), dups[0].String())
	assert.Equal(t, fmt.Sprintf("owner \"demo\": 2 resource(s)\n  Network %s \"vpc\" in account \"team-a\"\n  Network %s \"vpc\" in account \"team-a\"\n", ids[0], ids[1]),
		c.Report(cloud.OwnerTagValue("owner")).String())
}

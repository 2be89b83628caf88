package cloud_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/memcloudtest"
)

// asyncEnv is an env whose creates run as operations of 10s on a fake clock, with a search lag of lag.
func asyncEnv(t *testing.T, lag time.Duration, opts ...cloud.Option) (env, *fakeClock) {
	t.Helper()
	clock := newFakeClock()
	return newEnv(t, append([]cloud.Option{cloud.WithClock(clock.Now), cloud.WithAsyncCreates(10 * time.Second), cloud.WithSearchLag(lag)}, opts...)...), clock
}

// accepted returns the operation of a create that the cloud accepted; it fails the test otherwise.
func accepted(t *testing.T, err error) string {
	t.Helper()
	require.ErrorIs(t, err, cloud.ErrAccepted)
	op, ok := cloud.Accepted(err)
	require.True(t, ok)
	return op
}

func TestAsyncCreatesEveryKind(t *testing.T) {
	ctx := t.Context()
	tags := map[string]string{"owner": "c1"}
	for _, m := range makers {
		t.Run(m.kind.String(), func(t *testing.T) {
			e, clock := asyncEnv(t, 0)
			_, err := m.create(ctx, e, req{name: "x", tags: tags})
			op := accepted(t, err)
			assert.True(t, strings.HasPrefix(op, "op-"+m.kind.Prefix()), op)
			assert.Equal(t, `Create`+m.kind.String()+` accepted as operation "`+op+`"`, err.Error())
			all := e.c.List(m.kind)
			last := all[len(all)-1]
			require.Equal(t, "x", last.Name, "the inspection sees a resource whose operation runs")
			id := last.ID

			steps := []struct {
				after  time.Duration // since the create
				done   bool
				exists bool
			}{{0, false, false}, {10*time.Second - time.Nanosecond, false, false}, {10 * time.Second, true, true}}
			start := clock.Now()
			for _, s := range steps {
				clock.Add(start.Add(s.after).Sub(clock.Now()))
				o, err := e.c.GetOperation(ctx, op)
				require.NoError(t, err)
				assert.Equal(t, s.done, o.Done, "at %s", s.after)
				assert.False(t, o.Failed())
				assert.Equal(t, cloud.Operation{ID: op, Kind: m.kind, StartedAt: start, Done: s.done, ResourceID: map[bool]string{true: id}[s.done]}, *o)
				found, err := m.find(ctx, e, tags)
				require.NoError(t, err)
				if !s.exists {
					require.ErrorIs(t, m.get(ctx, e, id), cloud.ErrNotFound, "at %s", s.after)
					require.ErrorIs(t, m.del(ctx, e, id), cloud.ErrNotFound, "at %s", s.after)
					assert.Empty(t, found, "at %s", s.after)
					continue
				}
				require.NoError(t, m.get(ctx, e, id))
				assert.Equal(t, []string{id}, found)
			}
			assert.Equal(t, 3, e.c.Calls().Of(cloud.VerbPoll, m.kind))
			assert.Equal(t, 1, e.c.Calls().Created[m.kind])
		})
	}
}

func TestAsyncCreateIsNoParentUntilDone(t *testing.T) {
	ctx := t.Context()
	e, clock := asyncEnv(t, 0)
	op := accepted(t, gotErr(e.c.CreateNetwork(ctx, cloud.NetworkSpec{Name: "n", CIDR: "10.9.0.0/16"})))
	id := e.c.List(cloud.KindNetwork)[1].ID
	_, err := e.c.CreateSubnet(ctx, cloud.SubnetSpec{Name: "s", NetworkID: id, CIDR: "10.9.1.0/24"})
	require.ErrorIs(t, err, cloud.ErrInvalidParameter)
	assert.Contains(t, err.Error(), "does not exist")

	clock.Add(10 * time.Second)
	o, err := e.c.GetOperation(ctx, op)
	require.NoError(t, err)
	require.Equal(t, id, o.ResourceID)
	accepted(t, gotErr(e.c.CreateSubnet(ctx, cloud.SubnetSpec{Name: "s", NetworkID: id, CIDR: "10.9.1.0/24"})))
}

func TestAsyncCreateTokens(t *testing.T) {
	ctx := t.Context()
	tok := req{name: "x", token: "tok", tags: map[string]string{"owner": "c1"}}
	tests := []struct {
		name string
		// run makes the calls after a first create with tok, whose operation is first, and returns the
		// operation of the last create ("" when it returned the resource) and its error.
		run         func(t *testing.T, e env, m maker, clock *fakeClock, first string) (string, error)
		wantSame    bool // the last create returned the first operation
		wantErr     error
		wantCreated int
	}{
		{
			name: "same token while the operation runs returns the operation",
			run: func(_ *testing.T, e env, m maker, clock *fakeClock, _ string) (string, error) {
				clock.Add(5 * time.Second)
				return opOf(m.create(ctx, e, tok))
			},
			wantSame: true, wantCreated: 1,
		},
		{
			name: "same token once the operation is done returns the resource",
			run: func(t *testing.T, e env, m maker, clock *fakeClock, _ string) (string, error) {
				clock.Add(10 * time.Second)
				id, err := m.create(ctx, e, tok)
				require.NoError(t, err)
				assert.Equal(t, e.c.List(m.kind)[len(e.c.List(m.kind))-1].ID, id)
				return "", nil
			},
			wantCreated: 1,
		},
		{
			name: "lost response then retry returns the operation of the lost call",
			run: func(t *testing.T, e env, m maker, _ *fakeClock, _ string) (string, error) {
				require.NoError(t, e.c.FailNext(cloud.VerbCreate.On(m.kind), cloud.AfterChange))
				_, err := m.create(ctx, e, req{name: "y", token: "other", tags: tok.tags, n: 1})
				require.ErrorIs(t, err, cloud.ErrInjected)
				lost, err := opOf(m.create(ctx, e, req{name: "y", token: "other", tags: tok.tags, n: 1}))
				require.NoError(t, err)
				assert.NotEmpty(t, lost)
				return opOf(m.create(ctx, e, tok))
			},
			wantSame: true, wantCreated: 2,
		},
		{
			name: "same token with other parameters is a mismatch while the operation runs",
			run: func(_ *testing.T, e env, m maker, _ *fakeClock, _ string) (string, error) {
				return opOf(m.create(ctx, e, req{name: "y", token: "tok", tags: tok.tags, n: 1}))
			},
			wantErr: cloud.ErrTokenMismatch, wantCreated: 1,
		},
		{
			name: "token of a deleted resource is not reused",
			run: func(t *testing.T, e env, m maker, clock *fakeClock, _ string) (string, error) {
				clock.Add(10 * time.Second)
				id, err := m.create(ctx, e, tok)
				require.NoError(t, err)
				require.NoError(t, m.del(ctx, e, id))
				return opOf(m.create(ctx, e, tok))
			},
			wantErr: cloud.ErrTokenReused, wantCreated: 1,
		},
	}
	for _, m := range makers {
		for _, tt := range tests {
			t.Run(m.kind.String()+"/"+tt.name, func(t *testing.T) {
				e, clock := asyncEnv(t, 0)
				_, err := m.create(ctx, e, tok)
				first := accepted(t, err)
				last, err := tt.run(t, e, m, clock, first)
				if tt.wantErr != nil {
					require.ErrorIs(t, err, tt.wantErr)
					assert.Contains(t, err.Error(), `token "tok" created `+strings.ToLower(string(m.kind[0])))
				} else {
					require.NoError(t, err)
				}
				if tt.wantSame {
					assert.Equal(t, first, last)
				}
				assert.Equal(t, tt.wantCreated, e.c.Calls().Created[m.kind])
			})
		}
	}
}

// opOf returns the operation a create was accepted as, "" and no error when it returned a resource, or its error.
func opOf(_ string, err error) (string, error) {
	if op, ok := cloud.Accepted(err); ok {
		return op, nil
	}
	return "", err
}

func TestFailedOperations(t *testing.T) {
	ctx := t.Context()
	netOp := cloud.VerbCreate.On(cloud.KindNetwork)
	spec := cloud.NetworkSpec{Name: "n", CIDR: "10.9.0.0/16", IdempotencyToken: "tok"}
	tests := []struct {
		name   string
		inject func(t *testing.T, c *cloud.Cloud)
	}{
		{"scripted", func(t *testing.T, c *cloud.Cloud) { require.NoError(t, c.FailNext(netOp, cloud.InOperation)) }},
		{"probabilistic", func(t *testing.T, c *cloud.Cloud) {
			require.NoError(t, c.SetFaults(cloud.FaultConfig{InOperation: 1}))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, clock := asyncEnv(t, 0)
			created := e.c.TotalCreated()
			tt.inject(t, e.c)
			op := accepted(t, gotErr(e.c.CreateNetwork(ctx, spec)))
			assert.Equal(t, created, e.c.TotalCreated(), "a failing operation creates nothing")
			assert.Equal(t, 1, e.c.Calls().Faults)
			running, err := opOf("", gotErr(e.c.CreateNetwork(ctx, spec)))
			require.NoError(t, err)
			assert.Equal(t, op, running, "the token returns the operation while it runs, even one that will fail")

			clock.Add(10 * time.Second)
			o, err := e.c.GetOperation(ctx, op)
			require.NoError(t, err)
			assert.True(t, o.Failed())
			assert.Empty(t, o.ResourceID)
			assert.Equal(t, "injected fault in the operation of CreateNetwork: nothing was created", o.Error)

			require.NoError(t, e.c.SetFaults(cloud.FaultConfig{}))
			retry, err := opOf("", gotErr(e.c.CreateNetwork(ctx, spec)))
			require.NoError(t, err)
			assert.NotEqual(t, op, retry, "a failed operation does not use up its token")
			assert.Equal(t, created+1, e.c.TotalCreated())
		})
	}
}

func TestSearchLagInTime(t *testing.T) {
	ctx := t.Context()
	tags := map[string]string{"owner": "c1"}
	tests := []struct {
		name       string
		opts       []cloud.Option
		existsFrom time.Duration // Get finds it, after the create
		listedFrom time.Duration // Find lists it
	}{
		{"synchronous without lag", nil, 0, 0},
		{"synchronous with lag", []cloud.Option{cloud.WithSearchLag(time.Second)}, 0, time.Second},
		{"asynchronous without lag", []cloud.Option{cloud.WithAsyncCreates(500 * time.Millisecond)}, 500 * time.Millisecond, 500 * time.Millisecond},
		{"asynchronous with lag", []cloud.Option{cloud.WithAsyncCreates(500 * time.Millisecond), cloud.WithSearchLag(time.Second)},
			500 * time.Millisecond, 1500 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := newFakeClock()
			c := memcloudtest.NewCloud(t, append(tt.opts, cloud.WithClock(clock.Now))...)
			subnet := memcloudtest.NewNetwork(t, c, "base").Subnet
			start := clock.Now()
			_, err := c.CreateInstanceGroup(ctx, cloud.InstanceGroupSpec{Name: "g", SubnetID: subnet.ID, Image: "img", Flavor: "small",
				UserData: []byte("#cloud-config\n"), Size: 2, Tags: tags})
			if _, ok := cloud.Accepted(err); !ok {
				require.NoError(t, err)
			}
			group := c.List(cloud.KindInstanceGroup)[0].ID
			for _, at := range []time.Duration{0, tt.existsFrom - time.Millisecond, tt.existsFrom, tt.listedFrom - time.Millisecond, tt.listedFrom} {
				if at < 0 {
					continue
				}
				clock.Add(start.Add(at).Sub(clock.Now()))
				_, err := c.GetInstanceGroup(ctx, group)
				if at >= tt.existsFrom {
					require.NoError(t, err, "at %s", at)
				} else {
					require.ErrorIs(t, err, cloud.ErrNotFound, "at %s", at)
				}
				groups, err := c.FindInstanceGroups(ctx, tags)
				require.NoError(t, err)
				instances, err := c.FindInstances(ctx, tags)
				require.NoError(t, err)
				want := map[bool]int{true: 1}[at >= tt.listedFrom]
				assert.Len(t, groups, want, "groups at %s", at)
				assert.Len(t, instances, 2*want, "the group's instances at %s", at)
			}
		})
	}
}

func TestScaledInstancesLagLikeNewOnes(t *testing.T) {
	ctx := t.Context()
	clock := newFakeClock()
	c := memcloudtest.NewCloud(t, cloud.WithClock(clock.Now), cloud.WithSearchLag(time.Second))
	subnet := memcloudtest.NewNetwork(t, c, "base").Subnet
	g, err := c.CreateInstanceGroup(ctx, cloud.InstanceGroupSpec{Name: "g", SubnetID: subnet.ID, Image: "img", Flavor: "small",
		UserData: []byte("#cloud-config\n"), Size: 1})
	require.NoError(t, err)
	clock.Add(time.Hour)
	_, err = c.ScaleInstanceGroup(ctx, g.ID, 2)
	require.NoError(t, err)
	members := map[string]string{cloud.TagInstanceGroup: g.ID}
	found, err := c.FindInstances(ctx, members)
	require.NoError(t, err)
	assert.Len(t, found, 1, "the new instance is not listed yet")
	clock.Add(time.Second)
	found, err = c.FindInstances(ctx, members)
	require.NoError(t, err)
	assert.Len(t, found, 2)
}

func TestWithoutTokens(t *testing.T) {
	ctx := t.Context()
	for _, m := range makers {
		t.Run(m.kind.String(), func(t *testing.T) {
			e := newEnv(t, cloud.WithoutTokens())
			a, err := m.create(ctx, e, req{name: "x", token: "tok"})
			require.NoError(t, err)
			b, err := m.create(ctx, e, req{name: "x", token: "tok", n: 1}) // n: a CIDR of its own for networks and subnets
			require.NoError(t, err)
			assert.NotEqual(t, a, b, "a known token makes a second resource")
			require.NoError(t, m.del(ctx, e, a))
			_, err = m.create(ctx, e, req{name: "x", token: "tok", n: 2})
			require.NoError(t, err, "no token is reused or mismatched")
			assert.Equal(t, 3, e.c.Calls().Created[m.kind])
		})
	}
}

func TestAsyncCreatesWithoutTokens(t *testing.T) {
	ctx := t.Context()
	e, _ := asyncEnv(t, 0, cloud.WithoutTokens())
	spec := cloud.NetworkSpec{Name: "n", CIDR: "10.9.0.0/16", IdempotencyToken: "tok"}
	a := accepted(t, gotErr(e.c.CreateNetwork(ctx, spec)))
	b := accepted(t, gotErr(e.c.CreateNetwork(ctx, spec)))
	assert.NotEqual(t, a, b)
	assert.Equal(t, 2, e.c.Calls().Created[cloud.KindNetwork])
}

func TestBehavior(t *testing.T) {
	assert.Equal(t, cloud.Behavior{}, memcloudtest.NewCloud(t).Behavior())
	c := memcloudtest.NewCloud(t, cloud.WithAsyncCreates(time.Second), cloud.WithSearchLag(2*time.Second), cloud.WithoutTokens())
	assert.Equal(t, cloud.Behavior{AsyncCreates: time.Second, SearchLag: 2 * time.Second, IgnoresTokens: true}, c.Behavior())
}

func TestAsyncOptionsAreChecked(t *testing.T) {
	tests := []struct {
		name  string
		opts  []cloud.Option
		field string
	}{
		{"negative async creates", []cloud.Option{cloud.WithAsyncCreates(-time.Second)}, "asyncCreates"},
		{"negative search lag", []cloud.Option{cloud.WithSearchLag(-time.Second)}, "searchLag"},
		{"failing operations without operations", []cloud.Option{cloud.WithFaults(cloud.FaultConfig{InOperation: 0.5})}, "faults.inOperation"},
		{"failing operations above 1", []cloud.Option{cloud.WithAsyncCreates(time.Second), cloud.WithFaults(cloud.FaultConfig{InOperation: 2})}, "faults.inOperation"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := cloud.New(tt.opts...)
			require.ErrorIs(t, err, cloud.ErrInvalidParameter)
			assert.Contains(t, err.Error(), tt.field)
		})
	}
	sync := memcloudtest.NewCloud(t)
	require.ErrorIs(t, sync.SetFaults(cloud.FaultConfig{InOperation: 1}), cloud.ErrInvalidParameter)
	err := sync.FailNext(cloud.VerbCreate.On(cloud.KindNetwork), cloud.InOperation)
	require.ErrorIs(t, err, cloud.ErrInvalidParameter)
	assert.Contains(t, err.Error(), "asynchronous creates")
	async := memcloudtest.NewCloud(t, cloud.WithAsyncCreates(time.Second))
	require.ErrorIs(t, async.FailNext(cloud.VerbGet.On(cloud.KindNetwork), cloud.InOperation), cloud.ErrInvalidParameter)
	require.NoError(t, async.FailNext(cloud.VerbCreate.On(cloud.KindNetwork), cloud.InOperation))
}

func TestGetOperationErrors(t *testing.T) {
	ctx := t.Context()
	c := memcloudtest.NewCloud(t, cloud.WithAsyncCreates(time.Hour))
	creds, err := c.CreateAccount("a")
	require.NoError(t, err)
	other, err := c.CreateAccount("b")
	require.NoError(t, err)
	op := accepted(t, gotErr(c.CreateNetwork(cloud.WithCredentials(ctx, creds), cloud.NetworkSpec{Name: "n", CIDR: "10.0.0.0/16"})))
	tests := []struct {
		name    string
		ctx     context.Context
		id      string
		wantErr error
	}{
		{"not an operation ID", cloud.WithCredentials(ctx, creds), "net-12345678", cloud.ErrInvalidParameter},
		{"unknown kind", cloud.WithCredentials(ctx, creds), "op-x-12345678", cloud.ErrInvalidParameter},
		{"unknown operation", cloud.WithCredentials(ctx, creds), "op-net-12345678", cloud.ErrNotFound},
		{"another account's operation", cloud.WithCredentials(ctx, other), op, cloud.ErrNotFound},
		{"without credentials", ctx, op, cloud.ErrUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.GetOperation(tt.ctx, tt.id)
			require.ErrorIs(t, err, tt.wantErr)
			assert.Contains(t, err.Error(), `cannot get operation "`+tt.id+`"`)
		})
	}
	o, err := c.GetOperation(cloud.WithCredentials(ctx, creds), op)
	require.NoError(t, err)
	assert.False(t, o.Done)
}

func TestCompleteOperation(t *testing.T) {
	ctx := t.Context()
	e, _ := asyncEnv(t, time.Minute)
	op := accepted(t, gotErr(e.c.CreateNetwork(ctx, cloud.NetworkSpec{Name: "n", CIDR: "10.9.0.0/16", Tags: map[string]string{"a": "b"}})))
	require.NoError(t, e.c.CompleteOperation(op))
	require.NoError(t, e.c.CompleteOperation(op), "completing a done operation does nothing")
	o, err := e.c.GetOperation(ctx, op)
	require.NoError(t, err)
	require.True(t, o.Done)
	_, err = e.c.GetNetwork(ctx, o.ResourceID)
	require.NoError(t, err)
	found, err := e.c.FindNetworks(ctx, map[string]string{"a": "b"})
	require.NoError(t, err)
	assert.Empty(t, found, "the search lag counts from the end of the operation")
	require.ErrorIs(t, e.c.CompleteOperation("op-net-12345678"), cloud.ErrNotFound)
}

// TestAsyncCreatesOnTheRealClock shows that operations end on time.Now, the clock of envtest and e2e runs,
// without any goroutine of the cloud: the first read after the operation's time sees it done.
func TestAsyncCreatesOnTheRealClock(t *testing.T) {
	ctx := t.Context()
	c := memcloudtest.NewCloud(t, cloud.WithAsyncCreates(20*time.Millisecond), cloud.WithSearchLag(20*time.Millisecond))
	start := time.Now()
	op := accepted(t, gotErr(c.CreateNetwork(ctx, cloud.NetworkSpec{Name: "n", CIDR: "10.0.0.0/16", Tags: map[string]string{"a": "b"}})))
	require.Eventually(t, func() bool {
		found, err := c.FindNetworks(ctx, map[string]string{"a": "b"})
		return err == nil && len(found) == 1
	}, 5*time.Second, 5*time.Millisecond)
	assert.GreaterOrEqual(t, time.Since(start), 40*time.Millisecond, "listed only after the operation and the lag")
	o, err := c.GetOperation(ctx, op)
	require.NoError(t, err)
	assert.True(t, o.Done)
}

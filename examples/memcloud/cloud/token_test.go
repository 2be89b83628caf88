package cloud_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/examples/memcloud/cloud"
)

func TestIdempotencyTokens(t *testing.T) {
	ctx := context.Background()
	tags := map[string]string{"capkit.io/cluster": "c1"}
	tests := []struct {
		name string
		// run makes calls and returns the ID each create returned ("" on error) and the last error.
		run         func(t *testing.T, e env, m maker) (first, second string, err error)
		wantErr     error
		wantSame    bool
		wantCreated int
	}{
		{
			name: "same token twice returns the first resource",
			run: func(t *testing.T, e env, m maker) (string, string, error) {
				a, err := m.create(ctx, e, req{name: "x", token: "tok", tags: tags})
				require.NoError(t, err)
				b, err := m.create(ctx, e, req{name: "x", token: "tok", tags: tags})
				return a, b, err
			},
			wantSame: true, wantCreated: 1,
		},
		{
			name: "lost response then retry returns the resource created by the lost call",
			run: func(t *testing.T, e env, m maker) (string, string, error) {
				require.NoError(t, e.c.FailNext(cloud.VerbCreate.On(m.kind), cloud.AfterChange))
				_, err := m.create(ctx, e, req{name: "x", token: "tok", tags: tags})
				var fe *cloud.FaultError
				require.ErrorAs(t, err, &fe)
				assert.True(t, fe.Applied)
				assert.Equal(t, 1, e.c.Calls().Created[m.kind], "the lost call created the resource")
				b, err := m.create(ctx, e, req{name: "x", token: "tok", tags: tags})
				return e.c.List(m.kind)[len(e.c.List(m.kind))-1].ID, b, err
			},
			wantSame: true, wantCreated: 1,
		},
		{
			name: "failure before the change does not use up the token",
			run: func(t *testing.T, e env, m maker) (string, string, error) {
				require.NoError(t, e.c.FailNext(cloud.VerbCreate.On(m.kind), cloud.BeforeChange))
				_, err := m.create(ctx, e, req{name: "x", token: "tok", tags: tags})
				require.ErrorIs(t, err, cloud.ErrInjected)
				assert.Zero(t, e.c.Calls().Created[m.kind])
				b, err := m.create(ctx, e, req{name: "x", token: "tok", tags: tags})
				return "", b, err
			},
			wantCreated: 1,
		},
		{
			name: "same token with other parameters is a mismatch",
			run: func(t *testing.T, e env, m maker) (string, string, error) {
				a, err := m.create(ctx, e, req{name: "x", token: "tok", tags: tags})
				require.NoError(t, err)
				b, err := m.create(ctx, e, req{name: "y", token: "tok", tags: tags, n: 1})
				return a, b, err
			},
			wantErr: cloud.ErrTokenMismatch, wantCreated: 1,
		},
		{
			name: "token of a deleted resource is not reused",
			run: func(t *testing.T, e env, m maker) (string, string, error) {
				a, err := m.create(ctx, e, req{name: "x", token: "tok", tags: tags})
				require.NoError(t, err)
				require.NoError(t, m.del(ctx, e, a))
				b, err := m.create(ctx, e, req{name: "x", token: "tok", tags: tags})
				return a, b, err
			},
			wantErr: cloud.ErrTokenReused, wantCreated: 1,
		},
		{
			name: "no token creates a second resource",
			run: func(t *testing.T, e env, m maker) (string, string, error) {
				a, err := m.create(ctx, e, req{name: "x", tags: tags})
				require.NoError(t, err)
				b, err := m.create(ctx, e, req{name: "x", tags: tags, n: 1})
				return a, b, err
			},
			wantCreated: 2,
		},
		{
			name: "invalid request does not use up the token",
			run: func(t *testing.T, e env, m maker) (string, string, error) {
				_, err := m.create(ctx, e, req{name: "", token: "tok", tags: tags})
				require.ErrorIs(t, err, cloud.ErrInvalidParameter)
				b, err := m.create(ctx, e, req{name: "x", token: "tok", tags: tags})
				return "", b, err
			},
			wantCreated: 1,
		},
	}
	for _, m := range makers {
		for _, tt := range tests {
			t.Run(m.kind.String()+"/"+tt.name, func(t *testing.T) {
				e := newEnv(t)
				first, second, err := tt.run(t, e, m)
				if tt.wantErr != nil {
					require.ErrorIs(t, err, tt.wantErr)
					assert.Contains(t, err.Error(), `token "tok"`)
				} else {
					require.NoError(t, err)
				}
				if tt.wantSame {
					assert.Equal(t, first, second)
				}
				if tt.wantErr == nil && !tt.wantSame && first != "" {
					assert.NotEqual(t, first, second)
				}
				assert.Equal(t, tt.wantCreated, e.c.Calls().Created[m.kind])
			})
		}
	}
}

func TestIdempotencyTokensArePerKind(t *testing.T) {
	ctx := t.Context()
	e := newEnv(t)
	for _, m := range makers {
		_, err := m.create(ctx, e, req{name: "x", token: "shared"})
		require.NoError(t, err, m.kind)
	}
	for _, k := range cloud.Kinds() {
		assert.Equal(t, 1, e.c.Calls().Created[k], k)
	}
}

func TestTokenMismatchOnEveryParameter(t *testing.T) {
	ctx := t.Context()
	e := newEnv(t)
	base := cloud.InstanceSpec{Name: "m", SubnetID: e.subnet.ID, Image: "img", Flavor: "small",
		UserData: []byte("secret-bootstrap"), IdempotencyToken: "tok", Tags: map[string]string{"a": "b"}}
	_, err := e.c.CreateInstance(ctx, base)
	require.NoError(t, err)
	variants := map[string]func(s *cloud.InstanceSpec){
		"image":          func(s *cloud.InstanceSpec) { s.Image = "other" },
		"flavor":         func(s *cloud.InstanceSpec) { s.Flavor = "large" },
		"user data":      func(s *cloud.InstanceSpec) { s.UserData = []byte("other") },
		"tags":           func(s *cloud.InstanceSpec) { s.Tags = map[string]string{"a": "c"} },
		"security group": func(s *cloud.InstanceSpec) { s.SecurityGroupIDs = []string{e.sg.ID} },
	}
	for name, change := range variants {
		t.Run(name, func(t *testing.T) {
			s := base
			change(&s)
			_, err := e.c.CreateInstance(ctx, s)
			require.ErrorIs(t, err, cloud.ErrTokenMismatch)
			assert.NotContains(t, err.Error(), "secret-bootstrap")
		})
	}
	assert.Equal(t, 1, e.c.Count(cloud.KindInstance))
}

func TestLoadBalancerDefaultPortMatchesExplicitPortForTokens(t *testing.T) {
	ctx := t.Context()
	e := newEnv(t)
	a, err := e.c.CreateLoadBalancer(ctx, cloud.LoadBalancerSpec{Name: "api", NetworkID: e.net.ID, IdempotencyToken: "t"})
	require.NoError(t, err)
	b, err := e.c.CreateLoadBalancer(ctx, cloud.LoadBalancerSpec{Name: "api", NetworkID: e.net.ID, Port: cloud.DefaultLoadBalancerPort, IdempotencyToken: "t"})
	require.NoError(t, err)
	assert.Equal(t, a.ID, b.ID)
	_, err = e.c.CreateLoadBalancer(ctx, cloud.LoadBalancerSpec{Name: "api", NetworkID: e.net.ID, Port: 443, IdempotencyToken: "t"})
	assert.True(t, errors.Is(err, cloud.ErrTokenMismatch), err)
}

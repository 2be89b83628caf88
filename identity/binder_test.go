package identity_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/identity"
	"github.com/capkit/capkit/internal/testtypes"
)

// cloudClient stands for a provider's cloud client, built from one set of credentials.
type cloudClient struct{ secret string }

type clientKey struct{}

// TestBinderReusesClientUntilSecretChanges binds the same cluster many times: the client is built once, a
// rotated Secret builds a new one with the new credentials, and a namespace removed from allowedNamespaces is
// refused at the next bind.
func TestBinderReusesClientUntilSecretChanges(t *testing.T) {
	ctx := t.Context()
	f := newFixture(t)
	id := f.identity(t, &identity.AllowedNamespaces{NamespaceList: []string{f.tenant}}, good())
	ref := &identity.Ref{Kind: kind, Name: id}
	var builds atomic.Int32
	b, err := identity.NewBinder(f.resolver,
		func(_ context.Context, c identity.Credentials) (*cloudClient, error) {
			builds.Add(1)
			return &cloudClient{secret: string(c.Get("secretAccessKey"))}, nil
		},
		func(ctx context.Context, c *cloudClient) context.Context {
			return context.WithValue(ctx, clientKey{}, c)
		})
	require.NoError(t, err)

	var first *cloudClient
	for i := range 5 {
		bound, err := b.Bind(ctx, f.tenant, ref)
		require.NoError(t, err)
		c := bound.Value(clientKey{}).(*cloudClient)
		if i == 0 {
			first = c
		}
		assert.Same(t, first, c, "the client is reused while the Secret is unchanged")
	}
	assert.EqualValues(t, 1, builds.Load())
	assert.Equal(t, 1, b.Builds())

	// Rotation: the next bind builds a client with the new secret.
	secret := &corev1.Secret{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: f.provider, Name: id}, secret))
	secret.Data["secretAccessKey"] = []byte("rotated")
	require.NoError(t, env.Client.Update(ctx, secret))
	bound, err := b.Bind(ctx, f.tenant, ref)
	require.NoError(t, err)
	assert.Equal(t, "rotated", bound.Value(clientKey{}).(*cloudClient).secret)
	assert.EqualValues(t, 2, builds.Load())

	// The namespace is no longer allowed: refused, no client.
	obj := &testtypes.FooClusterIdentity{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Name: id}, obj))
	obj.Spec.AllowedNamespaces.NamespaceList = []string{"another-team"}
	require.NoError(t, env.Client.Update(ctx, obj))
	bound, err = b.Bind(ctx, f.tenant, ref)
	require.True(t, identity.IsRefused(err), "%v", err)
	var refused *identity.RefusedError
	require.ErrorAs(t, err, &refused)
	assert.Equal(t, conditions.ReasonNamespaceNotAllowed, refused.Reason)
	assert.Nil(t, bound.Value(clientKey{}))
	assert.EqualValues(t, 2, builds.Load())

	// No ref with identities optional: the context is unchanged.
	bound, err = b.Bind(ctx, f.tenant, nil)
	require.NoError(t, err)
	assert.Nil(t, bound.Value(clientKey{}))
	name, err := b.SecretNameOf(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, id, name)
	name, err = b.SecretNameOf(ctx, "missing")
	require.NoError(t, err)
	assert.Empty(t, name)
}

// laggingReader returns a stale copy of Secrets while stale is set, as a second cache that lags behind.
type laggingReader struct {
	client.Reader
	stale *corev1.Secret
}

func (l *laggingReader) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if s, ok := obj.(*corev1.Secret); ok && l.stale != nil {
		l.stale.DeepCopyInto(s)
		return nil
	}
	return l.Reader.Get(ctx, key, obj, opts...)
}

// TestBinderDoesNotKeepStaleCredentials: when the Secret read lags behind the Secret's metadata (two caches),
// the binder must not remember the stale data under the new version, or it would use rotated-out credentials
// forever.
func TestBinderDoesNotKeepStaleCredentials(t *testing.T) {
	ctx := t.Context()
	f := newFixture(t)
	id := f.identity(t, &identity.AllowedNamespaces{NamespaceList: []string{f.tenant}}, good())
	old := &corev1.Secret{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: f.provider, Name: id}, old))
	lag := &laggingReader{Reader: env.Client}
	r, err := identity.NewResolverFor(env.Client, kind, &testtypes.FooClusterIdentity{}, f.provider,
		identity.WithSecretReader(lag), identity.WithRequiredKeys("secretAccessKey"))
	require.NoError(t, err)
	b, err := identity.NewBinder(r, func(_ context.Context, c identity.Credentials) (string, error) {
		return string(c.Get("secretAccessKey")), nil
	},
		func(ctx context.Context, s string) context.Context { return context.WithValue(ctx, clientKey{}, s) })
	require.NoError(t, err)
	ref := &identity.Ref{Kind: kind, Name: id}

	rotated := old.DeepCopy()
	rotated.Data["secretAccessKey"] = []byte("rotated")
	require.NoError(t, env.Client.Update(ctx, rotated))
	lag.stale = old // the metadata says rotated, the Secret read still returns the old data
	s, _, err := b.Client(ctx, f.tenant, ref)
	require.NoError(t, err)
	assert.Equal(t, secretValue, s)
	lag.stale = nil // the second cache catches up
	s, _, err = b.Client(ctx, f.tenant, ref)
	require.NoError(t, err)
	assert.Equal(t, "rotated", s, "the stale read was not kept under the new version")
}

// TestBinderClosesReplacedClient: with Config.Close, the client of an identity whose Secret changed is closed once
// the new one is built; the client in use is not.
func TestBinderClosesReplacedClient(t *testing.T) {
	ctx := t.Context()
	f := newFixture(t)
	id := f.identity(t, &identity.AllowedNamespaces{NamespaceList: []string{f.tenant}}, good())
	ref := &identity.Ref{Kind: kind, Name: id}
	var closed []string
	b, err := identity.Config[*cloudClient]{Kind: kind, Prototype: &testtypes.FooClusterIdentity{}, Namespace: f.provider,
		Credentials: func(_ context.Context, c identity.Credentials) (*cloudClient, error) {
			return &cloudClient{secret: string(c.Get("secretAccessKey"))}, nil
		},
		Bind: func(ctx context.Context, _ *cloudClient) context.Context { return ctx },
		Close: func(ctx context.Context, c *cloudClient) error {
			if _, ok := ctx.Deadline(); !ok {
				return errors.New("close without deadline")
			}
			closed = append(closed, c.secret)
			return nil
		},
	}.NewBinder(env.Client)
	require.NoError(t, err)

	for range 3 {
		_, _, err := b.Client(ctx, f.tenant, ref)
		require.NoError(t, err)
	}
	assert.Empty(t, closed, "the client in use stays open")

	secret := &corev1.Secret{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: f.provider, Name: id}, secret))
	secret.Data["secretAccessKey"] = []byte("rotated")
	require.NoError(t, env.Client.Update(ctx, secret))
	c, _, err := b.Client(ctx, f.tenant, ref)
	require.NoError(t, err)
	assert.Equal(t, "rotated", c.secret)
	assert.Equal(t, []string{secretValue}, closed, "the replaced client is closed")
}

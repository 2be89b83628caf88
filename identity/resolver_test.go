package identity_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/identity"
	"github.com/capkit/capkit/internal/testtypes"
)

const kind = "FooClusterIdentity"

// fixture is a provider namespace holding credentials Secrets and a tenant namespace, on envtest.
type fixture struct {
	provider, tenant string
	resolver         *identity.Resolver[*testtypes.FooClusterIdentity]
}

func newFixture(t *testing.T, opts ...identity.ResolverOption) *fixture {
	t.Helper()
	provider := env.Namespace(t, "provider")
	tenant := env.Namespace(t, "tenant")
	opts = append([]identity.ResolverOption{identity.WithRequiredKeys("accessKeyID", "secretAccessKey")}, opts...)
	r, err := identity.NewResolverFor(env.Client, kind, &testtypes.FooClusterIdentity{}, provider, opts...)
	require.NoError(t, err)
	return &fixture{provider: provider, tenant: tenant, resolver: r}
}

// identity creates a FooClusterIdentity named after the test's namespace, with its Secret (nil data: none).
func (f *fixture) identity(t *testing.T, allowed *identity.AllowedNamespaces, data map[string][]byte) string {
	t.Helper()
	ctx := t.Context()
	name := f.tenant + "-id"
	id := &testtypes.FooClusterIdentity{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: testtypes.FooClusterIdentitySpec{AllowedNamespaces: allowed, SecretName: name}}
	require.NoError(t, env.Client.Create(ctx, id))
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), id) })
	if data != nil {
		require.NoError(t, env.Client.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: f.provider, Name: name}, Data: data}))
	}
	return name
}

func good() map[string][]byte {
	return map[string][]byte{"accessKeyID": []byte("AK1"), "secretAccessKey": []byte(secretValue)}
}

func TestResolver(t *testing.T) {
	all := &identity.AllowedNamespaces{Selector: &metav1.LabelSelector{
		MatchExpressions: []metav1.LabelSelectorRequirement{{Key: corev1.LabelMetadataName, Operator: metav1.LabelSelectorOpExists}}}}
	tests := []struct {
		name       string
		allowed    *identity.AllowedNamespaces
		data       map[string][]byte
		ref        func(id string) *identity.Ref
		opts       []identity.ResolverOption
		wantReason string
		wantMsg    string
		wantNone   bool
	}{
		{name: "allowed, Secret complete", allowed: all, data: good()},
		{name: "no ref, identities optional", ref: func(string) *identity.Ref { return nil }, wantNone: true},
		{name: "no ref, identity required", ref: func(string) *identity.Ref { return nil }, opts: []identity.ResolverOption{identity.WithIdentityRequired()},
			wantReason: conditions.ReasonIdentityRefMissing, wantMsg: "spec.identityRef is not set"},
		{name: "other kind", allowed: all, data: good(), ref: func(id string) *identity.Ref { return &identity.Ref{Kind: "Other", Name: id} },
			wantReason: conditions.ReasonIdentityNotFound, wantMsg: `spec.identityRef.kind "Other" is not "FooClusterIdentity"`},
		{name: "identity missing", ref: func(string) *identity.Ref { return &identity.Ref{Kind: kind, Name: "nope"} },
			wantReason: conditions.ReasonIdentityNotFound, wantMsg: `FooClusterIdentity "nope" named by spec.identityRef does not exist`},
		{name: "empty allowedNamespaces", allowed: &identity.AllowedNamespaces{}, data: good(), wantReason: conditions.ReasonNamespaceNotAllowed, wantMsg: "does not allow namespace"},
		{name: "nil allowedNamespaces", data: good(), wantReason: conditions.ReasonNamespaceNotAllowed, wantMsg: "does not allow namespace"},
		{name: "namespace not in list", allowed: &identity.AllowedNamespaces{NamespaceList: []string{"someone-else"}}, data: good(),
			wantReason: conditions.ReasonNamespaceNotAllowed, wantMsg: "add it to spec.allowedNamespaces"},
		{name: "Secret missing", allowed: all, wantReason: conditions.ReasonCredentialsSecretNotFound, wantMsg: "does not exist"},
		{name: "Secret lacks a key", allowed: all, data: map[string][]byte{"accessKeyID": []byte("AK1"), "secretAccessKey": {}},
			wantReason: conditions.ReasonCredentialsSecretInvalid, wantMsg: "lacks keys secretAccessKey"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			f := newFixture(t, tt.opts...)
			id := f.identity(t, tt.allowed, tt.data)
			ref := &identity.Ref{Kind: kind, Name: id}
			if tt.ref != nil {
				ref = tt.ref(id)
			}
			b, err := identity.NewBinder(f.resolver, func(_ context.Context, c identity.Credentials) (identity.Credentials, error) { return c, nil },
				func(ctx context.Context, c identity.Credentials) context.Context {
					return context.WithValue(ctx, credsKey{}, c)
				})
			require.NoError(t, err)
			creds, ok, err := b.Client(ctx, f.tenant, ref)
			if tt.wantReason != "" {
				require.True(t, identity.IsRefused(err), "%v", err)
				var refused *identity.RefusedError
				require.ErrorAs(t, err, &refused)
				assert.Equal(t, tt.wantReason, refused.Reason)
				assert.Contains(t, refused.Message, tt.wantMsg)
				assert.NotContains(t, refused.Message, secretValue)
				assert.False(t, ok)
				return
			}
			require.NoError(t, err)
			if tt.wantNone {
				assert.False(t, ok)
				return
			}
			require.True(t, ok)
			assert.Equal(t, []byte(secretValue), creds.Get("secretAccessKey"))
		})
	}
}

type credsKey struct{}

func TestNewResolverForRefusesBadInput(t *testing.T) {
	var nilIdentity *testtypes.FooClusterIdentity
	tests := []struct {
		name      string
		reader    client.Reader
		kind      string
		identity  *testtypes.FooClusterIdentity
		namespace string
		wantMsg   string
	}{
		{name: "nil reader", kind: kind, identity: &testtypes.FooClusterIdentity{}, namespace: "ns", wantMsg: "reader is nil"},
		{name: "empty namespace", reader: env.Client, kind: kind, identity: &testtypes.FooClusterIdentity{}, wantMsg: "secret namespace is empty"},
		{name: "empty kind", reader: env.Client, identity: &testtypes.FooClusterIdentity{}, namespace: "ns", wantMsg: "kind is empty"},
		{name: "nil identity", reader: env.Client, kind: kind, identity: nilIdentity, namespace: "ns",
			wantMsg: "cannot create identity resolver: identity is a nil *testtypes.FooClusterIdentity"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := identity.NewResolverFor(tt.reader, tt.kind, tt.identity, tt.namespace)
			assert.ErrorContains(t, err, tt.wantMsg)
		})
	}
}

// TestDeprecatedNewResolverTakesAFactory: the v0.1.0 form still builds a Resolver, and refuses a nil factory.
func TestDeprecatedNewResolverTakesAFactory(t *testing.T) {
	_, err := identity.NewResolver[*testtypes.FooClusterIdentity](env.Client, kind, nil, "ns")
	require.ErrorContains(t, err, "newIdentity is nil")
	r, err := identity.NewResolver(env.Client, kind,
		func() *testtypes.FooClusterIdentity { return &testtypes.FooClusterIdentity{} }, "ns")
	require.NoError(t, err)
	assert.Equal(t, &testtypes.FooClusterIdentity{}, r.NewIdentity())
}

// TestConfigNewBinderBuildsTheResolverAndTheBinder: a Config's binder resolves its kind in its namespace, and a
// prototype's values never reach the identities it reads.
func TestConfigNewBinderBuildsTheResolverAndTheBinder(t *testing.T) {
	proto := &testtypes.FooClusterIdentity{ObjectMeta: metav1.ObjectMeta{Name: "leak"}}
	b, err := identity.Config[string]{Kind: kind, Prototype: proto, Namespace: "provider",
		Credentials: func(context.Context, identity.Credentials) (string, error) { return "", nil },
		Bind:        func(ctx context.Context, _ string) context.Context { return ctx },
	}.NewBinder(env.Client)
	require.NoError(t, err)
	assert.Equal(t, kind, b.Kind())
	assert.Equal(t, "provider", b.SecretNamespace())
	assert.Equal(t, &testtypes.FooClusterIdentity{}, b.NewIdentity())
	_, err = identity.Config[string]{Kind: kind}.NewBinder(env.Client)
	assert.EqualError(t, err, `cannot create identity binder: Config.Prototype of kind "FooClusterIdentity" is nil: pass an empty identity, e.g. &MemClusterIdentity{}`)
}

// secretReader records the Secret metadata reads made through it.
type secretReader struct {
	client.Reader
	reads int
}

func (r *secretReader) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	r.reads++
	return r.Reader.Get(ctx, key, obj, opts...)
}

// TestSecretVersionReadsThroughTheContextsReader: a reconcile's context can name the reader of the Secrets'
// metadata (a cache of the Secret namespace alone); without it the Resolver's reader is used.
func TestSecretVersionReadsThroughTheContextsReader(t *testing.T) {
	f := newFixture(t)
	name := f.identity(t, nil, good())
	id := &testtypes.FooClusterIdentity{}
	require.NoError(t, env.Client.Get(t.Context(), client.ObjectKey{Name: name}, id))

	plain, err := f.resolver.SecretVersion(t.Context(), id)
	require.NoError(t, err)
	require.NotEmpty(t, plain)

	r := &secretReader{Reader: env.Client}
	got, err := f.resolver.SecretVersion(identity.ContextWithSecretMetadataReader(t.Context(), r), id)
	require.NoError(t, err)
	assert.Equal(t, plain, got)
	assert.Equal(t, 1, r.reads, "read through the context's reader")
}

package identity_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/identity"
	"github.com/capkit/capkit/internal/testtypes"
	"github.com/capkit/capkit/redact"
)

// TestCredentialsInContext binds, through a Config of PassCredentials and ContextWithCredentials, the credentials
// themselves: the reconcile's context carries the Secret's values, registered with its Redactor; a context that was
// not bound carries none.
func TestCredentialsInContext(t *testing.T) {
	f := newFixture(t)
	id := f.identity(t, &identity.AllowedNamespaces{NamespaceList: []string{f.tenant}}, good())
	b, err := identity.Config[identity.Credentials]{Kind: kind, Prototype: &testtypes.FooClusterIdentity{}, Namespace: f.provider,
		RequiredKeys: []string{"secretAccessKey"}, Credentials: identity.PassCredentials, Bind: identity.ContextWithCredentials,
	}.NewBinder(env.Client)
	require.NoError(t, err)

	tests := []struct {
		name      string
		ref       *identity.Ref
		wantCreds bool
	}{
		{name: "an identity", ref: &identity.Ref{Kind: kind, Name: id}, wantCreds: true},
		{name: "no identity", ref: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := redact.New()
			ctx, err := b.Bind(redact.NewContext(t.Context(), r), f.tenant, tt.ref)
			require.NoError(t, err)
			creds, ok := identity.CredentialsFromContext(ctx)
			require.Equal(t, tt.wantCreds, ok)
			if !tt.wantCreds {
				assert.True(t, r.Empty(), "nothing registered")
				return
			}
			assert.Equal(t, secretValue, string(creds.Get("secretAccessKey")))
			assert.Equal(t, "login failed for "+redact.Placeholder, r.String("login failed for "+secretValue), "the values are registered with the Redactor")
		})
	}
	_, ok := identity.CredentialsFromContext(context.Background())
	assert.False(t, ok)
}

// A provider whose client needs the InfraCluster's server as well as the identity's credentials binds the credentials
// themselves: identity.Config{Credentials: identity.PassCredentials, Bind: identity.ContextWithCredentials}; its
// services read them back in the reconcile.
func ExampleCredentialsFromContext() {
	creds := identity.NewCredentials(map[string][]byte{"username": []byte("admin"), "password": []byte("hunter2")})
	ctx := identity.ContextWithCredentials(context.Background(), creds) // what the Binder does before the steps run

	if c, ok := identity.CredentialsFromContext(ctx); ok {
		fmt.Println("log in as", string(c.Get("username")), "with", c)
	}
	// Output:
	// log in as admin with Credentials{keys: [password username], values: <redacted>}
}

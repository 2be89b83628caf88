package identity_test

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/identity"
	"github.com/capkit/capkit/internal/logtest"
	"github.com/capkit/capkit/internal/testtypes"
)

// TestResolverDoesNotLogCredentials reads credentials through an uncached API reader (WithSecretReader, as
// the docs recommend) with a logger at verbosity 100 in the context and klog at -v=10: client-go logs the
// bodies of the identity and Namespace reads, and must log nothing of the Secret's data.
func TestResolverDoesNotLogCredentials(t *testing.T) {
	f := newFixture(t)
	const accessKey = "AKID-only-in-the-secret"
	name := f.identity(t, &identity.AllowedNamespaces{NamespaceList: []string{f.tenant}},
		map[string][]byte{"accessKeyID": []byte(accessKey), "secretAccessKey": []byte(secretValue)})

	var logs logtest.Sink
	logtest.VerboseKlog(t, logs.Logger()) // before the client is made: client-go adds its debugging transports then
	ctx := logr.NewContext(t.Context(), logs.Logger())
	apiReader, err := client.New(env.Config, client.Options{Scheme: env.Scheme})
	require.NoError(t, err)
	r, err := identity.NewResolverFor(apiReader, kind, &testtypes.FooClusterIdentity{}, f.provider,
		identity.WithSecretReader(apiReader), identity.WithRequiredKeys("secretAccessKey"))
	require.NoError(t, err)
	b, err := identity.NewBinder(r, func(_ context.Context, c identity.Credentials) (identity.Credentials, error) { return c, nil },
		func(ctx context.Context, _ identity.Credentials) context.Context { return ctx })
	require.NoError(t, err)

	creds, ok, err := b.Client(ctx, f.tenant, &identity.Ref{Kind: kind, Name: name})
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, []byte(secretValue), creds.Get("secretAccessKey"))

	got := logs.String()
	require.True(t, strings.Contains(got, `"msg"="Response Body"`), "client-go logs bodies through the context's logger: the test can see a leak")
	require.True(t, strings.Contains(got, `\"name\":\"`+name+`\"`), "the identity's body is logged")
	require.True(t, strings.Contains(got, "/secrets/"+name), "the Secret reads are there to be seen")
	dumped := logtest.FromHexDumps(got)
	require.True(t, strings.Contains(dumped, "k8s\x00"), "protobuf bodies are logged as hex dumps, decoded here")
	for _, leak := range []string{secretValue, accessKey} {
		for _, form := range []string{leak, base64.StdEncoding.EncodeToString([]byte(leak))} {
			assert.False(t, strings.Contains(got, form), "the logs show %q", form)
			assert.False(t, strings.Contains(dumped, form), "a hex dump in the logs holds %q", form)
		}
	}
}

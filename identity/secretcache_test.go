package identity_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/identity"
	"github.com/capkit/capkit/redact"
)

// countingReader counts the Gets that reach the API server through it.
type countingReader struct {
	client.Reader
	gets atomic.Int32
}

func (r *countingReader) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	r.gets.Add(1)
	return r.Reader.Get(ctx, key, obj, opts...)
}

// A Secret is read once per version: later reconciles read only its metadata, a rotation is read at the next
// one, and every read, cached or not, registers the values with the reconcile's Redactor.
func TestSecretCacheReadsASecretOncePerVersion(t *testing.T) {
	ctx := t.Context()
	ns := env.Namespace(t, "secretcache")
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "vcenter"},
		Data: map[string][]byte{"username": []byte("admin"), "password": []byte("first-pa55")}}
	require.NoError(t, env.Client.Create(ctx, secret))
	meta, secrets := &countingReader{Reader: env.Client}, &countingReader{Reader: env.Client}
	cache := identity.NewSecretCache(meta, secrets, "username", "password")
	key := types.NamespacedName{Namespace: ns, Name: "vcenter"}

	for i := range 3 {
		red := redact.New()
		creds, version, err := cache.Credentials(redact.NewContext(ctx, red), key)
		require.NoError(t, err)
		assert.Equal(t, "first-pa55", string(creds.Get("password")))
		assert.Equal(t, string(secret.UID)+"/"+secret.ResourceVersion, version)
		assert.Equal(t, "the password is [REDACTED]", red.String("the password is first-pa55"), "reconcile %d", i)
	}
	assert.Equal(t, int32(1), secrets.gets.Load(), "the Secret is read once")
	assert.Equal(t, int32(3), meta.gets.Load(), "its metadata at every reconcile")

	secret.Data["password"] = []byte("rotated-pa55")
	require.NoError(t, env.Client.Update(ctx, secret))
	creds, version, err := cache.Credentials(ctx, key)
	require.NoError(t, err)
	assert.Equal(t, "rotated-pa55", string(creds.Get("password")), "a rotation is read at the next reconcile")
	assert.Equal(t, string(secret.UID)+"/"+secret.ResourceVersion, version)
	assert.Equal(t, int32(2), secrets.gets.Load())

	cache.Forget(key)
	_, _, err = cache.Credentials(ctx, key)
	require.NoError(t, err)
	assert.Equal(t, int32(3), secrets.gets.Load(), "a forgotten Secret is read again")
}

func TestSecretCacheRefuses(t *testing.T) {
	ctx := t.Context()
	ns := env.Namespace(t, "secretcache")
	require.NoError(t, env.Client.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "no-password"},
		Data: map[string][]byte{"username": []byte("admin-name-never-shown"), "password": {}}}))
	cache := identity.NewSecretCache(env.Client, env.Client, "username", "password")
	tests := []struct {
		name, secret, reason, message string
	}{
		{"missing Secret", "absent", conditions.ReasonCredentialsSecretNotFound, "credentials Secret " + ns + "/absent does not exist"},
		{"empty key", "no-password", conditions.ReasonCredentialsSecretInvalid, "credentials Secret " + ns + "/no-password lacks keys password (or they are empty)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := cache.Credentials(ctx, types.NamespacedName{Namespace: ns, Name: tt.secret})
			var refused *identity.RefusedError
			require.True(t, errors.As(err, &refused), "%v", err)
			assert.Equal(t, tt.reason, refused.Reason)
			assert.Equal(t, tt.message, refused.Message)
			assert.NotContains(t, err.Error(), "admin-name-never-shown")
		})
	}
}

package identity

import (
	"context"
	"fmt"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/redact"
)

// SecretCache reads credentials Secrets that an InfraCluster names directly, in its own namespace (CAPV's
// identityRef of kind Secret, vspherecloud's credentialsSecretRef), each once per version: a reconcile reads the
// Secret's metadata through a cache (no API request), and reads the Secret itself only when it is new or has
// changed. Secrets are not cached, so the manager holds no credentials it has not used and needs no watch on
// Secrets' data. It is safe for concurrent use.
//
// The Secret is read with a context whose logger discards everything (redact.QuietContext), and its values are
// registered with the Redactor of the reconcile (redact.FromContext) at every read, cached or not.
type SecretCache struct {
	meta     client.Reader
	secrets  client.Reader
	required []string

	mu   sync.Mutex
	read map[types.NamespacedName]cachedSecret
}

type cachedSecret struct {
	version string
	creds   Credentials
}

// NewSecretCache returns a SecretCache that reads Secrets' metadata through meta (a manager's cached client:
// metav1.PartialObjectMetadata keeps only the metadata of Secrets in its cache), Secrets through secrets (the
// manager's API reader), and refuses a Secret that lacks one of required or holds it empty.
func NewSecretCache(meta, secrets client.Reader, required ...string) *SecretCache {
	return &SecretCache{meta: meta, secrets: secrets, required: required, read: map[types.NamespacedName]cachedSecret{}}
}

// Credentials returns the data of Secret key and its version (UID and resourceVersion). A missing Secret, or one
// without a required key, is refused with a RefusedError (reasons ReasonCredentialsSecretNotFound and
// ReasonCredentialsSecretInvalid of package conditions) naming the Secret and the keys, never a value.
func (c *SecretCache) Credentials(ctx context.Context, key types.NamespacedName) (Credentials, string, error) {
	meta := &metav1.PartialObjectMetadata{}
	meta.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Secret"))
	if err := c.meta.Get(ctx, key, meta); err != nil {
		return Credentials{}, "", secretError(key, err)
	}
	c.mu.Lock()
	hit, ok := c.read[key]
	c.mu.Unlock()
	if ok && hit.version == string(meta.UID)+"/"+meta.ResourceVersion {
		hit.creds.register(redact.FromContext(ctx))
		return hit.creds, hit.version, nil
	}
	creds, version, missing, err := readCredentials(ctx, c.secrets, key, c.required)
	if err != nil {
		return Credentials{}, "", secretError(key, err)
	}
	if len(missing) > 0 {
		return Credentials{}, "", refuse(conditions.ReasonCredentialsSecretInvalid, "credentials Secret %s lacks keys %s (or they are empty)", key, strings.Join(missing, ", "))
	}
	creds.register(redact.FromContext(ctx))
	c.mu.Lock()
	c.read[key] = cachedSecret{version: version, creds: creds}
	c.mu.Unlock()
	return creds, version, nil
}

// Forget drops what the cache holds of Secret key, e.g. when its InfraCluster is deleted.
func (c *SecretCache) Forget(key types.NamespacedName) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.read, key)
}

func secretError(key types.NamespacedName, err error) error {
	if client.IgnoreNotFound(err) == nil {
		return refuse(conditions.ReasonCredentialsSecretNotFound, "credentials Secret %s does not exist", key)
	}
	return fmt.Errorf("cannot get credentials Secret %s: %w", key, err)
}

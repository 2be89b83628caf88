package identity

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/internal/prototype"
	"github.com/capkit/capkit/redact"
)

// Ref is an InfraCluster's reference to a cluster-scoped identity. Embed it in the InfraCluster's spec as
// `identityRef`.
// +kubebuilder:object:generate=true
type Ref struct {
	// kind is the kind of the identity.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	Kind string `json:"kind"`

	// name is the name of the identity.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
}

// Object is what a provider's identity kind implements.
type Object interface {
	client.Object
	// GetAllowedNamespaces returns spec.allowedNamespaces (nil: no namespace is allowed).
	GetAllowedNamespaces() *AllowedNamespaces
	// GetSecretName returns the name of the credentials Secret, in the provider's namespace.
	GetSecretName() string
}

// Referencer is what an InfraCluster that uses identities implements.
type Referencer interface {
	client.Object
	// GetIdentityRef returns spec.identityRef, nil when the cluster names no identity.
	GetIdentityRef() *Ref
}

// RefusedError is a refusal to use an identity for a cluster: the cluster cannot be reconciled until a user
// changes the identity, its Secret, the namespace or the InfraCluster. Its message names objects and keys,
// never a credential value.
type RefusedError struct {
	// Reason is the reason of the IdentityReady condition: one of the identity reasons of package conditions
	// (conditions.ReasonIdentityNotFound, ...).
	Reason string
	// Message says what is wrong and what to change.
	Message string
}

func (e *RefusedError) Error() string { return e.Message }

// IsRefused reports whether err is a refusal: a RefusedError, possibly wrapped. Its reason and message are
// the RefusedError's (errors.As), and reconcile.Classify says what the reconcilers do with it.
func IsRefused(err error) bool {
	var r *RefusedError
	return errors.As(err, &r)
}

func refuse(reason, format string, args ...any) error {
	return &RefusedError{Reason: reason, Message: fmt.Sprintf(format, args...)}
}

// Resolver reads identities of kind I and their credentials.
type Resolver[I Object] struct {
	reader, secrets client.Reader
	newIdentity     func() I
	kind            string
	namespace       string
	required        []string
	requireRef      bool
}

// ResolverOption configures NewResolver.
type ResolverOption func(*resolverConfig)

type resolverConfig struct {
	secrets    client.Reader
	required   []string
	requireRef bool
}

// WithSecretReader reads credentials Secrets through r, e.g. a manager's uncached API reader, so that the
// manager does not cache every Secret of the cluster (default: the Resolver's reader).
func WithSecretReader(r client.Reader) ResolverOption {
	return func(c *resolverConfig) { c.secrets = r }
}

// WithRequiredKeys refuses a Secret that lacks one of keys or has it empty.
func WithRequiredKeys(keys ...string) ResolverOption {
	return func(c *resolverConfig) { c.required = append(c.required, keys...) }
}

// WithIdentityRequired refuses a cluster without identityRef (default: such a cluster resolves to no
// credentials, and the provider uses its own default).
func WithIdentityRequired() ResolverOption { return func(c *resolverConfig) { c.requireRef = true } }

// NewResolverFor returns a Resolver for identities of kind kind and of identity's type I (a prototype, e.g.
// &v1beta2.MemClusterIdentity{}, whose type alone is used, as controller-runtime's builder.For(object) does)
// whose credentials Secrets live in secretNamespace, the provider's namespace. reader reads identities,
// Namespaces and, unless a reconcile's context says otherwise (ContextWithSecretMetadataReader), Secret
// metadata (a manager's cached client).
func NewResolverFor[I Object](reader client.Reader, kind string, identity I, secretNamespace string, opts ...ResolverOption) (*Resolver[I], error) {
	newIdentity, err := prototype.Factory("identity", identity)
	if err != nil {
		return nil, fmt.Errorf("cannot create identity resolver: %w", err)
	}
	return newResolver(reader, kind, newIdentity, secretNamespace, opts)
}

// NewResolver returns a Resolver for identities of kind kind; newIdentity returns an empty one.
//
// Deprecated: use NewResolverFor with an empty identity, e.g. NewResolverFor(reader, kind,
// &v1beta2.MemClusterIdentity{}, secretNamespace, opts...).
func NewResolver[I Object](reader client.Reader, kind string, newIdentity func() I, secretNamespace string, opts ...ResolverOption) (*Resolver[I], error) {
	if newIdentity == nil {
		return nil, errors.New("cannot create identity resolver: newIdentity is nil")
	}
	return NewResolverFor(reader, kind, newIdentity(), secretNamespace, opts...)
}

func newResolver[I Object](reader client.Reader, kind string, newIdentity func() I, secretNamespace string, opts []ResolverOption) (*Resolver[I], error) {
	var cfg resolverConfig
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	switch {
	case reader == nil:
		return nil, errors.New("cannot create identity resolver: reader is nil")
	case kind == "":
		return nil, errors.New("cannot create identity resolver: kind is empty")
	case secretNamespace == "":
		return nil, fmt.Errorf("cannot create identity resolver for %s: secret namespace is empty", kind)
	}
	if cfg.secrets == nil {
		cfg.secrets = reader
	}
	return &Resolver[I]{reader: reader, secrets: cfg.secrets, newIdentity: newIdentity, kind: kind,
		namespace: secretNamespace, required: slices.Clone(cfg.required), requireRef: cfg.requireRef}, nil
}

// Kind returns the identity kind.
func (r *Resolver[I]) Kind() string { return r.kind }

// SecretNamespace returns the namespace of the credentials Secrets.
func (r *Resolver[I]) SecretNamespace() string { return r.namespace }

// NewIdentity returns an empty identity.
func (r *Resolver[I]) NewIdentity() I { return r.newIdentity() }

// Allowed returns the identity ref names for a cluster in namespace, after checking that it exists and allows
// the namespace. ok is false, without error, when ref is nil and identities are optional.
func (r *Resolver[I]) Allowed(ctx context.Context, namespace string, ref *Ref) (I, bool, error) {
	var zero I
	if ref == nil {
		if r.requireRef {
			return zero, false, refuse(conditions.ReasonIdentityRefMissing, "spec.identityRef is not set: name a %s to use", r.kind)
		}
		return zero, false, nil
	}
	if ref.Kind != r.kind {
		return zero, false, refuse(conditions.ReasonIdentityNotFound, "spec.identityRef.kind %q is not %q", ref.Kind, r.kind)
	}
	id := r.newIdentity()
	if err := r.reader.Get(ctx, client.ObjectKey{Name: ref.Name}, id); err != nil {
		if apierrors.IsNotFound(err) {
			return zero, false, refuse(conditions.ReasonIdentityNotFound, "%s %q named by spec.identityRef does not exist", r.kind, ref.Name)
		}
		return zero, false, fmt.Errorf("cannot get %s %q: %w", r.kind, ref.Name, err)
	}
	ns := &corev1.Namespace{}
	if err := r.reader.Get(ctx, client.ObjectKey{Name: namespace}, ns); err != nil {
		return zero, false, fmt.Errorf("cannot get namespace %q: %w", namespace, err)
	}
	ok, err := Allows(id.GetAllowedNamespaces(), ns)
	if err != nil {
		return zero, false, refuse(conditions.ReasonNamespaceNotAllowed, "%s %q: %v", r.kind, ref.Name, err)
	}
	if !ok {
		return zero, false, refuse(conditions.ReasonNamespaceNotAllowed, "%s %q does not allow namespace %q: add it to spec.allowedNamespaces", r.kind, ref.Name, namespace)
	}
	return id, true, nil
}

// secretMetadataKey is the context key of ContextWithSecretMetadataReader.
type secretMetadataKey struct{}

// ContextWithSecretMetadataReader returns ctx carrying reader, which SecretVersion then reads the credentials
// Secrets' metadata through instead of the Resolver's reader. reconcile's reconcilers pass a cache of the
// Secret namespace alone: read through a manager's client, the metadata of every Secret of the cluster would
// be cached (or none of that namespace, in a manager limited to another one).
func ContextWithSecretMetadataReader(ctx context.Context, reader client.Reader) context.Context {
	return context.WithValue(ctx, secretMetadataKey{}, reader)
}

// SecretVersion returns the UID and resourceVersion of identity id's credentials Secret, read as metadata
// (a cached read: ctx's ContextWithSecretMetadataReader, else the Resolver's reader): a change means rotated
// credentials.
func (r *Resolver[I]) SecretVersion(ctx context.Context, id I) (string, error) {
	name := id.GetSecretName()
	if name == "" {
		return "", refuse(conditions.ReasonCredentialsSecretNotFound, "%s %q names no credentials Secret", r.kind, id.GetName())
	}
	reader := r.reader
	if cr, ok := ctx.Value(secretMetadataKey{}).(client.Reader); ok && cr != nil {
		reader = cr
	}
	meta := &metav1.PartialObjectMetadata{}
	meta.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Secret"))
	if err := reader.Get(ctx, client.ObjectKey{Namespace: r.namespace, Name: name}, meta); err != nil {
		if apierrors.IsNotFound(err) {
			return "", refuse(conditions.ReasonCredentialsSecretNotFound, "credentials Secret %s/%s of %s %q does not exist", r.namespace, name, r.kind, id.GetName())
		}
		return "", fmt.Errorf("cannot get credentials Secret %s/%s: %w", r.namespace, name, err)
	}
	return string(meta.UID) + "/" + meta.ResourceVersion, nil
}

// Credentials reads identity id's credentials Secret and checks the required keys. It returns the version
// (UID and resourceVersion) of the Secret it read, comparable with SecretVersion's. The Secret is read with a
// context whose logger discards everything (redact.QuietContext): client-go logs response bodies through
// the context's logger. The values are registered with the Redactor of ctx (redact.FromContext).
func (r *Resolver[I]) Credentials(ctx context.Context, id I) (Credentials, string, error) {
	name := id.GetSecretName()
	creds, version, missing, err := readCredentials(ctx, r.secrets, client.ObjectKey{Namespace: r.namespace, Name: name}, r.required)
	switch {
	case apierrors.IsNotFound(err):
		return Credentials{}, "", refuse(conditions.ReasonCredentialsSecretNotFound, "credentials Secret %s/%s of %s %q does not exist", r.namespace, name, r.kind, id.GetName())
	case err != nil:
		return Credentials{}, "", fmt.Errorf("cannot get credentials Secret %s/%s: %w", r.namespace, name, err)
	case len(missing) > 0:
		return Credentials{}, "", refuse(conditions.ReasonCredentialsSecretInvalid, "credentials Secret %s/%s of %s %q lacks keys %s (or they are empty)",
			r.namespace, name, r.kind, id.GetName(), strings.Join(missing, ", "))
	}
	creds.register(redact.FromContext(ctx))
	return creds, version, nil
}

// readCredentials reads Secret key through reader with a context whose logger discards everything
// (redact.QuietContext: client-go logs response bodies through it) and returns its data, its version (UID and
// resourceVersion), and the keys of required it lacks or holds empty. The values are not registered anywhere.
func readCredentials(ctx context.Context, reader client.Reader, key client.ObjectKey, required []string) (Credentials, string, []string, error) {
	secret := &corev1.Secret{}
	if err := reader.Get(redact.QuietContext(ctx), key, secret); err != nil {
		return Credentials{}, "", nil, err
	}
	var missing []string
	for _, k := range required {
		if len(secret.Data[k]) == 0 {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		return Credentials{}, "", missing, nil
	}
	return NewCredentials(secret.Data), string(secret.UID) + "/" + secret.ResourceVersion, nil, nil
}

// SecretNameOf returns the name of the credentials Secret of the identity named name, "" when it does not
// exist.
func (r *Resolver[I]) SecretNameOf(ctx context.Context, name string) (string, error) {
	id := r.newIdentity()
	if err := r.reader.Get(ctx, client.ObjectKey{Name: name}, id); err != nil {
		if apierrors.IsNotFound(err) {
			return "", nil
		}
		return "", fmt.Errorf("cannot get %s %q: %w", r.kind, name, err)
	}
	return id.GetSecretName(), nil
}

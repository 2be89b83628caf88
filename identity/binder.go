package identity

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/redact"
)

// Binder puts into a reconcile's context what the provider needs to call its cloud for one cluster;
// reconcile.WithIdentities (or WithIdentityFor, with a Binder of the provider's own) calls it before any step.
type Binder interface {
	// Bind resolves ref for a cluster in namespace and returns ctx carrying the provider's client for the
	// credentials, after registering their values with the Redactor of ctx (redact.FromContext). A refusal
	// is a *RefusedError. With a nil ref and identities optional it returns ctx as is.
	Bind(ctx context.Context, namespace string, ref *Ref) (context.Context, error)
	// NewIdentity returns an empty identity object, for watches.
	NewIdentity() client.Object
	// SecretNamespace returns the namespace of the credentials Secrets, for watches.
	SecretNamespace() string
	// Kind returns the identity kind.
	Kind() string
	// SecretNameOf returns the name of the credentials Secret of the identity named name ("" when the
	// identity does not exist), for watches.
	SecretNameOf(ctx context.Context, name string) (string, error)
}

// ClientBinder is the Binder of a provider whose cloud client is of type C, built from Credentials.
type ClientBinder[I Object, C any] struct {
	resolver *Resolver[I]
	build    func(context.Context, Credentials) (C, error)
	attach   func(context.Context, C) context.Context
	close    func(context.Context, C) error // Config.Close

	mu      sync.Mutex
	clients map[string]cached[C] // by identity name
	builds  int
}

type cached[C any] struct {
	version string
	client  C
	creds   Credentials // registered with each reconcile's Redactor
}

// NewBinder returns a Binder that resolves identities with r, builds the client of each identity's
// credentials with build, and attaches it to a reconcile's context with attach. A client is built once and
// reused while the identity's Secret keeps its UID and resourceVersion.
func NewBinder[I Object, C any](r *Resolver[I], build func(context.Context, Credentials) (C, error), attach func(context.Context, C) context.Context) (*ClientBinder[I, C], error) {
	switch {
	case r == nil:
		return nil, errors.New("cannot create identity binder: resolver is nil")
	case build == nil:
		return nil, errors.New("cannot create identity binder: build is nil")
	case attach == nil:
		return nil, errors.New("cannot create identity binder: attach is nil")
	}
	return &ClientBinder[I, C]{resolver: r, build: build, attach: attach, clients: map[string]cached[C]{}}, nil
}

// Bind implements Binder.
func (b *ClientBinder[I, C]) Bind(ctx context.Context, namespace string, ref *Ref) (context.Context, error) {
	c, ok, err := b.Client(ctx, namespace, ref)
	if err != nil || !ok {
		return ctx, err
	}
	return b.attach(ctx, c), nil
}

// Client returns the client for a cluster in namespace with identity ref; ok is false, without error, when
// ref is nil and identities are optional. The credentials of the client, built now or earlier, are registered
// with the Redactor of ctx (redact.FromContext), so that the reconcile never shows them.
func (b *ClientBinder[I, C]) Client(ctx context.Context, namespace string, ref *Ref) (C, bool, error) {
	var zero C
	id, ok, err := b.resolver.Allowed(ctx, namespace, ref)
	if err != nil || !ok {
		return zero, false, err
	}
	version, err := b.resolver.SecretVersion(ctx, id)
	if err != nil {
		return zero, false, err
	}
	b.mu.Lock()
	entry, found := b.clients[id.GetName()]
	b.mu.Unlock()
	if found && entry.version == version {
		entry.creds.register(redact.FromContext(ctx))
		return entry.client, true, nil
	}
	// The version stored is the one of the Secret read, which may lag behind the metadata just read when
	// they come from two caches: then the next bind reads again instead of keeping stale credentials.
	creds, version, err := b.resolver.Credentials(ctx, id)
	if err != nil {
		return zero, false, err
	}
	c, err := b.build(ctx, creds)
	if err != nil {
		return zero, false, fmt.Errorf("cannot build the client of %s %q: %w", b.resolver.Kind(), id.GetName(), err)
	}
	b.mu.Lock()
	b.builds++
	prev, replaced := b.clients[id.GetName()]
	if replaced && prev.version == version { // a concurrent bind built it too: keep the one stored
		b.mu.Unlock()
		b.closeClient(ctx, c)
		return prev.client, true, nil
	}
	b.clients[id.GetName()] = cached[C]{version: version, client: c, creds: creds}
	b.mu.Unlock()
	if replaced {
		b.closeClient(ctx, prev.client)
	}
	return c, true, nil
}

// closeClient closes c with Config.Close, if given, within DefaultCloseTimeout even when ctx is done, and logs a
// failure to the logger of ctx: the bind itself succeeded.
func (b *ClientBinder[I, C]) closeClient(ctx context.Context, c C) {
	if b.close == nil {
		return
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), DefaultCloseTimeout)
	defer cancel()
	if err := b.close(cctx, c); err != nil {
		logr.FromContextOrDiscard(ctx).Error(err, "cannot close a replaced client", "kind", b.resolver.Kind())
	}
}

// Builds returns how many clients were built so far (a steady state builds none).
func (b *ClientBinder[I, C]) Builds() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.builds
}

// NewIdentity implements Binder.
func (b *ClientBinder[I, C]) NewIdentity() client.Object { return b.resolver.NewIdentity() }

// SecretNamespace implements Binder.
func (b *ClientBinder[I, C]) SecretNamespace() string { return b.resolver.SecretNamespace() }

// Kind implements Binder.
func (b *ClientBinder[I, C]) Kind() string { return b.resolver.Kind() }

// SecretNameOf implements Binder.
func (b *ClientBinder[I, C]) SecretNameOf(ctx context.Context, name string) (string, error) {
	return b.resolver.SecretNameOf(ctx, name)
}

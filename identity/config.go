package identity

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/internal/prototype"
)

// Config is what a multi-tenant provider says about its identities, in one place: the identity kind, where
// their credentials Secrets live and what they must hold, and how its cloud client of type C is built from
// them and put into a reconcile's context. NewBinder builds the Resolver and the ClientBinder from it;
// reconcile.WithIdentities does so with the reconciler's own client.
type Config[C any] struct {
	// Kind is the identity kind, as InfraClusters name it in spec.identityRef.kind, e.g. "MemClusterIdentity".
	// Required.
	Kind string
	// Prototype is an empty identity of the provider's identity type, e.g. &v1beta2.MemClusterIdentity{}: its
	// type alone is used, as controller-runtime's builder.For(object) does. Required.
	Prototype Object
	// Namespace is where the credentials Secrets live: the provider's own namespace. Required.
	Namespace string
	// RequiredKeys are the keys a credentials Secret must hold, non-empty (WithRequiredKeys).
	RequiredKeys []string
	// Required refuses an InfraCluster without spec.identityRef (WithIdentityRequired); otherwise such a
	// cluster binds no credentials and the provider uses its own default.
	Required bool
	// SecretReader reads the credentials Secrets, e.g. a manager's uncached API reader, so that the manager
	// does not cache every Secret of the cluster (WithSecretReader); nil: the reader NewBinder is given.
	SecretReader client.Reader
	// Credentials builds the provider's cloud client from an identity's credentials; it runs once per
	// identity and again when its Secret changes. Required.
	Credentials func(ctx context.Context, creds Credentials) (C, error)
	// Bind returns ctx carrying the client, for the provider's services to take it from. Required.
	Bind func(ctx context.Context, client C) context.Context
	// Close closes a client the Binder no longer holds: the client of an identity whose Secret changed, once the
	// new one is built (a reconcile still calling the old one then fails and is retried), or one a concurrent bind
	// built too. It runs within DefaultCloseTimeout; its error is logged. Nil: clients are dropped unclosed.
	Close func(ctx context.Context, client C) error
}

// NewBinder returns the Binder of cfg: identities, Namespaces and Secret metadata are read through reader (a
// manager's cached client), the Secrets' values through cfg.SecretReader, else reader too. An invalid cfg is
// an error naming the field.
func (cfg Config[C]) NewBinder(reader client.Reader) (*ClientBinder[Object, C], error) {
	if err := cfg.validate(); err != nil {
		return nil, fmt.Errorf("cannot create identity binder: %w", err)
	}
	opts := []ResolverOption{WithRequiredKeys(cfg.RequiredKeys...)}
	if cfg.SecretReader != nil {
		opts = append(opts, WithSecretReader(cfg.SecretReader))
	}
	if cfg.Required {
		opts = append(opts, WithIdentityRequired())
	}
	r, err := NewResolverFor(reader, cfg.Kind, cfg.Prototype, cfg.Namespace, opts...)
	if err != nil {
		return nil, err
	}
	b, err := NewBinder(r, cfg.Credentials, cfg.Bind)
	if err != nil {
		return nil, err
	}
	b.close = cfg.Close
	return b, nil
}

// validate says which field of cfg is missing or wrong.
func (cfg Config[C]) validate() error {
	switch {
	case cfg.Kind == "":
		return fmt.Errorf("Config.Kind is empty: name the identity kind, e.g. %q", "MemClusterIdentity")
	case cfg.Prototype == nil:
		return fmt.Errorf("Config.Prototype of kind %q is nil: pass an empty identity, e.g. &MemClusterIdentity{}", cfg.Kind)
	case cfg.Namespace == "":
		return fmt.Errorf("Config.Namespace of kind %q is empty: name the namespace of the credentials Secrets", cfg.Kind)
	case cfg.Credentials == nil:
		return fmt.Errorf("Config.Credentials of kind %q is nil", cfg.Kind)
	case cfg.Bind == nil:
		return fmt.Errorf("Config.Bind of kind %q is nil", cfg.Kind)
	}
	if _, err := prototype.Factory("Config.Prototype", cfg.Prototype); err != nil {
		return err
	}
	for i, k := range cfg.RequiredKeys {
		if k == "" {
			return fmt.Errorf("Config.RequiredKeys[%d] of kind %q is empty", i, cfg.Kind)
		}
	}
	return nil
}

package reconcile

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/identity"
	"github.com/capkit/capkit/internal/prototype"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope"
)

// ConditionIdentityReady is the condition the reconcilers write when they use identities (WithIdentities, WithIdentityFor): True
// once the cluster's identity is resolved, False with the refusal's reason (a conditions.Reason… of
// identities) when it is refused.
const ConditionIdentityReady = "IdentityReady"

// DefaultIdentityRecheck is how long a reconciler waits before looking again at a refused identity when no
// watch event comes first (a Namespace's labels changed, or a machine whose cluster was refused).
const DefaultIdentityRecheck = time.Minute

// WithIdentityFor resolves each cluster's identity through b before any step, in reconcile and in delete, and
// passes the context b returns (which carries the provider's cloud client) to the steps. A refused identity
// stops the reconcile before any cloud call: ConditionIdentityReady goes False with the refusal's reason and
// message (never a credential), a Warning event is emitted, and the object is looked at again when the
// identity or its Secret changes, or after DefaultIdentityRecheck. A delete waits too: deleting needs the
// credentials as much as creating, and the objects keep their finalizer until the identity allows them again.
// The exception is an object refused from the start: no step ever ran for it, so nothing of it is in the
// cloud, and its finalizer goes at once. "Never ran" is proven by what the object records: no
// StepsStartedAnnotation (written before the first step can run), IdentityReady never True, no resource ID,
// no provider ID, not provisioned, and no step condition but the provisioning gate's; a crash between a
// step's cloud call and the end of its reconcile leaves at least the annotation.
//
// The identity is resolved before the provisioning gate of machines and machine pools: a machine of a
// cluster whose identity is refused says so in its own IdentityReady condition.
//
// infraCluster is an empty InfraCluster of the provider, e.g. &v1beta2.MemCluster{}, whose type alone is used
// (as controller-runtime's builder.For(object) does): the machine and machine pool reconcilers read the
// identity reference from their cluster's InfraCluster. The cluster reconciler uses its own object, which
// must implement identity.Referencer. WithIdentities builds b from a provider's identity.Config.
func WithIdentityFor(b identity.Binder, infraCluster identity.Referencer) Option {
	newInfraCluster, err := prototype.Factory("infraCluster", infraCluster)
	return func(c *config) {
		c.identity, c.newInfraCluster, c.identityErr = b, newInfraCluster, err
		c.identityBuild = nil
		if err != nil {
			c.identityErr = fmt.Errorf("WithIdentityFor: %w", err)
		}
	}
}

// WithIdentity resolves each cluster's identity through b before any step; newInfraCluster returns an empty
// InfraCluster of the provider.
//
// Deprecated: use WithIdentityFor with an empty InfraCluster, e.g. WithIdentityFor(b, &v1beta2.MemCluster{}),
// or WithIdentities, which builds b too.
//
//go:fix inline
func WithIdentity(b identity.Binder, newInfraCluster func() identity.Referencer) Option {
	return WithIdentityFor(b, newInfraCluster())
}

// WithIdentities makes a multi-tenant reconciler: it binds each cluster's identity as WithIdentityFor does,
// with the resolver and binder of cfg (identity.Config.NewBinder) built on the reconciler's client, so that a
// provider says what its identities are and never builds them by hand. infraCluster is an empty InfraCluster
// of the provider, e.g. &v1beta2.MemCluster{}: the cluster reconciler reads the identity reference of the
// object it reconciles, the machine and machine pool reconcilers that of their cluster's InfraCluster. Each
// reconciler builds its own binder, with its own cache of cloud clients. A missing or invalid field of cfg
// is an error of the reconciler's constructor, naming the field.
func WithIdentities[C any](infraCluster identity.Referencer, cfg identity.Config[C]) Option {
	newInfraCluster, err := prototype.Factory("infraCluster", infraCluster)
	return func(c *config) {
		c.identity, c.newInfraCluster, c.identityErr = nil, newInfraCluster, nil
		c.identityBuild = func(r client.Reader) (identity.Binder, error) { return cfg.NewBinder(r) }
		if err != nil {
			c.identityErr = fmt.Errorf("WithIdentities: %w", err)
		}
	}
}

// identitySource returns the namespace and identity reference of the object being reconciled.
type identitySource func(ctx context.Context) (string, *identity.Ref, error)

// clusterIdentity is the identitySource of an InfraCluster.
func clusterIdentity(obj any) (identitySource, error) {
	ref, ok := obj.(identity.Referencer)
	if !ok {
		return nil, fmt.Errorf("%T does not implement identity.Referencer (GetIdentityRef)", obj)
	}
	return func(context.Context) (string, *identity.Ref, error) {
		return ref.GetNamespace(), ref.GetIdentityRef(), nil
	}, nil
}

// infraClusterIdentity is the identitySource of a machine or machine pool of cluster: its InfraCluster's.
func (r *base) infraClusterIdentity(cluster scope.ClusterInfo) identitySource {
	return func(ctx context.Context) (string, *identity.Ref, error) {
		ic := r.newInfraCluster()
		gvk, err := apiutil.GVKForObject(ic, r.client.Scheme())
		if err != nil {
			return "", nil, fmt.Errorf("cannot find the kind of %T: %w", ic, err)
		}
		if err := scope.GetInfraCluster(ctx, r.client, cluster, gvk.Kind, ic); err != nil {
			return "", nil, &identity.RefusedError{Reason: conditions.ReasonIdentityNotFound,
				Message: fmt.Sprintf("cannot read the identity of the cluster: %v", err)}
		}
		return ic.GetNamespace(), ic.GetIdentityRef(), nil
	}
}

// bindIdentity resolves the identity of src and returns the context for the steps; ok is false when the
// reconcile must stop, with out saying when to come back.
func (r *base) bindIdentity(ctx context.Context, s conditionsObject, src identitySource) (context.Context, outcome, bool) {
	if r.identity == nil {
		return ctx, outcome{}, true
	}
	namespace, ref, err := src(ctx)
	if err == nil {
		bindCtx := ctx
		if r.identitySecrets != nil {
			bindCtx = identity.ContextWithSecretMetadataReader(ctx, r.identitySecrets)
		}
		var bound context.Context
		if bound, err = r.identity.Bind(bindCtx, namespace, ref); err == nil {
			r.mark(ctx, s, ConditionIdentityReady, "True", conditions.ReasonReady, "")
			if ref != nil {
				bound = step.WithAccount(bound, ref.Name) // one rate limit per account
			}
			return bound, outcome{}, true
		}
	}
	var refused *identity.RefusedError
	if !errors.As(err, &refused) {
		return ctx, outcome{err: err}, false
	}
	return ctx, r.refused(ctx, s, ConditionIdentityReady, refused, DefaultIdentityRecheck), false
}

// identityRefField is the prefix of the field indexes of InfraClusters by identity reference, "<kind>/<name>"
// (identityRefKey); each reconciler with identities adds its own (identityRefField + "/" + its kind), so that
// the cluster and machine reconcilers of one manager do not register the same index twice.
const identityRefField = "capkit.io/identity-ref"

// identityRefKey is the value of an identity reference in the index.
func identityRefKey(kind, name string) string { return kind + "/" + name }

// watchIdentities makes the controller reconcile what uses an identity when the identity or its credentials
// Secret changes: the InfraClusters that name it, found through a field index of the InfraClusters in the
// manager's cache and mapped to requests by toRequests. Secrets are watched as metadata only, and only in the
// identities' Secret namespace, through a cache of their own: the manager's cache would hold the metadata of
// every Secret of the cluster (or none of that namespace, in a manager limited to another one). The binder reads
// the Secrets' metadata through that cache too (identity.ContextWithSecretMetadataReader).
func (r *base) watchIdentities(b *builder.Builder, mgr ctrl.Manager, toRequests func(context.Context, []identity.Referencer) []ctrl.Request) (*builder.Builder, error) {
	if r.identity == nil {
		return b, nil
	}
	u, err := r.identityUsers(mgr)
	if err != nil {
		return nil, err
	}
	err = mgr.GetFieldIndexer().IndexField(context.Background(), r.newInfraCluster(), u.field, func(o client.Object) []string {
		if ref := o.(identity.Referencer).GetIdentityRef(); ref != nil {
			return []string{identityRefKey(ref.Kind, ref.Name)}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("cannot index %s by identity: %w", u.infraCluster.Kind, err)
	}
	secrets, err := secretsIn(mgr, r.identity.SecretNamespace())
	if err != nil {
		return nil, err
	}
	r.identitySecrets = secrets
	secretMeta := &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"}}
	return b.
		Watches(r.identity.NewIdentity(), handler.EnqueueRequestsFromMapFunc(func(ctx context.Context, o client.Object) []ctrl.Request {
			return toRequests(ctx, u.ofIdentities(ctx, o.GetName()))
		})).
		WatchesRawSource(source.Kind(secrets, secretMeta, handler.TypedEnqueueRequestsFromMapFunc(func(ctx context.Context, o *metav1.PartialObjectMetadata) []ctrl.Request {
			return toRequests(ctx, u.ofSecret(ctx, o.GetName()))
		}))), nil
}

// identityUsers returns the finder of the InfraClusters that use an identity, in mgr's cache.
func (r *base) identityUsers(mgr ctrl.Manager) (identityUsers, error) {
	ic := r.newInfraCluster()
	gvk, err := apiutil.GVKForObject(ic, r.client.Scheme())
	if err != nil {
		return identityUsers{}, fmt.Errorf("cannot find the kind of %T: %w", ic, err)
	}
	return identityUsers{binder: r.identity, reader: mgr.GetClient(), scheme: r.client.Scheme(), infraCluster: gvk,
		field: identityRefField + "/" + lower(r.kind.Kind)}, nil
}

// secretsIn returns a cache of the Secrets of namespace that mgr starts with its own caches, before its
// controllers.
func secretsIn(mgr ctrl.Manager, namespace string) (cache.Cache, error) {
	c, err := cache.New(mgr.GetConfig(), cache.Options{HTTPClient: mgr.GetHTTPClient(), Scheme: mgr.GetScheme(),
		Mapper: mgr.GetRESTMapper(), DefaultNamespaces: map[string]cache.Config{namespace: {}}})
	if err != nil {
		return nil, fmt.Errorf("cannot create the cache of Secrets in namespace %q: %w", namespace, err)
	}
	if err := mgr.Add(managerCache{c}); err != nil {
		return nil, fmt.Errorf("cannot add the cache of Secrets in namespace %q: %w", namespace, err)
	}
	return c, nil
}

// managerCache is a cache the manager starts, and waits for, with its own (it has GetCache).
type managerCache struct{ cache.Cache }

func (c managerCache) GetCache() cache.Cache { return c.Cache }

// clusterRequests maps InfraClusters to requests for themselves (the cluster reconciler).
func clusterRequests(_ context.Context, ics []identity.Referencer) []ctrl.Request {
	out := make([]ctrl.Request, 0, len(ics))
	for _, ic := range ics {
		out = append(out, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(ic)})
	}
	return out
}

// machineRequests maps InfraClusters to the infra objects of kind gvk of their clusters (by the cluster-name
// label), for the machine and machine pool reconcilers.
func machineRequests(c client.Client, gvk schema.GroupVersionKind) func(context.Context, []identity.Referencer) []ctrl.Request {
	return func(ctx context.Context, ics []identity.Referencer) []ctrl.Request {
		var out []ctrl.Request
		for _, ic := range ics {
			name := ic.GetLabels()[contract.ClusterNameLabel]
			if name == "" {
				continue
			}
			cluster := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: ic.GetNamespace(), Name: name}}
			out = append(out, ClusterToInfraMachines(c, gvk)(ctx, cluster)...)
		}
		return out
	}
}

// identityUsers finds the InfraClusters that use an identity, through the field index of the InfraClusters'
// identity references in reader (the manager's cache): an identity or Secret event costs a lookup per
// identity, not a walk over every InfraCluster.
type identityUsers struct {
	binder       identity.Binder
	reader       client.Reader
	scheme       *runtime.Scheme
	infraCluster schema.GroupVersionKind
	field        string
}

// ofIdentities returns the InfraClusters whose identity is one of names.
func (u identityUsers) ofIdentities(ctx context.Context, names ...string) []identity.Referencer {
	var out []identity.Referencer
	for _, name := range names {
		items, err := u.list(ctx, u.infraCluster, client.MatchingFields{u.field: identityRefKey(u.binder.Kind(), name)})
		if err != nil {
			logFrom(ctx).Error(err, "cannot list InfraClusters for an identity change", "kind", u.infraCluster.Kind, "identity", name)
			continue
		}
		for _, item := range items {
			if ic, ok := item.(identity.Referencer); ok {
				out = append(out, ic)
			}
		}
	}
	return out
}

// ofSecret returns the InfraClusters whose identity's credentials are in the Secret named secret: it lists the
// identities (there is one per cloud account, far fewer than clusters) and keeps those that name it.
func (u identityUsers) ofSecret(ctx context.Context, secret string) []identity.Referencer {
	log := logFrom(ctx)
	gvk, err := apiutil.GVKForObject(u.binder.NewIdentity(), u.scheme)
	if err != nil {
		log.Error(err, "cannot list identities for a Secret change", "kind", u.binder.Kind())
		return nil
	}
	items, err := u.list(ctx, gvk)
	if err != nil {
		log.Error(err, "cannot list identities for a Secret change", "kind", gvk.Kind)
		return nil
	}
	var names []string
	for _, item := range items {
		id, ok := item.(client.Object)
		if !ok {
			continue
		}
		name := ""
		if o, ok := id.(interface{ GetSecretName() string }); ok {
			name = o.GetSecretName()
		} else if name, err = u.binder.SecretNameOf(ctx, id.GetName()); err != nil {
			log.Error(err, "cannot read identity", "identity", id.GetName())
		}
		if name != "" && name == secret {
			names = append(names, id.GetName())
		}
	}
	return u.ofIdentities(ctx, names...)
}

// list lists the objects of kind gvk in reader.
func (u identityUsers) list(ctx context.Context, gvk schema.GroupVersionKind, opts ...client.ListOption) ([]runtime.Object, error) {
	obj, err := u.scheme.New(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
	if err != nil {
		return nil, fmt.Errorf("cannot make a list of %s: %w", gvk.Kind, err)
	}
	list, ok := obj.(client.ObjectList)
	if !ok {
		return nil, fmt.Errorf("cannot make a list of %s: %T is not a list", gvk.Kind, obj)
	}
	if err := u.reader.List(ctx, list, opts...); err != nil {
		return nil, fmt.Errorf("cannot list %s: %w", gvk.Kind, err)
	}
	return meta.ExtractList(list)
}

// StepsStartedAnnotation is set on an infra object, with WithIdentities, in the patch that persists its finalizer
// once its identity is bound, before any step runs: from then on a step may have called the cloud, and a
// delete waits for an allowed identity instead of removing the finalizer at once. It is metadata, so it
// survives clusterctl move, unlike status.
const StepsStartedAnnotation = "capkit.io/steps-started"

// neverRan reports whether no step can have run for s, so that nothing of it is in the cloud. Steps run only
// after the identity was bound, which persists StepsStartedAnnotation first; an object reconciled before the
// annotation existed proves it by what it recorded: a resource ID (Ensure's checkpoint), a provider ID, the
// provisioned flag, or a step condition other than the provisioning gate's (a wait, not a run).
func neverRan(s lifecycle, steps []stepRunner) bool {
	if _, started := s.Object().GetAnnotations()[StepsStartedAnnotation]; started {
		return false
	}
	if len(s.ResourceIDs()) > 0 || s.Provisioned() {
		return false
	}
	if p, ok := s.(interface{ ProviderID() string }); ok && p.ProviderID() != "" {
		return false
	}
	if p, ok := s.(interface{ ProviderIDList() []string }); ok && len(p.ProviderIDList()) > 0 {
		return false
	}
	for i, st := range steps {
		c := conditions.Get(s.Conditions(), st.conditionType)
		if c == nil {
			continue
		}
		if i == 0 && (c.Reason == conditions.ReasonWaitingForClusterInfrastructure || c.Reason == conditions.ReasonWaitingForBootstrapData) {
			continue
		}
		return false
	}
	return true
}

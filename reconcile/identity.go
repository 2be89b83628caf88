package reconcile

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/identity"
	"github.com/capkit/capkit/scope"
)

// ConditionIdentityReady is the condition the reconcilers write when they use identities (WithIdentity): True
// once the cluster's identity is resolved, False with the refusal's reason (a conditions.Reason… of
// identities) when it is refused.
const ConditionIdentityReady = "IdentityReady"

// DefaultIdentityRecheck is how long a reconciler waits before looking again at a refused identity when no
// watch event comes first (a Namespace's labels changed, or a machine whose cluster was refused).
const DefaultIdentityRecheck = time.Minute

// WithIdentity resolves each cluster's identity through b before any step, in reconcile and in delete, and
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
// newInfraCluster returns an empty InfraCluster of the provider: the machine and machine pool reconcilers
// read the identity reference from their cluster's InfraCluster. The cluster reconciler uses its own object,
// which must implement identity.Referencer.
func WithIdentity(b identity.Binder, newInfraCluster func() identity.Referencer) Option {
	return func(c *config) { c.identity, c.newInfraCluster = b, newInfraCluster }
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
		var bound context.Context
		if bound, err = r.identity.Bind(ctx, namespace, ref); err == nil {
			r.mark(ctx, s, ConditionIdentityReady, "True", conditions.ReasonReady, "")
			if ref != nil {
				bound = withAccount(bound, ref.Name) // one rate limit per account
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

// watchIdentities makes the controller reconcile what uses an identity when the identity or its credentials
// Secret changes: the InfraClusters that name it, mapped to requests by toRequests. Secrets are watched as
// metadata only, and changes outside the Secrets' namespace are dropped.
func (r *base) watchIdentities(b *builder.Builder, c client.Reader, toRequests func(context.Context, []identity.Referencer) []ctrl.Request) (*builder.Builder, error) {
	if r.identity == nil {
		return b, nil
	}
	ic := r.newInfraCluster()
	gvk, err := apiutil.GVKForObject(ic, r.client.Scheme())
	if err != nil {
		return nil, fmt.Errorf("cannot find the kind of %T: %w", ic, err)
	}
	users := func(ctx context.Context, name, secret string) []ctrl.Request {
		return toRequests(ctx, r.clustersUsing(ctx, c, gvk, name, secret))
	}
	return b.
		Watches(r.identity.NewIdentity(), handler.EnqueueRequestsFromMapFunc(func(ctx context.Context, o client.Object) []ctrl.Request {
			return users(ctx, o.GetName(), "")
		})).
		Watches(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(func(ctx context.Context, o client.Object) []ctrl.Request {
			return users(ctx, "", o.GetName())
		}), builder.OnlyMetadata, builder.WithPredicates(predicate.NewPredicateFuncs(func(o client.Object) bool {
			return o.GetNamespace() == r.identity.SecretNamespace()
		}))), nil
}

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

// clustersUsing lists the InfraClusters of kind gvk whose identity is named name, or (name empty) whose
// identity's credentials Secret is secret.
func (r *base) clustersUsing(ctx context.Context, c client.Reader, gvk schema.GroupVersionKind, name, secret string) []identity.Referencer {
	log := logFrom(ctx)
	obj, err := r.client.Scheme().New(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
	list, ok := obj.(client.ObjectList)
	if err != nil || !ok {
		log.Error(err, "cannot list InfraClusters for an identity change", "kind", gvk.Kind)
		return nil
	}
	if err := c.List(ctx, list); err != nil {
		log.Error(err, "cannot list InfraClusters for an identity change", "kind", gvk.Kind)
		return nil
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return nil
	}
	secrets := map[string]string{}
	var out []identity.Referencer
	for _, item := range items {
		ic, ok := item.(identity.Referencer)
		if !ok {
			continue
		}
		ref := ic.GetIdentityRef()
		if ref == nil || ref.Kind != r.identity.Kind() {
			continue
		}
		match := ref.Name == name
		if name == "" {
			s, seen := secrets[ref.Name]
			if !seen {
				if s, err = r.identity.SecretNameOf(ctx, ref.Name); err != nil {
					log.Error(err, "cannot read identity", "identity", ref.Name)
				}
				secrets[ref.Name] = s
			}
			match = s != "" && s == secret
		}
		if match {
			out = append(out, ic)
		}
	}
	return out
}

// StepsStartedAnnotation is set on an infra object, with WithIdentity, in the patch that persists its finalizer
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

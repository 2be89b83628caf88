package reconcile

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/identity"
	"github.com/capkit/capkit/ratelimit"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/redact"
	"github.com/capkit/capkit/scope"
)

// Option configures NewClusterReconcilerFor, NewMachineReconcilerFor and NewMachinePoolReconcilerFor.
type Option func(*config)

type config struct {
	finalizer       string
	recorder        step.EventRecorder
	pollInterval    time.Duration
	scopeOpts       []scope.Option
	watchFilter     string
	coreVersion     contract.Version
	resync          time.Duration
	identity        identity.Binder
	newInfraCluster func() identity.Referencer
	// identityBuild builds identity on the reconciler's client (WithIdentities); identityErr is an invalid
	// argument of WithIdentityFor or WithIdentities, returned by the constructor.
	identityBuild func(client.Reader) (identity.Binder, error)
	identityErr   error
	limiters      *ratelimit.Limiters
	concurrency   int
}

// WithMaxConcurrentReconciles lets SetupWithManager run up to n reconciles of the reconciler's kind at once
// (controller-runtime's MaxConcurrentReconciles; default 1). Reconciles of one object never overlap; more
// workers let a fleet of objects waiting on slow cloud calls move in parallel. n must be positive.
func WithMaxConcurrentReconciles(n int) Option { return func(c *config) { c.concurrency = n } }

// WithRateLimiter makes every cloud call that ensure.Exists and ensure.Deleted make in this reconciler's steps wait
// on l first (one token bucket per cloud account: the identity's name with WithIdentities, else one for all).
// Share one Limiters between the reconcilers of a manager, so that they share the cloud's limit.
func WithRateLimiter(l *ratelimit.Limiters) Option { return func(c *config) { c.limiters = l } }

// WithFinalizer sets the finalizer the reconciler adds; the default is "<group>/<lower-case kind>", e.g.
// "infrastructure.cluster.x-k8s.io/memcluster" (the API server warns about finalizers without a path).
func WithFinalizer(name string) Option { return func(c *config) { c.finalizer = name } }

// WithEventRecorder emits events for state changes, and those of step.Eventf, through rec, e.g.
// mgr.GetEventRecorder("memcloud"). Without it SetupWithManager uses the manager's recorder named after the
// controller (the lower-case kind); a reconciler used without a manager logs its events instead.
func WithEventRecorder(rec step.EventRecorder) Option { return func(c *config) { c.recorder = rec } }

// WithPollInterval sets the poll interval of the reconciler's steps (default step.DefaultPollInterval): how long
// it waits before it looks again at a step that is not done, and how often ensure looks at a pending resource
// (step.Env.PollInterval). The manager's --poll-interval flag sets it. d must be positive.
func WithPollInterval(d time.Duration) Option { return func(c *config) { c.pollInterval = d } }

// WithScopeOptions passes options to every scope the reconciler creates, e.g. scope.WithContractVersion.
func WithScopeOptions(opts ...scope.Option) Option {
	return func(c *config) { c.scopeOpts = append(c.scopeOpts, opts...) }
}

// WithWatchFilter makes SetupWithManager reconcile only objects whose cluster.x-k8s.io/watch-filter label
// has value (the --watch-filter flag of Cluster API controllers); empty means all.
func WithWatchFilter(value string) Option { return func(c *config) { c.watchFilter = value } }

// WithResyncPeriod makes a reconcile whose steps are all done come back after d (with up to 10% jitter), so
// that the services look at their cloud resources again: a resource deleted or changed behind the provider's
// back is found within d, not at the manager's cache resync (10 hours by default). Each period costs what a
// steady-state reconcile costs: one cloud read per resource. Zero (the default) turns it off, for providers
// whose cloud is watched.
func WithResyncPeriod(d time.Duration) Option { return func(c *config) { c.resync = d } }

// WithCoreVersion sets the API version of the core Cluster and Machine objects SetupWithManager watches
// (default contract.V1Beta2). Reconcile reads them at the version of the owner reference.
func WithCoreVersion(v contract.Version) Option { return func(c *config) { c.coreVersion = v } }

// base is what the cluster and machine reconcilers share.
type base struct {
	// version is the contract version of the first scope built, reused for every later scope so that
	// contract discovery (a CRD read) happens once per process, not once per reconcile.
	version atomic.Value
	client  client.Client
	kind    schema.GroupVersionKind
	config
	throttle throttles
	// identitySecrets is the cache of the identities' Secret namespace that watchIdentities made, through which
	// the binder reads Secret metadata (identity.ContextWithSecretMetadataReader); nil without a manager.
	identitySecrets client.Reader
}

func newBase(c client.Client, prototype client.Object, role string, opts []Option) (*base, error) {
	if c == nil {
		return nil, fmt.Errorf("cannot create %s reconciler: client is nil", role)
	}
	gvk, err := gvkOf(c, prototype)
	if err != nil {
		return nil, fmt.Errorf("cannot create %s reconciler: %w", role, err)
	}
	cfg := config{pollInterval: step.DefaultPollInterval, coreVersion: contract.V1Beta2, concurrency: 1}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	if cfg.finalizer == "" {
		cfg.finalizer = gvk.Group + "/" + lower(gvk.Kind)
	}
	if cfg.identityErr != nil {
		return nil, fmt.Errorf("cannot create %s reconciler: %w", role, cfg.identityErr)
	}
	if cfg.identityBuild != nil {
		if cfg.identity, err = cfg.identityBuild(c); err != nil {
			return nil, fmt.Errorf("cannot create %s reconciler: WithIdentities: %w", role, err)
		}
	}
	if cfg.identity != nil && cfg.newInfraCluster == nil {
		return nil, fmt.Errorf("cannot create %s reconciler: WithIdentity needs newInfraCluster", role)
	}
	if !cfg.coreVersion.Valid() {
		return nil, fmt.Errorf("cannot create %s reconciler: core version %q: %w", role, cfg.coreVersion, contract.ErrUnknownVersion)
	}
	if cfg.pollInterval <= 0 {
		return nil, fmt.Errorf("cannot create %s reconciler: poll interval %s must be positive", role, cfg.pollInterval)
	}
	if cfg.concurrency < 1 {
		return nil, fmt.Errorf("cannot create %s reconciler: max concurrent reconciles %d must be positive", role, cfg.concurrency)
	}
	cfg.resync = max(cfg.resync, 0)
	return &base{client: c, kind: gvk, config: cfg}, nil
}

// Finalizer returns the finalizer the reconciler adds to infra objects.
func (r *base) Finalizer() string { return r.finalizer }

// conditionsObject is the part of a scope the step runner needs.
type conditionsObject interface {
	Conditions() conditions.Setter
	Object() client.Object
}

// lifecycle is what the reconciler does with the concrete scope it owns, and services never see.
type lifecycle interface {
	conditionsObject
	scope.Patcher
	scope.SpecPatcher
	Paused() bool
	Provisioned() bool
	ResourceIDs() map[string]string
	SetSummaryConditions(types ...string)
	Close(ctx context.Context) error
}

// stepRunner is a Step bound to its scope.
type stepRunner struct {
	name, conditionType string
	gated               bool
	reconcile, delete   func(ctx context.Context) (step.Result, error)
}

func bindSteps[S any](steps []Step[S], s S) []stepRunner {
	out := make([]stepRunner, len(steps))
	for i, st := range steps {
		out[i] = stepRunner{
			name: st.Name, conditionType: st.ConditionType(), gated: st.GenerationGated,
			reconcile: func(ctx context.Context) (step.Result, error) { return st.Service.Reconcile(ctx, s) },
			delete:    func(ctx context.Context) (step.Result, error) { return st.Service.Delete(ctx, s) },
		}
	}
	return out
}

// run is the common reconcile flow once the infra object and its owners are known: paused, finalizer,
// gate, identity (src, with WithIdentities or WithIdentityFor), steps (or delete steps), Close.
func (r *base) run(ctx context.Context, s lifecycle, steps []stepRunner, gate func() string, src identitySource) (ctrl.Result, error) {
	log := logFrom(ctx)
	obj := s.Object()
	ctx = step.ContextWithEnv(ctx, r.env(obj))
	types := make([]string, len(steps))
	for i, st := range steps {
		types[i] = st.conditionType
	}
	if r.identity != nil {
		types = append([]string{ConditionIdentityReady}, types...)
	}
	s.SetSummaryConditions(types...)

	if s.Paused() {
		if r.mark(ctx, s, conditions.Paused, "True", conditions.ReasonPaused, "reconciliation is paused") {
			r.event(ctx, "Normal", conditions.ReasonPaused, "Pause", "reconciliation is paused")
		}
		log.Info("reconciliation is paused")
		return ctrl.Result{}, s.PatchNow(ctx)
	}

	if !obj.GetDeletionTimestamp().IsZero() {
		if !controllerutil.ContainsFinalizer(obj, r.finalizer) {
			return ctrl.Result{}, nil
		}
		if _, moved := obj.GetAnnotations()[contract.DeleteForMoveAnnotation]; moved {
			// clusterctl move copied the object to another management cluster and deletes it here: the cloud
			// resources now belong to the copy. clusterctl removes the finalizer itself.
			log.Info("deleted by clusterctl move, keeping the cloud resources")
			return ctrl.Result{}, nil
		}
		r.mark(ctx, s, conditions.Paused, "False", conditions.ReasonNotPaused, "")
		r.mark(ctx, s, conditions.Deleting, "True", conditions.ReasonDeleting, "")
		wasBound := conditions.IsTrue(s.Conditions(), ConditionIdentityReady)
		ctx, out, ok := r.bindIdentity(ctx, s, src)
		if !ok && out.err == nil && !wasBound && neverRan(s, steps) {
			// Refused from the start: no step ever ran, so nothing is in the cloud.
			controllerutil.RemoveFinalizer(obj, r.finalizer)
			log.Info("identity refused and no step ever ran: nothing to delete in the cloud, finalizer removed")
			return r.finish(ctx, s, outcome{})
		}
		if !ok {
			return r.finish(ctx, s, out)
		}
		out = r.deleteSteps(ctx, s, steps)
		if out.done {
			controllerutil.RemoveFinalizer(obj, r.finalizer)
			r.event(ctx, "Normal", "Deleted", "Delete", "cloud resources deleted")
			log.Info("cloud resources deleted, finalizer removed")
		}
		return r.finish(ctx, s, out)
	}

	// The identity is resolved first (no cloud call), so that the one patch that persists the finalizer and
	// the ownership key before any cloud call also records, once the identity is bound, that steps may run:
	// StepsStartedAnnotation, which a delete with a refused identity needs to see.
	ctx, out, bound := r.bindIdentity(ctx, s, src)
	controllerutil.AddFinalizer(obj, r.finalizer)
	if bound && r.identity != nil {
		setAnnotation(obj, StepsStartedAnnotation, "true")
	}
	if err := s.PatchSpecNow(ctx); err != nil {
		return ctrl.Result{}, fmt.Errorf("cannot add finalizer %q: %w", r.finalizer, err)
	}
	if r.mark(ctx, s, conditions.Paused, "False", conditions.ReasonNotPaused, "") && conditions.Has(s.Conditions(), conditions.Ready) {
		r.event(ctx, "Normal", "Resumed", "Resume", "reconciliation resumed")
	}
	if !bound {
		return r.finish(ctx, s, out)
	}
	if gate != nil {
		if reason := gate(); reason != "" && len(steps) > 0 {
			r.mark(ctx, s, steps[0].conditionType, "False", reason, "")
			log.Info("waiting", "reason", reason)
			return r.finish(ctx, s, outcome{})
		}
	}
	return r.finish(ctx, s, r.runSteps(ctx, s, steps))
}

// setAnnotation sets annotation key of obj to value.
func setAnnotation(obj client.Object, key, value string) {
	a := obj.GetAnnotations()
	if a[key] == value {
		return
	}
	if a == nil {
		a = map[string]string{}
	}
	a[key] = value
	obj.SetAnnotations(a)
}

// finish closes the scope and turns the outcome into a controller-runtime result.
func (r *base) finish(ctx context.Context, s lifecycle, out outcome) (ctrl.Result, error) {
	if !out.throttled {
		r.throttle.reset(objectKey(s))
	}
	if err := s.Close(ctx); err != nil {
		return ctrl.Result{}, errors.Join(out.err, err)
	}
	if out.err != nil {
		return ctrl.Result{}, out.err
	}
	if out.requeueAfter == 0 && r.resync > 0 {
		return ctrl.Result{RequeueAfter: r.resync + rand.N(r.resync/10+1)}, nil
	}
	return ctrl.Result{RequeueAfter: out.requeueAfter}, nil
}

// mark sets a condition, its message masked by the reconcile's Redactor, and reports whether its status
// changed (a state change worth an event).
func (r *base) mark(ctx context.Context, obj conditionsObject, t, status, reason, msg string) bool {
	setter := obj.Conditions()
	old := conditions.Get(setter, t)
	msg = redact.FromContext(ctx).String(msg)
	_, _ = conditions.Set(setter, metav1.Condition{Type: t, Status: metav1.ConditionStatus(status), Reason: reason, Message: msg})
	return old == nil || string(old.Status) != status
}

// event records an event about the object being reconciled through the Env of ctx (step.Eventf), masked by the
// reconcile's Redactor.
func (r *base) event(ctx context.Context, eventType, reason, action, note string, args ...any) {
	if len(args) > 0 {
		note = fmt.Sprintf(note, args...)
	}
	step.Record(ctx, eventType, reason, action, note)
}

// ownerCore returns the owner of obj of the given core kind, read as unstructured at the owner reference's
// API version; nil without error when there is no such owner reference yet or the owner does not exist.
func (r *base) ownerCore(ctx context.Context, obj client.Object, kind string) (*unstructured.Unstructured, error) {
	for _, ref := range obj.GetOwnerReferences() {
		gv, err := schema.ParseGroupVersion(ref.APIVersion)
		if err != nil || gv.Group != contract.GroupName || ref.Kind != kind {
			continue
		}
		return r.getCore(ctx, gv.WithKind(kind), obj.GetNamespace(), ref.Name)
	}
	return nil, nil
}

func (r *base) getCore(ctx context.Context, gvk schema.GroupVersionKind, namespace, name string) (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	if err := r.client.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, u); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("cannot get %s %s/%s: %w", gvk.Kind, namespace, name, err)
	}
	return u, nil
}

func logFrom(ctx context.Context) logr.Logger { return ctrl.LoggerFrom(ctx) }

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// scopeOptions returns the scope options, with the contract version once it is known and the reconcile's
// Redactor.
func (r *base) scopeOptions(ctx context.Context) []scope.Option {
	opts := append(slices.Clip(r.scopeOpts), scope.WithRedactor(redact.FromContext(ctx)))
	if v, ok := r.version.Load().(contract.Version); ok {
		opts = append(opts, scope.WithContractVersion(v))
	}
	return opts
}

// rememberVersion keeps the contract version a scope resolved, for scopeOptions.
func (r *base) rememberVersion(v contract.Version) {
	if v.Valid() {
		r.version.Store(v)
	}
}

// newStepsBase validates what every reconciler needs and builds its base.
func newStepsBase[T client.Object, S any](c client.Client, newObject func() T, steps []Step[S], role string, opts []Option) (*base, error) {
	if newObject == nil {
		return nil, fmt.Errorf("cannot create %s reconciler: newObject is nil", role)
	}
	if err := validateSteps(steps); err != nil {
		return nil, err
	}
	b, err := newBase(c, newObject(), role, opts)
	if err != nil {
		return nil, err
	}
	owned := []string{conditions.Ready, conditions.Paused, conditions.Deleting, ConditionIdentityReady}
	for _, st := range steps {
		owned = append(owned, st.ConditionType())
	}
	b.scopeOpts = append(b.scopeOpts, scope.WithOwnedConditions(owned...))
	return b, nil
}

// redacted runs one reconcile of req with its own Redactor: in ctx (redact.NewContext) for the scope and the
// identity binder to register their secrets with, around the logger (with the request as a value), and over
// the returned error.
func (r *base) redacted(ctx context.Context, req ctrl.Request, reconcile func(context.Context, ctrl.Request) (ctrl.Result, error)) (ctrl.Result, error) {
	red := redact.New()
	ctx = redact.NewContext(ctx, red)
	ctx = ctrl.LoggerInto(ctx, red.Logger(logFrom(ctx)).WithValues(r.kind.Kind, req.String()))
	res, err := reconcile(ctx, req)
	return res, red.Error(err)
}

// fetch reads the object of the request; found is false, without error, when it no longer exists.
func fetch[T client.Object](ctx context.Context, r *base, newObject func() T, req ctrl.Request) (T, bool, error) {
	obj := newObject()
	if err := r.client.Get(ctx, req.NamespacedName, obj); err != nil {
		if apierrors.IsNotFound(err) {
			return obj, false, nil
		}
		return obj, false, fmt.Errorf("cannot get %s %s: %w", r.kind.Kind, req.NamespacedName, err)
	}
	return obj, true, nil
}

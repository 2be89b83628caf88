package scope

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/patch"
)

// OwnershipKeyLabel is the label that holds an infra object's ownership key. It is written once, in the
// same patch that adds the finalizer, and travels with the object through clusterctl move. ensure.Exists
// tags cloud resources with the same key.
const OwnershipKeyLabel = "capkit.io/ownership-key"

// ErrInvalidInput is wrapped by the errors of the constructors about a missing or inconsistent argument.
var ErrInvalidInput = errors.New("invalid scope input")

// ErrOwnershipKeyNotPersisted is returned by OwnershipKey until the key label has been written to the API
// server, so that no cloud resource is ever tagged with a key that a crash could lose.
var ErrOwnershipKeyNotPersisted = errors.New("ownership key not persisted yet")

// ownershipKeyWriteOnce makes every scope's patch helper treat the ownership key as write-once.
var ownershipKeyWriteOnce = patch.WithWriteOnceLabels(OwnershipKeyLabel)

// objectScope is what ClusterScope and MachineScope share: one infra object, its Cluster and the patcher.
type objectScope[T client.Object] struct {
	obj     T
	cluster ClusterInfo
	version contract.Version
	desc    objectName // "Kind namespace/name", for errors
	opts    options
	fields  fields
	patcher *patch.Helper
	summary []string
	client  client.Client
}

// init builds what every scope shares. The accessors the role requires are there: a typed T satisfies the
// role's constraint (contract.InfraMachineObject, …), an unstructured one is read at contract paths.
func (s *objectScope[T]) init(ctx context.Context, c client.Client, obj T, cluster *unstructured.Unstructured, role string, opts []Option) error {
	o := &s.opts
	setOptions(o, opts)
	if c == nil {
		return fmt.Errorf("cannot create %s scope: client is nil: %w", role, ErrInvalidInput)
	}
	if isNilObject(obj) {
		return fmt.Errorf("cannot create %s scope: %s is nil: %w", role, role, ErrInvalidInput)
	}
	gvk, err := kindOf(obj, c.Scheme())
	if err != nil {
		return fmt.Errorf("cannot create %s scope: cannot find the kind of %T: %w", role, obj, err)
	}
	desc := objectName{kind: gvk.Kind, namespace: obj.GetNamespace(), name: obj.GetName()}
	info, err := clusterInfo(cluster)
	if err != nil {
		return fmt.Errorf("cannot create %s scope for %s: %w", role, desc, err)
	}
	if cluster.GetNamespace() != obj.GetNamespace() {
		return fmt.Errorf("cannot create %s scope for %s: Cluster namespace %q differs from %q: %w",
			role, desc, cluster.GetNamespace(), obj.GetNamespace(), ErrInvalidInput)
	}
	v := o.version
	switch {
	case v != "" && !v.Valid():
		return fmt.Errorf("cannot create %s scope: contract version %q: %w", role, v, contract.ErrUnknownVersion)
	case v == "":
		if v, _, err = contract.DiscoverContractVersion(ctx, c, gvk.GroupKind()); err != nil {
			return fmt.Errorf("cannot create %s scope for %s: %w", role, desc, err)
		}
	}
	_, isUnstructured := any(obj).(*unstructured.Unstructured)
	switch {
	case len(o.resourcesPath) == 0:
		return fmt.Errorf("cannot create %s scope: resources path must not be empty: %w", role, ErrInvalidInput)
	case o.resourcesPathSet && !isUnstructured:
		return fmt.Errorf("cannot create %s scope for %s: WithResourcesPath is for unstructured objects; %T keeps its resource IDs through scope.ResourceIDsAccessor: %w", role, desc, obj, ErrInvalidInput)
	}
	f, err := resolveFields(obj, v, o.resourcesPath)
	if err != nil {
		return fmt.Errorf("cannot create %s scope for %s: %w", role, desc, err)
	}
	popts := []patch.Option{ownershipKeyWriteOnce, patch.WithKind(gvk.Kind)}
	if o.retries != patch.DefaultConflictRetries {
		popts = append(popts, patch.WithConflictRetries(o.retries))
	}
	if f.u != nil {
		popts = append(popts, patch.WithConditionsPath(contract.InfraMachine(v).Conditions().Path()...))
	}
	popts = append(popts, o.patchOpts...)
	// The snapshot is taken before the ownership key is generated, so the key is part of the next patch.
	p, err := patch.NewHelper(c, obj, popts...)
	if err != nil {
		return fmt.Errorf("cannot create %s scope: %w", role, err)
	}
	s.obj, s.cluster, s.version, s.desc, s.fields, s.patcher, s.client = obj, info, v, desc, f, p, c
	if err := s.ensureOwnershipKey(); err != nil {
		return fmt.Errorf("cannot create %s scope for %s: %w", role, desc, err)
	}
	return nil
}

// clusterInfo decodes the facts of a core Cluster.
func clusterInfo(u *unstructured.Unstructured) (ClusterInfo, error) {
	cv, err := coreObjectVersion(u, "Cluster", "cluster")
	if err != nil {
		return ClusterInfo{}, err
	}
	f := contract.Cluster(cv)
	info := ClusterInfo{Name: u.GetName(), Object: u}
	err = errors.Join(
		read(u, f.Paused(), &info.Paused),
		read(u, f.ControlPlaneEndpoint(), &info.ControlPlaneEndpoint),
		read(u, f.InfrastructureProvisioned(), &info.InfrastructureProvisioned),
	)
	if err != nil {
		return ClusterInfo{}, fmt.Errorf("cannot read Cluster %q: %w", u.GetName(), err)
	}
	return info, nil
}

// read decodes field f of u into out; an absent field leaves out as it is.
func read[V any](u *unstructured.Unstructured, f contract.Field[V], out *V) error {
	v, found, err := f.Lookup(u)
	if found {
		*out = v
	}
	return err
}

// coreObjectVersion checks that u is a core Cluster API object of kind and returns its API version.
func coreObjectVersion(u *unstructured.Unstructured, kind, arg string) (contract.Version, error) {
	if u == nil {
		return "", fmt.Errorf("%s is nil: %w", arg, ErrInvalidInput)
	}
	apiVersion, prefix := u.GetAPIVersion(), contract.GroupName+"/"
	if u.GetKind() != kind || !strings.HasPrefix(apiVersion, prefix) {
		return "", fmt.Errorf("%s has apiVersion %q and kind %q, want group %q and kind %q: %w",
			arg, apiVersion, u.GetKind(), contract.GroupName, kind, ErrInvalidInput)
	}
	v, err := contract.APIVersionOf(u)
	if err != nil {
		return "", fmt.Errorf("%s %q: %w", arg, u.GetName(), err)
	}
	return v, nil
}

func isNilObject(obj client.Object) bool {
	if obj == nil {
		return true
	}
	v := reflect.ValueOf(obj)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

func (s *objectScope[T]) ensureOwnershipKey() error {
	if s.obj.GetLabels()[OwnershipKeyLabel] != "" {
		return nil
	}
	key, err := s.opts.keyGen()
	if err != nil {
		return fmt.Errorf("cannot generate an ownership key: %w", err)
	}
	if errs := validation.IsValidLabelValue(key); key == "" || len(errs) > 0 {
		return fmt.Errorf("cannot use generated ownership key %q: not a valid label value: %w", key, ErrInvalidInput)
	}
	labels := s.obj.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels[OwnershipKeyLabel] = key
	s.obj.SetLabels(labels)
	return nil
}

// Name returns the infra object's name.
func (s *objectScope[T]) Name() string { return s.obj.GetName() }

// Namespace returns the infra object's namespace, which is also the Cluster's.
func (s *objectScope[T]) Namespace() string { return s.obj.GetNamespace() }

// ClusterName returns the name of the owning Cluster.
func (s *objectScope[T]) ClusterName() string { return s.cluster.Name }

// Cluster returns the owning Cluster's facts.
func (s *objectScope[T]) Cluster() ClusterInfo { return s.cluster }

// ContractVersion returns the contract version of the infra object's CRD.
func (s *objectScope[T]) ContractVersion() contract.Version { return s.version }

// Kind returns the infra object's kind, as used in error messages.
func (s *objectScope[T]) Kind() string { return s.desc.kind }

// Logger returns the logger given with WithLogger, with the object's and cluster's names as values; with
// WithRedactor it masks what the Redactor knows.
func (s *objectScope[T]) Logger() logr.Logger {
	return s.opts.redactor.Logger(s.opts.logger).WithValues(s.desc.kind, client.ObjectKeyFromObject(s.obj).String(), "cluster", s.cluster.Name)
}

// Paused reports whether reconciliation is paused: the Cluster's spec.paused is true or the infra object
// has the cluster.x-k8s.io/paused annotation.
func (s *objectScope[T]) Paused() bool {
	_, annotated := s.obj.GetAnnotations()[contract.PausedAnnotation]
	return annotated || s.cluster.Paused
}

// OwnershipKey returns the move-safe identity of the infra object, for cloud tags and idempotency tokens. It
// returns ErrOwnershipKeyNotPersisted until the label that holds it has been written by PatchNow or Close.
func (s *objectScope[T]) OwnershipKey() (string, error) {
	key := s.obj.GetLabels()[OwnershipKeyLabel]
	if key == "" || s.patcher.PersistedLabel(OwnershipKeyLabel) != key {
		return "", fmt.Errorf("cannot use the ownership key of %s: %w", s.desc, ErrOwnershipKeyNotPersisted)
	}
	return key, nil
}

// Conditions returns the infra object's conditions for the helpers of package conditions: the object itself
// when it implements conditions.Setter, the contract path of its version when it is unstructured.
func (s *objectScope[T]) Conditions() conditions.Setter { return s.fields.conds }

// SetSummaryConditions sets the condition types Close summarizes into Ready, in order (usually one per step).
// Without it Close summarizes every condition present except Ready and Paused.
func (s *objectScope[T]) SetSummaryConditions(types ...string) { s.summary = slices.Clone(types) }

// HasChanges reports whether the object differs from what was last read from or written to the API server.
func (s *objectScope[T]) HasChanges() (bool, error) { return s.patcher.HasChanges(s.obj) }

// PatchNow persists every change made to the infra object so far: a merge patch of metadata and spec, then
// one of status (package patch). It sends nothing when nothing changed. Call it right after a cloud create,
// so that the new ID survives a crash. Condition messages are masked first (WithRedactor).
func (s *objectScope[T]) PatchNow(ctx context.Context) error {
	if err := s.writeError(); err != nil {
		return err
	}
	s.redactConditions()
	return s.patcher.Patch(ctx, s.obj)
}

// redactConditions masks the secrets of the scope's Redactor (WithRedactor) in every condition message.
func (s *objectScope[T]) redactConditions() {
	r := s.opts.redactor
	if r.Empty() || s.Conditions() == nil {
		return
	}
	conds := s.Conditions().GetConditions()
	changed := false
	for i := range conds {
		if m := r.String(conds[i].Message); m != conds[i].Message {
			conds[i].Message, changed = m, true
		}
	}
	if changed {
		s.Conditions().SetConditions(conds)
	}
}

// PatchSpecNow persists the changes made to the infra object's metadata and spec so far, in one merge patch,
// and keeps the status changes for the next PatchNow or Close. It is the one-write checkpoint for an ID kept
// in spec, such as spec.providerID (see ProviderIDTracker).
func (s *objectScope[T]) PatchSpecNow(ctx context.Context) error {
	if err := s.writeError(); err != nil {
		return err
	}
	return s.patcher.PatchSpec(ctx, s.obj)
}

// writeError returns the error a write to an unstructured object met, so that nothing half-written is sent.
func (s *objectScope[T]) writeError() error {
	if s.fields.u != nil && s.fields.u.Err() != nil {
		return fmt.Errorf("cannot patch %s: a contract field could not be written: %w", s.desc, s.fields.u.Err())
	}
	return nil
}

// Close sets the summary Ready condition (see SetSummaryConditions) and persists every change, as PatchNow.
func (s *objectScope[T]) Close(ctx context.Context) error {
	if err := s.setSummary(); err != nil {
		return err
	}
	return s.PatchNow(ctx)
}

func (s *objectScope[T]) setSummary() error {
	setter := s.Conditions()
	types := s.summary
	if len(types) == 0 {
		for _, c := range setter.GetConditions() {
			if c.Type != conditions.Ready && c.Type != conditions.Paused {
				types = append(types, c.Type)
			}
		}
	}
	if len(types) == 0 {
		return nil
	}
	if _, err := conditions.SetSummary(setter, types, conditions.WithNegativePolarity(conditions.Deleting, conditions.Paused)); err != nil {
		return fmt.Errorf("cannot summarize the conditions of %s: %w", s.desc, err)
	}
	return nil
}

// Provisioned reports whether the infra object says its infrastructure is provisioned.
func (s *objectScope[T]) Provisioned() bool { return s.fields.provisioned.IsProvisioned() }

// SetProvisioned sets the provisioned flag.
func (s *objectScope[T]) SetProvisioned(provisioned bool) error {
	s.fields.provisioned.SetProvisioned(provisioned)
	return s.writeError()
}

// objectName names an object in errors as "Kind namespace/name"; it is formatted only when an error is.
type objectName struct{ kind, namespace, name string }

func (n objectName) String() string { return n.kind + " " + n.namespace + "/" + n.name }

// kinds caches the kind of every typed object a scope was built for, by scheme and Go type: the lookup in
// the scheme costs more than the rest of a no-op scope's set-up, and the answer never changes.
var kinds sync.Map

type kindKey struct {
	scheme *runtime.Scheme
	typ    reflect.Type
}

// kindOf returns obj's group, version and kind from scheme.
func kindOf(obj client.Object, scheme *runtime.Scheme) (schema.GroupVersionKind, error) {
	if _, isUnstructured := obj.(runtime.Unstructured); isUnstructured || scheme == nil {
		return apiutil.GVKForObject(obj, scheme)
	}
	key := kindKey{scheme: scheme, typ: reflect.TypeOf(obj)}
	if last := lastKind.Load(); last != nil && last.key == key {
		return last.gvk, nil // a reconciler builds scopes of one type
	}
	if gvk, ok := kinds.Load(key); ok {
		lastKind.Store(&kindEntry{key: key, gvk: gvk.(schema.GroupVersionKind)})
		return gvk.(schema.GroupVersionKind), nil
	}
	gvk, err := apiutil.GVKForObject(obj, scheme)
	if err == nil {
		kinds.Store(key, gvk)
		lastKind.Store(&kindEntry{key: key, gvk: gvk})
	}
	return gvk, err
}

// lastKind is the kind looked up last, checked before the map.
var lastKind atomic.Pointer[kindEntry]

type kindEntry struct {
	key kindKey
	gvk schema.GroupVersionKind
}

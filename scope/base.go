package scope

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/contract"
)

// OwnershipKeyLabel is the label that holds an infra object's ownership key. It is written once, in the
// same patch that adds the finalizer, and travels with the object through clusterctl move.
const OwnershipKeyLabel = "capkit.io/ownership-key"

// ErrInvalidInput is wrapped by the errors of the constructors about a missing or inconsistent argument.
var ErrInvalidInput = errors.New("invalid scope input")

// ErrOwnershipKeyNotPersisted is returned by OwnershipKey until the key label has been written to the API
// server, so that no cloud resource is ever tagged with a key that a crash could lose.
var ErrOwnershipKeyNotPersisted = errors.New("ownership key not persisted yet")

// objectScope is what ClusterScope and MachineScope share: one infra object, its Cluster and the patcher.
type objectScope[T client.Object] struct {
	client      client.Client
	obj         T
	cluster     *unstructured.Unstructured
	coreVersion contract.Version
	version     contract.Version
	kind        string
	opts        options
	patcher     *patcher
	summary     []string
}

func newObjectScope[T client.Object](ctx context.Context, c client.Client, obj T, cluster *unstructured.Unstructured, role string, extraPaths func(contract.Version) []contract.Path, opts []Option) (*objectScope[T], error) {
	o := newOptions(opts)
	if c == nil {
		return nil, fmt.Errorf("cannot create %s scope: client is nil: %w", role, ErrInvalidInput)
	}
	if isNilObject(obj) {
		return nil, fmt.Errorf("cannot create %s scope: %s is nil: %w", role, role, ErrInvalidInput)
	}
	gvk, err := apiutil.GVKForObject(obj, c.Scheme())
	if err != nil {
		return nil, fmt.Errorf("cannot create %s scope: cannot find the kind of %T: %w", role, obj, err)
	}
	coreVersion, err := coreObjectVersion(cluster, "Cluster", "cluster")
	if err != nil {
		return nil, fmt.Errorf("cannot create %s scope for %s %q: %w", role, gvk.Kind, obj.GetName(), err)
	}
	if cluster.GetNamespace() != obj.GetNamespace() {
		return nil, fmt.Errorf("cannot create %s scope for %s %q: Cluster namespace %q differs from %q: %w",
			role, gvk.Kind, obj.GetName(), cluster.GetNamespace(), obj.GetNamespace(), ErrInvalidInput)
	}
	v := o.version
	switch {
	case v != "" && !v.Valid():
		return nil, fmt.Errorf("cannot create %s scope: contract version %q: %w", role, v, contract.ErrUnknownVersion)
	case v == "":
		v, _, err = contract.DiscoverContractVersion(ctx, c, gvk.GroupKind())
		if err != nil {
			return nil, fmt.Errorf("cannot create %s scope for %s %q: %w", role, gvk.Kind, obj.GetName(), err)
		}
	}
	if len(o.resourcesPath) == 0 {
		return nil, fmt.Errorf("cannot create %s scope: resources path must not be empty: %w", role, ErrInvalidInput)
	}
	required := append([]contract.Path{conditionsPath(v)}, extraPaths(v)...)
	for _, p := range required {
		if _, isSetter := any(obj).(conditions.Setter); isSetter && slices.Equal(p, conditionsPath(v)) {
			continue
		}
		if err := checkPath(obj, p, v); err != nil {
			return nil, fmt.Errorf("cannot create %s scope: %w", role, err)
		}
	}
	s := &objectScope[T]{client: c, obj: obj, cluster: cluster, coreVersion: coreVersion, version: v, kind: gvk.Kind, opts: o}
	// The patcher's snapshot is taken before the ownership key is generated, so the key is part of the next patch.
	if s.patcher, err = newPatcher(c, obj, gvk.Kind, conditionsPath(v), o.retries, OwnershipKeyLabel); err != nil {
		return nil, err
	}
	if err := s.ensureOwnershipKey(); err != nil {
		return nil, fmt.Errorf("cannot create %s scope for %s %q: %w", role, gvk.Kind, obj.GetName(), err)
	}
	return s, nil
}

func conditionsPath(v contract.Version) contract.Path {
	return contract.InfraCluster(v).Conditions().Path()
}

// coreObjectVersion checks that u is a core Cluster API object of kind and returns its API version.
func coreObjectVersion(u *unstructured.Unstructured, kind, arg string) (contract.Version, error) {
	if u == nil {
		return "", fmt.Errorf("%s is nil: %w", arg, ErrInvalidInput)
	}
	gvk := u.GroupVersionKind()
	if gvk.Group != contract.GroupName || gvk.Kind != kind {
		return "", fmt.Errorf("%s has apiVersion %q and kind %q, want group %q and kind %q: %w",
			arg, u.GetAPIVersion(), u.GetKind(), contract.GroupName, kind, ErrInvalidInput)
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
func (s *objectScope[T]) ClusterName() string { return s.cluster.GetName() }

// Cluster returns the owning core Cluster object; treat it as read-only.
func (s *objectScope[T]) Cluster() *unstructured.Unstructured { return s.cluster }

// ContractVersion returns the contract version whose field paths the scope uses.
func (s *objectScope[T]) ContractVersion() contract.Version { return s.version }

// Kind returns the infra object's kind, as used in error messages.
func (s *objectScope[T]) Kind() string { return s.kind }

// Logger returns the logger given with WithLogger, with the object's and cluster's names as values.
func (s *objectScope[T]) Logger() logr.Logger {
	return s.opts.logger.WithValues(s.kind, client.ObjectKeyFromObject(s.obj).String(), "cluster", s.ClusterName())
}

// Paused reports whether reconciliation is paused: the Cluster's spec.paused is true or the infra object
// has the cluster.x-k8s.io/paused annotation.
func (s *objectScope[T]) Paused() bool {
	if _, ok := s.obj.GetAnnotations()[contract.PausedAnnotation]; ok {
		return true
	}
	paused, _ := contract.Cluster(s.coreVersion).Paused().Get(s.cluster)
	return paused
}

// ClusterControlPlaneEndpoint returns the Cluster's spec.controlPlaneEndpoint, zero when unset.
func (s *objectScope[T]) ClusterControlPlaneEndpoint() contract.APIEndpoint {
	ep, _ := contract.Cluster(s.coreVersion).ControlPlaneEndpoint().Get(s.cluster)
	return ep
}

// ClusterInfrastructureProvisioned reports whether the Cluster says its infrastructure is provisioned.
func (s *objectScope[T]) ClusterInfrastructureProvisioned() bool {
	ok, _ := contract.Cluster(s.coreVersion).InfrastructureProvisioned().Get(s.cluster)
	return ok
}

// OwnershipKey returns the move-safe identity of the infra object, for cloud tags and idempotency tokens. It
// returns ErrOwnershipKeyNotPersisted until the label that holds it has been written by PatchNow or Close.
func (s *objectScope[T]) OwnershipKey() (string, error) {
	key := s.obj.GetLabels()[OwnershipKeyLabel]
	if key == "" || s.patcher.persistedLabel(OwnershipKeyLabel) != key {
		return "", fmt.Errorf("cannot use the ownership key of %s: %w", s.patcher.desc, ErrOwnershipKeyNotPersisted)
	}
	return key, nil
}

// Conditions returns the infra object's conditions, at the path of the contract version, for the helpers of
// package conditions.
func (s *objectScope[T]) Conditions() conditions.Setter {
	if cs, ok := any(s.obj).(conditions.Setter); ok {
		return cs
	}
	return &conditionAdapter{obj: s.obj, field: contract.InfraCluster(s.version).Conditions(), version: s.version}
}

// SetSummaryConditions sets the condition types Close summarizes into Ready, in order (usually one per step).
// Without it Close summarizes every condition present except Ready and Paused.
func (s *objectScope[T]) SetSummaryConditions(types ...string) { s.summary = slices.Clone(types) }

// HasChanges reports whether the object differs from what was last read from or written to the API server.
func (s *objectScope[T]) HasChanges() (bool, error) { return s.patcher.hasChanges(s.obj) }

// PatchNow persists every change made to the infra object so far: a merge patch of metadata and spec, then
// one of status. It sends nothing when nothing changed. Call it right after a cloud create, so that the new
// ID survives a crash.
func (s *objectScope[T]) PatchNow(ctx context.Context) error {
	_, err := s.patcher.patch(ctx, s.obj)
	return err
}

// PatchSpecNow persists the changes made to the infra object's metadata and spec so far, in one merge patch,
// and keeps the status changes for the next PatchNow or Close. It sends nothing when metadata and spec did
// not change. It is the one-write checkpoint for an ID kept in spec, such as spec.providerID (see
// ProviderIDTracker).
func (s *objectScope[T]) PatchSpecNow(ctx context.Context) error {
	_, err := s.patcher.patchSpec(ctx, s.obj)
	return err
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
		return fmt.Errorf("cannot summarize the conditions of %s: %w", s.patcher.desc, err)
	}
	return nil
}

// conditionAdapter reads and writes conditions at a contract path of a provider type that does not
// implement conditions.Setter itself.
type conditionAdapter struct {
	obj     client.Object
	field   contract.Field[[]metav1.Condition]
	version contract.Version
}

func (a *conditionAdapter) GetConditions() []metav1.Condition {
	c, _, _ := getField(a.obj, a.field)
	return c
}

// SetConditions writes c; the constructors checked that the type has the path, so it cannot fail on a
// missing field.
func (a *conditionAdapter) SetConditions(c []metav1.Condition) {
	_ = setField(a.obj, a.field, a.version, c)
}

func (a *conditionAdapter) GetGeneration() int64 { return a.obj.GetGeneration() }

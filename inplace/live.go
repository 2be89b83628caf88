package inplace

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/contract"
)

// Cluster API's marks of a Machine it is updating in place (Cluster API v1.14): the Machine, its InfraMachine
// and its bootstrap config carry UpdateInProgressAnnotation, and the Machine's PendingHooksAnnotation lists
// UpdateMachine, until the hook answers done.
const (
	// UpdateInProgressAnnotation is on a Machine and its InfraMachine while Cluster API updates them in place.
	UpdateInProgressAnnotation = "in-place-updates.internal.cluster.x-k8s.io/update-in-progress"
	// PendingHooksAnnotation lists, comma-separated, the Runtime SDK hooks Cluster API has yet to call for an
	// object.
	PendingHooksAnnotation = "runtime.cluster.x-k8s.io/pending-hooks"
)

// machineGVK is the core Machine as Cluster API v1.14 serves it.
var machineGVK = schema.GroupVersionKind{Group: contract.GroupName, Version: "v1beta2", Kind: "Machine"}

// refusedMessage answers every UpdateMachine request that does not match what the API server holds. It names
// nothing: whether the objects exist, and which check failed, is logged by the extension, not told the caller.
const refusedMessage = "refused: the request does not name a Machine that Cluster API is updating in place with this extension"

// errRefused is a request the live objects do not confirm; reason says why, for the extension's log only.
type errRefused struct{ reason string }

func (e *errRefused) Error() string { return e.reason }

func refuse(format string, args ...any) error {
	return &errRefused{reason: fmt.Sprintf(format, args...)}
}

// liveInfraMachine returns the InfraMachine that the API server holds for the request, after checking that the
// request names a Machine Cluster API is updating in place with this extension:
//
//   - the Machine of the request's namespace and name exists, carries UpdateInProgressAnnotation and lists
//     UpdateMachine in PendingHooksAnnotation;
//   - its spec.infrastructureRef names the request's InfraMachine, of the extension's group and kind;
//   - that InfraMachine exists, carries UpdateInProgressAnnotation, is owned by the Machine (its UID), and its
//     cluster-name label is the Machine's spec.clusterName.
//
// Nothing of the request but the two names is used. An *errRefused says the request is not confirmed; another
// error is the API server's.
func (c Config) liveInfraMachine(ctx context.Context, req *UpdateMachineRequest) (*unstructured.Unstructured, error) {
	m, infra := req.Desired.Machine, req.Desired.InfrastructureMachine
	switch {
	case m == nil:
		return nil, refuse("the request has no desired machine")
	case groupKind(m) != machineGVK.GroupKind():
		return nil, refuse("the request's machine is a %q of group %q", m.GetKind(), groupKind(m).Group)
	case m.GetNamespace() == "" || m.GetName() == "" || infra.GetName() == "":
		return nil, refuse("the request's machine or infrastructureMachine has no namespace or name")
	case infra.GetNamespace() != "" && infra.GetNamespace() != m.GetNamespace():
		return nil, refuse("the request's infrastructureMachine is in namespace %q, its machine in %q", infra.GetNamespace(), m.GetNamespace())
	}

	machine := &unstructured.Unstructured{}
	machine.SetGroupVersionKind(machineGVK)
	if err := c.get(ctx, client.ObjectKey{Namespace: m.GetNamespace(), Name: m.GetName()}, machine); err != nil {
		return nil, err
	}
	if err := inPlaceUpdating(machine, true); err != nil {
		return nil, err
	}
	ref, _, _ := unstructured.NestedStringMap(machine.Object, "spec", "infrastructureRef")
	if ref["apiGroup"] != c.InfraMachine.Group || ref["kind"] != c.InfraMachine.Kind || ref["name"] != infra.GetName() {
		return nil, refuse("Machine %s/%s's infrastructureRef names %s %q of group %q, not the request's", machine.GetNamespace(),
			machine.GetName(), ref["kind"], ref["name"], ref["apiGroup"])
	}

	live := &unstructured.Unstructured{}
	live.SetGroupVersionKind(c.InfraMachine.WithVersion(c.InfraMachineVersion))
	if err := c.get(ctx, client.ObjectKey{Namespace: machine.GetNamespace(), Name: ref["name"]}, live); err != nil {
		return nil, err
	}
	if err := inPlaceUpdating(live, false); err != nil {
		return nil, err
	}
	if !slices.ContainsFunc(live.GetOwnerReferences(), func(o metav1.OwnerReference) bool {
		gv, _ := schema.ParseGroupVersion(o.APIVersion)
		return gv.Group == machineGVK.Group && o.Kind == machineGVK.Kind && o.Name == machine.GetName() && o.UID == machine.GetUID()
	}) {
		return nil, refuse("%s %s/%s is not owned by Machine %s/%s", c.InfraMachine.Kind, live.GetNamespace(), live.GetName(),
			machine.GetNamespace(), machine.GetName())
	}
	cluster, _, _ := unstructured.NestedString(machine.Object, "spec", "clusterName")
	if got := live.GetLabels()[contract.ClusterNameLabel]; cluster == "" || got != cluster {
		return nil, refuse("%s %s/%s is labelled for cluster %q, its Machine belongs to %q", c.InfraMachine.Kind, live.GetNamespace(),
			live.GetName(), got, cluster)
	}
	return live, nil
}

// get reads obj; an object that is not there is a refusal, like any other that does not match.
func (c Config) get(ctx context.Context, key client.ObjectKey, obj *unstructured.Unstructured) error {
	err := c.Reader.Get(ctx, key, obj)
	switch {
	case apierrors.IsNotFound(err):
		return refuse("%s %s does not exist", obj.GetKind(), key)
	case err != nil:
		return fmt.Errorf("cannot read %s %s: %w", obj.GetKind(), key, err)
	}
	return nil
}

// inPlaceUpdating checks Cluster API's marks on obj; a Machine must also have UpdateMachine pending.
func inPlaceUpdating(obj *unstructured.Unstructured, machine bool) error {
	a := obj.GetAnnotations()
	if _, ok := a[UpdateInProgressAnnotation]; !ok {
		return refuse("%s %s/%s has no %s annotation", obj.GetKind(), obj.GetNamespace(), obj.GetName(), UpdateInProgressAnnotation)
	}
	if machine && !slices.ContainsFunc(strings.Split(a[PendingHooksAnnotation], ","), func(h string) bool { return strings.TrimSpace(h) == hookUpdateMachine }) {
		return refuse("Machine %s/%s has no pending %s hook", obj.GetNamespace(), obj.GetName(), hookUpdateMachine)
	}
	return nil
}

// isRefused reports whether err is a refusal, and its reason.
func isRefused(err error) (string, bool) {
	if r, ok := errors.AsType[*errRefused](err); ok {
		return r.reason, true
	}
	return "", false
}

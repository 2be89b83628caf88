package inplace

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/capkit/capkit/redact"
)

// shape is where a hook's objects keep what is compared, and the names used in messages.
type shape struct {
	base                    []string // spec.template.spec for templates, spec for a Machine's objects
	owner, infra, bootstrap string   // JSON fields of the request
	infraKind               string
}

// objects are one side (current or desired) of a CanUpdate request.
type objects struct{ owner, infra, bootstrap *unstructured.Unstructured }

// verdict is a CanUpdate answer: a patch of the infrastructure object, a decline, or a failure.
type verdict struct {
	patch   []byte // nil: no patch
	message string
	failure bool
}

var (
	machineSetShape = shape{
		base:  []string{"spec", "template", "spec"},
		owner: "machineSet", infra: "infrastructureMachineTemplate", bootstrap: "bootstrapConfigTemplate",
	}
	machineShape = shape{
		base:  []string{"spec"},
		owner: "machine", infra: "infrastructureMachine", bootstrap: "bootstrapConfig",
	}
)

// CanUpdateMachineSet answers the CanUpdateMachineSet hook: one JSON patch of the InfraMachine template's
// spec.template.spec when every change between the current and desired MachineSet lies under a Mutable
// field of the template, else Success without patches (Cluster API then rolls out new Machines) with a
// message naming the first change not covered. Templates of another kind are declined the same way, since
// Cluster API calls the one extension for every provider's MachineSets. The MachineSet's
// spec.template.spec may differ only in the fields Cluster API does not compare (infrastructureRef,
// bootstrap, taints, …): a new version or failure domain is declined, so are bootstrap template changes.
func (c Config) CanUpdateMachineSet(ctx context.Context, req *CanUpdateMachineSetRequest) *CanUpdateMachineSetResponse {
	s := machineSetShape
	s.infraKind = c.templateKind()
	v := c.canUpdate(s,
		objects{req.Current.MachineSet, req.Current.InfrastructureMachineTemplate, req.Current.BootstrapConfigTemplate},
		objects{req.Desired.MachineSet, req.Desired.InfrastructureMachineTemplate, req.Desired.BootstrapConfigTemplate})
	resp := &CanUpdateMachineSetResponse{Status: ResponseStatusSuccess, Message: v.message}
	resp.APIVersion, resp.Kind = APIVersion, "CanUpdateMachineSetResponse"
	if v.failure {
		resp.Status = ResponseStatusFailure
	}
	if v.patch != nil {
		resp.InfrastructureMachineTemplatePatch = Patch{PatchType: JSONPatchType, Patch: v.patch}
	}
	return resp
}

// CanUpdateMachine answers the CanUpdateMachine hook (called by the KubeadmControlPlane controller) like
// CanUpdateMachineSet, for a Machine, its InfraMachine (patched below spec) and its bootstrap config.
func (c Config) CanUpdateMachine(ctx context.Context, req *CanUpdateMachineRequest) *CanUpdateMachineResponse {
	s := machineShape
	s.infraKind = c.InfraMachine.Kind
	v := c.canUpdate(s,
		objects{req.Current.Machine, req.Current.InfrastructureMachine, req.Current.BootstrapConfig},
		objects{req.Desired.Machine, req.Desired.InfrastructureMachine, req.Desired.BootstrapConfig})
	resp := &CanUpdateMachineResponse{Status: ResponseStatusSuccess, Message: v.message}
	resp.APIVersion, resp.Kind = APIVersion, "CanUpdateMachineResponse"
	if v.failure {
		resp.Status = ResponseStatusFailure
	}
	if v.patch != nil {
		resp.InfrastructureMachinePatch = Patch{PatchType: JSONPatchType, Patch: v.patch}
	}
	return resp
}

func (c Config) canUpdate(s shape, cur, des objects) verdict {
	if cur.infra == nil || des.infra == nil {
		return verdict{message: fmt.Sprintf("the request has no %s in current or desired", s.infra)}
	}
	gk := schema.GroupKind{Group: c.InfraMachine.Group, Kind: s.infraKind}
	for i, u := range []*unstructured.Unstructured{cur.infra, des.infra} {
		if got := groupKind(u); got != gk {
			return verdict{message: fmt.Sprintf("%s %s %q of group %q is not handled by %q, which handles %q of group %q",
				[]string{"current", "desired"}[i], s.infra, got.Kind, got.Group, c.Name, gk.Kind, gk.Group)}
		}
	}

	// The Machine or MachineSet: nothing Cluster API compares may change.
	if cur.owner != nil || des.owner != nil {
		if r := compare(machineSpecForDiff(at(cur.owner, s.base)), machineSpecForDiff(at(des.owner, s.base)), nil); r.refused {
			return c.decline(kindOr(des.owner, s.owner), s.base, r.declined)
		}
	}

	// The bootstrap config or template: nothing may change.
	switch {
	case cur.bootstrap == nil && des.bootstrap != nil:
		return verdict{message: fmt.Sprintf("%s is only in desired", s.bootstrap)}
	case cur.bootstrap != nil && des.bootstrap == nil:
		return verdict{message: fmt.Sprintf("%s is only in current", s.bootstrap)}
	case cur.bootstrap != nil:
		if r := compare(at(cur.bootstrap, s.base), at(des.bootstrap, s.base), nil); r.refused {
			return c.decline(kindOr(des.bootstrap, s.bootstrap), s.base, r.declined)
		}
	}

	// The provider's object: every change must lie under a Mutable field.
	r := compare(at(cur.infra, s.base), at(des.infra, s.base), c.Mutable)
	if r.refused {
		return c.decline(s.infraKind, s.base, r.declined)
	}
	if len(r.changes) == 0 {
		return verdict{}
	}
	patch, err := jsonPatch(s.base, r.changes)
	if err != nil {
		return verdict{failure: true, message: fmt.Sprintf("cannot write the patch of %s: %v", s.infra, err)}
	}
	return verdict{patch: patch}
}

func (c Config) decline(kind string, base, path []string) verdict {
	return verdict{message: fmt.Sprintf("%s %s cannot be updated in place by %q", kind, fieldPath(slices.Concat(base, path)), c.Name)}
}

// UpdateMachine answers the UpdateMachine hook: it reads from the API server (Config.Reader) the Machine the
// request names and its InfraMachine, checks that Cluster API is updating them in place with this extension
// (see the package doc, "Trust"), and calls Update with the InfraMachine the API server holds; the request's
// copies of the objects are never used beyond their names. A request the API server does not confirm is a
// Failure with a message that says only that; the reason is logged. It reports Success with
// retryAfterSeconds 0 when Update is done, Success with retryAfterSeconds > 0 while it is not (at least 1;
// DefaultRetryAfter when Progress.RetryAfter is 0), Failure with the error's message when it failed. An
// InfraMachine of another kind is a Failure: a CanUpdate hook of this extension never accepted it. A panic
// in Update is a Failure too. Update's context carries a Redactor of its own (redact.FromContext), and a
// logger (log.FromContext) that masks what is registered with it: every value registered with it (an
// identity's credentials, bootstrap data) is masked in the message and the logs.
func (c Config) UpdateMachine(ctx context.Context, req *UpdateMachineRequest) (resp *UpdateMachineResponse) {
	resp = &UpdateMachineResponse{Status: ResponseStatusSuccess}
	resp.APIVersion, resp.Kind = APIVersion, "UpdateMachineResponse"
	// The call's own Redactor: credentials an identity binder or a scope registers during Update are masked
	// in whatever message goes back to Cluster API (the Machine's conditions, its logs) and in Update's logs.
	red := redact.New()
	l := red.Logger(log.FromContext(ctx))
	ctx = log.IntoContext(redact.NewContext(ctx, red), l)
	fail := func(format string, args ...any) *UpdateMachineResponse {
		resp.Status, resp.Message, resp.RetryAfterSeconds = ResponseStatusFailure, red.String(fmt.Sprintf(format, args...)), 0
		return resp
	}

	infra := req.Desired.InfrastructureMachine
	if infra == nil {
		return fail("the request has no desired infrastructureMachine")
	}
	gk := c.InfraMachine
	if got := groupKind(infra); got != gk {
		return fail("infrastructureMachine %q of group %q is not handled by %q, which handles %q of group %q",
			got.Kind, got.Group, c.Name, gk.Kind, gk.Group)
	}
	if c.Update == nil || c.Reader == nil {
		return fail("%q has no Update function or no Reader", c.Name)
	}
	live, err := c.liveInfraMachine(ctx, req)
	if reason, ok := isRefused(err); ok {
		l.WithName("inplace").Info("Refused an UpdateMachine request", "reason", reason)
		return fail("%s", refusedMessage)
	}
	if err != nil {
		l.WithName("inplace").Error(err, "Cannot check an UpdateMachine request")
		return fail("cannot read the request's objects from the API server")
	}

	defer func() {
		if r := recover(); r != nil {
			resp = fail("in-place update of %s %q panicked: %v", gk.Kind, live.GetName(), r)
		}
	}()
	p, err := c.Update(ctx, live)
	if err != nil {
		return fail("cannot update %s %q in place: %v", gk.Kind, live.GetName(), err)
	}
	resp.Message = red.String(p.Message)
	if !p.Done {
		resp.RetryAfterSeconds = retryAfterSeconds(p.RetryAfter)
	}
	return resp
}

// retryAfterSeconds rounds d up to whole seconds, at least 1, DefaultRetryAfter for 0.
func retryAfterSeconds(d time.Duration) int32 {
	if d <= 0 {
		d = DefaultRetryAfter
	}
	s := math.Ceil(d.Seconds())
	if s > math.MaxInt32 {
		return math.MaxInt32
	}
	return max(1, int32(s))
}

// groupKind reads the group and kind of u; a malformed apiVersion gives the whole string as group.
func groupKind(u *unstructured.Unstructured) schema.GroupKind {
	gv, err := schema.ParseGroupVersion(u.GetAPIVersion())
	if err != nil {
		return schema.GroupKind{Group: u.GetAPIVersion(), Kind: u.GetKind()}
	}
	return schema.GroupKind{Group: gv.Group, Kind: u.GetKind()}
}

// kindOr is u's kind, or field when u has none.
func kindOr(u *unstructured.Unstructured, field string) string {
	if u != nil {
		if k := u.GetKind(); k != "" {
			return k
		}
	}
	return field
}

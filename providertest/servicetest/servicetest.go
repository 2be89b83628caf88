package servicetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/providertest"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope"
	"github.com/capkit/capkit/scope/scopetest"
)

// Outcome is what a case expects of one call of the service, in the terms of reconcile.Classify: what the
// reconciler will do with the call.
type Outcome struct {
	// Result is the step.Result the service must return, compared in full: step.Result{Done: true}
	// for a step that is done, the Reason, Message and RequeueAfter of one that is not done yet. With
	// MessageContains, its Message is not compared.
	Result step.Result
	// MessageContains, when not empty, must be part of the Result's Message, which is then not compared in
	// full: for a message that names what a case does not fix (a cloud's ID, a time).
	MessageContains string
	// Class is the class reconcile.Classify gives the call (reconcile.ClassThrottled, ClassTerminal,
	// ClassTransient, ...). When zero, the call must return no error: it is then ClassDone or
	// ClassInProgress, as Result says.
	Class reconcile.Class
	// Reason, when not empty, is the condition reason reconcile.Classify gives the call: a terminal
	// error's reason (conditions.ReasonTerminalError for controller-runtime's step.TerminalError),
	// conditions.ReasonThrottled, a refusal's reason, or a not-done Result's reason.
	Reason string
	// RequeueAfter, when not zero, is the requeue delay reconcile.Classify gives the call, e.g. the cloud's
	// hint of a throttled call.
	RequeueAfter time.Duration
	// ErrorIs, when not nil, must be in the error's chain.
	ErrorIs error
	// ErrorContains, when not empty, must be part of the error's message.
	ErrorContains string
	// Unchanged requires that the service changes nothing in the infra object and checkpoints nothing.
	Unchanged bool
}

// Case is one table entry of RunMachineCases or RunClusterCases: a fake scope F in its starting state, the
// dependencies' setup, the expected outcome of one call of the service and the case's own checks. D is
// what newService returns besides the service.
type Case[F, D any] struct {
	// Name names the subtest; it must be unique.
	Name string
	// Scope is the fake scope in its starting state. It is used as it is and changed by the call, so each
	// case needs its own: build it with a helper that returns a new one each time.
	Scope F
	// NewScope builds the fake scope from the dependencies newService returned, for a starting state that
	// names what they hold (IDs in a fake cloud); when set, Scope is not used.
	NewScope func(t *testing.T, deps D) F
	// Setup prepares the dependencies before the call: a fault to inject, mock expectations. Optional.
	Setup func(t *testing.T, s F, deps D)
	// Delete calls the service's Delete instead of Reconcile.
	Delete bool
	// Options are the reconciler's options the call runs under: the harness sets up the environment of the
	// reconcile from them as the reconciler does (reconcile.NewEnv), so WithPollInterval is the poll
	// interval Ensure uses and the requeue of a step that is not done, and WithEventRecorder gets the events.
	Options []reconcile.Option
	// Want is the expected outcome.
	Want Outcome
	// Check makes the case's own assertions after the call, on the fake scope (its Object, Checkpoints,
	// BootstrapReads) and on the dependencies. Optional.
	Check func(t *testing.T, s F, deps D)
}

// MachineCase is a Case of a service of InfraMachines of type T.
type MachineCase[T client.Object, D any] = Case[*scopetest.FakeMachineScope[T], D]

// ClusterCase is a Case of a service of InfraClusters of type T.
type ClusterCase[T client.Object, D any] = Case[*scopetest.FakeClusterScope[T], D]

// RunMachineCases runs each case as a subtest: newService returns the service and its dependencies D (a
// fake cloud, gomock mocks of the cloud SDK; struct{} when there are none), the case's fake scope is built,
// Setup runs, the service's Reconcile (or Delete) is called once, and the outcome is checked:
//
//   - the result, and the class, condition reason and requeue delay reconcile.Classify gives the call (what
//     the reconciler will do with it), and the error's chain and message, as Want says;
//   - the bootstrap data (BootstrapValue) appears in no error, result message or condition message;
//   - when the call succeeded, every resource ID it recorded in the object's resource-ID map
//     (scope.ResourceIDsAccessor) is persisted by a checkpoint (PatchNow): a crash right after the call
//     loses no cloud resource;
//   - when the call succeeded, a provider ID it set (contract.ProviderIDAccessor) is persisted by the last
//     checkpoint of any kind (PatchNow or PatchSpecNow: scope.ProviderIDTracker's pattern), or names a
//     persisted resource ID: one of the resource-ID map as the API server holds it after the call (at the
//     last PatchNow, or before the call when it made none) appears in the provider ID as a whole segment
//     (between its start or end and a '/' or ':'), as in "mycloud://" + id after ensure.Exists. A crash
//     then loses nothing: the next reconcile finds the resource by that ID and sets the provider ID again.
//     A provider ID that is the only record of a cloud resource fails;
//   - with Want.Unchanged, the object is unchanged and nothing was checkpointed;
//   - then the case's Check.
//
// Every failure the harness reports starts with the case's name (quoted) and points at the line that
// calls RunMachineCases.
func RunMachineCases[T client.Object, D any](t *testing.T, newService func(t *testing.T) (reconcile.Service[scope.MachineScoper[T]], D), cases ...MachineCase[T, D]) {
	t.Helper()
	runCases(t, newService, cases, func(s *scopetest.FakeMachineScope[T]) (scope.MachineScoper[T], *scopetest.FakeObject[T], []byte) {
		return s, &s.FakeObject, s.BootstrapValue
	})
}

// RunClusterCases is RunMachineCases for a service of InfraClusters: the same checks but the bootstrap
// data's, which an InfraCluster does not have.
func RunClusterCases[T client.Object, D any](t *testing.T, newService func(t *testing.T) (reconcile.Service[scope.ClusterScoper[T]], D), cases ...ClusterCase[T, D]) {
	t.Helper()
	runCases(t, newService, cases, func(s *scopetest.FakeClusterScope[T]) (scope.ClusterScoper[T], *scopetest.FakeObject[T], []byte) {
		return s, &s.FakeObject, nil
	})
}

// runCases runs the cases of a service over scope S on fakes F: parts returns the fake as the scope the
// service gets, its FakeObject and its bootstrap data (nil when it has none).
func runCases[T client.Object, F comparable, S, D any](t *testing.T, newService func(t *testing.T) (reconcile.Service[S], D), cases []Case[F, D],
	parts func(F) (S, *scopetest.FakeObject[T], []byte)) {
	t.Helper()
	var zero F
	run(t, cases, func(t *testing.T, tc Case[F, D]) {
		t.Helper()
		svc, deps := newService(t)
		if svc == nil {
			t.Fatalf("%q: cannot run the case: newService returned a nil service", tc.Name)
		}
		s := tc.Scope
		if tc.NewScope != nil {
			s = tc.NewScope(t, deps)
		}
		if s == zero {
			t.Fatalf("%q: cannot run the case: Scope and NewScope are both nil", tc.Name)
		}
		scoper, obj, secret := parts(s)
		do := svc.Reconcile
		if tc.Delete {
			do = svc.Delete
		}
		runCase(t, tc, deps, s, obj, secret, func(ctx context.Context) (step.Result, error) { return do(ctx, scoper) })
	})
}

// run runs each case as a subtest, once, refusing duplicate names and fakes shared between cases. f gets
// the case with its Name set (case-N when the case has none).
func run[F comparable, D any](t *testing.T, cases []Case[F, D], f func(t *testing.T, tc Case[F, D])) {
	t.Helper()
	names := map[string]bool{}
	scopes := map[F]string{}
	var zero F
	for i, tc := range cases {
		name := tc.Name
		if name == "" {
			name = fmt.Sprintf("case-%d", i)
		}
		if names[name] {
			t.Errorf("%q: duplicate name (case %d): give each case its own", name, i)
			continue
		}
		names[name] = true
		if tc.NewScope == nil && tc.Scope != zero {
			if other, ok := scopes[tc.Scope]; ok {
				t.Errorf("%q: its fake scope is the one of case %q: give each case its own", name, other)
				continue
			}
			scopes[tc.Scope] = name
		}
		tc.Name = name
		t.Run(name, func(t *testing.T) {
			t.Helper()
			f(t, tc)
		})
	}
}

// observed is what one call did.
type observed[T client.Object] struct {
	op     reconcile.Op
	res    step.Result
	err    error
	before T // the object before the call
	obj    *scopetest.FakeObject[T]
	// checkpointsBefore is how many checkpoints there were before the call.
	checkpointsBefore int
	secret            []byte
	// poll is the reconciler's default requeue of the call's environment.
	poll time.Duration
}

func runCase[T client.Object, F, D any](t *testing.T, tc Case[F, D], deps D, s F, obj *scopetest.FakeObject[T], secret []byte, do func(context.Context) (step.Result, error)) {
	t.Helper()
	if tc.Setup != nil {
		tc.Setup(t, s, deps)
	}
	before, ok := obj.Object.DeepCopyObject().(T)
	if !ok {
		t.Fatalf("%q: cannot run the case: DeepCopyObject of %T returned another type", tc.Name, obj.Object)
	}
	op := reconcile.OpReconcile
	if tc.Delete {
		op = reconcile.OpDelete
	}
	env := reconcile.NewEnv(obj.Object, tc.Options...)
	o := observed[T]{op: op, before: before, obj: obj, checkpointsBefore: len(obj.Checkpoints()), secret: secret, poll: env.PollInterval()}
	o.res, o.err = do(step.ContextWithEnv(t.Context(), env))
	check(t, tc.Name, tc.Want, o)
	if tc.Check != nil {
		tc.Check(t, s, deps)
	}
}

// errorf reports a failure of the case named name: the message starts with the name, quoted.
func errorf(t providertest.TestingT, name, format string, args ...any) {
	t.Helper()
	t.Errorf("%q: %s", name, fmt.Sprintf(format, args...))
}

// check reports every way o differs from want, each failure under the case's name.
func check[T client.Object](t providertest.TestingT, name string, want Outcome, o observed[T]) {
	t.Helper()
	err := o.err
	got := reconcile.Classify(o.op, o.res, err)
	if got.Class == reconcile.ClassInProgress && o.res.RequeueAfter <= 0 && o.poll > 0 {
		got.RequeueAfter = o.poll // the reconciler's WithPollInterval, as it requeues a step not done
	}
	switch {
	case want.Class != 0 && got.Class != want.Class:
		errorf(t, name, "class is %s (%v), want %s", got.Class, err, want.Class)
	case want.Class == 0 && err != nil:
		errorf(t, name, "class is %s (%v), want no error (Done or InProgress, as the Result says)", got.Class, err)
	}
	if want.Reason != "" && got.Reason != want.Reason {
		errorf(t, name, "condition reason is %q (%v), want %q", got.Reason, err, want.Reason)
	}
	if want.RequeueAfter != 0 && got.RequeueAfter != want.RequeueAfter {
		errorf(t, name, "requeue after %v (%v), want %v", got.RequeueAfter, err, want.RequeueAfter)
	}
	if want.ErrorIs != nil && !errors.Is(err, want.ErrorIs) {
		errorf(t, name, "error %v does not wrap %v", err, want.ErrorIs)
	}
	if want.ErrorContains != "" && (err == nil || !strings.Contains(err.Error(), want.ErrorContains)) {
		errorf(t, name, "error %v does not contain %q", err, want.ErrorContains)
	}
	gotRes, wantRes := o.res, want.Result
	if want.MessageContains != "" {
		if !strings.Contains(gotRes.Message, want.MessageContains) {
			errorf(t, name, "result message %q does not contain %q", gotRes.Message, want.MessageContains)
		}
		gotRes.Message, wantRes.Message = "", ""
	}
	if gotRes != wantRes {
		errorf(t, name, "result is %+v, want %+v", o.res, want.Result)
	}
	checkSecret(t, name, o)
	if err == nil {
		checkPersisted(t, name, o)
	}
	if want.Unchanged {
		if n := len(o.obj.Checkpoints()) - o.checkpointsBefore; n > 0 {
			errorf(t, name, "the service checkpointed the object %d times, want it unchanged", n)
		}
		if !equality.Semantic.DeepEqual(o.before, o.obj.Object) {
			errorf(t, name, "the service changed the object, want it unchanged:\nbefore: %+v\nafter:  %+v", o.before, o.obj.Object)
		}
	}
}

// checkSecret fails when the bootstrap data shows in the error, the result message or a condition message
// of the object, now or at a checkpoint.
func checkSecret[T client.Object](t providertest.TestingT, name string, o observed[T]) {
	t.Helper()
	if len(o.secret) == 0 {
		return
	}
	secret := string(o.secret)
	texts := map[string]string{"result message": o.res.Message}
	if o.err != nil {
		texts["error"] = o.err.Error()
	}
	conds := func(obj client.Object, where string) {
		if g, ok := any(obj).(conditions.Getter); ok {
			for _, c := range g.GetConditions() {
				texts[fmt.Sprintf("condition %q message%s", c.Type, where)] = c.Message
			}
		}
	}
	conds(o.obj.Object, "")
	for i, cp := range o.obj.Checkpoints() {
		conds(cp.Object, fmt.Sprintf(" at checkpoint %d", i+1))
	}
	for where, text := range texts {
		if strings.Contains(text, secret) {
			errorf(t, name, "the bootstrap data appears in the %s: never put secrets there", where)
		}
	}
}

// checkPersisted fails when an ID the call recorded would be lost by a crash right after it: a resource ID
// not persisted by a checkpoint, or a provider ID neither persisted by the last checkpoint nor naming a
// persisted resource ID (see RunMachineCases).
func checkPersisted[T client.Object](t providertest.TestingT, name string, o observed[T]) {
	t.Helper()
	var old map[string]string
	if b, ok := any(o.before).(scope.ResourceIDsAccessor); ok {
		old = b.GetResourceIDs()
	}
	if acc, ok := any(o.obj.Object).(scope.ResourceIDsAccessor); ok {
		for key, id := range acc.GetResourceIDs() {
			if id == "" || old[key] == id {
				continue
			}
			if got, _ := o.obj.PersistedResourceID(key); got != id {
				errorf(t, name, "resource %q (id %q) was recorded but not persisted by a checkpoint (persisted: %q): checkpoint right after the create (ensure.Exists does)", key, id, got)
			}
		}
	}
	acc, ok := any(o.obj.Object).(contract.ProviderIDAccessor)
	if !ok {
		return
	}
	pid := acc.GetProviderID()
	if pid == "" || pid == any(o.before).(contract.ProviderIDAccessor).GetProviderID() {
		return
	}
	cps := o.obj.Checkpoints()
	if len(cps) > 0 && any(cps[len(cps)-1].Object).(contract.ProviderIDAccessor).GetProviderID() == pid {
		return // persisted itself
	}
	persisted := old // what the API server holds: the object before the call, unless the call patched status
	for i := len(cps) - 1; i >= o.checkpointsBefore; i-- {
		if !cps[i].SpecOnly {
			persisted = cps[i].ResourceIDs
			break
		}
	}
	for _, id := range persisted {
		if containsSegment(pid, id) {
			return // the next reconcile finds the resource by id and sets the provider ID again
		}
	}
	errorf(t, name, "spec.providerID %q was set but not persisted by a checkpoint, and names no resource ID persisted in the resource-ID map (persisted: %v): a crash now loses the cloud resource; "+
		"record its ID first (ensure.Exists does) and build the provider ID from it, or checkpoint the provider ID right after the create (scope.ProviderIDTracker does)", pid, persisted)
}

// containsSegment reports whether id appears in pid as a whole segment: between pid's start or end and a
// '/' or ':', so "i-1" is in "mycloud:///zone-a/i-1" but not in "mycloud://i-10".
func containsSegment(pid, id string) bool {
	if id == "" {
		return false
	}
	boundary := func(i int) bool { return i < 0 || i >= len(pid) || pid[i] == '/' || pid[i] == ':' }
	for from := 0; from <= len(pid)-len(id); {
		i := strings.Index(pid[from:], id)
		if i < 0 {
			return false
		}
		i += from
		if boundary(i-1) && boundary(i+len(id)) {
			return true
		}
		from = i + 1
	}
	return false
}

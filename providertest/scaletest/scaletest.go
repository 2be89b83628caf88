package scaletest

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope"
	"github.com/capkit/capkit/scope/scopetest"
)

// PoolFixture is a provider's machine pool service on a fresh cloud, for one scenario.
type PoolFixture[T client.Object] struct {
	// Service is the pool service under test. Required.
	Service reconcile.Service[scope.MachinePoolScoper[T]]
	// Scope is a fresh fake scope of the pool, with bootstrap data and whatever the service reads (a
	// cluster network recorded, ...); the scenarios set PoolInfo.Replicas. Its Object must implement
	// contract.ProviderIDListAccessor and contract.ReplicasAccessor. Required.
	Scope *scopetest.FakeMachinePoolScope[T]
	// LiveInstances returns the provider IDs of the pool's live instances in the cloud, sorted. Required.
	LiveInstances func() ([]string, error)
	// Created returns how many instances the cloud ever created for the pool. Required.
	Created func() int
	// InjectFault makes the cloud's next mutating call fail (after the change, when it can); nil skips
	// ScalesUnderFaults.
	InjectFault func() error
	// MaxReconciles bounds the reconciles of one step (default 20): a service that never converges fails.
	MaxReconciles int
}

// scenarios are the standard scenarios, by name.
var scenarios = []struct {
	name   string
	faults bool
	run    func(f *runner) error
}{
	{"ScalesUpAndDown", false, func(f *runner) error { return f.scale(0, 5, 2, 0) }},
	{"ScalesUnderFaults", true, func(f *runner) error { return f.scale(0, 5, 2, 0) }},
	{"DeletesEverything", false, func(f *runner) error {
		if err := f.scale(3); err != nil {
			return err
		}
		return f.deleteAll()
	}},
}

// RunScalingScenarios runs every scenario as a subtest on a fixture newFixture builds for it.
func RunScalingScenarios[T client.Object](t *testing.T, newFixture func(t *testing.T) PoolFixture[T]) {
	t.Helper()
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			f := newFixture(t)
			if f.Service == nil || f.Scope == nil || f.LiveInstances == nil || f.Created == nil {
				t.Fatal("cannot run the scenario: PoolFixture needs Service, Scope, LiveInstances and Created")
			}
			if sc.faults && f.InjectFault == nil {
				t.Log("PoolFixture.InjectFault is nil: the scenario runs without faults")
			}
			var s scope.MachinePoolScoper[T] = f.Scope
			r := &runner{ctx: t.Context(), pool: f.Scope.Object,
				reconcile:   func(ctx context.Context) (step.Result, error) { return f.Service.Reconcile(ctx, s) },
				delete:      func(ctx context.Context) (step.Result, error) { return f.Service.Delete(ctx, s) },
				setReplicas: func(n int32) { f.Scope.PoolInfo.Replicas = n },
				live:        f.LiveInstances, created: f.Created, max: f.MaxReconciles}
			if sc.faults {
				r.fault = f.InjectFault
			}
			if r.max <= 0 {
				r.max = 20
			}
			if err := sc.run(r); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// runner drives one scenario; it is not generic so that the scenarios are plain functions.
type runner struct {
	ctx               context.Context
	reconcile, delete func(ctx context.Context) (step.Result, error)
	pool              client.Object
	setReplicas       func(int32)
	live              func() ([]string, error)
	created           func() int
	fault             func() error
	max               int
	peak              int
}

// scale brings the pool to each size in turn and checks the invariants after each.
func (r *runner) scale(sizes ...int32) error {
	for _, n := range sizes {
		r.setReplicas(n)
		r.peak = max(r.peak, int(n))
		if err := r.converge(fmt.Sprintf("scaling to %d", n), r.reconcile); err != nil {
			return err
		}
		if err := r.check(int(n)); err != nil {
			return fmt.Errorf("after scaling to %d: %w", n, err)
		}
	}
	return nil
}

// converge calls call until it reports Done, injecting a fault before each call when faults are on.
func (r *runner) converge(what string, call func(context.Context) (step.Result, error)) error {
	var last string
	for range r.max {
		if r.fault != nil {
			if err := r.fault(); err != nil {
				return fmt.Errorf("cannot inject a fault: %w", err)
			}
		}
		res, err := call(r.ctx)
		switch {
		case step.IsTerminal(err):
			return fmt.Errorf("%s: terminal error: %w", what, err)
		case err == nil && res.Done:
			return nil
		case err != nil:
			last = err.Error()
		default:
			last = res.Reason + ": " + res.Message
		}
	}
	return fmt.Errorf("%s did not converge in %d reconciles; last: %s", what, r.max, last)
}

// check asserts that the pool lists exactly its n live instances and that no extra instance was created.
func (r *runner) check(n int) error {
	live, err := r.live()
	if err != nil {
		return fmt.Errorf("cannot list the live instances: %w", err)
	}
	ids, replicas := r.recorded()
	switch {
	case len(live) != n:
		return fmt.Errorf("%d live instances, want %d: %q", len(live), n, live)
	case !slices.Equal(ids, live):
		return fmt.Errorf("spec.providerIDList is %q, want the live instances %q", ids, live)
	case int(replicas) != n:
		return fmt.Errorf("status.replicas is %d, want %d", replicas, n)
	case r.created() > r.peak:
		return fmt.Errorf("%d instances were created, want at most %d: a retry created an extra one", r.created(), r.peak)
	}
	return nil
}

// recorded returns the pool's spec.providerIDList, sorted, and status.replicas.
func (r *runner) recorded() ([]string, int32) {
	var ids []string
	var replicas int32
	if a, ok := r.pool.(contract.ProviderIDListAccessor); ok {
		ids = slices.Sorted(slices.Values(a.GetProviderIDList()))
	}
	if a, ok := r.pool.(contract.ReplicasAccessor); ok {
		replicas = a.GetStatusReplicas()
	}
	return ids, replicas
}

// deleteAll runs Delete until done and checks nothing is left.
func (r *runner) deleteAll() error {
	if err := r.converge("deleting", r.delete); err != nil {
		return err
	}
	live, err := r.live()
	if err != nil {
		return fmt.Errorf("cannot list the live instances: %w", err)
	}
	if len(live) > 0 {
		return fmt.Errorf("delete done but %d instances remain: %q", len(live), live)
	}
	return nil
}

package scaletest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/internal/testtypes"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope"
	"github.com/capkit/capkit/scope/scopetest"
)

type poolScope = scope.MachinePoolScoper[*testtypes.FooMachinePool]

// group is a fake instance group with an injectable fault; bug makes it misbehave in one way.
type group struct {
	live    []string
	created int
	failNow bool
	bug     string // "", "extra on retry", "keeps on scale down", "stale list"
}

var errFault = errors.New("injected fault")

func (g *group) service() reconcile.Service[poolScope] {
	return reconcile.ServiceFuncs[poolScope]{
		ReconcileFunc: func(_ context.Context, s poolScope) (step.Result, error) {
			want := int(s.MachinePool().Replicas)
			for len(g.live) < want {
				g.created++
				g.live = append(g.live, fmt.Sprintf("foo://i-%d", g.created))
				if g.failNow { // the change happened, the answer is lost
					g.failNow = false
					if g.bug == "extra on retry" {
						g.created++ // a retry that does not find the first instance
					}
					return step.Result{}, errFault
				}
			}
			if g.bug != "keeps on scale down" && len(g.live) > want {
				g.live = g.live[:want]
			}
			if g.bug != "stale list" {
				if err := s.SetInstances(g.live); err != nil {
					return step.Result{}, err
				}
			}
			return step.Result{Done: true}, nil
		},
		DeleteFunc: func(context.Context, poolScope) (step.Result, error) {
			g.live = nil
			return step.Result{Done: true}, nil
		},
	}
}

func fixture(g *group) PoolFixture[*testtypes.FooMachinePool] {
	return PoolFixture[*testtypes.FooMachinePool]{
		Service: g.service(),
		Scope: &scopetest.FakeMachinePoolScope[*testtypes.FooMachinePool]{FakeObject: scopetest.FakeObject[*testtypes.FooMachinePool]{
			Object: &testtypes.FooMachinePool{}, OwnershipKeyValue: "k"}, BootstrapValue: []byte("#cloud-config\n")},
		LiveInstances: func() ([]string, error) { return slices.Sorted(slices.Values(g.live)), nil },
		Created:       func() int { return g.created },
		InjectFault:   func() error { g.failNow = true; return nil },
	}
}

func TestRunScalingScenariosOnAGoodService(t *testing.T) {
	RunScalingScenarios(t, func(*testing.T) PoolFixture[*testtypes.FooMachinePool] { return fixture(&group{}) })
}

// TestScenariosCatchBugs: each scenario fails a service with the bug it is about, with a message that says so.
func TestScenariosCatchBugs(t *testing.T) {
	tests := []struct {
		bug, scenario, want string
	}{
		{"extra on retry", "ScalesUnderFaults", "a retry created an extra one"},
		{"keeps on scale down", "ScalesUpAndDown", "live instances, want 2"},
		{"stale list", "ScalesUpAndDown", "spec.providerIDList is"},
	}
	for _, tt := range tests {
		t.Run(tt.bug, func(t *testing.T) {
			f := fixture(&group{bug: tt.bug})
			var s scope.MachinePoolScoper[*testtypes.FooMachinePool] = f.Scope
			r := &runner{ctx: t.Context(), pool: f.Scope.Object, max: 20,
				reconcile:   func(ctx context.Context) (step.Result, error) { return f.Service.Reconcile(ctx, s) },
				delete:      func(ctx context.Context) (step.Result, error) { return f.Service.Delete(ctx, s) },
				setReplicas: func(n int32) { f.Scope.PoolInfo.Replicas = n }, live: f.LiveInstances, created: f.Created}
			for _, sc := range scenarios {
				if sc.name != tt.scenario {
					continue
				}
				if sc.faults {
					r.fault = f.InjectFault
				}
				err := sc.run(r)
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.want)
			}
		})
	}
}

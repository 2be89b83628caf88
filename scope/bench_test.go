package scope_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/internal/testtypes"
	"github.com/capkit/capkit/patch"
	"github.com/capkit/capkit/scope"
)

// The benchmarks compare a scope setter with the direct write a provider would make on its own type: the
// scope's cost is one interface call and the validation of the value, with no reflection and no conversion.
// They need no API server: the scope is built once on a fake client.

// benchMachine returns a FooMachine with an initialization struct and one recorded resource ID.
func benchMachine() *testtypes.FooMachine {
	return &testtypes.FooMachine{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "m1"},
		Status: testtypes.FooMachineStatus{
			Initialization: &contract.InfraMachineInitialization{},
			Resources:      map[string]string{"vm": "i-0"},
		},
	}
}

// newBenchScope returns a scope of benchMachine on a fake client holding nothing.
func newBenchScope(tb testing.TB) (*scope.MachineScope[*testtypes.FooMachine], *testtypes.FooMachine) {
	tb.Helper()
	m := benchMachine()
	c := fake.NewClientBuilder().WithScheme(testtypes.Scheme()).Build()
	s, err := scope.NewMachineScope(context.Background(), c, m,
		newMachine(tb, nil, "ns", "m1", "v1beta2", "c1", nil), newCluster(tb, nil, "ns", "c1", "v1beta2", nil),
		scope.WithContractVersion(contract.V1Beta2))
	require.NoError(tb, err)
	return s, m
}

// ids alternates between two cloud IDs, so that every SetResourceID and SetProviderID changes the value.
var ids = [2]string{"i-1", "i-2"}

func BenchmarkSetProvisioned(b *testing.B) {
	b.Run("direct", func(b *testing.B) {
		m := benchMachine()
		b.ReportAllocs()
		for b.Loop() {
			m.Status.Initialization.SetProvisioned(true)
		}
	})
	b.Run("scope", func(b *testing.B) {
		s, _ := newBenchScope(b)
		b.ReportAllocs()
		for b.Loop() {
			if err := s.SetProvisioned(true); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkSetProviderID(b *testing.B) {
	pids := [2]string{"foo://" + ids[0], "foo://" + ids[1]}
	b.Run("direct", func(b *testing.B) {
		m := benchMachine()
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			m.Spec.ProviderID = pids[i&1]
			i++
		}
	})
	b.Run("scope", func(b *testing.B) {
		s, _ := newBenchScope(b)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if err := s.SetProviderID(pids[i&1]); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
}

func BenchmarkSetResourceID(b *testing.B) {
	b.Run("direct", func(b *testing.B) {
		m := benchMachine()
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			m.Status.Resources["vm"] = ids[i&1]
			i++
		}
	})
	b.Run("scope", func(b *testing.B) {
		s, _ := newBenchScope(b)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if err := s.SetResourceID("vm", ids[i&1]); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
}

// TestScopeSettersAllocateAtMostOnce bounds the allocations of the setters a service calls on every
// reconcile (testing.AllocsPerRun counts, it does not time). SetProvisioned allocates the *bool of
// status.initialization.provisioned, as the direct write does.
func TestScopeSettersAllocateAtMostOnce(t *testing.T) {
	s, m := newBenchScope(t)
	i := 0
	tests := []struct {
		name string
		set  func() error
	}{
		{"SetProvisioned", func() error { return s.SetProvisioned(true) }},
		{"SetProviderID", func() error { i++; return s.SetProviderID("foo://" + ids[i&1]) }},
		{"SetResourceID of an existing key", func() error { i++; return s.SetResourceID("vm", ids[i&1]) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			allocs := testing.AllocsPerRun(100, func() {
				if e := tt.set(); e != nil {
					err = e
				}
			})
			require.NoError(t, err)
			assert.LessOrEqual(t, allocs, 1.0)
		})
	}
	assert.True(t, m.IsProvisioned())
	assert.Contains(t, ids, m.Status.Resources["vm"])
}

// BenchmarkNewMachineScope measures building a scope against building the patch helper under it alone:
// the difference is what the scope adds (owner facts, accessors, ownership key).
func BenchmarkNewMachineScope(b *testing.B) {
	c := fake.NewClientBuilder().WithScheme(testtypes.Scheme()).Build()
	machine, cluster := newMachine(b, nil, "ns", "m1", "v1beta2", "c1", nil), newCluster(b, nil, "ns", "c1", "v1beta2", nil)
	m := benchMachine()
	m.Labels = map[string]string{scope.OwnershipKeyLabel: "k"}
	ctx := b.Context()
	b.Run("scope", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := scope.NewMachineScope(ctx, c, m, machine, cluster, scope.WithContractVersion(contract.V1Beta2)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("patch.NewHelper", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := patch.NewHelper(c, m, patch.WithWriteOnceLabels(scope.OwnershipKeyLabel)); err != nil {
				b.Fatal(err)
			}
		}
	})
}

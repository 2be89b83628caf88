package conversiontest_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/randfill"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/contract/conversion"
	"github.com/capkit/capkit/contract/conversion/conversiontest"
	"github.com/capkit/capkit/contract/conversion/internal/testapi/v1beta1"
	"github.com/capkit/capkit/contract/conversion/internal/testapi/v1beta2"
)

// fooFuncs shape what the API server would refuse and the conversions need not keep: empty or repeated
// condition types, reasons metav1.Condition does not allow, a provider ID that points to "", empty or repeated
// failure domain names (the v1beta1 map's keys, the v1beta2 list's map keys).
var fooFuncs = []any{
	func(s *v1beta1.FooMachineSpec, c randfill.Continue) {
		c.FillNoCustom(s)
		if s.ProviderID != nil && *s.ProviderID == "" {
			s.ProviderID = nil
		}
	},
	func(cond *conversion.V1Beta1Condition, c randfill.Continue) {
		c.FillNoCustom(cond)
		cond.Type = fmt.Sprintf("Type%d", c.Uint64())
	},
	func(cond *metav1.Condition, c randfill.Continue) {
		c.FillNoCustom(cond)
		cond.Type = fmt.Sprintf("Type%d", c.Uint64())
		cond.Reason = fmt.Sprintf("Reason%d", c.Uint64())
	},
	func(d *contract.FailureDomain, c randfill.Continue) {
		c.FillNoCustom(d)
		d.Name = fmt.Sprintf("fd-%d", c.Uint64())
	},
	func(m *map[string]conversion.V1Beta1FailureDomain, c randfill.Continue) {
		c.FillNoCustom(m)
		delete(*m, "")
	},
}

func TestRoundTripFooMachine(t *testing.T) {
	// snippet:start roundtrip
	conversiontest.RoundTrip[v1beta2.FooMachine, v1beta1.FooMachine](t, conversiontest.WithFuncs(fooFuncs...))
	// snippet:end roundtrip
}

func TestRoundTripFooCluster(t *testing.T) {
	conversiontest.RoundTrip[v1beta2.FooCluster, v1beta1.FooCluster](t, conversiontest.WithFuncs(fooFuncs...))
}

// recorder is a conversiontest.TestingT that records failures.
type recorder struct{ errs []string }

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func TestRoundTripFails(t *testing.T) {
	tests := []struct {
		name string
		run  func(r *recorder)
		want []string // substrings of the one failure; none when the round trip passes
	}{
		{
			name: "passes",
			run: func(r *recorder) {
				conversiontest.RoundTrip[v1beta2.FooMachine, v1beta1.FooMachine](r, conversiontest.WithSeed(1),
					conversiontest.WithIterations(50), conversiontest.WithFuncs(fooFuncs...))
			},
		},
		{
			name: "a conversion that stashes nothing",
			run: func(r *recorder) {
				conversiontest.RoundTrip[v1beta2.FooMachine, v1beta1.LossyFooMachine](r, conversiontest.WithSeed(1),
					conversiontest.WithFuncs(fooFuncs...))
			},
			want: []string{"spoke → hub → spoke (seed 1, iteration 0): the object changed (- before, + after):", "\n-", "\n+"},
		},
		{
			name: "a conversion that fails",
			run: func(r *recorder) { // a later fill function for a type replaces fooFuncs' one
				conversiontest.RoundTrip[v1beta2.FooMachine, v1beta1.FooMachine](r, conversiontest.WithSeed(1),
					conversiontest.WithFuncs(fooFuncs...), conversiontest.WithFuncs(func(cond *conversion.V1Beta1Condition, c randfill.Continue) {
						c.FillNoCustom(cond)
						cond.Type = ""
					}))
			},
			want: []string{"spoke → hub → spoke (seed 1, iteration", "cannot convert there: cannot convert condition 0: type must not be empty"},
		},
		{
			name: "no iterations",
			run: func(r *recorder) {
				conversiontest.RoundTrip[v1beta2.FooMachine, v1beta1.FooMachine](r, conversiontest.WithIterations(0))
			},
			want: []string{"cannot run the round trip: 0 iterations, want 1 to 100000"},
		},
		{
			name: "too many iterations",
			run: func(r *recorder) {
				conversiontest.RoundTrip[v1beta2.FooMachine, v1beta1.FooMachine](r, conversiontest.WithIterations(conversiontest.MaxIterations+1))
			},
			want: []string{"100001 iterations"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r recorder
			tt.run(&r)
			if len(tt.want) == 0 {
				assert.Empty(t, r.errs)
				return
			}
			require.Len(t, r.errs, 1, "RoundTrip stops at the first failure")
			for _, w := range tt.want {
				assert.Contains(t, r.errs[0], w)
			}
		})
	}
}

package bench_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/memcloudtest"
)

// createMachine creates the starting MemMachine (status through the status subresource) with c, which is
// not counted, and returns it as a reconcile would read it.
func createMachine(ctx context.Context, t *testing.T, c client.Client, ns, name string) *v1beta2.MemMachine {
	t.Helper()
	base := baseMachine(ns, name)
	m := base.DeepCopy()
	require.NoError(t, c.Create(ctx, m))
	m.Status = base.Status
	require.NoError(t, c.Status().Update(ctx, m))
	got := &v1beta2.MemMachine{}
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(m), got))
	return got
}

// TestRequestsPerPatch counts the HTTP requests that persisting each change costs on a real API server, from
// the object a reconcile has read to the end of the patch, and checks that both sides leave the same object.
func TestRequestsPerPatch(t *testing.T) {
	ctx := context.Background()
	env := sharedEnv(t)
	p, err := memcloudtest.StartProvider(ctx, env, memcloudtest.Options{WebhooksOnly: true})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, p.Stop()) })
	ns, err := env.CreateNamespace(ctx, "requests")
	require.NoError(t, err)

	c, rc := countingClient(t, env)
	// Warm the client's REST mapper for both groups, so that discovery requests are not counted.
	warm := createMachine(ctx, t, env.Client, ns, "warm-up")
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(warm), warm))
	_, _, err = contract.DiscoverContractVersion(ctx, c, v1beta2.GroupVersion.WithKind("MemMachine").GroupKind())
	require.NoError(t, err)
	rc.take()

	counts := map[string]map[string]int{} // case → impl → requests
	for i, pc := range patchCases {
		counts[pc.name] = map[string]int{}
		for _, im := range impls {
			t.Run(im.name+"/"+pc.name, func(t *testing.T) {
				m := createMachine(ctx, t, env.Client, ns, fmt.Sprintf("%s-%d", im.name, i))
				in := newInput(m)
				rc.take()
				require.NoError(t, im.run(ctx, c, in, pc))
				reqs := rc.take()
				counts[pc.name][im.name] = len(reqs)
				t.Logf("%d requests: %s", len(reqs), strings.Join(reqs, ", "))

				got := &v1beta2.MemMachine{}
				require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(m), got))
				require.NoError(t, pc.want(got))
			})
		}
	}

	for _, pc := range patchCases {
		n := counts[pc.name]
		assert.LessOrEqual(t, n["capkit"], n["capi"], "%s: capkit sends at most as many requests as Cluster API's patch helper", pc.name)
		assert.Equal(t, n["capkit"]+1, n["capkit-discover"], "%s: contract discovery costs one CRD read per scope", pc.name)
		assert.Equal(t, n["capkit"], n["capkit-patch"], "%s: the scope sends what its patch helper sends alone", pc.name)
	}
	assert.Zero(t, counts["no-change"]["capkit"], "capkit sends nothing when nothing changed")
	t.Log("\n" + requestsTable(counts))
}

// requestsTable renders counts as the markdown table of RESULTS.md.
func requestsTable(counts map[string]map[string]int) string {
	var b strings.Builder
	b.WriteString("| case | capi | capkit | capkit-discover | capkit-patch |\n|---|---:|---:|---:|---:|\n")
	for _, pc := range patchCases {
		n := counts[pc.name]
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d |\n", pc.name, n["capi"], n["capkit"], n["capkit-discover"], n["capkit-patch"])
	}
	return b.String()
}

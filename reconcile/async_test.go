package reconcile_test

import (
	"context"
	"fmt"
	"maps"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	ctrlconfig "sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/internal/testtypes"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/reconcile/internal/fakecloud"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope"
)

// asyncCloud is a cloud of VMs whose creates run as operations: Create makes the VM (listed by its tags at once)
// and returns ensure.Accepted; the operation ends only when the test finishes it. A token seen before gets the
// operation of its first create.
type asyncCloud struct {
	mu       sync.Mutex
	tags     map[string]map[string]string // VM ID → tags
	ops      map[string]string            // operation → VM ID
	tokens   map[string]string            // token → operation
	finished map[string]bool              // operation → ended
}

func newAsyncCloud() *asyncCloud {
	return &asyncCloud{tags: map[string]map[string]string{}, ops: map[string]string{}, tokens: map[string]string{},
		finished: map[string]bool{}}
}

// resource is the cloud as an ensure.Resource; the observation of a VM is its ID.
func (c *asyncCloud) resource() ensure.Resource[string, string] {
	return ensure.NewResource(ensure.ResourceFuncs[string, string]{
		ResourceKind: "async-vm",
		IDFunc:       func(id string) string { return id },
		GetFunc: func(_ context.Context, id string) (string, bool, error) {
			c.mu.Lock()
			defer c.mu.Unlock()
			_, ok := c.tags[id]
			return id, ok, nil
		},
		FindByTagsFunc: func(_ context.Context, tags map[string]string) (string, bool, error) {
			c.mu.Lock()
			defer c.mu.Unlock()
		next:
			for id, have := range c.tags {
				for k, v := range tags {
					if have[k] != v {
						continue next
					}
				}
				return id, true, nil
			}
			return "", false, nil
		},
		CreateFunc: func(_ context.Context, _ string, token string, tags map[string]string) (string, error) {
			c.mu.Lock()
			defer c.mu.Unlock()
			if op, ok := c.tokens[token]; ok {
				return "", ensure.Accepted(op)
			}
			n := len(c.ops) + 1
			id, op := fmt.Sprintf("vm-%d", n), fmt.Sprintf("op-%d", n)
			c.tags[id], c.ops[op], c.tokens[token] = maps.Clone(tags), id, op
			return "", ensure.Accepted(op)
		},
		PollOperationFunc: func(_ context.Context, op string) (string, bool, error) {
			c.mu.Lock()
			defer c.mu.Unlock()
			return c.ops[op], c.finished[op], nil
		},
		DeleteFunc: func(_ context.Context, id string) error {
			c.mu.Lock()
			defer c.mu.Unlock()
			delete(c.tags, id)
			return nil
		},
		Guarantees: ensure.Guarantees{Idempotency: ensure.IdempotentByToken, ImmediateSearch: true},
	})
}

// operationOf returns the operation of the create of machine's VM, "" before its Create was called.
func (c *asyncCloud) operationOf(machine string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	for op, id := range c.ops {
		if c.tags[id][machineTag] == machine {
			return op
		}
	}
	return ""
}

// vmOf returns the VM the operation op makes.
func (c *asyncCloud) vmOf(op string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ops[op]
}

// finish ends the operation op.
func (c *asyncCloud) finish(op string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.finished[op] = true
}

// running reports whether the operation op has not ended.
func (c *asyncCloud) running(op string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return !c.finished[op]
}

// machineTag names the machine of a VM, so that the test finds each machine's operation.
const machineTag = "machine"

// TestNoWorkerIsHeldWhileAnOperationRuns: with one worker, a machine whose create runs as a cloud operation does not
// keep the controller from reconciling another machine; when the operation ends, the machine is provisioned.
func TestNoWorkerIsHeldWhileAnOperationRuns(t *testing.T) {
	ns := env.Namespace(t, "rec")
	ctx := t.Context()
	createCluster(t, ns, "c1", func(u *unstructured.Unstructured) {
		_ = unstructured.SetNestedField(u.Object, true, "status", "initialization", "infrastructureProvisioned")
	})
	cloud := newAsyncCloud()
	vms := cloud.resource()
	vm := reconcile.ServiceFuncs[machineScope]{
		ReconcileFunc: func(ctx context.Context, s machineScope) (step.Result, error) {
			m := s.InfraMachine()
			res, err := ensure.Exists(ctx, s, "vm", vms, ensure.Given("image"),
				ensure.WithTags(map[string]string{machineTag: m.Name}))
			if err != nil || !res.Result.Done {
				return res.Result, err
			}
			m.SetProviderID("foo://" + res.ID)
			m.SetProvisioned(true)
			return step.Result{Done: true}, nil
		},
	}
	mgr, err := ctrl.NewManager(env.Config, ctrl.Options{Scheme: env.Scheme, Metrics: metricsserver.Options{BindAddress: "0"},
		Cache:      cache.Options{DefaultNamespaces: map[string]cache.Config{ns: {}}},
		Controller: ctrlconfig.Controller{SkipNameValidation: ptr.To(true)}})
	require.NoError(t, err)
	r, err := reconcile.NewMachineReconcilerFor(mgr.GetClient(), &testtypes.FooMachine{},
		[]reconcile.Step[machineScope]{{Name: "VM", Service: vm}},
		reconcile.WithMaxConcurrentReconciles(1), reconcile.WithPollInterval(100*time.Millisecond),
		reconcile.WithEventRecorder(&fakecloud.Recorder{}), reconcile.WithScopeOptions(scope.WithContractVersion(contract.V1Beta2)))
	require.NoError(t, err)
	require.NoError(t, r.SetupWithManager(mgr))
	mgrCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- mgr.Start(mgrCtx) }()
	t.Cleanup(func() {
		stop()
		require.NoError(t, <-done)
	})

	for _, name := range []string{"m1-data", "m2-data"} {
		createBootstrapSecret(t, ns, name)
	}
	first := addFooMachine(t, ns, "m1", "m1-data")
	var op1 string
	require.Eventually(t, func() bool { op1 = cloud.operationOf("m1"); return op1 != "" }, 20*time.Second, 20*time.Millisecond,
		"the first machine's create is accepted")
	require.Eventually(t, func() bool {
		got := get(t, &testtypes.FooMachine{ObjectMeta: first.ObjectMeta})
		return conditions.GetReason(got, "VMReady") == conditions.ReasonResourcePending
	}, 20*time.Second, 20*time.Millisecond, "its reconcile returned, reporting the operation")

	addFooMachine(t, ns, "m2", "m2-data")
	require.Eventually(t, func() bool { return cloud.operationOf("m2") != "" }, 20*time.Second, 20*time.Millisecond,
		"the second machine is reconciled by the one worker")
	assert.True(t, cloud.running(op1), "while the first machine's operation still runs")
	got := get(t, &testtypes.FooMachine{ObjectMeta: first.ObjectMeta})
	assert.False(t, got.IsProvisioned())
	assert.Contains(t, conditions.GetMessage(got, "VMReady"), op1, "the condition names the operation")

	cloud.finish(op1)
	require.Eventually(t, func() bool {
		return get(t, &testtypes.FooMachine{ObjectMeta: first.ObjectMeta}).IsProvisioned()
	}, 20*time.Second, 20*time.Millisecond, "the ended operation's VM is recorded at the next poll")
	got = get(t, &testtypes.FooMachine{ObjectMeta: first.ObjectMeta})
	assert.Equal(t, "foo://"+cloud.vmOf(op1), got.Spec.ProviderID)
	assert.True(t, conditions.IsTrue(got, "VMReady"))
}

package e2e_test

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	bootstrapv1 "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
)

// chaosCondition is the condition type the conflict agent writes into memcloud's objects, as another
// controller would; memcloud must never drop it.
const chaosCondition = "ChaosProbe"

// agents are the goroutines of the chaos test besides the managers: the user (workers once the control plane
// is initialized), the kubelets (a Node per provisioned Machine), other writers that provoke conflicts on
// memcloud's objects, and the chaos monkey that restarts memcloud's manager. They watch the fleet through
// reader, an informer cache of the namespace, so that what they cost the API server does not grow with the
// fleet; they write, and read what they write, through env.Client.
type agents struct {
	ns      string
	workers int
	p       *provider
	reader  client.Reader
	cancel  context.CancelFunc
	wg      sync.WaitGroup

	mu        sync.Mutex
	nodes     map[string]bool  // Nodes created
	withWork  map[string]bool  // clusters whose workers are created
	probed    map[string]bool  // "Kind/name" of objects that hold chaosCondition
	restartAt map[string][]int // phase → progress thresholds not reached yet
	phase     string
	errs      []error

	labelWrites, statusWrites, ownConflicts atomic.Int64
}

// poker is one conflict agent's state, owned by its goroutine.
type poker struct {
	rng     *rand.Rand
	pokes   int
	targets []client.Object
}

const (
	phaseProvision = "provision"
	phaseDelete    = "delete"
)

// startAgents starts the agents of a fleet of size in namespace ns, watching it through reader; restarts lists,
// per phase, the progress values (provisioned, then deleted memcloud objects) at which the manager is restarted,
// besides the restarts at random times. size.pokers() conflict agents each poke every size.pokeEvery().
func startAgents(p *provider, reader client.Reader, ns string, size chaosSize, seed uint64, restarts map[string][]int) *agents {
	ctx, cancel := context.WithCancel(context.Background())
	a := &agents{ns: ns, workers: size.workers, p: p, reader: reader, cancel: cancel, nodes: map[string]bool{},
		withWork: map[string]bool{}, probed: map[string]bool{}, restartAt: restarts, phase: phaseProvision}
	a.loop(ctx, 500*time.Millisecond, a.user)
	a.loop(ctx, 500*time.Millisecond, a.kubelets)
	for i := range size.pokers() {
		// The first agent's stream is the one the 20×5 run has always used.
		pk := &poker{rng: rand.New(rand.NewPCG(seed, 1+uint64(i)*16))}
		a.loop(ctx, size.pokeEvery(), func(ctx context.Context) error { return a.provokeConflict(ctx, pk) })
	}
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		a.monkey(ctx, rand.New(rand.NewPCG(seed, 2)))
	}()
	return a
}

func (a *agents) loop(ctx context.Context, every time.Duration, f func(context.Context) error) {
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				_ = f(ctx) // transient: the API server rejects writes while memcloud's webhooks restart
			}
		}
	}()
}

// Stop stops the agents and returns the errors that must fail the test (failed restarts).
func (a *agents) Stop() []error {
	a.cancel()
	a.wg.Wait()
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.errs
}

// SetPhase switches the agents to phase: deleting stops the user from adding workers and arms the restarts
// on deletion progress.
func (a *agents) SetPhase(phase string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.phase = phase
}

// PendingRestarts returns how many restarts of the current phase have not happened yet.
func (a *agents) PendingRestarts() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.restartAt[a.phase])
}

// Nodes returns the names of the Nodes the kubelets created.
func (a *agents) Nodes() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Sorted(maps.Keys(a.nodes))
}

// Probed returns the "Kind/name" of the objects the conflict agent wrote its condition into.
func (a *agents) Probed() map[string]bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return maps.Clone(a.probed)
}

// user creates the workers of each cluster whose control plane is initialized, while provisioning.
func (a *agents) user(ctx context.Context) error {
	a.mu.Lock()
	provisioning := a.phase == phaseProvision
	a.mu.Unlock()
	if !provisioning {
		return nil
	}
	clusters := &clusterv1.ClusterList{}
	if err := a.reader.List(ctx, clusters, client.InNamespace(a.ns), client.UnsafeDisableDeepCopy); err != nil {
		return err
	}
	for _, c := range clusters.Items {
		a.mu.Lock()
		done := a.withWork[c.Name]
		a.mu.Unlock()
		if done || !meta.IsStatusConditionTrue(c.Status.Conditions, clusterv1.ClusterControlPlaneInitializedCondition) {
			continue
		}
		for i := range a.workers {
			if err := createAll(ctx, newMachine(a.ns, c.Name, fmt.Sprintf("%s-md-%d", c.Name, i), false, bootstrapv1.KubeadmConfigSpec{})...); err != nil {
				return err
			}
		}
		a.mu.Lock()
		a.withWork[c.Name] = true
		a.mu.Unlock()
	}
	return nil
}

// kubelets create a Ready Node for each Machine whose infrastructure is provisioned. They run apart from the
// user, whose creations fail while memcloud's webhooks restart: a large fleet's user would starve them.
func (a *agents) kubelets(ctx context.Context) error {
	machines := &clusterv1.MachineList{}
	if err := a.reader.List(ctx, machines, client.InNamespace(a.ns), client.UnsafeDisableDeepCopy); err != nil {
		return err
	}
	for _, m := range machines.Items {
		a.mu.Lock()
		joined := a.nodes[m.Name]
		a.mu.Unlock()
		if joined || m.Spec.ProviderID == "" || !ptr.Deref(m.Status.Initialization.InfrastructureProvisioned, false) {
			continue
		}
		if err := joinNode(ctx, m.Name, m.Spec.ProviderID); err != nil {
			return err
		}
		a.mu.Lock()
		a.nodes[m.Name] = true
		a.mu.Unlock()
	}
	return nil
}

// provokeConflict writes to one of memcloud's objects, picked at random, as another controller would: a
// label through a merge patch, or its own condition through a status update guarded by resourceVersion.
// Either moves the resourceVersion under memcloud's feet, so memcloud's guarded patches meet 409 Conflict.
// It reads the object from the API server, not the cache, so that its own writes rarely conflict.
func (a *agents) provokeConflict(ctx context.Context, pk *poker) error {
	rng := pk.rng
	if pk.pokes%50 == 0 {
		names, err := a.memObjects(ctx)
		if err != nil {
			return err
		}
		pk.targets = names
	}
	pk.pokes++
	if len(pk.targets) == 0 {
		return nil
	}
	obj := pk.targets[rng.IntN(len(pk.targets))].DeepCopyObject().(client.Object)
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
		return err
	}
	n := strconv.Itoa(rng.IntN(1 << 20))
	if rng.IntN(2) == 0 {
		patch := []byte(`{"metadata":{"labels":{"chaos.capkit.io/poke":"` + n + `"}}}`)
		if err := env.Client.Patch(ctx, obj, client.RawPatch("application/merge-patch+json", patch)); err != nil {
			return err
		}
		a.labelWrites.Add(1)
		return nil
	}
	cond := metav1.Condition{Type: chaosCondition, Status: metav1.ConditionTrue, Reason: "Poked", Message: "poke " + n}
	var kind string
	switch o := obj.(type) {
	case *v1beta2.MemMachine:
		kind = "MemMachine"
		meta.SetStatusCondition(&o.Status.Conditions, cond)
	case *v1beta2.MemCluster:
		kind = "MemCluster"
		meta.SetStatusCondition(&o.Status.Conditions, cond)
	}
	err := env.Client.Status().Update(ctx, obj)
	if apierrors.IsConflict(err) {
		a.ownConflicts.Add(1)
	}
	if err != nil {
		return err
	}
	a.statusWrites.Add(1)
	a.mu.Lock()
	a.probed[kind+"/"+obj.GetName()] = true
	a.mu.Unlock()
	return nil
}

// memObjects lists memcloud's objects in the namespace, shared with the cache: copy one before changing it.
func (a *agents) memObjects(ctx context.Context) ([]client.Object, error) {
	mms, mcs := &v1beta2.MemMachineList{}, &v1beta2.MemClusterList{}
	if err := a.reader.List(ctx, mms, client.InNamespace(a.ns), client.UnsafeDisableDeepCopy); err != nil {
		return nil, err
	}
	if err := a.reader.List(ctx, mcs, client.InNamespace(a.ns), client.UnsafeDisableDeepCopy); err != nil {
		return nil, err
	}
	var objs []client.Object
	for i := range mms.Items {
		objs = append(objs, &mms.Items[i])
	}
	for i := range mcs.Items {
		objs = append(objs, &mcs.Items[i])
	}
	return objs, nil
}

// startFleetCache returns an informer cache of namespace ns that holds its Clusters, Machines, MemClusters and
// MemMachines, once synced; it stops at the end of the test.
func startFleetCache(t *testing.T, ns string) client.Reader {
	t.Helper()
	c, err := cache.New(env.Config, cache.Options{Scheme: env.Scheme, DefaultNamespaces: map[string]cache.Config{ns: {}},
		ReaderFailOnMissingInformer: true})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	for _, o := range []client.Object{&clusterv1.Cluster{}, &clusterv1.Machine{}, &v1beta2.MemCluster{}, &v1beta2.MemMachine{}} {
		_, err := c.GetInformer(ctx, o)
		require.NoError(t, err)
	}
	go func() { _ = c.Start(ctx) }()
	syncCtx, cancelSync := context.WithTimeout(ctx, time.Minute)
	defer cancelSync()
	require.True(t, c.WaitForCacheSync(syncCtx), "the chaos test's cache must sync")
	return c
}

// monkey restarts memcloud's manager at random times, 5 to 15 s after it last came back, whenever the
// progress of the current phase passes one of its thresholds, and at once when it has stopped by itself. The interval counts from the end of a restart,
// when the new manager's controllers have synced their informers: a restart of a large fleet's manager takes
// seconds (its caches list every Machine), and counting from its start would leave the manager less and less
// time to work as the fleet grows.
func (a *agents) monkey(ctx context.Context, rng *rand.Rand) {
	next := time.Now().Add(randomInterval(rng))
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		progress, err := a.progress(ctx)
		if err != nil {
			continue
		}
		a.mu.Lock()
		pending := a.restartAt[a.phase]
		due := len(pending) > 0 && progress >= pending[0]
		if due {
			a.restartAt[a.phase] = pending[1:]
		}
		a.mu.Unlock()
		if !due && time.Now().Before(next) && !a.p.exited() {
			continue
		}
		// No bound but the test's: after a fleet's Clusters are deleted at once, the API server's watch of
		// Machines can lag for minutes, and the new manager's informers wait for it (the phases' waits bound
		// the whole; the figures report the slowest restart).
		err = a.p.Restart(ctx)
		next = time.Now().Add(randomInterval(rng))
		if err != nil && ctx.Err() == nil {
			a.mu.Lock()
			a.errs = append(a.errs, err)
			a.mu.Unlock()
		}
	}
}

func randomInterval(rng *rand.Rand) time.Duration {
	return 5*time.Second + time.Duration(rng.Int64N(int64(10*time.Second)))
}

// progress counts provisioned memcloud objects while provisioning, and deleted ones while deleting.
func (a *agents) progress(ctx context.Context) (int, error) {
	mms, mcs := &v1beta2.MemMachineList{}, &v1beta2.MemClusterList{}
	if err := a.reader.List(ctx, mms, client.InNamespace(a.ns), client.UnsafeDisableDeepCopy); err != nil {
		return 0, err
	}
	if err := a.reader.List(ctx, mcs, client.InNamespace(a.ns), client.UnsafeDisableDeepCopy); err != nil {
		return 0, err
	}
	a.mu.Lock()
	deleting := a.phase == phaseDelete
	clusters := len(a.withWork)
	a.mu.Unlock()
	if deleting {
		return clusters*(1+1+a.workers) - len(mms.Items) - len(mcs.Items), nil
	}
	n := 0
	for _, m := range mms.Items {
		if ptr.Deref(m.Status.Initialization.Provisioned, false) {
			n++
		}
	}
	for _, c := range mcs.Items {
		if ptr.Deref(c.Status.Initialization.Provisioned, false) {
			n++
		}
	}
	return n, nil
}

package e2e_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	bootstrapv1 "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
)

// chaosCondition is the condition type the conflict agent writes into memcloud's objects, as another
// controller would; memcloud must never drop it.
const chaosCondition = "ChaosProbe"

// agents are the goroutines of the chaos test besides the managers: the user and kubelets (workers once the
// control plane is initialized, a Node per provisioned Machine), another writer that provokes conflicts on
// memcloud's objects, and the chaos monkey that restarts memcloud's manager.
type agents struct {
	ns      string
	workers int
	p       *provider
	cancel  context.CancelFunc
	wg      sync.WaitGroup

	mu        sync.Mutex
	nodes     []string         // Nodes created
	withWork  map[string]bool  // clusters whose workers are created
	probed    map[string]bool  // "Kind/name" of objects that hold chaosCondition
	restartAt map[string][]int // phase → progress thresholds not reached yet
	phase     string
	errs      []error

	labelWrites, statusWrites, ownConflicts atomic.Int64

	// Owned by the conflict agent's goroutine.
	pokes   int
	targets []client.Object
}

const (
	phaseProvision = "provision"
	phaseDelete    = "delete"
)

// startAgents starts the agents; restarts lists, per phase, the progress values (provisioned, then deleted
// memcloud objects) at which the manager is restarted, besides the restarts at random times.
func startAgents(p *provider, ns string, workers int, seed uint64, restarts map[string][]int) *agents {
	ctx, cancel := context.WithCancel(context.Background())
	a := &agents{ns: ns, workers: workers, p: p, cancel: cancel, withWork: map[string]bool{}, probed: map[string]bool{},
		restartAt: restarts, phase: phaseProvision}
	a.loop(ctx, 500*time.Millisecond, a.userAndKubelets)
	rng := rand.New(rand.NewPCG(seed, 1))
	a.loop(ctx, 30*time.Millisecond, func(ctx context.Context) error { return a.provokeConflict(ctx, rng) })
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
	return slices.Clone(a.nodes)
}

// Probed returns the "Kind/name" of the objects the conflict agent wrote its condition into.
func (a *agents) Probed() map[string]bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make(map[string]bool, len(a.probed))
	for k, v := range a.probed {
		out[k] = v
	}
	return out
}

// userAndKubelets creates the workers of each cluster whose control plane is initialized, and a Ready Node
// for each Machine whose infrastructure is provisioned.
func (a *agents) userAndKubelets(ctx context.Context) error {
	a.mu.Lock()
	provisioning := a.phase == phaseProvision
	a.mu.Unlock()
	if provisioning {
		clusters := &clusterv1.ClusterList{}
		if err := env.Client.List(ctx, clusters, client.InNamespace(a.ns)); err != nil {
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
	}
	machines := &clusterv1.MachineList{}
	if err := env.Client.List(ctx, machines, client.InNamespace(a.ns)); err != nil {
		return err
	}
	for _, m := range machines.Items {
		a.mu.Lock()
		joined := slices.Contains(a.nodes, m.Name)
		a.mu.Unlock()
		if joined || m.Spec.ProviderID == "" || !ptr.Deref(m.Status.Initialization.InfrastructureProvisioned, false) {
			continue
		}
		if err := joinNode(ctx, m.Name, m.Spec.ProviderID); err != nil {
			return err
		}
		a.mu.Lock()
		a.nodes = append(a.nodes, m.Name)
		a.mu.Unlock()
	}
	return nil
}

// provokeConflict writes to one of memcloud's objects, picked at random, as another controller would: a
// label through a merge patch, or its own condition through a status update guarded by resourceVersion.
// Either moves the resourceVersion under memcloud's feet, so memcloud's guarded patches meet 409 Conflict.
func (a *agents) provokeConflict(ctx context.Context, rng *rand.Rand) error {
	if a.pokes%50 == 0 {
		names, err := a.memObjects(ctx)
		if err != nil {
			return err
		}
		a.targets = names
	}
	a.pokes++
	if len(a.targets) == 0 {
		return nil
	}
	obj := a.targets[rng.IntN(len(a.targets))].DeepCopyObject().(client.Object)
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

// memObjects lists memcloud's objects in the namespace.
func (a *agents) memObjects(ctx context.Context) ([]client.Object, error) {
	mms, mcs := &v1beta2.MemMachineList{}, &v1beta2.MemClusterList{}
	if err := env.Client.List(ctx, mms, client.InNamespace(a.ns)); err != nil {
		return nil, err
	}
	if err := env.Client.List(ctx, mcs, client.InNamespace(a.ns)); err != nil {
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

// monkey restarts memcloud's manager at random times, and whenever the progress of the current phase passes
// one of its thresholds.
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
		if !due && time.Now().Before(next) {
			continue
		}
		next = time.Now().Add(randomInterval(rng))
		restartCtx, cancel := context.WithTimeout(ctx, time.Minute)
		err = a.p.Restart(restartCtx)
		cancel()
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
	if err := env.Client.List(ctx, mms, client.InNamespace(a.ns)); err != nil {
		return 0, err
	}
	if err := env.Client.List(ctx, mcs, client.InNamespace(a.ns)); err != nil {
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

package bench_test

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	goruntime "runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/memcloudtest"
	"github.com/capkit/capkit/providertest/testenv"
)

// fleetSizes are the fleets BenchmarkFleet provisions: 100 and 1000, or the comma-separated sizes in
// CAPKIT_FLEET_SIZES (make bench-fleet-10k: 1000,10000).
func fleetSizes(b *testing.B) []int {
	v := os.Getenv("CAPKIT_FLEET_SIZES")
	if v == "" {
		return []int{100, 1000}
	}
	var out []int
	for f := range strings.SplitSeq(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 || n > 16000 {
			b.Fatalf("CAPKIT_FLEET_SIZES=%q: %q is not a fleet size from 1 to 16000", v, f)
		}
		out = append(out, n)
	}
	return out
}

// heapInUse returns the live heap after a collection.
func heapInUse() uint64 {
	goruntime.GC()
	var ms goruntime.MemStats
	goruntime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// BenchmarkFleet measures capkit against a floor on one API server, one manager and one cloud. For each
// size n it provisions two fleets of n worker MemMachines, each in one cluster of its own namespace: first
// the floor's (the floor controller: the least any provider must do, see floor), then capkit's (memcloud's
// controllers). Untimed: the Cluster (and for capkit the MemCluster, provisioned by its controller), every
// Machine and bootstrap Secret. Timed: creating the MemMachines (as Cluster API's MachineSet controller does)
// until the manager's informer has seen every one provisioned. Reported per machine, for capkit and as a
// ratio to the floor (ratio-*): the API writes, every HTTP request the manager sent (reads, watches and
// events included), both counted until the manager is idle again, the time, and the growth of the process's
// live heap. overhead-growth is capkit's time ratio to the floor at n divided by the same ratio at the first
// size: above 1, capkit's own cost per machine grows with the fleet.
//
// Then the manager is restarted on the same cloud with every fleet provisioned (startup-*): the time until
// every capkit machine has had its no-op reconcile, the API requests that are not an informer's list or
// watch (an error when there is one), and the cloud reads per machine.
//
// CAPKIT_FLEET_PROFILE=<dir> writes CPU and allocation profiles of each timed run there. Every iteration
// provisions whole fleets: run it with -benchtime=1x.
func BenchmarkFleet(b *testing.B) {
	ctx := context.Background()
	owner := b
	env, p, rc := startCountedProvider(b)
	sizes := fleetSizes(b)
	var firstRatio float64
	for _, n := range sizes {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			if b.N > 3 {
				b.Fatalf("BenchmarkFleet provisions %d machines per iteration, b.N=%d: run it with -benchtime=1x", n, b.N)
			}
			var fl, ck fleetRun
			var st startup
			for range b.N {
				fl.add(runFleet(ctx, b, rc, n, floorFleet, func() *fleet { return newFloorFleet(ctx, b, env, p, n) }))
				ck.add(runFleet(ctx, b, rc, n, capkitFleet, func() *fleet { return newFleet(ctx, b, env, p.Provider, n) }))
				p, st = restartMeasured(ctx, b, owner, env, p, rc)
				if len(st.other) > 0 {
					b.Errorf("start-up with %d provisioned machines sent %d requests that are not an informer's list or watch: %v",
						st.machines, len(st.other), st.other)
				}
			}
			ratio := ck.perMachine(ck.ms()) / fl.perMachine(fl.ms())
			if firstRatio == 0 {
				firstRatio = ratio
			}
			b.ReportMetric(ck.perMachine(float64(ck.writes)), "writes/machine")
			b.ReportMetric(ck.perMachine(float64(len(ck.requests))), "requests/machine")
			b.ReportMetric(ck.perMachine(ck.ms()), "ms/machine")
			b.ReportMetric(ck.perMachine(ck.heap)/1024, "heapKiB/machine")
			b.ReportMetric(fl.perMachine(fl.ms()), "floor-ms/machine")
			b.ReportMetric(ratio, "ratio-ms")
			b.ReportMetric(float64(len(ck.requests))/float64(len(fl.requests)), "ratio-requests")
			b.ReportMetric(ck.heap/fl.heap, "ratio-heap")
			b.ReportMetric(ratio/firstRatio, "overhead-growth")
			b.ReportMetric(st.elapsed.Seconds(), "startup-s")
			b.ReportMetric(float64(len(st.other)), "startup-requests")
			b.ReportMetric(float64(st.reads)/float64(st.machines), "startup-cloudreads/machine")
			b.Logf("capkit requests per machine: %s", requestMix(ck.requests, float64(ck.machines)))
			b.Logf("floor requests per machine: %s", requestMix(fl.requests, float64(fl.machines)))
			b.Logf("start-up with %d capkit machines and %d MemClusters provisioned: %s until every one was reconciled, %d lists and watches, %d other requests, %d cloud reads, %d cloud writes",
				st.machines, st.clusters, st.elapsed.Round(time.Millisecond), st.lists, len(st.other), st.reads, st.mutations)
		})
	}
}

// fleetRun sums the figures of the timed runs of one fleet kind.
type fleetRun struct {
	machines, writes int
	requests         []string
	elapsed          time.Duration
	heap             float64
}

func (r *fleetRun) add(o fleetRun) {
	r.machines += o.machines
	r.writes += o.writes
	r.requests = append(r.requests, o.requests...)
	r.elapsed += o.elapsed
	r.heap += o.heap
}

func (r *fleetRun) ms() float64                      { return float64(r.elapsed.Microseconds()) / 1000 }
func (r *fleetRun) perMachine(total float64) float64 { return total / float64(r.machines) }

// runFleet makes a fleet (untimed), then times creating its MemMachines until all are provisioned, and
// counts the manager's requests until it is idle again.
func runFleet(ctx context.Context, b *testing.B, rc *requestCounter, n int, kind string, make func() *fleet) fleetRun {
	b.StopTimer()
	before := heapInUse()
	f := make()
	rc.take()
	stop := startProfile(b, kind, n)
	b.StartTimer()
	start := time.Now()
	f.createMemMachines(ctx, b)
	f.waitProvisioned(ctx, b)
	elapsed := time.Since(start)
	b.StopTimer()
	stop()
	waitIdle(ctx, b)
	reqs := rc.take()
	writes := 0
	for _, r := range reqs {
		if method, _, _ := strings.Cut(r, " "); method != http.MethodGet {
			writes++
		}
	}
	return fleetRun{machines: n, writes: writes, requests: reqs, elapsed: elapsed, heap: float64(heapInUse()) - float64(before)}
}

// startProfile starts a CPU profile into $CAPKIT_FLEET_PROFILE/cpu-<kind>-<n>.pprof, and returns the function
// that stops it and writes the allocations since then (allocs-<kind>-<n>.pprof, to read with
// go tool pprof -sample_index=alloc_space -base allocs-<kind>-<n>.base.pprof allocs-<kind>-<n>.pprof).
func startProfile(b *testing.B, kind string, n int) func() {
	dir := os.Getenv("CAPKIT_FLEET_PROFILE")
	if dir == "" {
		return func() {}
	}
	name := func(what string) string { return filepath.Join(dir, fmt.Sprintf("%s-%s-%d.pprof", what, kind, n)) }
	writeAllocs := func(path string) {
		f, err := os.Create(path)
		must(b, err)
		defer f.Close()
		must(b, pprof.Lookup("allocs").WriteTo(f, 0))
	}
	must(b, os.MkdirAll(dir, 0o755))
	writeAllocs(name("allocs") + ".base")
	cpu, err := os.Create(name("cpu"))
	must(b, err)
	must(b, pprof.StartCPUProfile(cpu))
	return func() {
		pprof.StopCPUProfile()
		must(b, cpu.Close())
		writeAllocs(name("allocs"))
	}
}

// fleet is one cluster of n worker machines in its own namespace, for capkit (watch filter capkitFleet) or
// the floor (floorFleet).
type fleet struct {
	env      *testenv.Environment
	provider *memcloudtest.Provider
	ns       string
	kind     string
	machines []*unstructured.Unstructured
}

// newFleet creates the Cluster and the MemCluster of a capkit fleet, waits until the controller provisioned
// the MemCluster, marks the Cluster's infrastructure provisioned (Cluster API's part), and creates the
// Machines and their bootstrap Secrets.
func newFleet(ctx context.Context, b testing.TB, env *testenv.Environment, p *memcloudtest.Provider, n int) *fleet {
	b.Helper()
	f, cluster := createFleetCluster(ctx, b, env, p, capkitFleet)
	mc := &v1beta2.MemCluster{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: f.ns, Name: clusterName,
			Labels:          f.labels(),
			OwnerReferences: []metav1.OwnerReference{controllerRef(cluster)},
		},
		// A /18 worker subnet (16,382 addresses): the default /24 holds 254 machines.
		Spec: v1beta2.MemClusterSpec{Network: v1beta2.NetworkSpec{CIDR: "10.0.0.0/16", Subnets: []v1beta2.SubnetSpec{
			{Name: "controlplane", CIDR: "10.0.0.0/24", Role: v1beta2.SubnetRoleControlPlane},
			{Name: "worker", CIDR: "10.0.64.0/18", Role: v1beta2.SubnetRoleWorker},
		}}},
	}
	must(b, env.Client.Create(ctx, mc))
	poll(ctx, b, time.Minute, "the MemCluster provisioned", func() (bool, error) {
		err := env.Client.Get(ctx, client.ObjectKeyFromObject(mc), mc)
		return ptr.Deref(mc.Status.Initialization.Provisioned, false), err
	})
	f.provisionCluster(ctx, b, cluster, mc.Spec.ControlPlaneEndpoint)
	f.createMachines(ctx, b, n)
	return f
}

// newFloorFleet creates the Cluster of a floor fleet and its network in the cloud (no MemCluster), marks the
// Cluster provisioned, and creates the Machines and their bootstrap Secrets.
func newFloorFleet(ctx context.Context, b testing.TB, env *testenv.Environment, p *countedProvider, n int) *fleet {
	b.Helper()
	f, cluster := createFleetCluster(ctx, b, env, p.Provider, floorFleet)
	must(b, p.floor.network(ctx, f.ns))
	f.provisionCluster(ctx, b, cluster, contract.APIEndpoint{Host: "10.0.0.1", Port: 6443})
	f.createMachines(ctx, b, n)
	return f
}

// createFleetCluster creates the namespace and the Cluster of a fleet of kind.
func createFleetCluster(ctx context.Context, b testing.TB, env *testenv.Environment, p *memcloudtest.Provider, kind string) (*fleet, *unstructured.Unstructured) {
	b.Helper()
	ns, err := env.CreateNamespace(ctx, "fleet-"+kind)
	must(b, err)
	f := &fleet{env: env, provider: p, ns: ns, kind: kind}
	cluster := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": contract.GroupName + "/v1beta2", "kind": "Cluster",
		"metadata": map[string]any{"namespace": ns, "name": clusterName, "labels": map[string]any{contract.WatchFilterLabel: kind}},
		"spec": map[string]any{
			"infrastructureRef": map[string]any{"apiGroup": v1beta2.GroupName, "kind": "MemCluster", "name": clusterName},
		},
	}}
	must(b, env.Client.Create(ctx, cluster))
	return f, cluster
}

// provisionCluster does Cluster API's part: the Cluster gets the endpoint and infrastructureProvisioned.
func (f *fleet) provisionCluster(ctx context.Context, b testing.TB, cluster *unstructured.Unstructured, endpoint contract.APIEndpoint) {
	b.Helper()
	fields := contract.Cluster(contract.V1Beta2)
	base := cluster.DeepCopy()
	must(b, fields.ControlPlaneEndpoint().Set(cluster, endpoint))
	must(b, f.env.Client.Patch(ctx, cluster, client.MergeFrom(base)))
	base = cluster.DeepCopy()
	must(b, fields.InfrastructureProvisioned().Set(cluster, true))
	must(b, f.env.Client.Status().Patch(ctx, cluster, client.MergeFrom(base)))
}

// createMachines creates n worker Machines and their bootstrap Secrets, and waits until the manager is idle.
func (f *fleet) createMachines(ctx context.Context, b testing.TB, n int) {
	b.Helper()
	f.machines = make([]*unstructured.Unstructured, n)
	parallel(b, n, func(i int) error {
		m, err := f.newMachine(ctx, fmt.Sprintf("%s-md-%d", clusterName, i), false)
		f.machines[i] = m
		return err
	})
	waitIdle(ctx, b)
}

// labels are the labels of every object of the fleet: its cluster and its watch filter.
func (f *fleet) labels() map[string]string {
	return map[string]string{contract.ClusterNameLabel: clusterName, contract.WatchFilterLabel: f.kind}
}

// newMachine creates a Machine of the fleet's cluster and its bootstrap Secret.
func (f *fleet) newMachine(ctx context.Context, name string, controlPlane bool) (*unstructured.Unstructured, error) {
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: name, Labels: f.labels()},
		Type:       "cluster.x-k8s.io/secret",
		Data: map[string][]byte{
			contract.BootstrapDataKey: memcloudtest.BootstrapData(clusterName, name, controlPlane),
			"format":                  []byte("cloud-config"),
		},
	}
	if err := f.env.Client.Create(ctx, secret); err != nil {
		return nil, err
	}
	labels := map[string]any{}
	for k, v := range f.labels() {
		labels[k] = v
	}
	if controlPlane {
		labels[contract.ControlPlaneLabel] = ""
	}
	m := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": contract.GroupName + "/v1beta2", "kind": "Machine",
		"metadata": map[string]any{"namespace": f.ns, "name": name, "labels": labels},
		"spec": map[string]any{
			"clusterName":       clusterName,
			"version":           "v1.35.0",
			"bootstrap":         map[string]any{"dataSecretName": name},
			"infrastructureRef": map[string]any{"apiGroup": v1beta2.GroupName, "kind": "MemMachine", "name": name},
		},
	}}
	return m, f.env.Client.Create(ctx, m)
}

// createMemMachines creates one MemMachine per Machine, owned by it.
func (f *fleet) createMemMachines(ctx context.Context, b testing.TB) {
	b.Helper()
	parallel(b, len(f.machines), func(i int) error {
		m := f.machines[i]
		labels := f.labels()
		if _, cp := m.GetLabels()[contract.ControlPlaneLabel]; cp {
			labels[contract.ControlPlaneLabel] = ""
		}
		return f.env.Client.Create(ctx, &v1beta2.MemMachine{ObjectMeta: metav1.ObjectMeta{
			Namespace: f.ns, Name: m.GetName(),
			Labels:          labels,
			OwnerReferences: []metav1.OwnerReference{controllerRef(m)},
		}})
	})
}

// waitProvisioned waits until the manager's MemMachine informer has seen every MemMachine of the fleet
// provisioned. It counts the informer's events: it lists nothing, so its cost does not grow with the fleet.
func (f *fleet) waitProvisioned(ctx context.Context, b testing.TB) {
	b.Helper()
	inf, err := f.provider.Manager.GetCache().GetInformer(ctx, &v1beta2.MemMachine{})
	must(b, err)
	var mu sync.Mutex
	seen := make(map[string]bool, len(f.machines))
	done := make(chan struct{})
	observe := func(obj any) {
		mm, ok := obj.(*v1beta2.MemMachine)
		if !ok || mm.Namespace != f.ns || !mm.IsProvisioned() {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if !seen[mm.Name] {
			seen[mm.Name] = true
			if len(seen) == len(f.machines) {
				close(done)
			}
		}
	}
	// The informer replays what it holds as adds: a machine provisioned before the handler counts too.
	reg, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc: observe, UpdateFunc: func(_, obj any) { observe(obj) },
	})
	must(b, err)
	defer func() { must(b, inf.RemoveEventHandler(reg)) }()
	timeout := max(10*time.Minute, time.Duration(len(f.machines))*100*time.Millisecond)
	select {
	case <-done:
	case <-time.After(timeout):
		mu.Lock()
		defer mu.Unlock()
		b.Fatalf("waiting for %d MemMachines provisioned: %d after %s", len(f.machines), len(seen), timeout)
	case <-ctx.Done():
		b.Fatal(ctx.Err())
	}
}

// requestMix summarizes requests per machine by method, resource and subresource, e.g.
// "PATCH memmachines/status 1.00".
func requestMix(reqs []string, machines float64) string {
	counts := map[string]int{}
	for _, r := range reqs {
		method, path, _ := strings.Cut(r, " ")
		path, _, _ = strings.Cut(path, "?")
		parts := strings.Split(strings.Trim(path, "/"), "/")
		key := method + " " + path
		if i := slices.Index(parts, "namespaces"); i >= 0 && i+2 < len(parts) {
			key = method + " " + strings.Join(parts[i+2:i+3], "")
			if i+4 < len(parts) {
				key += "/" + parts[i+4]
			}
		}
		counts[key]++
	}
	keys := slices.Sorted(maps.Keys(counts))
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		out = append(out, fmt.Sprintf("%s %.2f", k, float64(counts[k])/machines))
	}
	return strings.Join(out, ", ")
}

func controllerRef(owner *unstructured.Unstructured) metav1.OwnerReference {
	return metav1.OwnerReference{
		APIVersion: owner.GetAPIVersion(), Kind: owner.GetKind(), Name: owner.GetName(), UID: owner.GetUID(),
		Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
	}
}

// parallel runs do(0..n-1) on 4 workers, as a few controllers creating objects at once, and fails b on the
// first error.
func parallel(b testing.TB, n int, do func(i int) error) {
	b.Helper()
	const workers = 4
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < n; i += workers {
				if err := do(i); err != nil {
					errs[w] = err
					return
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		must(b, err)
	}
}

// poll calls done every 50ms until it returns true, and fails b after timeout.
func poll(ctx context.Context, b testing.TB, timeout time.Duration, what string, done func() (bool, error), state ...func() string) {
	b.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, err := done()
		switch {
		case err != nil:
			b.Fatalf("waiting for %s: %v", what, err)
		case ok:
			return
		case time.Now().After(deadline):
			var last string
			for _, f := range state {
				last += " (" + f() + ")"
			}
			b.Fatalf("waiting for %s: not done after %s%s", what, timeout, last)
		}
		select {
		case <-ctx.Done():
			b.Fatal(ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// waitIdle waits until every controller's work queue is empty and no reconcile is running, twice in a row
// 50ms apart, from controller-runtime's work queue metrics. The metrics are per controller name and shared by
// every manager of the process, so a provider must be idle when it stops (stopIdle): a queue shut down with
// items in it leaves its depth counted for good.
func waitIdle(ctx context.Context, b testing.TB) {
	b.Helper()
	quiet := 0
	var busy []string
	poll(ctx, b, 5*time.Minute, "the controllers to be idle", func() (bool, error) {
		var err error
		busy, err = queuesBusy()
		if err != nil || len(busy) > 0 {
			quiet = 0
			return false, err
		}
		quiet++
		return quiet >= 2, nil
	}, func() string { return fmt.Sprintf("busy: %v", busy) })
}

// queuesBusy returns the work queues that hold items or run a reconcile, as "metric{controller}".
func queuesBusy() ([]string, error) {
	families, err := crmetrics.Registry.Gather()
	if err != nil {
		return nil, err
	}
	var busy []string
	for _, fam := range families {
		switch fam.GetName() {
		case "workqueue_depth", "workqueue_unfinished_work_seconds":
			for _, m := range fam.GetMetric() {
				if m.GetGauge().GetValue() > 0 {
					busy = append(busy, fmt.Sprintf("%s{%s}=%g", fam.GetName(), labelValue(m, "name"), m.GetGauge().GetValue()))
				}
			}
		}
	}
	return busy, nil
}

// labelValue returns the value of m's label name, "" without it.
func labelValue(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

func must(b testing.TB, err error) {
	b.Helper()
	if err != nil {
		b.Fatal(err)
	}
}

package bench_test

import (
	"context"
	"fmt"
	"maps"
	"os"
	goruntime "runtime"
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

// BenchmarkFleet runs memcloud's manager in-process on envtest and provisions a fleet of worker
// MemMachines in one cluster. Untimed: the Cluster and MemCluster (provisioned by the controller), and
// every Machine and bootstrap Secret. Timed: creating the MemMachines (as Cluster API's MachineSet
// controller does) until every one is provisioned. Reported per machine: the provider's API writes
// (writes/machine), every HTTP request the manager sent, reads, watches and events included
// (requests/machine), both counted until the manager is idle again, the time (ms/machine), and the growth of
// the process's live heap (heapKiB/machine: the manager's caches and the cloud's records of the fleet, plus
// the benchmark's own Machines). Every iteration provisions a whole fleet: run it with -benchtime=1x.
func BenchmarkFleet(b *testing.B) {
	ctx := context.Background()
	env, p, rc := startCountedProvider(b)
	for _, n := range fleetSizes(b) {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			if b.N > 3 {
				b.Fatalf("BenchmarkFleet provisions %d machines per iteration, b.N=%d: run it with -benchtime=1x", n, b.N)
			}
			var writes int
			var elapsed time.Duration
			var requests []string
			var heap float64
			for range b.N {
				b.StopTimer()
				before := heapInUse()
				f := newFleet(ctx, b, env, p, n)
				rc.take()
				p.Writes.Reset()
				b.StartTimer()
				start := time.Now()
				f.createMemMachines(ctx, b)
				f.waitProvisioned(ctx, b)
				elapsed += time.Since(start)
				b.StopTimer()
				waitIdle(ctx, b)
				writes += p.Writes.Writes()
				requests = append(requests, rc.take()...)
				heap += float64(heapInUse()) - float64(before)
			}
			machines := float64(n * b.N)
			b.ReportMetric(float64(writes)/machines, "writes/machine")
			b.ReportMetric(float64(len(requests))/machines, "requests/machine")
			b.ReportMetric(float64(elapsed.Milliseconds())/machines, "ms/machine")
			b.ReportMetric(heap/1024/machines, "heapKiB/machine")
			b.Logf("requests per machine: %s", requestMix(requests, machines))
		})
	}
}

// fleet is one cluster of n worker machines in its own namespace.
type fleet struct {
	env      *testenv.Environment
	provider *memcloudtest.Provider
	ns       string
	machines []*unstructured.Unstructured
}

// newFleet creates the Cluster and the MemCluster, waits until the controller provisioned the MemCluster,
// marks the Cluster's infrastructure provisioned (Cluster API's part), and creates the Machines and their
// bootstrap Secrets.
func newFleet(ctx context.Context, b testing.TB, env *testenv.Environment, p *memcloudtest.Provider, n int) *fleet {
	b.Helper()
	ns, err := env.CreateNamespace(ctx, "fleet")
	if err != nil {
		b.Fatal(err)
	}
	f := &fleet{env: env, provider: p, ns: ns}
	cluster := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": contract.GroupName + "/v1beta2", "kind": "Cluster",
		"metadata": map[string]any{"namespace": ns, "name": clusterName},
		"spec": map[string]any{
			"infrastructureRef": map[string]any{"apiGroup": v1beta2.GroupName, "kind": "MemCluster", "name": clusterName},
		},
	}}
	must(b, env.Client.Create(ctx, cluster))
	mc := &v1beta2.MemCluster{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: ns, Name: clusterName,
			Labels:          map[string]string{contract.ClusterNameLabel: clusterName},
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
	fields := contract.Cluster(contract.V1Beta2)
	base := cluster.DeepCopy()
	must(b, fields.ControlPlaneEndpoint().Set(cluster, mc.Spec.ControlPlaneEndpoint))
	must(b, env.Client.Patch(ctx, cluster, client.MergeFrom(base)))
	base = cluster.DeepCopy()
	must(b, fields.InfrastructureProvisioned().Set(cluster, true))
	must(b, env.Client.Status().Patch(ctx, cluster, client.MergeFrom(base)))

	f.machines = make([]*unstructured.Unstructured, n)
	parallel(b, n, func(i int) error {
		m, err := f.newMachine(ctx, fmt.Sprintf("%s-md-%d", clusterName, i), false)
		f.machines[i] = m
		return err
	})
	waitIdle(ctx, b)
	return f
}

// newMachine creates a Machine of the fleet's cluster and its bootstrap Secret.
func (f *fleet) newMachine(ctx context.Context, name string, controlPlane bool) (*unstructured.Unstructured, error) {
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: name, Labels: map[string]string{contract.ClusterNameLabel: clusterName}},
		Type:       "cluster.x-k8s.io/secret",
		Data: map[string][]byte{
			contract.BootstrapDataKey: memcloudtest.BootstrapData(clusterName, name, controlPlane),
			"format":                  []byte("cloud-config"),
		},
	}
	if err := f.env.Client.Create(ctx, secret); err != nil {
		return nil, err
	}
	labels := map[string]any{contract.ClusterNameLabel: clusterName}
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
		return f.env.Client.Create(ctx, &v1beta2.MemMachine{ObjectMeta: metav1.ObjectMeta{
			Namespace: f.ns, Name: m.GetName(),
			Labels:          map[string]string{contract.ClusterNameLabel: clusterName},
			OwnerReferences: []metav1.OwnerReference{controllerRef(m)},
		}})
	})
}

// waitProvisioned waits until every MemMachine of the fleet is provisioned, reading the manager's cache.
func (f *fleet) waitProvisioned(ctx context.Context, b testing.TB) {
	b.Helper()
	timeout := max(10*time.Minute, time.Duration(len(f.machines))*100*time.Millisecond)
	poll(ctx, b, timeout, fmt.Sprintf("%d MemMachines provisioned", len(f.machines)), func() (bool, error) {
		list := &v1beta2.MemMachineList{}
		if err := f.provider.Manager.GetClient().List(ctx, list, client.InNamespace(f.ns), client.UnsafeDisableDeepCopy); err != nil {
			return false, err
		}
		done := 0
		for i := range list.Items {
			if ptr.Deref(list.Items[i].Status.Initialization.Provisioned, false) {
				done++
			}
		}
		return done == len(f.machines), nil
	})
}

// requestMix summarizes requests per machine by method, resource and subresource, e.g.
// "PATCH memmachines/status 1.00".
func requestMix(reqs []string, machines float64) string {
	counts := map[string]int{}
	for _, r := range reqs {
		method, path, _ := strings.Cut(r, " ")
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

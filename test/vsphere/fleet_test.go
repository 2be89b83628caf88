package vsphere_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	bootstrapv1 "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/capkit/capkit/examples/vspherecloud/vspheretest"
	"github.com/capkit/capkit/test/internal/capienv"
)

const kubernetesVersion = "v1.35.0"

// createCluster creates cluster ns/name of r's provider with one control plane Machine, ns/name-cp: the kubeconfig
// Secret (envtest doubles as the workload cluster), the infrastructure cluster, the Cluster, the KubeadmConfig,
// the infrastructure machine and the Machine, each edited by edits before it is created.
func (r *running) createCluster(ctx context.Context, ns, name string, edits ...func(infraCluster *unstructured.Unstructured, m *clusterv1.Machine)) error {
	kubeconfig, err := capienv.KubeconfigSecret(ns, name, env.Config)
	if err != nil {
		return err
	}
	ref := func(kind, name string) clusterv1.ContractVersionedObjectReference {
		return clusterv1.ContractVersionedObjectReference{APIGroup: r.group, Kind: kind, Name: name}
	}
	cluster := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: clusterv1.ClusterSpec{InfrastructureRef: ref("VSphereCluster", name)}}
	m := name + "-cp"
	machine := &clusterv1.Machine{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: m,
			Labels: map[string]string{clusterv1.ClusterNameLabel: name, clusterv1.MachineControlPlaneLabel: ""}},
		Spec: clusterv1.MachineSpec{ClusterName: name, Version: kubernetesVersion,
			Bootstrap: clusterv1.Bootstrap{ConfigRef: clusterv1.ContractVersionedObjectReference{
				APIGroup: bootstrapv1.GroupVersion.Group, Kind: "KubeadmConfig", Name: m}},
			InfrastructureRef: ref("VSphereMachine", m)},
	}
	config := &bootstrapv1.KubeadmConfig{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: m},
		Spec: bootstrapv1.KubeadmConfigSpec{InitConfiguration: bootstrapv1.InitConfiguration{
			NodeRegistration: bootstrapv1.NodeRegistrationOptions{Name: "{{ ds.meta_data.local_hostname }}"}}}}
	infraCluster := r.infraCluster(ns, name, r.vc)
	for _, edit := range edits {
		edit(infraCluster, machine)
	}
	return capienv.CreateAll(ctx, env.Client, kubeconfig, infraCluster, cluster, config, r.infraMachine(ns, m), machine)
}

// namespace creates a namespace for a run of r, with what r's clusters need in it.
func (r *running) namespace(ctx context.Context, prefix string) string {
	r.tb.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-"}}
	if err := env.Client.Create(ctx, ns); err != nil {
		r.tb.Fatal(err)
	}
	if err := r.prepare(ctx, r.w, ns.Name); err != nil {
		r.tb.Fatal(err)
	}
	return ns.Name
}

// provisioned returns how many Machines of ns have their infrastructure provisioned and a providerID.
func provisioned(ctx context.Context, ns string) (int, error) {
	var machines clusterv1.MachineList
	if err := env.Client.List(ctx, &machines, client.InNamespace(ns)); err != nil {
		return 0, err
	}
	n := 0
	for _, m := range machines.Items {
		if m.Spec.ProviderID != "" && ptr.Deref(m.Status.Initialization.InfrastructureProvisioned, false) {
			n++
		}
	}
	return n, nil
}

// waitFor polls cond every 250ms until it holds or timeout passes.
func waitFor(ctx context.Context, timeout time.Duration, what string, cond func() (bool, error)) error {
	deadline := time.Now().Add(timeout)
	for {
		ok, err := cond()
		if err != nil {
			return fmt.Errorf("cannot wait until %s: %w", what, err)
		}
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not %s after %s", what, timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// waitProvisioned waits until n Machines of ns are provisioned.
func waitProvisioned(ctx context.Context, ns string, n int, timeout time.Duration) error {
	return waitFor(ctx, timeout, fmt.Sprintf("%d Machines of %s provisioned", n, ns), func() (bool, error) {
		got, err := provisioned(ctx, ns)
		return got >= n, err
	})
}

// deleteClusters deletes every Cluster of ns in the API server of c and waits until they are gone.
func deleteClusters(ctx context.Context, c client.Client, ns string, timeout time.Duration) error {
	if err := c.DeleteAllOf(ctx, &clusterv1.Cluster{}, client.InNamespace(ns)); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	return waitFor(ctx, timeout, "every Cluster of "+ns+" deleted", func() (bool, error) {
		var clusters clusterv1.ClusterList
		err := c.List(ctx, &clusters, client.InNamespace(ns))
		return len(clusters.Items) == 0, err
	})
}

// fleetTimeout bounds provisioning or deleting n machines: it only stops a run that does not converge.
func fleetTimeout(n int) time.Duration { return 2*time.Minute + time.Duration(n)*3*time.Second }

// fleet is what a provider did for a fleet of N single-machine clusters.
type fleet struct {
	provider              string
	n                     int
	provision, delete     time.Duration
	vcProvision, vcIdle   int // vCenter requests
	vcDelete              int
	k8sProvision, k8sIdle int // Kubernetes API requests, watches opened not included
	k8sDelete             int
	writes                int // Kubernetes API writes, provision and delete
	idle                  time.Duration
	vcKinds               map[string]int // vCenter requests while provisioning, by kind
	latency               latency        // per Machine, from bootstrap data ready to infrastructure ready
	vms, clones, left     int
	usage                 capienv.Usage
}

// runFleet provisions n clusters of one control plane Machine each with r, runs then (nil: nothing) on the
// namespace, leaves them for idle, deletes them, and reports what it took.
func runFleet(ctx context.Context, r *running, n int, idle time.Duration, then func(ctx context.Context, ns string) error) (fleet, error) {
	ns := r.namespace(ctx, fmt.Sprintf("%s-fleet-%d", r.name, n))
	f := fleet{provider: r.name, n: n, idle: idle}
	clones0 := r.w.sim.Clones()
	cpu0 := r.used().CPU
	r.vc.Requests.Reset()
	r.k8s.Requests.Reset()
	calls, data := newFirsts(), newFirsts()
	r.w.sim.OnClone(calls.record)
	defer r.w.sim.OnClone(nil)
	watchCtx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	if err := watchBootstrapData(watchCtx, ns, data); err != nil {
		return f, err
	}
	start := time.Now()
	for i := range n {
		if err := r.createCluster(ctx, ns, fmt.Sprintf("%s-%d", r.name, i)); err != nil {
			return f, err
		}
	}
	err := waitProvisioned(ctx, ns, n, fleetTimeout(n))
	if err != nil {
		return f, err
	}
	f.provision = time.Since(start)
	f.vcProvision, f.k8sProvision, f.writes = r.vc.Requests.Total(), apiCalls(r), r.k8s.Requests.Writes()
	f.vcKinds = r.vc.Requests.ByKind()
	if f.latency, err = providerLatency(ctx, r.w.sim, data, calls, ns); err != nil {
		return f, err
	}
	f.vms, f.clones = r.w.sim.VMs(r.tb), r.w.sim.Clones()-clones0
	if then != nil {
		if err := then(ctx, ns); err != nil {
			return f, err
		}
	}

	r.vc.Requests.Reset()
	r.k8s.Requests.Reset()
	time.Sleep(idle)
	f.vcIdle, f.k8sIdle = r.vc.Requests.Total(), apiCalls(r)

	r.vc.Requests.Reset()
	r.k8s.Requests.Reset()
	start = time.Now()
	if err := deleteClusters(ctx, env.Client, ns, fleetTimeout(n)); err != nil {
		return f, err
	}
	f.delete = time.Since(start)
	f.vcDelete, f.k8sDelete = r.vc.Requests.Total(), apiCalls(r)
	f.writes += r.k8s.Requests.Writes()
	f.left = r.w.sim.VMs(r.tb)
	if err := deleteNodes(ctx); err != nil {
		return f, err
	}
	f.usage = r.used()
	f.usage.CPU -= cpu0
	return f, nil
}

// apiCalls returns r's Kubernetes API requests since the last reset, watches opened not included.
func apiCalls(r *running) int { return r.k8s.Requests.Total() - r.k8s.Requests.ByVerb()["watch"] }

// crash is what a crash test left.
type crash struct {
	provider    string
	machines    int
	vms, clones int // VMs once every clone ended, and clones started
	left        int // VMs left once every Cluster was deleted
	provisioned int // Machines provisioned within crashProvisionWait of the clones' end
}

// crashProvisionWait bounds how long a crash test waits for the Machines to provision once the clones have ended:
// five of either provider's 10 s polls and then some, far less than a provider's resync period (10 min).
const crashProvisionWait = 2 * time.Minute

// holdFor is how long each clone takes on the simulator's clock during a crash test: longer than the test, so
// that a clone ends only when the test lets it.
const holdFor = time.Hour

// crashDuringClone kills r's manager the moment its first clone call reaches vCenter (before the manager has
// its answer, so before it can record the task), starts it again, lets the clones end, and counts the VMs, then
// deletes the clusters and counts what is left.
func crashDuringClone(ctx context.Context, r *running, machines int, settle time.Duration) (crash, error) {
	c := crash{provider: r.name, machines: machines}
	ns := r.namespace(ctx, r.name+"-crash")
	clones0 := r.w.sim.Clones()
	r.w.sim.SetCloneTime(holdFor)
	killed := make(chan error, 1)
	var once atomic.Bool
	proc := r.proc
	r.w.sim.OnClone(func(string) {
		if once.CompareAndSwap(false, true) {
			killed <- proc.Kill()
		}
	})
	defer r.w.sim.OnClone(nil)
	for i := range machines {
		if err := r.createCluster(ctx, ns, fmt.Sprintf("%s-crash-%d", r.name, i)); err != nil {
			return c, err
		}
	}
	select {
	case err := <-killed:
		if err != nil {
			return c, err
		}
	case <-time.After(fleetTimeout(machines)):
		return c, fmt.Errorf("%s started no clone", r.name)
	}
	// The killed manager's usage is lost with it: crash runs are not measured for CPU and memory.
	r.startManager()
	// The new manager meets the clones in flight (vCenter runs them; their VMs do not exist yet).
	time.Sleep(settle)
	r.w.sim.SetCloneTime(0)
	r.w.sim.Advance(holdFor)
	_ = waitProvisioned(ctx, ns, machines, crashProvisionWait) // not all provisioned is a result, not an error
	n, err := provisioned(ctx, ns)
	if err != nil {
		return c, err
	}
	c.provisioned = n
	c.vms, c.clones = r.w.sim.VMs(r.tb), r.w.sim.Clones()-clones0
	if err := deleteClusters(ctx, env.Client, ns, fleetTimeout(machines)); err != nil {
		return c, err
	}
	c.left = r.w.sim.VMs(r.tb)
	return c, nil
}

// deleteDuringClone deletes the clusters while their clones run, lets the clones end, and counts what is left.
func deleteDuringClone(ctx context.Context, r *running, machines int, settle time.Duration) (crash, error) {
	c := crash{provider: r.name, machines: machines}
	ns := r.namespace(ctx, r.name+"-early-delete")
	clones0 := r.w.sim.Clones()
	r.w.sim.SetCloneTime(holdFor)
	for i := range machines {
		if err := r.createCluster(ctx, ns, fmt.Sprintf("%s-early-%d", r.name, i)); err != nil {
			return c, err
		}
	}
	if err := waitFor(ctx, fleetTimeout(machines), "every clone started", func() (bool, error) {
		return r.w.sim.Clones()-clones0 >= machines, nil
	}); err != nil {
		return c, err
	}
	if err := env.Client.DeleteAllOf(ctx, &clusterv1.Cluster{}, client.InNamespace(ns)); err != nil {
		return c, err
	}
	time.Sleep(settle) // the provider meets the delete while the clones run
	r.w.sim.SetCloneTime(0)
	r.w.sim.Advance(holdFor)
	if err := deleteClusters(ctx, env.Client, ns, fleetTimeout(machines)); err != nil {
		return c, err
	}
	// A VM whose clone ended after its machine was forgotten appears only now; give any late clone its time.
	r.w.sim.Advance(holdFor)
	c.vms, c.clones = r.w.sim.VMs(r.tb), r.w.sim.Clones()-clones0
	c.left = c.vms
	return c, nil
}

// deleteNodes deletes the Nodes the harness created (Cluster API keeps the last control plane Node of a cluster).
func deleteNodes(ctx context.Context) error {
	var nodes corev1.NodeList
	if err := env.Client.List(ctx, &nodes); err != nil {
		return err
	}
	names := make([]string, 0, len(nodes.Items))
	for _, n := range nodes.Items {
		names = append(names, n.Name)
	}
	return capienv.DeleteNodes(ctx, env.Client, names...)
}

// firsts records when something first happened to each of a set of objects, by name: the clone of each VM asked
// for (vspheretest.Simulator.OnClone), each Machine given its bootstrap data (watchBootstrapData).
type firsts struct {
	mu sync.Mutex
	at map[string]time.Time
}

func newFirsts() *firsts { return &firsts{at: map[string]time.Time{}} }

func (c *firsts) record(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.at[name]; !ok {
		c.at[name] = time.Now()
	}
}

func (c *firsts) get(name string) (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.at[name]
	return t, ok
}

// watchBootstrapData records in seen when each Machine of ns is first seen with spec.bootstrap.dataSecretName, until
// ctx ends: the moment the infrastructure provider can start. The Machine's BootstrapConfigReady condition keeps the
// bootstrap provider's own time (Cluster API mirrors its transition time), from before Cluster API's Machine
// controller copied the data's name onto the Machine. A watch the API server ends is opened again where it stopped;
// all end with ctx.
func watchBootstrapData(ctx context.Context, ns string, seen *firsts) error {
	wc, err := client.NewWithWatch(env.Config, client.Options{Scheme: env.Scheme})
	if err != nil {
		return err
	}
	var list clusterv1.MachineList
	if err := wc.List(ctx, &list, client.InNamespace(ns)); err != nil {
		return err
	}
	rv := list.ResourceVersion
	open := func() (watch.Interface, error) {
		return wc.Watch(ctx, &clusterv1.MachineList{}, client.InNamespace(ns), &client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: rv}})
	}
	w, err := open()
	if err != nil {
		return err
	}
	go func() {
		for {
			for ev := range w.ResultChan() {
				if ev.Type == watch.Error {
					rv = "" // too old: the next watch starts with the Machines as they are (their data seen late)
				}
				if m, ok := ev.Object.(*clusterv1.Machine); ok {
					rv = m.ResourceVersion
					if ptr.Deref(m.Spec.Bootstrap.DataSecretName, "") != "" {
						seen.record(m.Name)
					}
				}
			}
			w.Stop()
			for ctx.Err() == nil {
				next, err := open()
				if err == nil {
					w = next
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			if ctx.Err() != nil {
				return
			}
		}
	}()
	return nil
}

// latency is, per Machine and sorted, the time from its BootstrapConfigReady condition turning true to its
// InfrastructureReady condition turning true, as Cluster API reports them, and its parts: until Cluster API gave the
// Machine its bootstrap data (watchBootstrapData); until the infrastructure provider asked for the clone of the
// Machine's VM; until the simulator created the VM (config.createDate), which the clone powers on; until the provider
// saw the VM and its address (the stand-in for guest tools gives it within guestToolsEvery). Conditions' times are
// in seconds.
type latency struct {
	total, toData, toCall, toVM, afterVM []time.Duration
}

// providerLatency returns the latency of the Machines of ns, whose bootstrap data and clone calls data and calls
// recorded.
func providerLatency(ctx context.Context, sim *vspheretest.Simulator, data, calls *firsts, ns string) (latency, error) {
	var l latency
	var machines clusterv1.MachineList
	if err := env.Client.List(ctx, &machines, client.InNamespace(ns)); err != nil {
		return l, err
	}
	for _, m := range machines.Items {
		var bootstrap, infra time.Time
		for _, c := range m.Status.Conditions {
			switch {
			case c.Type == clusterv1.MachineBootstrapConfigReadyCondition && c.Status == metav1.ConditionTrue:
				bootstrap = c.LastTransitionTime.Time
			case c.Type == clusterv1.MachineInfrastructureReadyCondition && c.Status == metav1.ConditionTrue:
				infra = c.LastTransitionTime.Time
			}
		}
		if bootstrap.IsZero() || infra.IsZero() {
			return l, fmt.Errorf("machine %s/%s is provisioned without both conditions true", ns, m.Name)
		}
		vm, err := sim.Inspect(strings.TrimPrefix(m.Spec.ProviderID, "vsphere://"))
		if err != nil || vm.Config == nil {
			return l, fmt.Errorf("cannot read the VM of machine %s/%s (%q): %w", ns, m.Name, m.Spec.ProviderID, err)
		}
		called, ok := calls.get(vm.Config.Name)
		if !ok {
			return l, fmt.Errorf("machine %s/%s: no clone call of its VM %q was seen", ns, m.Name, vm.Config.Name)
		}
		given, ok := data.get(m.Name)
		if !ok {
			return l, fmt.Errorf("machine %s/%s was not seen with its bootstrap data", ns, m.Name)
		}
		created := ptr.Deref(vm.Config.CreateDate, time.Time{})
		l.total = append(l.total, max(0, infra.Sub(bootstrap)))
		l.toData = append(l.toData, max(0, given.Sub(bootstrap)).Round(time.Second))
		l.toCall = append(l.toCall, max(0, called.Sub(given)).Round(time.Second))
		l.toVM = append(l.toVM, max(0, created.Sub(called)).Round(time.Second))
		l.afterVM = append(l.afterVM, max(0, infra.Sub(created)).Round(time.Second))
	}
	for _, d := range [][]time.Duration{l.total, l.toData, l.toCall, l.toVM, l.afterVM} {
		slices.Sort(d)
	}
	return l, nil
}

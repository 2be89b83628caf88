package e2e_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/memcloudtest"
	"github.com/capkit/capkit/examples/memcloud/services"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/test/internal/capienv"
	"github.com/capkit/capkit/test/internal/hostedcp"
)

// TestMemcloudClusterClassWithRealClusterAPI runs memcloud's released ClusterClass (clusterclass-memcloud.yaml)
// through the real topology controller (core manager with --feature-gates=ClusterTopology=true) and the kubeadm
// bootstrap manager. The class's kubeadm control plane is swapped for hostedcp, a machine-less stand-in: the
// kubeadm control plane manager needs each member's etcd, which an envtest workload cluster does not have.
// Everything else is the file as released: the MemClusterTemplate, the worker class's MemMachineTemplate and
// KubeadmConfigTemplate.
//
// It proves the template contract end to end: the topology controller clones memcloud's templates (their
// webhooks pass its server-side-apply dry-runs), the clones report their capacity where the cluster autoscaler
// reads it (MachineDeployment → infrastructure template → status.capacity), a MachineDeployment scales to zero
// and back, and pointing the class at a new MemMachineTemplate rolls the workers over with nothing leaked.
func TestMemcloudClusterClassWithRealClusterAPI(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	start := time.Now()
	step := func(what string) { t.Logf("%5.1fs %s", time.Since(start).Seconds(), what) }
	capi := capienv.StartT(t, env.Config, env.Client, components,
		capienv.WithArgs(capienv.Core, "--feature-gates=ClusterTopology=true"))
	cl, err := cloud.New(cloud.WithSeed(17))
	require.NoError(t, err)
	startProvider(t, cl, 100*time.Millisecond)
	cpDone := make(chan error, 1)
	go func() { cpDone <- hostedcp.Run(ctx, env.Client, tick) }()
	t.Cleanup(func() {
		cancel()
		if err := <-cpDone; err != nil && !errors.Is(err, context.Canceled) {
			t.Logf("hostedcp: %v", err)
		}
	})
	step("managers ready")
	ns, err := env.CreateNamespace(ctx, "topology")
	require.NoError(t, err)
	dumpOnFailure(t, ns)

	// The class, as released, with the control plane swapped for hostedcp.
	for _, obj := range releasedClusterClass(t, ns) {
		require.NoError(t, env.Client.Create(ctx, obj), "%s %s", obj.GetObjectKind().GroupVersionKind().Kind, obj.GetName())
	}
	const name, md = "cc", "md-0"
	owner := ns + "/" + name
	kubeconfig, err := capienv.KubeconfigSecret(ns, name, env.Config)
	require.NoError(t, err)
	cluster := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	cluster.Spec.Topology = clusterv1.Topology{
		ClassRef: clusterv1.ClusterClassRef{Name: "memcloud"},
		Version:  kubernetesVersion,
		Workers: clusterv1.WorkersTopology{MachineDeployments: []clusterv1.MachineDeploymentTopology{{
			Class: "default-worker", Name: md,
			// What a user sets for the cluster autoscaler to scale this MachineDeployment from zero; Cluster API
			// then refuses topology replicas (the autoscaler owns them).
			Metadata: clusterv1.ObjectMeta{Annotations: map[string]string{
				"cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size": "0",
				"cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size": "5",
			}},
		}}},
	}
	require.NoError(t, createAll(ctx, kubeconfig, cluster))

	kubelet := startKubelet(ctx, t, ns, name)
	require.Eventually(t, func() bool {
		return env.Client.Get(ctx, client.ObjectKeyFromObject(cluster), cluster) == nil &&
			ptr.Deref(cluster.Status.Initialization.InfrastructureProvisioned, false) &&
			ptr.Deref(cluster.Status.Initialization.ControlPlaneInitialized, false)
	}, lifecycleWait, tick, "the MemCluster and the control plane of the class must come up")
	deployment := waitMachineDeployment(ctx, t, ns, name)
	assert.Equal(t, "5", deployment.Annotations["cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size"])
	assert.Zero(t, ptr.Deref(deployment.Spec.Replicas, -1), "with the autoscaler's annotations the MachineDeployment starts at its minimum size")
	waitWorkers(ctx, t, cl, ns, name, 0, v1beta2.FlavorMedium)
	step("cluster from the ClusterClass; MachineDeployment at zero")

	// At zero, the capacity is where the autoscaler reads it to build a node: on the clone of the
	// MemMachineTemplate that the topology controller made for the MachineDeployment.
	assertTemplateCapacity(ctx, t, deployment, v1beta2.FlavorMedium)

	// The autoscaler scales up from zero, down to zero, and up again (through the scale subresource, as it does).
	scaleMachineDeployment(ctx, t, deployment, 2)
	waitWorkers(ctx, t, cl, ns, name, 2, v1beta2.FlavorMedium)
	step("scaled from zero to two")
	scaleMachineDeployment(ctx, t, deployment, 0)
	waitWorkers(ctx, t, cl, ns, name, 0, v1beta2.FlavorMedium)
	assertTemplateCapacity(ctx, t, waitMachineDeployment(ctx, t, ns, name), v1beta2.FlavorMedium)
	step("scaled to zero")
	scaleMachineDeployment(ctx, t, deployment, 2)
	waitWorkers(ctx, t, cl, ns, name, 2, v1beta2.FlavorMedium)
	step("scaled back to two")

	// Rollover: a new MemMachineTemplate in the class (templates are immutable) replaces every worker.
	large := &v1beta2.MemMachineTemplate{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "memcloud-default-worker-large"}}
	large.Spec.Template.Spec = v1beta2.MemMachineSpec{Image: "ubuntu-24.04", Flavor: v1beta2.FlavorLarge}
	require.NoError(t, env.Client.Create(ctx, large))
	class := &clusterv1.ClusterClass{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "memcloud"}, class))
	before := class.DeepCopy()
	class.Spec.Workers.MachineDeployments[0].Infrastructure.TemplateRef.Name = large.Name
	require.NoError(t, env.Client.Patch(ctx, class, client.MergeFrom(before)))
	waitWorkers(ctx, t, cl, ns, name, 2, v1beta2.FlavorLarge)
	assertTemplateCapacity(ctx, t, waitMachineDeployment(ctx, t, ns, name), v1beta2.FlavorLarge)
	step("rolled over to the large template")
	assert.Empty(t, cl.Duplicates(cloud.OwnerTagValue(ensure.TagOwnershipKey), ensure.TagResourceKey))

	// Delete: every cloud resource goes.
	require.NoError(t, env.Client.Delete(ctx, cluster))
	require.Eventually(t, func() bool {
		err := env.Client.Get(ctx, client.ObjectKeyFromObject(cluster), &clusterv1.Cluster{})
		return client.IgnoreNotFound(err) == nil && err != nil
	}, lifecycleWait, tick, "deleting the Cluster deletes its topology and infrastructure")
	step("cluster deleted")
	assert.Empty(t, cl.Leaks(cloud.OwnerTagValue(services.TagCluster), owner), "nothing leaked")
	assert.Empty(t, cl.All(), "the cloud is empty: %s", cl.Report(cloud.OwnerTagValue(services.TagCluster)))
	assert.Empty(t, cl.Duplicates(cloud.OwnerTagValue(ensure.TagOwnershipKey), ensure.TagResourceKey))
	require.NoError(t, deleteNodes(ctx, kubelet.Nodes()...))
	require.NoError(t, capi.CheckRunning())
	// Network, two subnets, security group and load balancer once; worker instances 2 + 2 (after zero) + 2 (large).
	assert.Equal(t, 5+2+2+2, cl.TotalCreated(), "every cloud resource was created once")
	t.Logf("cloud resources created: %d, cloud calls: %d", cl.TotalCreated(), cl.Calls().Total())
}

// releasedClusterClass reads memcloud's clusterclass-memcloud.yaml (capkit check keeps it clean, see
// memcloud's TestCapkitCheckIsClean) and returns its objects in ns, with the KubeadmControlPlaneTemplate replaced by a hostedcp template.
func releasedClusterClass(t *testing.T, ns string) []client.Object {
	t.Helper()
	dir, err := memcloudtest.ConfigDir()
	require.NoError(t, err)
	path := filepath.Join(dir, "templates", "clusterclass-memcloud.yaml")
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var out []client.Object
	for _, doc := range strings.Split(string(b), "\n---\n") {
		u := &unstructured.Unstructured{}
		require.NoError(t, yaml.Unmarshal([]byte(doc), &u.Object))
		if len(u.Object) == 0 {
			continue
		}
		switch u.GetKind() {
		case "KubeadmControlPlaneTemplate":
			u = hostedcp.Template(ns, u.GetName())
		case "ClusterClass":
			require.NoError(t, unstructured.SetNestedMap(u.Object, map[string]any{
				"apiVersion": hostedcp.GroupVersion.String(), "kind": hostedcp.TemplateKind, "name": "memcloud-control-plane",
			}, "spec", "controlPlane", "templateRef"))
			unstructured.RemoveNestedField(u.Object, "spec", "controlPlane", "machineInfrastructure")
		}
		u.SetNamespace(ns)
		out = append(out, u)
	}
	require.Len(t, out, 6, "%s: the class and its five templates", path)
	return out
}

// kubelet plays the kubelet of every worker instance of a cluster: a Machine with a providerID gets a Ready Node.
type kubelet struct {
	mu    sync.Mutex
	nodes map[string]bool
}

// startKubelet joins the Machines of cluster ns/name until the test ends.
func startKubelet(ctx context.Context, t *testing.T, ns, name string) *kubelet {
	k := &kubelet{nodes: map[string]bool{}}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); <-done })
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			list := &clusterv1.MachineList{}
			if env.Client.List(ctx, list, client.InNamespace(ns), client.MatchingLabels{clusterv1.ClusterNameLabel: name}) == nil {
				for _, m := range list.Items {
					if m.Spec.ProviderID != "" && joinNode(ctx, m.Name, m.Spec.ProviderID) == nil {
						k.mu.Lock()
						k.nodes[m.Name] = true
						k.mu.Unlock()
					}
				}
			}
			select {
			case <-ctx.Done():
			case <-time.After(tick):
			}
		}
	}()
	return k
}

// Nodes returns the names of the Nodes the kubelet created.
func (k *kubelet) Nodes() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	out := make([]string, 0, len(k.nodes))
	for n := range k.nodes {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// waitWorkers waits until cluster ns/name has exactly n worker Machines, all Running and up to date, on
// exactly n live memcloud worker instances of flavor, and no other instance.
func waitWorkers(ctx context.Context, t *testing.T, cl *cloud.Cloud, ns, name string, n int, flavor v1beta2.Flavor) {
	t.Helper()
	var state note
	require.Eventually(t, func() bool {
		list := &clusterv1.MachineList{}
		if err := env.Client.List(ctx, list, client.InNamespace(ns), client.MatchingLabels{clusterv1.ClusterNameLabel: name}); err != nil {
			return state.Set(false, err.Error())
		}
		var running []string
		for _, m := range list.Items {
			if m.Status.Phase == string(clusterv1.MachinePhaseRunning) && m.DeletionTimestamp == nil {
				running = append(running, m.Spec.ProviderID)
			}
		}
		instances := cl.List(cloud.KindInstance)
		flavors := map[string]int{}
		for _, r := range instances {
			inst, err := cl.GetInstance(ctx, r.ID)
			if err != nil {
				return state.Set(false, err.Error())
			}
			flavors[inst.Flavor]++
		}
		s := fmt.Sprintf("machines %d, running %d, instances by flavor %v", len(list.Items), len(running), flavors)
		return state.Set(len(list.Items) == n && len(running) == n && len(instances) == n && flavors[string(flavor)] == n, s)
	}, lifecycleWait, tick, "cluster %s/%s must have %d %s workers: %v", ns, name, n, flavor, &state)
}

// waitMachineDeployment waits for the one MachineDeployment of cluster ns/name and returns it.
func waitMachineDeployment(ctx context.Context, t *testing.T, ns, name string) *clusterv1.MachineDeployment {
	t.Helper()
	list := &clusterv1.MachineDeploymentList{}
	require.Eventually(t, func() bool {
		return env.Client.List(ctx, list, client.InNamespace(ns), client.MatchingLabels{clusterv1.ClusterNameLabel: name}) == nil && len(list.Items) == 1
	}, lifecycleWait, tick, "the topology controller must create one MachineDeployment")
	return &list.Items[0]
}

// assertTemplateCapacity follows the MachineDeployment to its infrastructure template, as the cluster
// autoscaler does to build a node from zero, and waits for status.capacity to be flavor's.
func assertTemplateCapacity(ctx context.Context, t *testing.T, md *clusterv1.MachineDeployment, flavor v1beta2.Flavor) {
	t.Helper()
	ref := md.Spec.Template.Spec.InfrastructureRef
	require.Equal(t, "MemMachineTemplate", ref.Kind)
	want := v1beta2.FlavorResources[flavor]
	var state note
	require.Eventually(t, func() bool {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(v1beta2.GroupVersion.WithKind(ref.Kind))
		if err := env.Client.Get(ctx, client.ObjectKey{Namespace: md.Namespace, Name: ref.Name}, u); err != nil {
			return state.Set(false, err.Error())
		}
		capacity, _, _ := unstructured.NestedStringMap(u.Object, "status", "capacity")
		arch, _, _ := unstructured.NestedString(u.Object, "status", "nodeInfo", "architecture")
		return state.Set(capacity["cpu"] == want.Cpu().String() && capacity["memory"] == want.Memory().String() && arch == "amd64",
			fmt.Sprintf("%s: capacity %v, architecture %q", u.GetName(), capacity, arch))
	}, lifecycleWait, tick, "the template %s of MachineDeployment %s must report the capacity of %s: %v", ref.Name, md.Name, flavor, &state)
}

// scaleMachineDeployment sets the replicas of md through its scale subresource, as the cluster autoscaler does.
func scaleMachineDeployment(ctx context.Context, t *testing.T, md *clusterv1.MachineDeployment, n int32) {
	t.Helper()
	scale := &autoscalingv1.Scale{}
	require.NoError(t, env.Client.SubResource("scale").Get(ctx, md, scale))
	scale.Spec.Replicas = n
	require.NoError(t, env.Client.SubResource("scale").Update(ctx, md, client.WithSubResourceBody(scale)))
}

package clusterctl_test

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	bootstrapv1 "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	clusterctlv1 "sigs.k8s.io/cluster-api/cmd/clusterctl/api/v1alpha3"

	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/memcloudtest"
	"github.com/capkit/capkit/examples/memcloud/services"
	"github.com/capkit/capkit/providertest/testenv"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/test/internal/capienv"
)

// Generous bounds on a loaded 2-core machine: they only stop a test that does not converge.
const (
	moveWait = 3 * time.Minute
	tick     = 250 * time.Millisecond
)

// memcloudVersion is the version of memcloud in the inventory: today's release series, v0.2 (metadata.yaml).
const memcloudVersion = "v0.2.0"

// TestMoveMemcloudClusterWithClusterctl moves a provisioned memcloud cluster (a control plane Machine and a
// MachineDeployment of two workers, driven by the real Cluster API core and kubeadm bootstrap managers) from one
// management cluster to another with clusterctl's library, as `clusterctl move` does. Both management clusters
// run Cluster API and memcloud on the same cloud, which outlives them. clusterctl carries no status, so memcloud
// on the target must find every cloud resource again by its ownership tags: the test proves that nothing is
// created twice, nothing is deleted by the move (memcloud on the source respects the paused Cluster), memcloud's
// status comes back with the same resource IDs, and deleting the Cluster on the target empties the cloud.
func TestMoveMemcloudClusterWithClusterctl(t *testing.T) {
	ctx := context.Background()
	step := capienv.StepTimer(t)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir()) // clusterctl's own configuration folder, empty

	// The target management cluster: a second API server with the package's CRDs, webhooks and scheme.
	opts, err := envOptions()
	require.NoError(t, err)
	target, err := capienv.NewEnvironment(addToScheme, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, target.Stop()) })
	step("target API server started")

	// clusterctl's inventory in both, as `clusterctl init` leaves it.
	providers := inventory(t)
	for _, e := range []*testenv.Environment{env, target} {
		require.NoError(t, capienv.InstallInventory(ctx, e.Client, providers...))
	}
	step("clusterctl inventory installed in both management clusters")

	// The source: the real Cluster API managers and memcloud on a cloud shared with the target.
	cl, err := cloud.New(cloud.WithSeed(41))
	require.NoError(t, err)
	srcCAPI := capienv.StartT(t, env.Config, env.Client, capienv.AllComponents)
	startMemcloud(t, env, cl, "source")
	step("source managers ready")

	ns, err := env.CreateNamespace(ctx, "move")
	require.NoError(t, err)
	dumpOnFailure(t, env.Client, "source", ns)
	dumpOnFailure(t, target.Client, "target", ns)
	const name, workers = "wl", 2
	nodes := provision(ctx, t, env, ns, name, workers, v1beta2Objects)
	t.Cleanup(func() { assert.NoError(t, capienv.DeleteNodes(context.Background(), env.Client, nodes...)) })
	step("source cluster provisioned: control plane and workers Running")
	provisioning := cl.Calls()
	t.Logf("cloud calls to provision: %d (%d mutations, %d reads); resources: %d", provisioning.Total(), provisioning.Mutations,
		provisioning.Reads, len(cl.All()))

	assertReadyToMove(ctx, t, ns, name, workers, providers, target)
	before := snapshot(ctx, t, env.Client, ns)
	t.Logf("memcloud's status before the move: %v", before.resources)
	resources := ids(cl.All())
	created := cl.TotalCreated()
	require.Len(t, resources, 1+2+1+1+1+workers, cl.Report(cloud.OwnerTagValue(services.TagCluster)).String())
	require.Empty(t, cl.Duplicates(cloud.OwnerTagValue(ensure.TagOwnershipKey), ensure.TagResourceKey))

	// The target's managers, on the same cloud.
	dstCAPI := capienv.StartT(t, target.Config, target.Client, capienv.AllComponents)
	startMemcloud(t, target, cl, "target")
	step("target managers ready")

	// The move, with the source managers running.
	callsBefore := cl.Calls()
	log, err := capienv.Move(ctx, t.TempDir(), env.Config, target.Config, ns)
	require.NoError(t, err, "clusterctl's log:\n%s", log)
	t.Logf("clusterctl:\n%s", log.Info())
	step("clusterctl move done")
	moved := cl.Calls()
	assert.Equal(t, resources, ids(cl.All()), "the move deletes no cloud resource: memcloud on the source respects the paused Cluster")
	assert.Zero(t, sum(moved.Deleted)-sum(callsBefore.Deleted), "no cloud delete during the move")
	assert.Equal(t, created, cl.TotalCreated(), "no cloud resource created during the move")
	assertSourceEmpty(ctx, t, ns, name)

	// The target: every object is there, the Cluster is unpaused, and memcloud rebuilds its status from the
	// cloud's tags.
	assertMoved(ctx, t, target.Client, ns, before)
	waitRebuilt(ctx, t, target.Client, ns, name, workers, before)
	step("target reconciled: memcloud's status rebuilt, Machines Running")
	after := cl.Calls()
	assert.Equal(t, resources, ids(cl.All()), "the same cloud resources, none deleted")
	assert.Equal(t, created, cl.TotalCreated(), "no cloud resource created after the move")
	assert.Empty(t, cl.Duplicates(cloud.OwnerTagValue(ensure.TagOwnershipKey), ensure.TagResourceKey))
	assert.Zero(t, after.Mutations-callsBefore.Mutations, "finding the resources again is read-only: %s", delta(callsBefore, after))
	for _, k := range []cloud.Kind{cloud.KindNetwork, cloud.KindSubnet, cloud.KindSecurityGroup, cloud.KindLoadBalancer} {
		// The instances' IDs are in spec.providerID, which moves; the cluster's resources are only in status.
		assert.Positive(t, after.Of(cloud.VerbFind, k)-callsBefore.Of(cloud.VerbFind, k),
			"memcloud on the target looks the %s up by its ownership tags: the move carried no status", k)
	}
	t.Logf("cloud calls during the move: %d (%d mutations, %d reads); until the target is reconciled: %d (%d mutations, %d reads): %s",
		moved.Total()-callsBefore.Total(), moved.Mutations-callsBefore.Mutations, moved.Reads-callsBefore.Reads,
		after.Total()-callsBefore.Total(), after.Mutations-callsBefore.Mutations, after.Reads-callsBefore.Reads, delta(callsBefore, after))
	require.NoError(t, srcCAPI.CheckRunning())

	// Delete on the target: Cluster API and memcloud delete everything.
	cluster := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	require.NoError(t, target.Client.Delete(ctx, cluster))
	require.Eventually(t, func() bool {
		err := target.Client.Get(ctx, client.ObjectKeyFromObject(cluster), &clusterv1.Cluster{})
		return client.IgnoreNotFound(err) == nil && err != nil
	}, moveWait, tick, "deleting the Cluster on the target deletes its Machines and infrastructure")
	step("cluster deleted on the target")
	assert.Empty(t, cl.All(), "the cloud is empty: %s", cl.Report(cloud.OwnerTagValue(services.TagCluster)))
	assert.Empty(t, cl.Leaks(cloud.OwnerTagValue(services.TagCluster), ns+"/"+name), "nothing leaked")
	assert.Equal(t, created, cl.TotalCreated(), "every cloud resource was created once, before the move")
	for _, l := range []client.ObjectList{&v1beta2.MemMachineList{}, &v1beta2.MemClusterList{}, &clusterv1.MachineList{}} {
		require.NoError(t, target.Client.List(ctx, l, client.InNamespace(ns)))
		assert.Zero(t, meta.LenList(l), "%T", l)
	}
	require.NoError(t, dstCAPI.CheckRunning())
	end := cl.Calls()
	t.Logf("cloud calls: %d in all (%d mutations, %d reads); deletion: %d", end.Total(), end.Mutations, end.Reads, end.Total()-after.Total())
}

// inventory returns the inventory entries of the providers the move needs in both management clusters: Cluster
// API core and kubeadm bootstrap at the version of the module, memcloud with its CRDs.
func inventory(t *testing.T) []capienv.InventoryProvider {
	t.Helper()
	dir, err := memcloudtest.ConfigDir()
	require.NoError(t, err)
	providers, err := capienv.Inventory(capienv.InventoryProvider{Name: "memcloud", Type: clusterctlv1.InfrastructureProviderType,
		Version: memcloudVersion, Namespace: "memcloud-system"}, filepath.Join(dir, "crd", "bases"))
	require.NoError(t, err)
	return providers
}

// infraObjects makes the memcloud objects of a cluster, in the API version a test provisions with.
type infraObjects struct {
	cluster, machine, template func(ns, name string) client.Object
}

// v1beta2Objects are memcloud's objects of today's API version; the workers' template asks for small instances.
var v1beta2Objects = infraObjects{
	cluster: func(ns, name string) client.Object {
		return &v1beta2.MemCluster{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	},
	machine: func(ns, name string) client.Object {
		return &v1beta2.MemMachine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	},
	template: func(ns, name string) client.Object {
		mmt := &v1beta2.MemMachineTemplate{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
		mmt.Spec.Template.Spec = v1beta2.MemMachineSpec{Flavor: v1beta2.FlavorSmall}
		return mmt
	},
}

// provision creates a memcloud cluster on the API server of e as test/e2e's lifecycle test does: the kubeconfig
// Secret (the management API server doubles as the workload cluster), the MemCluster and Cluster, a control plane
// Machine with a CABPK init KubeadmConfig, then a MachineDeployment of workers, with the memcloud objects infra
// makes; it plays the kubelet of each instance and waits until every Machine runs. It returns the names of the
// Nodes it created.
func provision(ctx context.Context, t *testing.T, e *testenv.Environment, ns, name string, workers int32, infra infraObjects) []string {
	t.Helper()
	c := e.Client
	kubeconfig, err := capienv.KubeconfigSecret(ns, name, e.Config)
	require.NoError(t, err)
	cluster := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	cluster.Spec.InfrastructureRef = memRef("MemCluster", name)
	require.NoError(t, capienv.CreateAll(ctx, c, kubeconfig, infra.cluster(ns, name), cluster))

	// The node names are unique to the namespace: Nodes are cluster-wide and a failed run may leave some.
	cp := ns + "-cp"
	nodes := []string{cp}
	m := &clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: cp,
		Labels: map[string]string{clusterv1.ClusterNameLabel: name, clusterv1.MachineControlPlaneLabel: ""}}}
	m.Spec = clusterv1.MachineSpec{ClusterName: name, Version: kubernetesVersion,
		Bootstrap:         clusterv1.Bootstrap{ConfigRef: kubeadmRef("KubeadmConfig", cp)},
		InfrastructureRef: memRef("MemMachine", cp)}
	config := &bootstrapv1.KubeadmConfig{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: cp}}
	config.Spec.InitConfiguration.NodeRegistration.Name = "{{ ds.meta_data.local_hostname }}"
	require.NoError(t, capienv.CreateAll(ctx, c, config, infra.machine(ns, cp), m))
	require.Eventually(t, func() bool {
		if c.Get(ctx, client.ObjectKeyFromObject(m), m) != nil || m.Spec.ProviderID == "" {
			return false
		}
		ok, err := capienv.JoinFirstControlPlaneNode(ctx, c, client.ObjectKeyFromObject(m), cp, m.Spec.ProviderID)
		return err == nil && ok
	}, moveWait, tick, "memcloud must boot the control plane Machine with CABPK's init data")
	require.Eventually(t, func() bool {
		return c.Get(ctx, client.ObjectKeyFromObject(cluster), cluster) == nil &&
			meta.IsStatusConditionTrue(cluster.Status.Conditions, clusterv1.ClusterControlPlaneInitializedCondition)
	}, moveWait, tick, "a control plane Machine with a Node initializes the control plane")

	kct := &bootstrapv1.KubeadmConfigTemplate{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "workers"}}
	kct.Spec.Template.Spec.JoinConfiguration.NodeRegistration.Name = "{{ ds.meta_data.local_hostname }}"
	md := &clusterv1.MachineDeployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "workers"}}
	md.Spec = clusterv1.MachineDeploymentSpec{ClusterName: name, Replicas: ptr.To(workers)}
	md.Spec.Template.Spec = clusterv1.MachineSpec{ClusterName: name, Version: kubernetesVersion,
		Bootstrap:         clusterv1.Bootstrap{ConfigRef: kubeadmRef("KubeadmConfigTemplate", "workers")},
		InfrastructureRef: memRef("MemMachineTemplate", "workers")}
	require.NoError(t, capienv.CreateAll(ctx, c, kct, infra.template(ns, "workers"), md))
	joined := map[string]bool{}
	require.Eventually(t, func() bool {
		list := &clusterv1.MachineList{}
		if err := c.List(ctx, list, client.InNamespace(ns), client.MatchingLabels{clusterv1.MachineDeploymentNameLabel: "workers"}); err != nil {
			return false
		}
		for _, w := range list.Items {
			if w.Spec.ProviderID == "" || joined[w.Name] {
				continue
			}
			if capienv.JoinNode(ctx, c, w.Name, w.Spec.ProviderID) != nil {
				return false
			}
			joined[w.Name] = true
			nodes = append(nodes, w.Name)
		}
		return c.Get(ctx, client.ObjectKeyFromObject(md), md) == nil && len(list.Items) == int(workers) &&
			ptr.Deref(md.Status.ReadyReplicas, 0) == workers
	}, moveWait, tick, "memcloud must boot the MachineDeployment's Machines and they must get Ready Nodes")
	require.Eventually(t, func() bool {
		list := &clusterv1.MachineList{}
		if c.List(ctx, list, client.InNamespace(ns)) != nil {
			return false
		}
		for _, m := range list.Items {
			if m.Status.Phase != string(clusterv1.MachinePhaseRunning) {
				return false
			}
		}
		return len(list.Items) == 1+int(workers)
	}, moveWait, tick, "every Machine must be Running")
	return nodes
}

// assertReadyToMove checks what clusterctl's move checks before it starts (cmd/clusterctl/client/cluster:
// mover.go checkProvisioningCompleted and checkTargetProviders, objectgraph.go getDiscoveryTypes): the Cluster's
// infrastructure is provisioned and its control plane initialized, every Machine has a nodeRef, both management
// clusters have the same providers, the target at least at the source's versions, and the CRD of every kind
// the cluster is made of carries clusterctl's label, without which its objects would not be moved.
func assertReadyToMove(ctx context.Context, t *testing.T, ns, name string, workers int, providers []capienv.InventoryProvider, target *testenv.Environment) {
	t.Helper()
	cluster := &clusterv1.Cluster{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, cluster))
	assert.True(t, ptr.Deref(cluster.Status.Initialization.InfrastructureProvisioned, false), "infrastructure provisioned")
	assert.True(t, meta.IsStatusConditionTrue(cluster.Status.Conditions, clusterv1.ClusterControlPlaneInitializedCondition), "control plane initialized")
	assert.False(t, ptr.Deref(cluster.Spec.Paused, false), "clusterctl refuses to move a paused Cluster")
	machines := &clusterv1.MachineList{}
	require.NoError(t, env.Client.List(ctx, machines, client.InNamespace(ns)))
	require.Len(t, machines.Items, 1+workers)
	for _, m := range machines.Items {
		assert.True(t, m.Status.NodeRef.IsDefined(), "Machine %q has a nodeRef", m.Name)
	}

	src, dst := inventoryVersions(ctx, t, env.Client), inventoryVersions(ctx, t, target.Client)
	require.Len(t, src, len(providers))
	for instance, v := range src {
		require.Contains(t, dst, instance, "provider %q is in the target", instance)
		assert.True(t, version.MustParseSemantic(dst[instance]).AtLeast(version.MustParseSemantic(v)), "provider %q: target %s >= source %s", instance, dst[instance], v)
	}

	byProvider := map[string]string{}
	for _, p := range providers {
		for _, crd := range p.CRDs {
			byProvider[crd] = p.ManifestLabel()
		}
	}
	for _, e := range []*testenv.Environment{env, target} {
		for _, crd := range []string{"clusters.cluster.x-k8s.io", "machines.cluster.x-k8s.io", "machinesets.cluster.x-k8s.io",
			"machinedeployments.cluster.x-k8s.io", "kubeadmconfigs.bootstrap.cluster.x-k8s.io", "kubeadmconfigtemplates.bootstrap.cluster.x-k8s.io",
			"memclusters.infrastructure.memcloud.capkit.io", "memmachines.infrastructure.memcloud.capkit.io", "memmachinetemplates.infrastructure.memcloud.capkit.io"} {
			got := &apiextensionsv1.CustomResourceDefinition{}
			require.NoError(t, e.Client.Get(ctx, client.ObjectKey{Name: crd}, got))
			assert.Contains(t, got.Labels, clusterctlv1.ClusterctlLabel, "CRD %q is discovered by clusterctl move", crd)
			assert.Equal(t, byProvider[crd], got.Labels[clusterv1.ProviderNameLabel], "CRD %q belongs to its provider", crd)
		}
	}
}

// inventoryVersions returns the version of each Provider in the inventory of c, by namespace/name.
func inventoryVersions(ctx context.Context, t *testing.T, c client.Client) map[string]string {
	t.Helper()
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(clusterctlv1.GroupVersion.WithKind("ProviderList"))
	require.NoError(t, c.List(ctx, list))
	out := map[string]string{}
	for _, p := range list.Items {
		v, _, _ := unstructured.NestedString(p.Object, "version")
		out[p.GetNamespace()+"/"+p.GetName()] = v
	}
	return out
}

// state is what the move must carry or memcloud must rebuild: the names of the objects by kind, the resource IDs
// in memcloud's status and the ownership key (the label memcloud's cloud tags hold) by object, the providerID of
// each MemMachine, and the UIDs of the Clusters.
type state struct {
	names       map[string][]string
	resources   map[string]map[string]string
	keys        map[string]string
	providerIDs map[string]string
	clusterUIDs map[string]string
}

// movedKinds are the kinds of the objects a memcloud cluster is made of, all of which the move carries.
var movedKinds = []client.ObjectList{
	&clusterv1.ClusterList{}, &clusterv1.MachineDeploymentList{}, &clusterv1.MachineSetList{}, &clusterv1.MachineList{},
	&bootstrapv1.KubeadmConfigList{}, &bootstrapv1.KubeadmConfigTemplateList{},
	&v1beta2.MemClusterList{}, &v1beta2.MemMachineList{}, &v1beta2.MemMachineTemplateList{},
}

// snapshot reads the state of namespace ns in the API server of c.
func snapshot(ctx context.Context, t *testing.T, c client.Client, ns string) state {
	t.Helper()
	s := state{names: map[string][]string{}, resources: map[string]map[string]string{}, keys: map[string]string{},
		providerIDs: map[string]string{}, clusterUIDs: map[string]string{}}
	for _, kind := range movedKinds {
		l := kind.DeepCopyObject().(client.ObjectList)
		require.NoError(t, c.List(ctx, l, client.InNamespace(ns)))
		require.NoError(t, meta.EachListItem(l, func(o runtime.Object) error {
			obj := o.(client.Object)
			k := strings.TrimSuffix(fmt.Sprintf("%T", l), "List")
			s.names[k] = append(s.names[k], obj.GetName())
			return nil
		}))
	}
	for k := range s.names {
		slices.Sort(s.names[k])
	}
	mcs := &v1beta2.MemClusterList{}
	require.NoError(t, c.List(ctx, mcs, client.InNamespace(ns)))
	for _, mc := range mcs.Items {
		s.resources["MemCluster/"+mc.Name] = mc.Status.Resources
		s.keys["MemCluster/"+mc.Name] = mc.Labels[ensure.TagOwnershipKey]
	}
	mms := &v1beta2.MemMachineList{}
	require.NoError(t, c.List(ctx, mms, client.InNamespace(ns)))
	for _, mm := range mms.Items {
		s.resources["MemMachine/"+mm.Name] = mm.Status.Resources
		s.keys["MemMachine/"+mm.Name] = mm.Labels[ensure.TagOwnershipKey]
		s.providerIDs[mm.Name] = mm.Spec.ProviderID
	}
	clusters := &clusterv1.ClusterList{}
	require.NoError(t, c.List(ctx, clusters, client.InNamespace(ns)))
	for _, cl := range clusters.Items {
		s.clusterUIDs[cl.Name] = string(cl.UID)
	}
	return s
}

// assertSourceEmpty checks that no Cluster API or memcloud object of the cluster is left in the source namespace.
func assertSourceEmpty(ctx context.Context, t *testing.T, ns, name string) {
	t.Helper()
	for _, kind := range movedKinds {
		l := kind.DeepCopyObject().(client.ObjectList)
		require.NoError(t, env.Client.List(ctx, l, client.InNamespace(ns)))
		assert.Zero(t, meta.LenList(l), "no %T left in the source", l)
	}
	secrets := &corev1.SecretList{}
	require.NoError(t, env.Client.List(ctx, secrets, client.InNamespace(ns), client.MatchingLabels{clusterv1.ClusterNameLabel: name}))
	assert.Empty(t, secrets.Items, "the cluster's Secrets moved too")
}

// assertMoved checks that every object of before exists in the target and that the Cluster is unpaused.
func assertMoved(ctx context.Context, t *testing.T, c client.Client, ns string, before state) {
	t.Helper()
	got := snapshot(ctx, t, c, ns)
	assert.Equal(t, before.names, got.names, "every object moved")
	assert.Equal(t, before.providerIDs, got.providerIDs, "spec.providerID moves with the MemMachines")
	assert.Equal(t, before.keys, got.keys, "the ownership keys move with memcloud's objects")
	for k, key := range got.keys {
		assert.NotEmpty(t, key, "%s has an ownership key", k)
	}
	clusters := &clusterv1.ClusterList{}
	require.NoError(t, c.List(ctx, clusters, client.InNamespace(ns)))
	for _, cl := range clusters.Items {
		assert.False(t, ptr.Deref(cl.Spec.Paused, false), "Cluster %q is unpaused on the target", cl.Name)
		assert.NotEqual(t, before.clusterUIDs[cl.Name], string(cl.UID), "Cluster %q has a new UID on the target", cl.Name)
	}
}

// waitRebuilt waits until memcloud on the target has found every cloud resource again (the same IDs in its status
// as on the source), the infra objects are provisioned and Cluster API runs every Machine again.
func waitRebuilt(ctx context.Context, t *testing.T, c client.Client, ns, name string, workers int32, before state) {
	t.Helper()
	var last string
	require.Eventually(t, func() bool {
		s := snapshot(ctx, t, c, ns)
		if !maps.EqualFunc(before.resources, s.resources, maps.Equal) {
			last = fmt.Sprintf("resources: want %v, got %v", before.resources, s.resources)
			return false
		}
		mms := &v1beta2.MemMachineList{}
		if c.List(ctx, mms, client.InNamespace(ns)) != nil {
			return false
		}
		for _, mm := range mms.Items {
			if !ptr.Deref(mm.Status.Initialization.Provisioned, false) || len(mm.Status.Addresses) == 0 {
				last = fmt.Sprintf("MemMachine %q not provisioned again", mm.Name)
				return false
			}
		}
		mc := &v1beta2.MemCluster{}
		if c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, mc) != nil || !ptr.Deref(mc.Status.Initialization.Provisioned, false) {
			last = "MemCluster not provisioned again"
			return false
		}
		machines := &clusterv1.MachineList{}
		if c.List(ctx, machines, client.InNamespace(ns)) != nil {
			return false
		}
		for _, m := range machines.Items {
			if m.Status.Phase != string(clusterv1.MachinePhaseRunning) || !m.Status.NodeRef.IsDefined() {
				last = fmt.Sprintf("Machine %q: phase %q, nodeRef %v", m.Name, m.Status.Phase, m.Status.NodeRef)
				return false
			}
		}
		md, cluster := &clusterv1.MachineDeployment{}, &clusterv1.Cluster{}
		if c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "workers"}, md) != nil || ptr.Deref(md.Status.ReadyReplicas, 0) != workers {
			last = "MachineDeployment not ready"
			return false
		}
		if c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, cluster) != nil || !ptr.Deref(cluster.Status.Initialization.InfrastructureProvisioned, false) ||
			!meta.IsStatusConditionTrue(cluster.Status.Conditions, clusterv1.ClusterControlPlaneInitializedCondition) {
			last = "Cluster not provisioned or control plane not initialized"
			return false
		}
		return len(machines.Items) == 1+int(workers)
	}, moveWait, tick, "memcloud on the target must find its cloud resources by their tags: %v", stringer(func() string { return last }))
}

// ids returns the IDs of rs, sorted.
func ids(rs []cloud.Resource) []string {
	out := make([]string, 0, len(rs))
	for _, r := range rs {
		out = append(out, r.ID)
	}
	slices.Sort(out)
	return out
}

// sum adds up the counts of m.
func sum(m map[cloud.Kind]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// delta renders the cloud calls made between two snapshots of the counters, by operation.
func delta(from, to cloud.Stats) string {
	var parts []string
	for op, n := range to.Calls {
		if d := n - from.Calls[op]; d > 0 {
			parts = append(parts, fmt.Sprintf("%s=%d", op, d))
		}
	}
	slices.Sort(parts)
	return strings.Join(parts, " ")
}

// stringer is a fmt.Stringer computed when the message is printed, so a failed Eventually shows the last state.
type stringer func() string

func (s stringer) String() string { return s() }

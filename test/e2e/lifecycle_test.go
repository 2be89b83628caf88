package e2e_test

import (
	"context"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	bootstrapv1 "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/services"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/scope"
	"github.com/capkit/capkit/test/internal/capienv"
)

const lifecycleWait = 2 * time.Minute

// TestMemcloudWithRealClusterAPI drives one cluster through the real core and kubeadm bootstrap managers
// with memcloud as the infrastructure provider, on contract v1beta2: Cluster API reads memcloud's objects
// through the contract, the kubeadm bootstrap data reaches the instance and renders with package
// cloudinit, and deleting the Cluster leaves nothing in the cloud.
func TestMemcloudWithRealClusterAPI(t *testing.T) {
	ctx := context.Background()
	start := time.Now()
	step := func(what string) { t.Logf("%5.1fs %s", time.Since(start).Seconds(), what) }
	capi := capienv.StartT(t, env.Config, env.Client, components)
	cl, err := cloud.New(cloud.WithSeed(11), cloud.WithPendingGets(2))
	require.NoError(t, err)
	p := startProvider(t, cl, 100*time.Millisecond)
	step("managers ready")
	ns, err := env.CreateNamespace(ctx, "real-capi")
	require.NoError(t, err)
	dumpOnFailure(t, ns)
	const name = "wl"
	owner := ns + "/" + name

	// The Cluster: Cluster API adopts the MemCluster, reads its provisioned flag and copies its endpoint.
	require.NoError(t, createAll(ctx, newCluster(t, ns, name)...))
	cluster, mc := &clusterv1.Cluster{}, &v1beta2.MemCluster{}
	require.Eventually(t, func() bool {
		return env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, cluster) == nil && ptr.Deref(cluster.Status.Initialization.InfrastructureProvisioned, false) && cluster.Spec.ControlPlaneEndpoint.Host != ""
	}, lifecycleWait, tick, "the Cluster must see its MemCluster provisioned")
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, mc))
	assert.Equal(t, mc.Spec.ControlPlaneEndpoint.Host, cluster.Spec.ControlPlaneEndpoint.Host, "endpoint copied from the MemCluster")
	assert.Equal(t, mc.Spec.ControlPlaneEndpoint.Port, cluster.Spec.ControlPlaneEndpoint.Port)
	assert.True(t, strings.HasSuffix(cluster.Spec.ControlPlaneEndpoint.Host, "."+cloud.DNSSuffix), cluster.Spec.ControlPlaneEndpoint.Host)
	assert.True(t, ownedBy(mc, cluster.UID, false), "Cluster API adopts the MemCluster (a plain owner without topology)")
	assert.Equal(t, name, mc.Labels[clusterv1.ClusterNameLabel])
	require.Eventually(t, func() bool {
		return env.Client.Get(ctx, client.ObjectKeyFromObject(cluster), cluster) == nil && cluster.Status.Phase == string(clusterv1.ClusterPhaseProvisioned)
	}, lifecycleWait, tick, "the Cluster must be Provisioned")
	step("cluster infrastructure provisioned")

	// The control plane Machine: CABPK writes `kubeadm init` data, memcloud boots the instance with it,
	// Cluster API copies providerID and addresses and reports the Machine Provisioned (no Node yet).
	cp := name + "-cp-0"
	require.NoError(t, createAll(ctx, newMachine(ns, name, cp, true, controlPlaneConfig())...))
	machine := waitMachinePhase(ctx, t, ns, cp, clusterv1.MachinePhaseProvisioned)
	mm := &v1beta2.MemMachine{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: cp}, mm))
	assertMachineFromMemMachine(t, machine, mm)
	step("control plane Machine provisioned")

	data := assertBootstrapDataDelivered(ctx, t, cl, mm, machine)
	modules := assertBootstrapRenders(t, data, cp, "kubeadm init")
	t.Logf("modules in CABPK's control plane cloud-config: %v", modules)
	assert.Subset(t, modules, []string{"bootcmd", "disk_setup", "fs_setup", "mounts", "ntp", "runcmd", "users", "write_files"},
		"every module the KubeadmConfig asks for is in the data and was parsed strictly")

	// The kubelet joins: the Machine gets its nodeRef and the Cluster's control plane is initialized.
	joinFirstControlPlaneNode(ctx, t, ns, cp, machine.Spec.ProviderID)
	waitMachinePhase(ctx, t, ns, cp, clusterv1.MachinePhaseRunning)
	require.Eventually(t, func() bool {
		return env.Client.Get(ctx, client.ObjectKeyFromObject(cluster), cluster) == nil && meta.IsStatusConditionTrue(cluster.Status.Conditions, clusterv1.ClusterControlPlaneInitializedCondition)
	}, lifecycleWait, tick, "a control plane Machine with a Node initializes the control plane")
	step("control plane Machine running")

	// Workers: a MachineDeployment of KubeadmConfigTemplate + MemMachineTemplate.
	const workers = 2
	kct := &bootstrapv1.KubeadmConfigTemplate{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "workers"}}
	kct.Spec.Template.Spec = workerConfig()
	mmt := &v1beta2.MemMachineTemplate{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "workers"}}
	mmt.Spec.Template.Spec = v1beta2.MemMachineSpec{Flavor: v1beta2.FlavorSmall}
	md := &clusterv1.MachineDeployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "workers"}}
	md.Spec = clusterv1.MachineDeploymentSpec{ClusterName: name, Replicas: ptr.To[int32](workers)}
	md.Spec.Template.Spec = clusterv1.MachineSpec{
		ClusterName:       name,
		Version:           kubernetesVersion,
		Bootstrap:         clusterv1.Bootstrap{ConfigRef: kubeadmRef("KubeadmConfigTemplate", "workers")},
		InfrastructureRef: memRef("MemMachineTemplate", "workers"),
	}
	require.NoError(t, createAll(ctx, kct, mmt, md))
	var nodes []string
	require.Eventually(t, func() bool {
		list := &clusterv1.MachineList{}
		if err := env.Client.List(ctx, list, client.InNamespace(ns), client.MatchingLabels{clusterv1.MachineDeploymentNameLabel: "workers"}); err != nil {
			return false
		}
		for _, m := range list.Items {
			if ptr.Deref(m.Status.Initialization.InfrastructureProvisioned, false) && m.Spec.ProviderID != "" && joinNode(ctx, m.Name, m.Spec.ProviderID) != nil {
				return false
			}
		}
		return env.Client.Get(ctx, client.ObjectKeyFromObject(md), md) == nil && len(list.Items) == workers && ptr.Deref(md.Status.ReadyReplicas, 0) == workers
	}, lifecycleWait, tick, "the MachineDeployment's Machines must be provisioned by memcloud and get Ready Nodes")
	step("workers ready")

	list := &clusterv1.MachineList{}
	require.NoError(t, env.Client.List(ctx, list, client.InNamespace(ns), client.MatchingLabels{clusterv1.MachineDeploymentNameLabel: "workers"}))
	require.Len(t, list.Items, workers)
	for i := range list.Items {
		w := &list.Items[i]
		nodes = append(nodes, w.Name)
		assert.Equal(t, string(clusterv1.MachinePhaseRunning), w.Status.Phase, w.Name)
		wm := &v1beta2.MemMachine{}
		require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: w.Spec.InfrastructureRef.Name}, wm))
		assert.Equal(t, v1beta2.FlavorSmall, wm.Spec.Flavor, "Cluster API clones the MemMachine from the template")
		assertMachineFromMemMachine(t, w, wm)
		data := assertBootstrapDataDelivered(ctx, t, cl, wm, w)
		if i == 0 {
			modules := assertBootstrapRenders(t, data, w.Name, "kubeadm join")
			t.Logf("modules in CABPK's worker cloud-config: %v", modules)
		}
		assertSecretNotLeaked(ctx, t, ns, p.logPath, data)
	}

	// One of each cluster resource, one instance per Machine, nothing twice.
	report := cl.Report(cloud.OwnerTagValue(services.TagCluster))
	assert.Len(t, report.ByOwner[owner], 1+2+1+1+1+workers, report.String())
	assert.Empty(t, report.Unowned)
	assert.Empty(t, cl.Duplicates(cloud.OwnerTagValue(ensure.TagOwnershipKey), ensure.TagResourceKey))

	// Delete: Cluster API deletes the MachineDeployment, the Machines and their MemMachines, then the
	// MemCluster; memcloud deletes every cloud resource on the way.
	require.NoError(t, env.Client.Delete(ctx, cluster))
	require.Eventually(t, func() bool {
		err := env.Client.Get(ctx, client.ObjectKeyFromObject(cluster), &clusterv1.Cluster{})
		return client.IgnoreNotFound(err) == nil && err != nil
	}, lifecycleWait, tick, "deleting the Cluster deletes its Machines and infrastructure")
	step("cluster deleted")
	assert.Empty(t, cl.Leaks(cloud.OwnerTagValue(services.TagCluster), owner), "nothing leaked")
	assert.Empty(t, cl.All(), "the cloud is empty: %s", cl.Report(cloud.OwnerTagValue(services.TagCluster)))
	assert.Empty(t, cl.Duplicates(cloud.OwnerTagValue(ensure.TagOwnershipKey), ensure.TagResourceKey))
	assert.Equal(t, 1+2+1+1+1+workers, cl.TotalCreated(), "every cloud resource was created once")
	for _, kind := range []client.ObjectList{&v1beta2.MemMachineList{}, &v1beta2.MemClusterList{}, &clusterv1.MachineList{}} {
		require.NoError(t, env.Client.List(ctx, kind, client.InNamespace(ns)))
		assert.Zero(t, meta.LenList(kind), "%T", kind)
	}
	require.NoError(t, deleteNodes(ctx, append(nodes, cp)...))
	require.NoError(t, capi.CheckRunning())
	t.Logf("memcloud API writes: %d, conflicts: %d; cloud calls: %d", p.writes.Load(), p.conflicts.Load(), cl.Calls().Total())
}

// waitMachinePhase waits until Machine ns/name reaches phase and returns it.
func waitMachinePhase(ctx context.Context, t *testing.T, ns, name string, phase clusterv1.MachinePhase) *clusterv1.Machine {
	t.Helper()
	m := &clusterv1.Machine{}
	require.Eventually(t, func() bool {
		return env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, m) == nil && m.Status.Phase == string(phase)
	}, lifecycleWait, tick, "Machine %q must reach phase %s", name, phase)
	return m
}

// assertMachineFromMemMachine checks what Cluster API copied from the MemMachine to the Machine.
func assertMachineFromMemMachine(t *testing.T, m *clusterv1.Machine, mm *v1beta2.MemMachine) {
	t.Helper()
	assert.Regexp(t, `^memcloud://i-[0-9a-f]{8}$`, mm.Spec.ProviderID)
	assert.Equal(t, mm.Spec.ProviderID, m.Spec.ProviderID, "providerID copied from the MemMachine")
	assert.True(t, ptr.Deref(m.Status.Initialization.InfrastructureProvisioned, false), "provisioned flag read from the MemMachine")
	want := make([]contract.MachineAddress, 0, len(m.Status.Addresses))
	for _, a := range m.Status.Addresses {
		want = append(want, contract.MachineAddress{Type: contract.MachineAddressType(a.Type), Address: a.Address})
	}
	assert.NotEmpty(t, mm.Status.Addresses)
	assert.Equal(t, mm.Status.Addresses, want, "addresses copied from the MemMachine")
	assert.True(t, ownedBy(mm, m.UID, true), "the Machine controls its MemMachine")
}

// ownedBy reports whether obj has an owner reference to uid, a controller one if controller is true.
func ownedBy(obj metav1.Object, uid types.UID, controller bool) bool {
	for _, r := range obj.GetOwnerReferences() {
		if r.UID == uid && ptr.Deref(r.Controller, false) == controller {
			return true
		}
	}
	return false
}

// assertBootstrapDataDelivered reads the Machine's bootstrap data through memcloud's scope, checks it is the
// Secret CABPK wrote and the user data of the instance, and returns it.
func assertBootstrapDataDelivered(ctx context.Context, t *testing.T, cl *cloud.Cloud, mm *v1beta2.MemMachine, m *clusterv1.Machine) []byte {
	t.Helper()
	machine, cluster := coreObject(ctx, t, m.Namespace, "Machine", m.Name), coreObject(ctx, t, m.Namespace, "Cluster", m.Spec.ClusterName)
	s, err := scope.NewMachineScope(ctx, env.Client, mm.DeepCopy(), machine, cluster, scope.WithContractVersion(contract.V1Beta2))
	require.NoError(t, err)
	data, format, err := s.BootstrapData(ctx)
	require.NoError(t, err)
	assert.Equal(t, scope.BootstrapFormatCloudConfig, format)
	secret := bootstrapSecret(ctx, t, m)
	assert.Equal(t, string(secret.Data["value"]), string(data), "the scope reads the Secret CABPK wrote")
	id, err := v1beta2.InstanceIDFromProviderID(mm.Spec.ProviderID)
	require.NoError(t, err)
	userData, err := cl.InstanceUserData(id)
	require.NoError(t, err)
	assert.Equal(t, string(data), string(userData), "the instance boots with CABPK's bootstrap data")
	return data
}

// coreObject reads a Cluster API core object at v1beta2 as unstructured, as capkit's scope takes it.
func coreObject(ctx context.Context, t *testing.T, ns, kind, name string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(clusterv1.GroupVersion.WithKind(kind))
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, u))
	return u
}

// joinToken finds the bootstrap token in kubeadm join data.
var joinToken = regexp.MustCompile(`token: ([a-z0-9]{6}\.[a-z0-9]{16})`)

// assertSecretNotLeaked checks that the join token in data appears neither in memcloud's log nor in the
// events and memcloud objects of namespace ns.
func assertSecretNotLeaked(ctx context.Context, t *testing.T, ns, logPath string, data []byte) {
	t.Helper()
	m := joinToken.FindSubmatch(data)
	require.NotNil(t, m, "CABPK's join data holds a bootstrap token")
	token := string(m[1])
	log, err := os.ReadFile(logPath)
	require.NoError(t, err)
	assert.NotContains(t, string(log), token, "memcloud never logs bootstrap data")
	for _, l := range []client.ObjectList{&corev1.EventList{}, &v1beta2.MemMachineList{}, &v1beta2.MemClusterList{}} {
		require.NoError(t, env.Client.List(ctx, l, client.InNamespace(ns)))
		b, err := json.Marshal(l)
		require.NoError(t, err)
		assert.NotContains(t, string(b), token, "no bootstrap data in %T", l)
	}
}

package vsphere_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	bootstrapv1 "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	clusterctlv1 "sigs.k8s.io/cluster-api/cmd/clusterctl/api/v1alpha3"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/examples/vspherecloud/api/v1beta2"
	"github.com/capkit/capkit/examples/vspherecloud/cloud"
	"github.com/capkit/capkit/examples/vspherecloud/services"
	"github.com/capkit/capkit/providertest/testenv"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/test/internal/capienv"
)

// vspherecloudVersion is vspherecloud's version in clusterctl's inventory of both management clusters: the
// release series of the repository (memcloud's metadata.yaml); move needs the target's at least the source's.
const vspherecloudVersion = "v0.2.0"

// moveWait bounds each wait of the move test: it only stops a test that does not converge.
const moveWait = 2 * time.Minute

// TestMoveVSphereCloudClusterWithClusterctl moves a provisioned vspherecloud cluster (a control plane Machine and a
// MachineDeployment of one worker, Running with the real Cluster API managers) from one management cluster to
// another with clusterctl's library, as `clusterctl move` does. Both run Cluster API and vspherecloud's manager
// process on one simulator, which outlives them. clusterctl carries no status: vspherecloud on the target finds each
// VM by the BIOS UUID in spec.providerID, which moves. The test proves that no VM is cloned again (the simulator's
// VMs are the same, with the same BIOS UUIDs, and no clone, power-off or destroy reaches vCenter from the move on),
// that the source's vspherecloud destroys nothing (it respects the paused Cluster), that the VMs' ownership tags
// hold nothing the move changes (no UID), that on the target the VSphereMachines keep spec.providerID and are
// provisioned again with the same addresses, and that deleting the Cluster on the target leaves no VM.
func TestMoveVSphereCloudClusterWithClusterctl(t *testing.T) {
	ctx := t.Context()
	step := capienv.StepTimer(t)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir()) // clusterctl's own configuration folder, empty

	// The target management cluster: a second API server with Cluster API's and vspherecloud's CRDs.
	target, err := capienv.NewEnvironment(addToScheme, testenv.WithCRDPaths(vspherecloudCRDs))
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, target.Stop()) })
	providers, err := capienv.Inventory(capienv.InventoryProvider{Name: "vspherecloud", Type: clusterctlv1.InfrastructureProviderType,
		Version: vspherecloudVersion, Namespace: "vspherecloud-system"}, vspherecloudCRDs)
	require.NoError(t, err)
	for _, e := range []*testenv.Environment{env, target} {
		require.NoError(t, capienv.InstallInventory(ctx, e.Client, providers...))
	}
	step("target API server started; clusterctl's inventory in both management clusters")

	// The source: the world (Cluster API's managers on env, the simulator) and vspherecloud's manager.
	w := newWorld(t)
	src := w.start(t, capkitProvider("--poll-interval=1s"))
	ns := src.namespace(ctx, "move")
	for what, c := range map[string]client.Client{"source": env.Client, "target": target.Client} {
		capienv.DumpOnFailure(t, c, what, ns, v1beta2.GroupVersion.WithKind("VSphereCluster"), v1beta2.GroupVersion.WithKind("VSphereMachine"))
	}
	t.Cleanup(func() { assert.NoError(t, deleteNodes(context.Background())) })
	const name = "wl"
	require.NoError(t, src.createCluster(ctx, ns, name))
	require.NoError(t, waitProvisioned(ctx, ns, 1, moveWait))
	require.NoError(t, joinNodes(ctx, ns))
	require.NoError(t, createWorkers(ctx, ns, name, 1))
	require.NoError(t, waitProvisioned(ctx, ns, 2, moveWait))
	require.NoError(t, joinNodes(ctx, ns))
	step("source cluster provisioned: control plane and worker Running")

	before := readVSphere(ctx, t, env.Client, ns)
	vms, clones := w.sim.UUIDs(t), w.sim.Clones()
	require.Len(t, vms, 2, "a VM per Machine")
	require.Equal(t, 2, clones, "a clone per Machine")
	for machine, pid := range before.providerIDs {
		assert.Equal(t, services.ProviderID(vms[machine]), pid, "VSphereMachine %q names its VM's BIOS UUID", machine)
	}
	assertTagsMoveSafe(t, w, ns, name, before)

	// The target's managers, on the same simulator.
	capienv.StartT(t, target.Config, target.Client, capienv.AllComponents)
	tp := capkitProvider("--poll-interval=1s")
	tp.name += "-target"
	dst := w.startOn(t, target, tp)
	step("target managers ready")

	// The move, with the source's managers running. The VSphereCluster names src's endpoint of the simulator:
	// after the move vspherecloud on the target reaches vCenter through it too.
	requests := src.vc.Requests.ByKind()
	moveStart := time.Now().Truncate(time.Second) // conditions' times are in seconds
	log, err := capienv.Move(ctx, t.TempDir(), env.Config, target.Config, ns)
	require.NoError(t, err, "clusterctl's log:\n%s", log)
	t.Logf("clusterctl:\n%s", log.Info())
	step("clusterctl move done")
	assert.Equal(t, vms, w.sim.UUIDs(t), "the move destroys no VM: vspherecloud on the source respects the paused Cluster")
	assertSourceEmpty(ctx, t, ns)

	// The target: every object is there, the Cluster unpaused, and vspherecloud provisions the machines again from
	// the VMs their providerIDs name.
	got := readVSphere(ctx, t, target.Client, ns)
	assert.Equal(t, before.names, got.names, "every object moved")
	assert.Equal(t, before.providerIDs, got.providerIDs, "spec.providerID moves with the VSphereMachines")
	assert.Equal(t, before.keys, got.keys, "the ownership keys move with the VSphereMachines' labels")
	for uid := range got.uids {
		assert.NotContains(t, before.uids, uid, "every object has a new UID on the target")
	}
	waitProvisionedAgain(ctx, t, target.Client, ns, name, before, moveStart)
	step("target reconciled: VSphereMachines provisioned again with their addresses, Machines Running")
	assert.Equal(t, vms, w.sim.UUIDs(t), "the same VMs, with the same BIOS UUIDs")
	assert.Equal(t, clones, w.sim.Clones(), "no clone after the move")
	after := src.vc.Requests.ByKind()
	for _, kind := range []string{"SOAP CloneVM_Task", "SOAP PowerOffVM_Task", "SOAP Destroy_Task"} {
		assert.Zero(t, after[kind]-requests[kind], "no %s from the move until the target is reconciled", kind)
	}
	t.Logf("vCenter requests from the move until the target is reconciled: %s", requestDelta(requests, after))
	require.NoError(t, src.proc.CheckRunning(), "vspherecloud on the source")
	require.NoError(t, dst.proc.CheckRunning(), "vspherecloud on the target")

	// Delete on the target: Cluster API and vspherecloud destroy every VM.
	require.NoError(t, deleteClusters(ctx, target.Client, ns, moveWait))
	step("cluster deleted on the target")
	assert.Zero(t, w.sim.VMs(t), "no VM left")
	assert.Equal(t, clones, w.sim.Clones(), "every VM was cloned once, before the move")
	for _, l := range []client.ObjectList{&v1beta2.VSphereMachineList{}, &v1beta2.VSphereClusterList{}, &clusterv1.MachineList{}} {
		require.NoError(t, target.Client.List(ctx, l, client.InNamespace(ns)))
		assert.Zero(t, meta.LenList(l), "%T", l)
	}
}

// createWorkers creates a MachineDeployment of n workers of cluster ns/name, from a KubeadmConfigTemplate and a
// VSphereMachineTemplate named "workers".
func createWorkers(ctx context.Context, ns, name string, n int32) error {
	kct := &bootstrapv1.KubeadmConfigTemplate{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "workers"}}
	kct.Spec.Template.Spec.JoinConfiguration.NodeRegistration.Name = "{{ ds.meta_data.local_hostname }}"
	vmt := &v1beta2.VSphereMachineTemplate{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "workers"}}
	vmt.Spec.Template.Spec = capkitMachineSpec
	md := &clusterv1.MachineDeployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "workers"}}
	md.Spec = clusterv1.MachineDeploymentSpec{ClusterName: name, Replicas: ptr.To(n)}
	md.Spec.Template.Spec = clusterv1.MachineSpec{ClusterName: name, Version: kubernetesVersion,
		Bootstrap: clusterv1.Bootstrap{ConfigRef: clusterv1.ContractVersionedObjectReference{
			APIGroup: bootstrapv1.GroupVersion.Group, Kind: "KubeadmConfigTemplate", Name: "workers"}},
		InfrastructureRef: clusterv1.ContractVersionedObjectReference{APIGroup: v1beta2.GroupName, Kind: "VSphereMachineTemplate", Name: "workers"}}
	return capienv.CreateAll(ctx, env.Client, kct, vmt, md)
}

// movedKinds are the kinds of the objects a vspherecloud cluster is made of, all of which the move carries.
var movedKinds = []client.ObjectList{
	&clusterv1.ClusterList{}, &clusterv1.MachineDeploymentList{}, &clusterv1.MachineSetList{}, &clusterv1.MachineList{},
	&bootstrapv1.KubeadmConfigList{}, &bootstrapv1.KubeadmConfigTemplateList{},
	&v1beta2.VSphereClusterList{}, &v1beta2.VSphereMachineList{}, &v1beta2.VSphereMachineTemplateList{},
}

// vsphereState is what the move must carry or vspherecloud must rebuild, in one management cluster: the names of
// the objects by kind, the UIDs of all, and for each VSphereMachine its spec.providerID, its ownership key (the
// label its VM's tags hold) and its addresses.
type vsphereState struct {
	names       map[string][]string
	uids        map[string]string // UID: kind/name
	providerIDs map[string]string
	keys        map[string]string
	addresses   map[string][]contract.MachineAddress
}

// readVSphere reads the state of namespace ns in the API server of c.
func readVSphere(ctx context.Context, t *testing.T, c client.Client, ns string) vsphereState {
	t.Helper()
	s := vsphereState{names: map[string][]string{}, uids: map[string]string{}, providerIDs: map[string]string{},
		keys: map[string]string{}, addresses: map[string][]contract.MachineAddress{}}
	for _, kind := range movedKinds {
		l := kind.DeepCopyObject().(client.ObjectList)
		require.NoError(t, c.List(ctx, l, client.InNamespace(ns)))
		k := strings.TrimSuffix(fmt.Sprintf("%T", l), "List")
		require.NoError(t, meta.EachListItem(l, func(o runtime.Object) error {
			obj := o.(client.Object)
			s.names[k] = append(s.names[k], obj.GetName())
			s.uids[string(obj.GetUID())] = k + "/" + obj.GetName()
			return nil
		}))
		slices.Sort(s.names[k])
	}
	vsms := &v1beta2.VSphereMachineList{}
	require.NoError(t, c.List(ctx, vsms, client.InNamespace(ns)))
	for _, vsm := range vsms.Items {
		// The VSphereMachine is named after its Machine, and its VM after it.
		s.providerIDs[vsm.Name] = vsm.Spec.ProviderID
		s.keys[vsm.Name] = vsm.Labels[ensure.TagOwnershipKey]
		s.addresses[vsm.Name] = vsm.Status.Addresses
	}
	return s
}

// assertTagsMoveSafe checks the ownership tags on the VMs (extraConfig): each VM carries its VSphereMachine's
// ownership key (a label, which moves), its resource key and its cluster's namespace/name (which the move keeps),
// and no tag holds a UID of any object of the cluster, which the move changes.
func assertTagsMoveSafe(t *testing.T, w *world, ns, name string, s vsphereState) {
	t.Helper()
	for machine, pid := range s.providerIDs {
		uuid, err := services.IDFromProviderID(pid)
		require.NoError(t, err)
		vm, err := w.sim.Inspect(uuid)
		require.NoError(t, err)
		tags := map[string]string{}
		for _, o := range vm.Config.ExtraConfig {
			if ov := o.GetOptionValue(); strings.HasPrefix(ov.Key, cloud.TagPrefix) {
				tags[ov.Key] = fmt.Sprint(ov.Value)
			}
		}
		assert.NotEmpty(t, s.keys[machine], "VSphereMachine %q has an ownership key", machine)
		assert.Equal(t, s.keys[machine], tags[cloud.TagKey(ensure.TagOwnershipKey)], "VM %q carries its VSphereMachine's ownership key", machine)
		assert.Equal(t, services.KeyVM, tags[cloud.TagKey(ensure.TagResourceKey)], "VM %q carries its resource key", machine)
		assert.Equal(t, ns+"/"+name, tags[cloud.TagKey(services.TagCluster)], "VM %q carries its cluster's namespace/name", machine)
		assert.Equal(t, ensure.IdempotencyToken(s.keys[machine], services.KeyVM), tags[cloud.TagKey(services.TagToken)],
			"VM %q carries its create's token, made of the ownership key", machine)
		for key, value := range tags {
			for uid, obj := range s.uids {
				assert.NotContains(t, value, uid, "tag %s of VM %q holds the UID of %s, which clusterctl move changes", key, machine, obj)
			}
		}
	}
}

// assertSourceEmpty checks that no object of the cluster is left in namespace ns of the source, its Secrets
// included (the credentials Secret carries clusterctl's move label).
func assertSourceEmpty(ctx context.Context, t *testing.T, ns string) {
	t.Helper()
	for _, kind := range movedKinds {
		l := kind.DeepCopyObject().(client.ObjectList)
		require.NoError(t, env.Client.List(ctx, l, client.InNamespace(ns)))
		assert.Zero(t, meta.LenList(l), "no %T left in the source", l)
	}
	secrets := &corev1.SecretList{}
	require.NoError(t, env.Client.List(ctx, secrets, client.InNamespace(ns)))
	assert.Empty(t, secrets.Items, "the cluster's Secrets and the credentials moved too")
}

// waitProvisionedAgain waits until vspherecloud on the target (the API server of c) has provisioned every
// VSphereMachine again with the addresses it had on the source, after the move began (its Ready condition turned
// true since then: the status was rebuilt, not carried), the VSphereCluster is provisioned, and Cluster API runs
// every Machine again.
func waitProvisionedAgain(ctx context.Context, t *testing.T, c client.Client, ns, name string, before vsphereState, since time.Time) {
	t.Helper()
	var last string
	err := waitFor(ctx, moveWait, "the target provisioned again", func() (bool, error) {
		vsms := &v1beta2.VSphereMachineList{}
		if err := c.List(ctx, vsms, client.InNamespace(ns)); err != nil {
			return false, err
		}
		got := map[string][]contract.MachineAddress{}
		for _, vsm := range vsms.Items {
			ready := meta.FindStatusCondition(vsm.Status.Conditions, "Ready")
			if !vsm.IsProvisioned() || ready == nil || ready.Status != metav1.ConditionTrue || ready.LastTransitionTime.Time.Before(since) {
				last = fmt.Sprintf("VSphereMachine %q not provisioned again: %v", vsm.Name, vsm.Status)
				return false, nil
			}
			got[vsm.Name] = vsm.Status.Addresses
		}
		if !maps.EqualFunc(before.addresses, got, slices.Equal) {
			last = fmt.Sprintf("addresses: want %v, got %v", before.addresses, got)
			return false, nil
		}
		vc := &v1beta2.VSphereCluster{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, vc); err != nil || !vc.IsProvisioned() {
			last = "VSphereCluster not provisioned again"
			return false, err
		}
		machines := &clusterv1.MachineList{}
		if err := c.List(ctx, machines, client.InNamespace(ns)); err != nil {
			return false, err
		}
		for _, m := range machines.Items {
			if m.Status.Phase != string(clusterv1.MachinePhaseRunning) || !m.Status.NodeRef.IsDefined() {
				last = fmt.Sprintf("Machine %q: phase %q, nodeRef %v", m.Name, m.Status.Phase, m.Status.NodeRef)
				return false, nil
			}
		}
		cluster := &clusterv1.Cluster{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, cluster); err != nil {
			return false, err
		}
		if ptr.Deref(cluster.Spec.Paused, false) || !ptr.Deref(cluster.Status.Initialization.InfrastructureProvisioned, false) {
			last = "Cluster paused or its infrastructure not provisioned"
			return false, nil
		}
		return len(machines.Items) == len(before.providerIDs), nil
	})
	require.NoError(t, err, "last: %s", last)
}

// requestDelta renders the vCenter requests between two counts by kind.
func requestDelta(from, to map[string]int) string {
	var parts []string
	for kind, n := range to {
		if d := n - from[kind]; d > 0 {
			parts = append(parts, fmt.Sprintf("%s=%d", kind, d))
		}
	}
	slices.Sort(parts)
	return strings.Join(parts, ", ")
}

package e2e_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"maps"
	"net"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	bootstrapv1 "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"

	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/services"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/test/internal/capienv"
)

// TestInPlaceUpdateWithRealClusterAPI runs Cluster API's in-place updates (core manager with the RuntimeSDK and
// InPlaceUpdates feature gates) against memcloud's extension (package inplace, served by memcloud's manager and
// registered with an ExtensionConfig) on a MachineDeployment of three workers:
//   - a new MemMachineTemplate that changes the flavor (mutable in place) updates the three Machines in place: the
//     same Machines, the same instances, the new flavor in the cloud, no instance created; memcloud's manager is
//     killed while the first Machine updates, and the next one finishes that update;
//   - a new template that changes the image (not mutable) is declined, and Cluster API rolls out new Machines as
//     before;
//   - deleting the Cluster leaves nothing.
func TestInPlaceUpdateWithRealClusterAPI(t *testing.T) {
	ctx := context.Background()
	start := time.Now()
	step := func(what string) { t.Logf("%5.1fs %s", time.Since(start).Seconds(), what) }
	capi := capienv.StartT(t, env.Config, env.Client, components,
		capienv.WithArgs(capienv.Core, "--feature-gates=RuntimeSDK=true,InPlaceUpdates=true"))
	cl, err := cloud.New(cloud.WithSeed(27), cloud.WithPendingGets(2))
	require.NoError(t, err)
	p := startProvider(t, cl, 100*time.Millisecond)
	registerExtension(ctx, t)
	step("managers ready, memcloud's extension discovered")

	ns, err := env.CreateNamespace(ctx, "inplace")
	require.NoError(t, err)
	var nodes []string
	t.Cleanup(func() { assert.NoError(t, deleteNodes(context.Background(), nodes...)) }) // after the dump
	dumpOnFailure(t, ns)
	const name, workers = "wl", 3
	owner := ns + "/" + name
	require.NoError(t, createAll(ctx, newCluster(t, ns, name)...))
	cp := name + "-cp-0"
	require.NoError(t, createAll(ctx, newMachine(ns, name, cp, true, controlPlaneConfig())...))
	machine := waitMachinePhase(ctx, t, ns, cp, clusterv1.MachinePhaseProvisioned)
	joinFirstControlPlaneNode(ctx, t, ns, cp, machine.Spec.ProviderID)
	nodes = append(nodes, cp)
	step("control plane Machine running")

	kct := &bootstrapv1.KubeadmConfigTemplate{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "workers"}}
	kct.Spec.Template.Spec = workerConfig()
	md := &clusterv1.MachineDeployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "workers"}}
	md.Spec = clusterv1.MachineDeploymentSpec{ClusterName: name, Replicas: ptr.To[int32](workers)}
	// One Machine at a time, none added: an in-place update makes a Machine unavailable while it runs.
	md.Spec.Rollout.Strategy = clusterv1.MachineDeploymentRolloutStrategy{Type: clusterv1.RollingUpdateMachineDeploymentStrategyType,
		RollingUpdate: clusterv1.MachineDeploymentRolloutStrategyRollingUpdate{MaxSurge: ptr.To(intstr.FromInt32(0)), MaxUnavailable: ptr.To(intstr.FromInt32(1))}}
	md.Spec.Template.Spec = clusterv1.MachineSpec{ClusterName: name, Version: kubernetesVersion,
		Bootstrap:         clusterv1.Bootstrap{ConfigRef: kubeadmRef("KubeadmConfigTemplate", "workers")},
		InfrastructureRef: memRef("MemMachineTemplate", "workers-small")}
	require.NoError(t, createAll(ctx, kct, memTemplate(ns, "workers-small", v1beta2.FlavorSmall, ""), md))
	before := waitInPlaceWorkers(ctx, t, cl, ns, workers, &nodes, func(*v1beta2.MemMachine, *cloud.Instance) bool { return true })
	created := cl.TotalCreated()
	require.Equal(t, 1+2+1+1+1+workers, created)
	step("workers running: small instances " + fmt.Sprint(slices.Sorted(maps.Values(before))))

	// In place: the flavor changes on the same instances. memcloud's manager is killed while the first Machine
	// updates; the next incarnation answers Cluster API's next UpdateMachine call.
	require.NoError(t, createAll(ctx, memTemplate(ns, "workers-large", v1beta2.FlavorLarge, "")))
	pointAt(ctx, t, md, "workers-large")
	require.Eventually(t, func() bool {
		list := &clusterv1.MachineList{}
		if env.Client.List(ctx, list, client.InNamespace(ns), client.MatchingLabels{clusterv1.MachineDeploymentNameLabel: "workers"}) != nil {
			return false
		}
		for _, m := range list.Items {
			if _, ok := m.Annotations[clusterv1.UpdateInProgressAnnotation]; ok && m.Annotations[runtimev1.PendingHooksAnnotation] != "" {
				return true
			}
		}
		return false
	}, lifecycleWait, tick, "Cluster API must start updating a Machine in place")
	require.NoError(t, p.Restart(ctx), "kill memcloud's manager mid-update and start a new one")
	step("memcloud's manager restarted while a Machine updated in place")
	after := waitInPlaceWorkers(ctx, t, cl, ns, workers, &nodes, func(mm *v1beta2.MemMachine, inst *cloud.Instance) bool {
		return mm.Spec.Flavor == v1beta2.FlavorLarge && inst.Flavor == string(v1beta2.FlavorLarge)
	})
	assert.Equal(t, 1, p.Restarts())
	assert.Equal(t, before, after, "the same Machines with the same instances: updated in place, none replaced")
	assert.Equal(t, created, cl.TotalCreated(), "no instance created by the in-place update")
	assert.Empty(t, cl.Duplicates(cloud.OwnerTagValue(ensure.TagOwnershipKey), ensure.TagResourceKey))
	step("flavor changed in place on the same three instances")

	// Not in place: the image is not mutable, the extension declines, Cluster API rolls out new Machines.
	require.NoError(t, createAll(ctx, memTemplate(ns, "workers-noble", v1beta2.FlavorLarge, "ubuntu-24.04-noble")))
	pointAt(ctx, t, md, "workers-noble")
	rolled := waitInPlaceWorkers(ctx, t, cl, ns, workers, &nodes, func(mm *v1beta2.MemMachine, inst *cloud.Instance) bool {
		return inst.Image == "ubuntu-24.04-noble"
	})
	for m := range rolled {
		assert.NotContains(t, before, m, "Machine %q is new: the image change rolled out", m)
	}
	assert.Equal(t, created+workers, cl.TotalCreated(), "one new instance per Machine")
	assert.Empty(t, cl.Duplicates(cloud.OwnerTagValue(ensure.TagOwnershipKey), ensure.TagResourceKey))
	step("image change rolled out: three new Machines")

	cluster := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	require.NoError(t, env.Client.Delete(ctx, cluster))
	require.Eventually(t, func() bool {
		err := env.Client.Get(ctx, client.ObjectKeyFromObject(cluster), &clusterv1.Cluster{})
		return client.IgnoreNotFound(err) == nil && err != nil
	}, lifecycleWait, tick, "deleting the Cluster deletes its Machines and infrastructure")
	assert.Empty(t, cl.Leaks(cloud.OwnerTagValue(services.TagCluster), owner), "nothing leaked")
	assert.Empty(t, cl.All(), "the cloud is empty: %s", cl.Report(cloud.OwnerTagValue(services.TagCluster)))
	require.NoError(t, capi.CheckRunning())
	step("cluster deleted: the cloud is empty")
}

// memTemplate returns a MemMachineTemplate of flavor and image ("" for the default).
func memTemplate(ns, name string, flavor v1beta2.Flavor, image string) *v1beta2.MemMachineTemplate {
	t := &v1beta2.MemMachineTemplate{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	t.Spec.Template.Spec = v1beta2.MemMachineSpec{Flavor: flavor, Image: image}
	return t
}

// pointAt makes the MachineDeployment use the MemMachineTemplate named template: templates are replaced, not
// edited.
func pointAt(ctx context.Context, t *testing.T, md *clusterv1.MachineDeployment, template string) {
	t.Helper()
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(md), md))
	patch := client.MergeFrom(md.DeepCopy())
	md.Spec.Template.Spec.InfrastructureRef.Name = template
	require.NoError(t, env.Client.Patch(ctx, md, patch))
}

// registerExtension points Cluster API at memcloud's extension, served by memcloud's manager on envtest's webhook
// port with envtest's certificate, and waits until Cluster API has discovered its handlers. The ExtensionConfig is
// deleted at cleanup: Cluster API allows one extension per hook.
func registerExtension(ctx context.Context, t *testing.T) {
	t.Helper()
	wo := env.WebhookInstallOptions()
	ec := &unstructured.Unstructured{}
	ec.SetAPIVersion(runtimev1.GroupVersion.String())
	ec.SetKind("ExtensionConfig")
	ec.SetName("memcloud")
	ec.Object["spec"] = map[string]any{"clientConfig": map[string]any{
		"url":      "https://" + net.JoinHostPort(wo.LocalServingHost, strconv.Itoa(wo.LocalServingPort)),
		"caBundle": base64.StdEncoding.EncodeToString(wo.LocalServingCAData),
	}}
	require.NoError(t, env.Client.Create(ctx, ec))
	t.Cleanup(func() { assert.NoError(t, client.IgnoreNotFound(env.Client.Delete(context.Background(), ec))) })
	var handlers []any
	require.Eventually(t, func() bool {
		if env.Client.Get(ctx, client.ObjectKeyFromObject(ec), ec) != nil {
			return false
		}
		handlers, _, _ = unstructured.NestedSlice(ec.Object, "status", "handlers")
		return len(handlers) == 3
	}, lifecycleWait, tick, "Cluster API must discover memcloud's three in-place handlers")
	t.Logf("ExtensionConfig handlers: %v", handlers)
}

// waitInPlaceWorkers waits until the MachineDeployment "workers" of ns has want Machines, all Running, up to date and
// not updating, whose MemMachines and instances on cl satisfy ok; it plays the kubelet of new Machines (adding their
// Nodes to nodes). It returns the instance ID of each Machine, by Machine name.
func waitInPlaceWorkers(ctx context.Context, t *testing.T, cl *cloud.Cloud, ns string, want int, nodes *[]string, ok func(*v1beta2.MemMachine, *cloud.Instance) bool) map[string]string {
	t.Helper()
	var out map[string]string
	state := &note{}
	require.Eventually(t, func() bool {
		list := &clusterv1.MachineList{}
		if err := env.Client.List(ctx, list, client.InNamespace(ns), client.MatchingLabels{clusterv1.MachineDeploymentNameLabel: "workers"}); err != nil {
			return state.Set(false, err.Error())
		}
		for _, m := range list.Items {
			if m.Spec.ProviderID != "" && !slices.Contains(*nodes, m.Name) {
				if err := joinNode(ctx, m.Name, m.Spec.ProviderID); err != nil {
					return state.Set(false, err.Error())
				}
				*nodes = append(*nodes, m.Name)
			}
		}
		out = map[string]string{}
		for _, m := range list.Items {
			if m.Status.Phase != string(clusterv1.MachinePhaseRunning) || meta.IsStatusConditionTrue(m.Status.Conditions, clusterv1.MachineUpdatingCondition) ||
				!meta.IsStatusConditionTrue(m.Status.Conditions, clusterv1.MachineUpToDateCondition) {
				return state.Set(false, fmt.Sprintf("Machine %q: phase %s, conditions %v", m.Name, m.Status.Phase, conditionTypes(m.Status.Conditions)))
			}
			if _, updating := m.Annotations[clusterv1.UpdateInProgressAnnotation]; updating {
				return state.Set(false, fmt.Sprintf("Machine %q is updating", m.Name))
			}
			mm := &v1beta2.MemMachine{}
			if err := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: m.Spec.InfrastructureRef.Name}, mm); err != nil {
				return state.Set(false, err.Error())
			}
			inst, err := instanceOf(ctx, cl, mm)
			if err != nil {
				return state.Set(false, err.Error())
			}
			if inst.State != cloud.InstanceRunning || !ok(mm, inst) {
				return state.Set(false, fmt.Sprintf("Machine %q: instance %s %s, flavor %s, image %s", m.Name, inst.ID, inst.State, inst.Flavor, inst.Image))
			}
			out[m.Name] = inst.ID
		}
		if len(list.Items) != want {
			return state.Set(false, fmt.Sprintf("%d Machines", len(list.Items)))
		}
		return state.Set(true, "")
	}, 3*lifecycleWait, tick, "the workers must converge: %s", state)
	return out
}

package v1beta1_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	bootstrapv1 "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/contract/lint"
	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/providertest"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/test/internal/capienv"
)

const (
	wait = time.Minute // only stops a test that does not converge
	tick = 200 * time.Millisecond
)

// TestCRDsDeclareContractV1Beta1 checks the hand-written CRDs: clean for the contract they declare, and
// discovered as v1beta1 through the API server, as the provider's scopes discover them.
func TestCRDsDeclareContractV1Beta1(t *testing.T) {
	crds, err := providertest.ReadCRDFiles(crdDir)
	require.NoError(t, err)
	require.Len(t, crds, 2)
	for _, crd := range crds {
		assert.Empty(t, lint.CheckCRD(crd), crd.Name)
		v, api, err := contract.VersionOf(crd)
		require.NoError(t, err, crd.Name)
		assert.Equal(t, contract.V1Beta1, v, crd.Name)
		assert.Equal(t, apiVersion, api, crd.Name)
		assert.NotContains(t, crd.Labels, contract.VersionLabel(contract.V1Beta2), "only the v1beta1 contract label")
	}
	for _, gk := range []schema.GroupKind{oldClusterGVK.GroupKind(), oldMachineGVK.GroupKind()} {
		v, api, err := contract.DiscoverContractVersion(t.Context(), env.Client, gk)
		require.NoError(t, err, gk.Kind)
		assert.Equal(t, contract.V1Beta1, v, gk.Kind)
		assert.Equal(t, apiVersion, api, gk.Kind)
	}
}

// TestV1Beta1ProviderWithRealClusterAPI drives one Cluster with a kubeadm-bootstrapped control plane Machine
// through the real core and kubeadm bootstrap managers, with the in-test v1beta1-contract provider as the
// infrastructure provider: Cluster API must read OldCluster and OldMachine through contract v1beta1, and
// deleting the Cluster must leave nothing in the cloud.
func TestV1Beta1ProviderWithRealClusterAPI(t *testing.T) {
	ctx := context.Background()
	start := time.Now()
	step := func(what string) { t.Logf("%5.1fs %s", time.Since(start).Seconds(), what) }
	capi := capienv.StartT(t, env.Config, env.Client, components)
	cl, err := cloud.New(cloud.WithSeed(7), cloud.WithPendingGets(2))
	require.NoError(t, err)
	startProvider(t, cl)
	step("managers ready")
	ns, err := env.CreateNamespace(ctx, "v1beta1")
	require.NoError(t, err)
	dumpOnFailure(t, ns)
	const name = "old"
	owner := ns + "/" + name

	// The Cluster: Cluster API reads status.ready, the endpoint and the failure-domain map of the OldCluster.
	kubeconfig, err := capienv.KubeconfigSecret(ns, name, env.Config)
	require.NoError(t, err)
	oc := newUnstructured(oldClusterGVK)()
	oc.SetNamespace(ns)
	oc.SetName(name)
	cluster := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	cluster.Spec.InfrastructureRef = clusterv1.ContractVersionedObjectReference{APIGroup: group, Kind: "OldCluster", Name: name}
	require.NoError(t, createAll(ctx, kubeconfig, oc, cluster))
	require.Eventually(t, func() bool {
		return env.Client.Get(ctx, client.ObjectKeyFromObject(cluster), cluster) == nil &&
			ptr.Deref(cluster.Status.Initialization.InfrastructureProvisioned, false) &&
			cluster.Spec.ControlPlaneEndpoint.Host != "" && len(cluster.Status.FailureDomains) == 2 &&
			cluster.Status.Phase == string(clusterv1.ClusterPhaseProvisioned)
	}, wait, tick, "the Cluster must read its OldCluster through contract v1beta1")
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(oc), oc))
	assertV1Beta1Shape(t, oc, lint.KindInfraCluster)
	assert.Empty(t, lint.CheckInfraCluster(oc, contract.V1Beta1))
	ep, err := contract.InfraCluster(contract.V1Beta1).ControlPlaneEndpoint().Get(oc)
	require.NoError(t, err)
	assert.Equal(t, ep.Host, cluster.Spec.ControlPlaneEndpoint.Host, "endpoint copied from the OldCluster")
	assert.Equal(t, ep.Port, cluster.Spec.ControlPlaneEndpoint.Port)
	fdMap, found, err := unstructured.NestedMap(oc.Object, "status", "failureDomains")
	require.NoError(t, err, "the OldCluster's failure domains are a v1beta1 map")
	require.True(t, found)
	assert.Len(t, fdMap, 2)
	assert.Equal(t, []clusterv1.FailureDomain{
		{Name: zoneA, ControlPlane: ptr.To(true), Attributes: map[string]string{"rack": "a1"}},
		{Name: zoneB, ControlPlane: ptr.To(false)},
	}, cluster.Status.FailureDomains, "Cluster API turns the v1beta1 map into its v1beta2 list")
	assert.True(t, meta.IsStatusConditionTrue(cluster.Status.Conditions, clusterv1.ClusterInfrastructureReadyCondition))
	assert.Equal(t, name, oc.GetLabels()[clusterv1.ClusterNameLabel], "Cluster API adopts the OldCluster")
	step("cluster infrastructure provisioned")

	// The control plane Machine: CABPK writes `kubeadm init` data, the provider boots an instance with it.
	cp := name + "-cp-0"
	om := newUnstructured(oldMachineGVK)()
	om.SetNamespace(ns)
	om.SetName(cp)
	machine := &clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: cp,
		Labels: map[string]string{clusterv1.ClusterNameLabel: name, clusterv1.MachineControlPlaneLabel: ""}}}
	machine.Spec = clusterv1.MachineSpec{
		ClusterName: name,
		Version:     "v1.35.0",
		Bootstrap: clusterv1.Bootstrap{ConfigRef: clusterv1.ContractVersionedObjectReference{
			APIGroup: bootstrapv1.GroupVersion.Group, Kind: "KubeadmConfig", Name: cp}},
		InfrastructureRef: clusterv1.ContractVersionedObjectReference{APIGroup: group, Kind: "OldMachine", Name: cp},
	}
	config := &bootstrapv1.KubeadmConfig{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: cp}}
	config.Spec.Files = []bootstrapv1.File{{Path: "/etc/capkit/contract", Content: "v1beta1"}}
	require.NoError(t, createAll(ctx, config, om, machine))
	waitMachinePhase(ctx, t, machine, clusterv1.MachinePhaseProvisioned)
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(om), om))
	assertV1Beta1Shape(t, om, lint.KindInfraMachine)
	assert.Empty(t, lint.CheckInfraMachine(om, contract.V1Beta1))
	providerID, err := contract.InfraMachine(contract.V1Beta1).ProviderID().Get(om)
	require.NoError(t, err)
	assert.Regexp(t, `^memcloud://i-[0-9a-f]{8}$`, providerID)
	assert.Equal(t, providerID, machine.Spec.ProviderID, "providerID copied from the OldMachine")
	assert.True(t, ptr.Deref(machine.Status.Initialization.InfrastructureProvisioned, false), "status.ready read as provisioned")
	addrs, err := contract.InfraMachine(contract.V1Beta1).Addresses().Get(om)
	require.NoError(t, err)
	require.Len(t, addrs, 2)
	got := make([]contract.MachineAddress, 0, len(machine.Status.Addresses))
	for _, a := range machine.Status.Addresses {
		got = append(got, contract.MachineAddress{Type: contract.MachineAddressType(a.Type), Address: a.Address})
	}
	assert.Equal(t, addrs, got, "addresses copied from the OldMachine")
	secret := bootstrapSecret(ctx, t, machine)
	userData, err := cl.InstanceUserData(providerID[len(providerIDPrefix):])
	require.NoError(t, err)
	assert.Equal(t, string(secret), string(userData), "the instance boots with CABPK's bootstrap data")
	assert.Contains(t, string(userData), "kubeadm init")
	step("control plane Machine provisioned")

	// The kubelet joins: nodeRef, phase Running, control plane initialized.
	// The first control plane Node triggers no reconcile of its Machine: see capienv.JoinFirstControlPlaneNode.
	require.Eventually(t, func() bool {
		ok, err := capienv.JoinFirstControlPlaneNode(ctx, env.Client, client.ObjectKeyFromObject(machine), cp, providerID)
		return err == nil && ok
	}, wait, tick, "Machine %q must get the nodeRef of its Node", cp)
	waitMachinePhase(ctx, t, machine, clusterv1.MachinePhaseRunning)
	require.Eventually(t, func() bool {
		return env.Client.Get(ctx, client.ObjectKeyFromObject(cluster), cluster) == nil &&
			meta.IsStatusConditionTrue(cluster.Status.Conditions, clusterv1.ClusterControlPlaneInitializedCondition)
	}, wait, tick, "a control plane Machine with a Node initializes the control plane")
	step("control plane Machine running")

	// Conditions: a stopped instance turns the OldMachine's Ready (at status.v1beta2.conditions) False, and
	// Cluster API mirrors exactly that condition into the Machine's InfrastructureReady.
	require.NoError(t, cl.SetInstanceState(providerID[len(providerIDPrefix):], cloud.InstanceStopped))
	require.Eventually(t, func() bool {
		if env.Client.Get(ctx, client.ObjectKeyFromObject(om), om) != nil || env.Client.Get(ctx, client.ObjectKeyFromObject(machine), machine) != nil {
			return false
		}
		ready := readyCondition(om)
		infra := meta.FindStatusCondition(machine.Status.Conditions, clusterv1.MachineInfrastructureReadyCondition)
		return ready != nil && ready.Status == metav1.ConditionFalse && infra != nil &&
			infra.Status == ready.Status && infra.Reason == ready.Reason && infra.Message == ready.Message
	}, wait, tick, "the Machine's InfrastructureReady must mirror the OldMachine's status.v1beta2.conditions Ready")
	assert.Contains(t, readyCondition(om).Message, "stopped")
	require.NoError(t, cl.SetInstanceState(providerID[len(providerIDPrefix):], cloud.InstanceRunning))
	require.Eventually(t, func() bool {
		return env.Client.Get(ctx, client.ObjectKeyFromObject(machine), machine) == nil &&
			meta.IsStatusConditionTrue(machine.Status.Conditions, clusterv1.MachineInfrastructureReadyCondition)
	}, wait, tick, "the Machine's InfrastructureReady must follow the OldMachine back to Ready")
	step("conditions mirrored")

	// One network, subnet, load balancer and instance, nothing twice.
	report := cl.Report(cloud.OwnerTagValue(tagCluster))
	assert.Len(t, report.ByOwner[owner], 4, report.String())
	assert.Empty(t, report.Unowned)
	assert.Empty(t, cl.Duplicates(cloud.OwnerTagValue(ensure.TagOwnershipKey), ensure.TagResourceKey))

	// Delete: Cluster API deletes the Machine and its OldMachine, then the OldCluster; the provider deletes
	// every cloud resource on the way.
	require.NoError(t, env.Client.Delete(ctx, cluster))
	require.Eventually(t, func() bool {
		err := env.Client.Get(ctx, client.ObjectKeyFromObject(cluster), &clusterv1.Cluster{})
		return client.IgnoreNotFound(err) == nil && err != nil
	}, wait, tick, "deleting the Cluster deletes its Machine and infrastructure")
	step("cluster deleted")
	assert.Empty(t, cl.Leaks(cloud.OwnerTagValue(tagCluster), owner), "nothing leaked")
	assert.Empty(t, cl.All(), "the cloud is empty: %s", cl.Report(cloud.OwnerTagValue(tagCluster)))
	assert.Equal(t, 4, cl.TotalCreated(), "every cloud resource was created once")
	for _, gvk := range []string{"OldMachineList", "OldClusterList"} {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(oldClusterGVK.GroupVersion().WithKind(gvk))
		require.NoError(t, env.Client.List(ctx, list, client.InNamespace(ns)))
		assert.Empty(t, list.Items, gvk)
	}
	require.NoError(t, deleteNode(ctx, cp))
	require.NoError(t, capi.CheckRunning())
}

// assertV1Beta1Shape checks that the provider wrote the v1beta1 paths: status.ready and metav1 conditions at
// status.v1beta2.conditions, nothing at the v1beta2 paths, and its finalizer.
func assertV1Beta1Shape(t *testing.T, u *unstructured.Unstructured, kind lint.Kind) {
	t.Helper()
	ready, found, err := unstructured.NestedBool(u.Object, "status", "ready")
	require.NoError(t, err)
	assert.True(t, found && ready, "%s: status.ready", kind)
	_, found, _ = unstructured.NestedFieldNoCopy(u.Object, "status", "initialization")
	assert.False(t, found, "%s: no status.initialization in contract v1beta1", kind)
	_, found, _ = unstructured.NestedFieldNoCopy(u.Object, "status", "conditions")
	assert.False(t, found, "%s: status.conditions is v1beta1's own condition type, capkit writes metav1 conditions at status.v1beta2.conditions", kind)
	c := readyCondition(u)
	require.NotNil(t, c, "%s: Ready at status.v1beta2.conditions", kind)
	assert.Equal(t, metav1.ConditionTrue, c.Status)
	assert.Contains(t, u.GetFinalizers(), group+"/"+lowerKind(u.GetKind()))
}

// readyCondition returns the Ready condition at status.v1beta2.conditions, nil when there is none.
func readyCondition(u *unstructured.Unstructured) *metav1.Condition {
	conds, err := contract.InfraMachine(contract.V1Beta1).Conditions().Get(u)
	if err != nil {
		return nil
	}
	return meta.FindStatusCondition(conds, "Ready")
}

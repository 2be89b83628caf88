package capi_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	bootstrapv1 "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/capkit/capkit/test/internal/capienv"
)

const kubernetesVersion = "v1.35.0"

// TestKubeadmLifecycleWithEnvtestAsWorkloadCluster drives a Cluster through the real core and kubeadm
// bootstrap controllers, with the test playing the infrastructure provider and envtest doubling as the
// workload cluster: a control plane Machine gets `kubeadm init` data, joins (a Node with its providerID),
// initializes the control plane, and a MachineDeployment then gets `kubeadm join` data and scales down.
func TestKubeadmLifecycleWithEnvtestAsWorkloadCluster(t *testing.T) {
	ctx := context.Background()
	start := time.Now()
	step := func(what string) { t.Logf("%5.1fs %s", time.Since(start).Seconds(), what) }
	capi := capienv.StartT(t, env.Config, env.Client, components)
	step("managers ready")
	ns, err := env.CreateNamespace(ctx, "lifecycle")
	require.NoError(t, err)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("objects in %q:\n%s", ns, capienv.Dump(ctx, env.Client, ns))
		}
	})
	const name = "wl"

	// The workload cluster is envtest itself; the Secret must exist before the control plane initializes.
	kubeconfig, err := capienv.KubeconfigSecret(ns, name, env.Config)
	require.NoError(t, err)
	require.NoError(t, env.Client.Create(ctx, kubeconfig))

	infraCluster := fake("FakeCluster", ns, name, map[string]any{})
	require.NoError(t, env.Client.Create(ctx, infraCluster))
	cluster := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	cluster.Spec.InfrastructureRef = fakeRef("FakeCluster", name)
	require.NoError(t, env.Client.Create(ctx, cluster))
	require.NoError(t, provision(ctx, env.Client, infraCluster, map[string]any{
		"controlPlaneEndpoint": map[string]any{"host": "10.0.0.1", "port": int64(6443)},
	}))

	// Control plane Machine: KubeadmConfig with init configuration, fake infrastructure machine.
	cpConfig := &bootstrapv1.KubeadmConfig{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "cp-0"}}
	cpConfig.Spec.Files = []bootstrapv1.File{{Path: "/etc/capkit/marker", Content: "control-plane"}}
	require.NoError(t, env.Client.Create(ctx, cpConfig))
	require.NoError(t, env.Client.Create(ctx, fake("FakeMachine", ns, "cp-0", map[string]any{})))
	cp := &clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "cp-0",
		Labels: map[string]string{clusterv1.MachineControlPlaneLabel: ""}}}
	cp.Spec = clusterv1.MachineSpec{
		ClusterName: name,
		Version:     kubernetesVersion,
		Bootstrap: clusterv1.Bootstrap{ConfigRef: clusterv1.ContractVersionedObjectReference{
			APIGroup: bootstrapv1.GroupVersion.Group, Kind: "KubeadmConfig", Name: "cp-0"}},
		InfrastructureRef: fakeRef("FakeMachine", "cp-0"),
	}
	require.NoError(t, env.Client.Create(ctx, cp))

	data := waitBootstrapData(ctx, t, cp)
	step("control plane bootstrap data")
	assert.Contains(t, data, "kubeadm init")
	assert.Contains(t, data, "/etc/capkit/marker")
	ca := &corev1.Secret{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name + "-ca"}, ca), "the bootstrap provider generates the cluster CA")
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(kubeconfig), kubeconfig))
	assert.Contains(t, string(kubeconfig.Data["value"]), env.Config.Host, "the Cluster controller must keep the envtest kubeconfig")

	joinNode(ctx, t, ns, "cp-0", "fake:///cp-0")
	waitNodeRef(ctx, t, cp, "cp-0")
	require.Eventually(t, func() bool {
		got := &clusterv1.Cluster{}
		require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(cluster), got))
		return meta.IsStatusConditionTrue(got.Status.Conditions, clusterv1.ClusterControlPlaneInitializedCondition)
	}, wait, tick, "a control plane Machine with a Node initializes the control plane")
	step("control plane initialized")

	// Workers: a MachineDeployment of one Machine from templates.
	tmpl := &bootstrapv1.KubeadmConfigTemplate{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "workers"}}
	tmpl.Spec.Template.Spec.Files = []bootstrapv1.File{{Path: "/etc/capkit/marker", Content: "worker"}}
	require.NoError(t, env.Client.Create(ctx, tmpl))
	require.NoError(t, env.Client.Create(ctx, fake("FakeMachineTemplate", ns, "workers", map[string]any{
		"template": map[string]any{"spec": map[string]any{}},
	})))
	md := &clusterv1.MachineDeployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "workers"}}
	md.Spec = clusterv1.MachineDeploymentSpec{ClusterName: name, Replicas: ptr.To[int32](1)}
	md.Spec.Template.Spec = clusterv1.MachineSpec{
		ClusterName: name,
		Version:     kubernetesVersion,
		Bootstrap: clusterv1.Bootstrap{ConfigRef: clusterv1.ContractVersionedObjectReference{
			APIGroup: bootstrapv1.GroupVersion.Group, Kind: "KubeadmConfigTemplate", Name: "workers"}},
		InfrastructureRef: fakeRef("FakeMachineTemplate", "workers"),
	}
	require.NoError(t, env.Client.Create(ctx, md))

	var worker *clusterv1.Machine
	require.Eventually(t, func() bool {
		list := &clusterv1.MachineList{}
		require.NoError(t, env.Client.List(ctx, list, client.InNamespace(ns),
			client.MatchingLabels{clusterv1.MachineDeploymentNameLabel: "workers"}))
		if len(list.Items) != 1 {
			return false
		}
		worker = &list.Items[0]
		return true
	}, wait, tick, "the MachineDeployment must create one Machine")
	data = waitBootstrapData(ctx, t, worker)
	step("worker bootstrap data")
	assert.Contains(t, data, "kubeadm join")
	tokens := &corev1.SecretList{}
	require.NoError(t, env.Client.List(ctx, tokens, client.InNamespace("kube-system")))
	assert.True(t, hasSecretOfType(tokens.Items, corev1.SecretTypeBootstrapToken), "the join token lives in the workload cluster")

	joinNode(ctx, t, ns, worker.Spec.InfrastructureRef.Name, "fake:///worker-0")
	waitNodeRef(ctx, t, worker, worker.Spec.InfrastructureRef.Name)
	require.Eventually(t, func() bool {
		require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(md), md))
		return ptr.Deref(md.Status.ReadyReplicas, 0) == 1
	}, wait, tick, "a Machine whose Node is Ready counts as ready")
	step("worker ready")

	// Scale down: the Machine, its infrastructure and its Node in the workload cluster go away.
	md.Spec.Replicas = ptr.To[int32](0)
	require.NoError(t, env.Client.Update(ctx, md))
	require.Eventually(t, func() bool {
		err := env.Client.Get(ctx, client.ObjectKey{Name: worker.Status.NodeRef.Name}, &corev1.Node{})
		return client.IgnoreNotFound(err) == nil && err != nil &&
			client.IgnoreNotFound(env.Client.Get(ctx, client.ObjectKeyFromObject(worker), &clusterv1.Machine{})) == nil &&
			env.Client.Get(ctx, client.ObjectKeyFromObject(worker), &clusterv1.Machine{}) != nil
	}, wait, tick, "scaling down must delete the Machine and drain and delete its Node")
	step("scaled down")

	require.NoError(t, env.Client.Delete(ctx, cluster))
	require.Eventually(t, func() bool {
		err := env.Client.Get(ctx, client.ObjectKeyFromObject(cluster), &clusterv1.Cluster{})
		return err != nil && client.IgnoreNotFound(err) == nil
	}, wait, tick, "deleting the Cluster deletes its Machines and infrastructure")
	step("cluster deleted")
	require.NoError(t, env.Client.Delete(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "cp-0"}}))
	require.NoError(t, capi.CheckRunning())
}

// waitBootstrapData waits until the kubeadm bootstrap provider has written m's bootstrap data Secret and
// the core Machine controller has copied its name to the Machine, and returns the data.
func waitBootstrapData(ctx context.Context, t *testing.T, m *clusterv1.Machine) string {
	t.Helper()
	require.Eventually(t, func() bool {
		require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(m), m))
		return m.Spec.Bootstrap.DataSecretName != nil && ptr.Deref(m.Status.Initialization.BootstrapDataSecretCreated, false)
	}, wait, tick, "Machine %q must get bootstrap data", m.Name)
	s := &corev1.Secret{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: m.Namespace, Name: *m.Spec.Bootstrap.DataSecretName}, s))
	assert.Equal(t, "cloud-config", string(s.Data["format"]))
	return string(s.Data["value"])
}

// joinNode plays the infrastructure provider and the kubelet: it gives the FakeMachine a providerID and
// marks it provisioned, then creates a Ready Node with the same providerID in the workload cluster.
func joinNode(ctx context.Context, t *testing.T, ns, name, providerID string) {
	t.Helper()
	require.NoError(t, provision(ctx, env.Client, fake("FakeMachine", ns, name, nil), map[string]any{"providerID": providerID}))
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.NodeSpec{ProviderID: providerID}}
	require.NoError(t, env.Client.Create(ctx, node))
	// NodeHealthy (and so Machine Ready) needs Ready=True and the three pressure conditions reported False.
	now := metav1.Now()
	for typ, status := range map[corev1.NodeConditionType]corev1.ConditionStatus{
		corev1.NodeReady: corev1.ConditionTrue, corev1.NodeMemoryPressure: corev1.ConditionFalse,
		corev1.NodeDiskPressure: corev1.ConditionFalse, corev1.NodePIDPressure: corev1.ConditionFalse,
	} {
		node.Status.Conditions = append(node.Status.Conditions, corev1.NodeCondition{Type: typ, Status: status,
			Reason: "CapkitTest", LastHeartbeatTime: now, LastTransitionTime: now})
	}
	require.NoError(t, env.Client.Status().Update(ctx, node))
}

func waitNodeRef(ctx context.Context, t *testing.T, m *clusterv1.Machine, node string) {
	t.Helper()
	require.Eventually(t, func() bool {
		// A first control plane Node triggers no reconcile of its Machine: see capienv.JoinFirstControlPlaneNode.
		_, err := capienv.NudgeMachineWithoutNodeRef(ctx, env.Client, client.ObjectKeyFromObject(m))
		require.NoError(t, err)
		require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(m), m))
		return m.Status.NodeRef.Name == node
	}, wait, tick, "Machine %q must get nodeRef %q", m.Name, node)
	n := &corev1.Node{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Name: node}, n))
	assert.Equal(t, m.Name, n.Annotations[clusterv1.MachineAnnotation], "the Machine controller writes to the workload cluster's Node")
}

func hasSecretOfType(secrets []corev1.Secret, typ corev1.SecretType) bool {
	for _, s := range secrets {
		if s.Type == typ {
			return true
		}
	}
	return false
}

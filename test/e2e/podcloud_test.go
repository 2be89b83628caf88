package e2e_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	bootstrapv1 "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	podv1beta2 "github.com/capkit/capkit/examples/podcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/podcloud/podcloudtest"
	"github.com/capkit/capkit/examples/podcloud/services"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/scope"
	"github.com/capkit/capkit/test/internal/capienv"
)

// podRef references a podcloud object, as Cluster and Machine specs do.
func podRef(kind, name string) clusterv1.ContractVersionedObjectReference {
	return clusterv1.ContractVersionedObjectReference{APIGroup: podv1beta2.GroupName, Kind: kind, Name: name}
}

// TestPodcloudWithRealClusterAPI drives a podcloud cluster with the real core and kubeadm bootstrap managers:
// the real kube-scheduler places the machines' Pods on fake nodes and KWOK runs them. On the way, chaos: a
// node fails before the workers are created, podcloud's manager restarts while they are, and a worker's Pod
// is deleted behind podcloud's back, which a MachineHealthCheck remediates while the manager restarts again.
// At the end: no duplicate Pod ever, and nothing left in the target cluster.
func TestPodcloudWithRealClusterAPI(t *testing.T) {
	ctx := context.Background()
	start := time.Now()
	step := func(what string) { t.Logf("%5.1fs %s", time.Since(start).Seconds(), what) }
	capi := capienv.StartT(t, env.Config, env.Client, components)
	nodes, err := podcloudtest.StartNodes(ctx, env)
	require.NoError(t, err)
	t.Cleanup(func() { _ = nodes.Stop() })
	p := startPodcloud(t)
	step("managers and fake nodes ready")
	ns, err := env.CreateNamespace(ctx, "podcloud")
	require.NoError(t, err)
	t.Cleanup(func() {
		if t.Failed() {
			kinds := append(slices.Clone(capienv.DumpKinds),
				podv1beta2.GroupVersion.WithKind("PodCluster"), podv1beta2.GroupVersion.WithKind("PodMachine"))
			t.Logf("objects in %q:\n%s", ns, capienv.Dump(context.Background(), env.Client, ns, kinds...))
		}
	})
	const name = "pods"

	// The Cluster: its PodCluster gets a ServiceAccount and the control plane Service, whose address
	// Cluster API copies as the endpoint.
	kubeconfig, err := capienv.KubeconfigSecret(ns, name, env.Config)
	require.NoError(t, err)
	cluster := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	cluster.Spec.InfrastructureRef = podRef("PodCluster", name)
	require.NoError(t, createAll(ctx, kubeconfig, &podv1beta2.PodCluster{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}, cluster))
	require.Eventually(t, func() bool {
		return env.Client.Get(ctx, client.ObjectKeyFromObject(cluster), cluster) == nil &&
			ptr.Deref(cluster.Status.Initialization.InfrastructureProvisioned, false) && cluster.Spec.ControlPlaneEndpoint.Host != ""
	}, lifecycleWait, tick, "the Cluster must see its PodCluster provisioned")
	svc := &corev1.Service{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: services.ServiceName(name)}, svc))
	assert.Equal(t, svc.Spec.ClusterIP, cluster.Spec.ControlPlaneEndpoint.Host, "the endpoint is the Service's cluster IP")
	step("cluster infrastructure provisioned")

	// The control plane Machine: CABPK's init data becomes the bash script of the Pod's Secret, proven in a
	// sandbox.
	cp := name + "-cp-0"
	machine := &clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: cp,
		Labels: map[string]string{clusterv1.ClusterNameLabel: name, clusterv1.MachineControlPlaneLabel: ""}}}
	machine.Spec = clusterv1.MachineSpec{ClusterName: name, Version: kubernetesVersion,
		Bootstrap: clusterv1.Bootstrap{ConfigRef: kubeadmRef("KubeadmConfig", cp)}, InfrastructureRef: podRef("PodMachine", cp)}
	require.NoError(t, createAll(ctx, &bootstrapv1.KubeadmConfig{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: cp}, Spec: controlPlaneConfig()},
		&podv1beta2.PodMachine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: cp}}, machine))
	machine = waitMachinePhase(ctx, t, ns, cp, clusterv1.MachinePhaseProvisioned)
	pod := &corev1.Pod{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: cp}, pod))
	assert.Equal(t, podv1beta2.ProviderID(ns+"/"+cp+"/"+string(pod.UID)), machine.Spec.ProviderID, "providerID copied from the PodMachine")
	assert.Equal(t, "kindest/node:"+kubernetesVersion, pod.Spec.Containers[0].Image)
	assert.Contains(t, machine.Status.Addresses, clusterv1.MachineAddress{Type: clusterv1.MachineInternalIP, Address: pod.Status.PodIP})
	assertPodRunsCABPKData(ctx, t, machine, "kubeadm init")
	joinFirstControlPlaneNode(ctx, t, ns, cp, machine.Spec.ProviderID)
	waitMachinePhase(ctx, t, ns, cp, clusterv1.MachinePhaseRunning)
	step("control plane Machine running")

	// A node fails before the workers come: the scheduler places none of them there.
	require.NoError(t, nodes.SetNotReady(ctx, "node-b"))
	const workers = 3
	kct := &bootstrapv1.KubeadmConfigTemplate{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "workers"}}
	kct.Spec.Template.Spec = workerConfig()
	pmt := &podv1beta2.PodMachineTemplate{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "workers"}}
	md := &clusterv1.MachineDeployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "workers"}}
	md.Spec = clusterv1.MachineDeploymentSpec{ClusterName: name, Replicas: ptr.To[int32](workers)}
	md.Spec.Template.Spec = clusterv1.MachineSpec{ClusterName: name, Version: kubernetesVersion,
		Bootstrap: clusterv1.Bootstrap{ConfigRef: kubeadmRef("KubeadmConfigTemplate", "workers")}, InfrastructureRef: podRef("PodMachineTemplate", "workers")}
	// The MachineHealthCheck replaces a worker whose infrastructure is no longer ready: podcloud reports a
	// Pod that is gone or failed on the PodMachine's Ready condition, which Cluster API mirrors as the
	// Machine's InfrastructureReady.
	mhc := &clusterv1.MachineHealthCheck{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "workers"}}
	mhc.Spec = clusterv1.MachineHealthCheckSpec{ClusterName: name,
		Selector: metav1.LabelSelector{MatchLabels: map[string]string{clusterv1.MachineDeploymentNameLabel: "workers"}}}
	mhc.Spec.Checks.UnhealthyMachineConditions = []clusterv1.UnhealthyMachineCondition{
		{Type: clusterv1.MachineInfrastructureReadyCondition, Status: metav1.ConditionFalse, TimeoutSeconds: ptr.To[int32](1)}}
	require.NoError(t, createAll(ctx, kct, pmt, md, mhc))

	// podcloud's manager restarts while the workers' Pods are being created.
	require.Eventually(t, func() bool {
		list := &podv1beta2.PodMachineList{}
		return env.Client.List(ctx, list, client.InNamespace(ns)) == nil && len(list.Items) > 1
	}, lifecycleWait, 20*time.Millisecond, "a worker PodMachine is created")
	require.NoError(t, p.restart(ctx))
	waitWorkersReady(ctx, t, ns, md, workers)
	step("workers ready, after a manager restart")
	for _, w := range podsOf(ctx, t, ns) {
		if w.Labels[services.LabelRole] == services.RoleWorker { // the control plane Pod came before the failure
			assert.NotEqual(t, "node-b", w.Spec.NodeName, "no worker Pod on the failed node: %s", w.Name)
		}
	}
	require.NoError(t, nodes.SetReady(ctx, "node-b"))

	// A worker's Pod is deleted behind podcloud's back: the PodMachine reports it, the MachineHealthCheck
	// has the Machine replaced, and the new Machine gets a new Pod; the old one is never created again.
	victim := workerMachines(ctx, t, ns)[0]
	require.NoError(t, env.Client.Delete(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: victim.Spec.InfrastructureRef.Name}}))
	require.NoError(t, p.restart(ctx), "and the manager restarts again while the Machine is remediated")
	require.Eventually(t, func() bool {
		err := env.Client.Get(ctx, client.ObjectKeyFromObject(&victim), &clusterv1.Machine{})
		return client.IgnoreNotFound(err) == nil && err != nil
	}, lifecycleWait, tick, "the MachineHealthCheck has Machine %s replaced", victim.Name)
	waitWorkersReady(ctx, t, ns, md, workers)
	step("worker whose Pod was deleted replaced, after a second manager restart")
	objs, err := podcloudtest.Objects(ctx, env.Client, ns)
	require.NoError(t, err)
	assertNoDuplicates(t, objs)
	assert.Len(t, podsOf(ctx, t, ns), 1+workers, "one Pod per Machine")

	// Delete: Cluster API deletes the Machines and their PodMachines, then the PodCluster.
	keep := []string{cp}
	for _, m := range workerMachines(ctx, t, ns) {
		keep = append(keep, m.Name)
	}
	require.NoError(t, env.Client.Delete(ctx, cluster))
	require.Eventually(t, func() bool {
		err := env.Client.Get(ctx, client.ObjectKeyFromObject(cluster), &clusterv1.Cluster{})
		return client.IgnoreNotFound(err) == nil && err != nil
	}, lifecycleWait, tick, "deleting the Cluster deletes its Machines and infrastructure")
	step("cluster deleted")
	objs, err = podcloudtest.Objects(ctx, env.Client, ns)
	require.NoError(t, err)
	assert.Empty(t, objs, "no Pod, Secret, Service or ServiceAccount left")
	require.NoError(t, deleteNodes(ctx, append(keep, victim.Name)...))
	require.NoError(t, capi.CheckRunning())
	t.Logf("podcloud: %d restart(s), %d API writes to the management cluster", p.restarts, p.Writes.Writes())
}

// podcloudProvider is podcloud's manager in-process, restartable.
type podcloudProvider struct {
	*podcloudtest.Provider
	restarts int
}

func startPodcloud(t *testing.T) *podcloudProvider {
	t.Helper()
	p, err := podcloudtest.StartProvider(context.Background(), env, podcloudtest.Options{PollInterval: 200 * time.Millisecond})
	require.NoError(t, err)
	pp := &podcloudProvider{Provider: p}
	t.Cleanup(func() { assert.NoError(t, pp.Stop()) })
	return pp
}

// restart stops the manager (its context cancelled mid-reconcile) and starts a new one.
func (p *podcloudProvider) restart(ctx context.Context) error {
	if err := p.Stop(); err != nil {
		return fmt.Errorf("cannot stop podcloud's manager: %w", err)
	}
	next, err := podcloudtest.StartProvider(ctx, env, podcloudtest.Options{PollInterval: 200 * time.Millisecond})
	if err != nil {
		return err
	}
	p.Provider = next
	p.restarts++
	return nil
}

// assertPodRunsCABPKData checks that the bootstrap Secret of m's Pod holds CABPK's data rendered by podcloud,
// and runs that data's script in a sandbox (assertBootstrapRenders).
func assertPodRunsCABPKData(ctx context.Context, t *testing.T, m *clusterv1.Machine, kubeadmCmd string) {
	t.Helper()
	data := bootstrapSecret(ctx, t, m).Data["value"]
	want, err := services.RenderScript(data, scope.BootstrapFormatCloudConfig, m.Spec.InfrastructureRef.Name)
	require.NoError(t, err)
	secret := &corev1.Secret{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: m.Namespace, Name: services.SecretName(m.Spec.InfrastructureRef.Name)}, secret))
	assert.Equal(t, string(want), string(secret.Data[services.BootstrapFile]), "the Pod runs CABPK's data, rendered")
	assert.Equal(t, services.Entrypoint, string(secret.Data[services.EntrypointFile]))
	assertBootstrapRenders(t, data, m.Spec.InfrastructureRef.Name, kubeadmCmd)
}

// workerMachines returns the Machines of the workers MachineDeployment.
func workerMachines(ctx context.Context, t *testing.T, ns string) []clusterv1.Machine {
	t.Helper()
	list := &clusterv1.MachineList{}
	require.NoError(t, env.Client.List(ctx, list, client.InNamespace(ns), client.MatchingLabels{clusterv1.MachineDeploymentNameLabel: "workers"}))
	return list.Items
}

// waitWorkersReady plays the kubelet of every provisioned worker until the MachineDeployment has n ready
// replicas.
func waitWorkersReady(ctx context.Context, t *testing.T, ns string, md *clusterv1.MachineDeployment, n int32) {
	t.Helper()
	state := &note{}
	require.Eventually(t, func() bool {
		ms := workerMachines(ctx, t, ns)
		for _, m := range ms {
			if ptr.Deref(m.Status.Initialization.InfrastructureProvisioned, false) && m.Spec.ProviderID != "" && m.DeletionTimestamp == nil {
				if err := joinNode(ctx, m.Name, m.Spec.ProviderID); err != nil {
					return state.Set(false, err.Error())
				}
			}
		}
		ok := env.Client.Get(ctx, client.ObjectKeyFromObject(md), md) == nil && ptr.Deref(md.Status.ReadyReplicas, 0) == n && len(ms) == int(n)
		return state.Set(ok, fmt.Sprintf("%d machines, %d ready", len(ms), ptr.Deref(md.Status.ReadyReplicas, 0)))
	}, lifecycleWait, tick, "the MachineDeployment must have %d ready workers: %s", n, state)
}

// podsOf returns the machine Pods of namespace ns.
func podsOf(ctx context.Context, t *testing.T, ns string) []corev1.Pod {
	t.Helper()
	list := &corev1.PodList{}
	require.NoError(t, env.Client.List(ctx, list, client.InNamespace(ns), client.HasLabels{services.LabelRole}))
	return list.Items
}

// assertNoDuplicates fails when two objects carry the same owner and resource key.
func assertNoDuplicates(t *testing.T, objs []podcloudtest.Object) {
	t.Helper()
	seen := map[string]string{}
	for _, o := range objs {
		k := o.Kind + " " + o.Labels[ensure.TagOwnershipKey] + "/" + o.Labels[ensure.TagResourceKey]
		assert.Empty(t, seen[k], "%s and %s have the same owner and key", seen[k], o)
		seen[k] = o.String()
	}
}

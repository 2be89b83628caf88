package controllers_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/examples/podcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/podcloud/controllers"
	"github.com/capkit/capkit/examples/podcloud/podcloudtest"
	"github.com/capkit/capkit/examples/podcloud/services"
	"github.com/capkit/capkit/providertest/lifecycle"
)

const wait = time.Minute

func startProvider(t *testing.T) *podcloudtest.Provider {
	t.Helper()
	startNodes(t)
	p, err := podcloudtest.StartProvider(context.Background(), env, podcloudtest.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, p.Stop()) })
	return p
}

func newDriver(t *testing.T, c podcloudtest.Cluster) *lifecycle.Driver {
	t.Helper()
	ns := env.Namespace(t, "podcloud")
	c.Namespace = ns
	l, err := lifecycle.New(env.Client, podcloudtest.LifecycleSpec(c, podcloudtest.LeakChecker(env.Client)))
	require.NoError(t, err)
	return l
}

// TestClusterOfPods runs a cluster of 1 control plane and 2 worker Pods through its life on a real API
// server, with the real kube-scheduler placing the Pods and KWOK running them.
func TestClusterOfPods(t *testing.T) {
	startProvider(t)
	spec := podcloudtest.LifecycleSpec(podcloudtest.Cluster{Name: "pods", ControlPlane: 1, Workers: 2}, podcloudtest.LeakChecker(env.Client))
	ns := env.Namespace(t, "podcloud")
	spec.Namespace = ns
	spec.OnProvisioned = func(ctx context.Context, l *lifecycle.Driver) error {
		checkProvisioned(ctx, t, ns, "pods", l.MachineNames())
		return nil
	}
	lifecycle.Run(t, env.Client, spec)
}

func checkProvisioned(ctx context.Context, t *testing.T, ns, cluster string, machines []string) {
	pc := &v1beta2.PodCluster{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: cluster}, pc))
	svc := &corev1.Service{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: services.ServiceName(cluster)}, svc))
	assert.Equal(t, contract.APIEndpoint{Host: svc.Spec.ClusterIP, Port: 6443}, pc.Spec.ControlPlaneEndpoint, "the endpoint is the Service's")
	var zones []string
	for _, fd := range pc.Status.FailureDomains {
		zones = append(zones, fd.Name)
	}
	assert.Equal(t, podcloudtest.Zones, zones, "the failure domains are the zones of the nodes")

	for _, name := range machines {
		pm := &v1beta2.PodMachine{}
		require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, pm))
		pod := &corev1.Pod{}
		require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, pod))
		assert.Equal(t, v1beta2.ProviderID(ns+"/"+name+"/"+string(pod.UID)), pm.Spec.ProviderID)
		assert.Equal(t, corev1.PodRunning, pod.Status.Phase, "KWOK runs the Pod")
		assert.NotEmpty(t, pod.Spec.NodeName, "the scheduler placed it")
		assert.Contains(t, pm.Status.Addresses, contract.MachineAddress{Type: contract.MachineInternalIP, Address: pod.Status.PodIP})
		assert.Contains(t, podcloudtest.Zones, pm.Status.FailureDomain, "the zone of the Pod's node")
		assert.Equal(t, "kindest/node:v1.36.3", pod.Spec.Containers[0].Image, "the kind node image of the Machine's version")
		assert.True(t, ptr.Deref(pod.Spec.Containers[0].SecurityContext.Privileged, false))
		secret := &corev1.Secret{}
		require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: services.SecretName(name)}, secret))
		assert.Contains(t, string(secret.Data[services.BootstrapFile]), "#!", "the rendered script")
		assert.NotContains(t, string(secret.Data[services.BootstrapFile]), podcloudtest.BootstrapTokenMarker, "file contents are base64 in the script")
		b, err := json.Marshal(pm)
		require.NoError(t, err)
		assert.NotContains(t, string(b), podcloudtest.BootstrapTokenMarker)
	}
}

// TestPodDeletedOutOfBandIsNotRecreated deletes a running machine's Pod behind podcloud's back: the
// PodMachine reports it with a terminal condition, keeps its provisioned flag and gets no second Pod, so that
// a MachineHealthCheck can replace the Machine; the cluster's delete still leaves nothing behind.
func TestPodDeletedOutOfBandIsNotRecreated(t *testing.T) {
	ctx := t.Context()
	startProvider(t)
	l := newDriver(t, podcloudtest.Cluster{Name: "gone", ControlPlane: 1, Workers: 1})
	require.NoError(t, l.Create(ctx))
	require.NoError(t, l.WaitProvisioned(ctx))
	ns := l.Spec().Namespace
	victim, failed := "gone-md-0", "gone-cp-0"

	pod := &corev1.Pod{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: victim}, pod))
	oldUID := pod.UID
	require.NoError(t, env.Client.Delete(ctx, pod))
	requireTerminal(ctx, t, ns, victim, conditions.ReasonResourceDeleted)
	err := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: victim}, pod)
	if err == nil {
		assert.Equal(t, oldUID, pod.UID, "no second Pod")
	}

	// A Pod that ended: its node image stopped. The machine is failed for good too.
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: failed}, pod))
	pod.Status.Phase, pod.Status.Reason = corev1.PodFailed, "Evicted"
	require.NoError(t, env.Client.Status().Update(ctx, pod))
	requireTerminal(ctx, t, ns, failed, services.ReasonPodFailed)

	keys, err := l.OwnershipKeys(ctx)
	require.NoError(t, err)
	require.NoError(t, l.Delete(ctx))
	leaks, err := l.Leaks(ctx, keys)
	require.NoError(t, err)
	assert.Empty(t, leaks)
}

// requireTerminal waits until PodMachine ns/name reports reason on its Pod step, Ready False, and is
// still provisioned.
func requireTerminal(ctx context.Context, t *testing.T, ns, name, reason string) {
	t.Helper()
	pm := &v1beta2.PodMachine{}
	require.Eventually(t, func() bool {
		if env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, pm) != nil {
			return false
		}
		c := meta.FindStatusCondition(pm.Status.Conditions, controllers.StepPod+"Ready")
		return c != nil && c.Status == metav1.ConditionFalse && c.Reason == reason
	}, wait, 50*time.Millisecond, "PodMachine %s must report %s", name, reason)
	assert.True(t, meta.IsStatusConditionFalse(pm.Status.Conditions, "Ready"), "Ready is False: %+v", pm.Status.Conditions)
	assert.True(t, pm.IsProvisioned(), "provisioned never goes back to false")
}

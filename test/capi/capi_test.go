package capi_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/capkit/capkit/test/internal/capienv"
)

const (
	wait = 30 * time.Second
	tick = 200 * time.Millisecond
)

func TestRealCRDsAreInstalledAsClusterctlInstallsThem(t *testing.T) {
	ctx := t.Context()
	crd := &apiextensionsv1.CustomResourceDefinition{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Name: "clusters.cluster.x-k8s.io"}, crd))
	var served []string
	for _, v := range crd.Spec.Versions {
		served = append(served, v.Name)
		if v.Name == "v1beta2" {
			assert.Contains(t, v.Schema.OpenAPIV3Schema.Properties["spec"].Properties, "controlPlaneEndpoint", "the real Cluster CRD has a full schema")
		}
	}
	assert.Equal(t, []string{"v1beta1", "v1beta2"}, served)

	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Name: "kubeadmconfigs.bootstrap.cluster.x-k8s.io"}, crd))
	assert.Equal(t, "v1beta2", crd.Labels["cluster.x-k8s.io/v1beta2"], "the contract label of kustomization.yaml must be added")
}

func TestManagersReconcileAClusterWithItsInfrastructure(t *testing.T) {
	ctx := context.Background()
	capi := capienv.StartT(t, env.Config, env.Client, components)
	ns, err := env.CreateNamespace(ctx, "smoke")
	require.NoError(t, err)

	infra := fake("FakeCluster", ns, "smoke", map[string]any{})
	require.NoError(t, env.Client.Create(ctx, infra))
	cluster := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "smoke"}}
	cluster.Spec.InfrastructureRef = fakeRef("FakeCluster", "smoke")
	require.NoError(t, env.Client.Create(ctx, cluster))

	get := func() *clusterv1.Cluster {
		got := &clusterv1.Cluster{}
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(cluster), got); err != nil {
			return &clusterv1.Cluster{}
		}
		return got
	}
	require.Eventually(t, func() bool { return get().Status.Phase == string(clusterv1.ClusterPhaseProvisioning) }, wait, tick)
	require.Eventually(t, func() bool {
		require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(infra), infra))
		return len(infra.GetOwnerReferences()) == 1
	}, wait, tick, "the Cluster controller must adopt the infrastructure cluster")
	assert.Equal(t, "Cluster", infra.GetOwnerReferences()[0].Kind)
	assert.Equal(t, "smoke", infra.GetLabels()[clusterv1.ClusterNameLabel])

	endpoint := map[string]any{"host": "10.0.0.1", "port": int64(6443)}
	require.NoError(t, provision(ctx, env.Client, infra, map[string]any{"controlPlaneEndpoint": endpoint}))
	require.Eventually(t, func() bool { return get().Status.Phase == string(clusterv1.ClusterPhaseProvisioned) }, wait, tick)
	got := get()
	assert.True(t, *got.Status.Initialization.InfrastructureProvisioned)
	assert.Equal(t, clusterv1.APIEndpoint{Host: "10.0.0.1", Port: 6443}, got.Spec.ControlPlaneEndpoint, "copied from the infrastructure cluster")
	assert.Contains(t, got.Finalizers, clusterv1.ClusterFinalizer)

	// The core manager's conversion webhook is registered: the Cluster reads at v1beta1, where the
	// infrastructure reference carries the apiVersion found through the fake CRD's contract label.
	v1beta1 := &unstructured.Unstructured{}
	v1beta1.SetAPIVersion("cluster.x-k8s.io/v1beta1")
	v1beta1.SetKind("Cluster")
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(cluster), v1beta1))
	apiVersion, _, _ := unstructured.NestedString(v1beta1.Object, "spec", "infrastructureRef", "apiVersion")
	assert.Equal(t, fakeGroup+"/"+fakeVersion, apiVersion)

	// The core manager's validating webhook is registered: a Cluster without any reference is refused.
	bare := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "bare"}}
	bare.Spec.ControlPlaneEndpoint = clusterv1.APIEndpoint{Host: "10.0.0.2", Port: 6443}
	err = env.Client.Create(ctx, bare)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "validation.cluster.cluster.x-k8s.io")

	require.NoError(t, env.Client.Delete(ctx, cluster))
	require.Eventually(t, func() bool {
		err := env.Client.Get(ctx, client.ObjectKeyFromObject(infra), &unstructured.Unstructured{Object: map[string]any{"apiVersion": infra.GetAPIVersion(), "kind": infra.GetKind()}})
		return apierrors.IsNotFound(err) && apierrors.IsNotFound(env.Client.Get(ctx, client.ObjectKeyFromObject(cluster), &clusterv1.Cluster{}))
	}, wait, tick, "deleting the Cluster must delete its infrastructure, then the Cluster")
	require.NoError(t, capi.CheckRunning(), "the managers must stay up")
}

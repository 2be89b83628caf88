package reconcile_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/internal/testtypes"
	"github.com/capkit/capkit/providertest/testenv"
)

var env *testenv.Environment

func TestMain(m *testing.M) { testtypes.Main(m, &env) }

// createCluster creates a v1beta2 core Cluster that references a FooCluster of the same name.
func createCluster(t *testing.T, ns, name string, mutate func(u *unstructured.Unstructured)) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Cluster",
		"metadata": map[string]any{"namespace": ns, "name": name},
		"spec": map[string]any{"infrastructureRef": map[string]any{
			"apiGroup": testtypes.GroupVersion.Group, "kind": "FooCluster", "name": name}},
	}}
	if mutate != nil {
		mutate(u)
	}
	ctx := t.Context()
	status, hasStatus := u.Object["status"]
	require.NoError(t, env.Client.Create(ctx, u))
	if hasStatus {
		u.Object["status"] = status
		require.NoError(t, env.Client.Status().Update(ctx, u))
	}
	return u
}

func ownerRef(u *unstructured.Unstructured) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: u.GetAPIVersion(), Kind: u.GetKind(), Name: u.GetName(), UID: u.GetUID()}
}

func get[T client.Object](t *testing.T, obj T) T {
	t.Helper()
	require.NoError(t, env.Client.Get(t.Context(), client.ObjectKeyFromObject(obj), obj))
	return obj
}

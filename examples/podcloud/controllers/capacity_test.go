package controllers_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/examples/podcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/podcloud/controllers"
	"github.com/capkit/capkit/examples/podcloud/podcloudtest"
	"github.com/capkit/capkit/scope/scopetest"
)

// TestTemplateCapacityIsReported: the PodMachineTemplate controller, registered by SetupWithManager, writes
// the resources of a template's machines to its status, at the paths of Cluster API's autoscaling-from-zero
// contract, and no capacity for a template without resources.
func TestTemplateCapacityIsReported(t *testing.T) {
	ctx := context.Background()
	p, err := podcloudtest.StartProvider(ctx, env, podcloudtest.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, p.Stop()) })
	ns := env.Namespace(t, "capacity")

	linux := map[string]any{"operatingSystem": "linux"}
	tests := []struct {
		name      string
		resources corev1.ResourceList
		want      map[string]any // the template's status
	}{
		{"cpu and memory", corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("4Gi")},
			map[string]any{"capacity": map[string]any{"cpu": "2", "memory": "4Gi"}, "nodeInfo": linux}},
		{"memory only", corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1536Mi")},
			map[string]any{"capacity": map[string]any{"memory": "1536Mi"}, "nodeInfo": linux}},
		{"no resources: no capacity", nil, map[string]any{"nodeInfo": linux}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmpl := &v1beta2.PodMachineTemplate{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("workers-%d", i)}}
			tmpl.Spec.Template.Spec.Resources = tt.resources
			require.NoError(t, env.Client.Create(ctx, tmpl))

			got := &unstructured.Unstructured{}
			got.SetGroupVersionKind(v1beta2.GroupVersion.WithKind("PodMachineTemplate"))
			var status map[string]any
			require.Eventually(t, func() bool {
				if env.Client.Get(ctx, client.ObjectKeyFromObject(tmpl), got) != nil {
					return false
				}
				status, _, _ = unstructured.NestedMap(got.Object, "status")
				return len(status) > 0
			}, wait, 50*time.Millisecond, "the controller writes the template's status")
			assert.Equal(t, tt.want, status, "status.capacity and status.nodeInfo")
		})
	}

	t.Run("a template whose status is already right is not written again", func(t *testing.T) {
		tmpl := &v1beta2.PodMachineTemplate{}
		require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "workers-0"}, tmpl))
		counting := scopetest.NewCountingClient(env.Client)
		r, err := controllers.NewTemplateCapacityReconciler(counting)
		require.NoError(t, err)
		_, err = r.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(tmpl)})
		require.NoError(t, err)
		assert.Zero(t, counting.Writes())
	})
}

func TestNewTemplateCapacityReconcilerNeedsAClient(t *testing.T) {
	_, err := controllers.NewTemplateCapacityReconciler(nil)
	require.ErrorContains(t, err, "cannot create the PodMachineTemplate reconciler: client must not be nil")
}

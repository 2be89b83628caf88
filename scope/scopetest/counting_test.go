package scopetest_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/capkit/capkit/scope/scopetest"
)

func TestCountingClientCountsWritesNotReads(t *testing.T) {
	ctx := t.Context()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p"}}
	c := scopetest.NewCountingClient(fake.NewClientBuilder().WithStatusSubresource(&corev1.Pod{}).Build())
	require.NoError(t, c.Create(ctx, pod))
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(pod), pod))
	require.NoError(t, c.Update(ctx, pod))
	require.NoError(t, c.Patch(ctx, pod, client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"labels":{"a":"b"}}}`))))
	require.NoError(t, c.Status().Patch(ctx, pod, client.RawPatch(types.MergePatchType, []byte(`{"status":{"phase":"Running"}}`))))
	require.NoError(t, c.Status().Update(ctx, pod))
	require.NoError(t, c.Delete(ctx, pod))
	require.NoError(t, c.DeleteAllOf(ctx, &corev1.Pod{}, client.InNamespace("ns")))
	verbs := []string{}
	for _, w := range c.Log() {
		verbs = append(verbs, w.Verb+"/"+w.SubResource)
	}
	assert.Equal(t, []string{"create/", "update/", "patch/", "patch/status", "update/status", "delete/", "deleteallof/"}, verbs)
	assert.Equal(t, "ns/p", c.Log()[0].Name)
	assert.Equal(t, 7, c.Writes())
	c.Reset()
	assert.Zero(t, c.Writes())
}

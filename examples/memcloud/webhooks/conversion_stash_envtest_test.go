package webhooks_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/contract/conversion"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta1"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
)

// forgedCapacity is a MemMachineTemplate's status.capacity forged in a stash, in the shape of both the combined
// stash of earlier releases ({"status": …}) and the status stash ({"capacity": …}).
const forgedCapacity = `{"capacity":{"cpu":"1000","nvidia.com/gpu":"8"},"status":{"capacity":{"cpu":"1000","nvidia.com/gpu":"8"}}}`

// TestConversionStashCannotWriteStatus writes forged stashes through the main resource of a real API server,
// with memcloud's webhooks (conversion, defaulting, validating) served as memcloud serves them: the status of
// the stored object does not change, neither on an update nor on a create, in either API version.
func TestConversionStashCannotWriteStatus(t *testing.T) {
	c, ns := startWebhooks(t)
	ctx := t.Context()

	t.Run("a v1beta1 update of a MemMachineTemplate does not set status.capacity", func(t *testing.T) {
		old := &v1beta1.MemMachineTemplate{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "t-forged"}}
		require.NoError(t, c.Create(ctx, old))
		hub := &v1beta2.MemMachineTemplate{}
		require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(old), hub))
		hub.Status = contract.MachineTemplateCapacity{Capacity: v1beta2.FlavorResources[v1beta2.FlavorMedium]}
		require.NoError(t, c.Status().Update(ctx, hub))

		require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(old), old))
		setAnnotations(old, forgedCapacity, conversion.StashAnnotation, conversion.StatusStashAnnotation)
		require.NoError(t, c.Update(ctx, old))

		got := &v1beta2.MemMachineTemplate{}
		require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(old), got))
		assert.True(t, got.Status.Capacity.Cpu().Equal(*hub.Status.Capacity.Cpu()), "cpu: got %s", got.Status.Capacity.Cpu())
		assert.NotContains(t, got.Status.Capacity, corev1.ResourceName("nvidia.com/gpu"))
		assert.NotContains(t, got.Annotations, conversion.StatusStashAnnotation)
	})

	t.Run("a v1beta1 create of a MemMachine does not set status.failureDomain", func(t *testing.T) {
		forged := `{"failureDomain":"zone-forged","provisioned":false}`
		m := &v1beta1.MemMachine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "m-forged-create",
			Annotations: map[string]string{conversion.StashAnnotation: forged, conversion.StatusStashAnnotation: forged}}}
		require.NoError(t, c.Create(ctx, m))

		got := &v1beta2.MemMachine{}
		require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(m), got))
		assert.Empty(t, got.Status.FailureDomain)
		assert.Nil(t, got.Status.Initialization.Provisioned)
	})

	t.Run("a v1beta1 update of a MemMachine keeps the stored status.failureDomain", func(t *testing.T) {
		hub := &v1beta2.MemMachine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "m-forged-update"}}
		require.NoError(t, c.Create(ctx, hub))
		hub.Status.FailureDomain = "zone-a"
		require.NoError(t, c.Status().Update(ctx, hub))

		old := &v1beta1.MemMachine{}
		require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(hub), old))
		forged := `{"failureDomain":"zone-forged"}`
		setAnnotations(old, forged, conversion.StashAnnotation, conversion.StatusStashAnnotation)
		require.NoError(t, c.Update(ctx, old))

		got := &v1beta2.MemMachine{}
		require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(hub), got))
		assert.Equal(t, "zone-a", got.Status.FailureDomain)
	})

	t.Run("a v1beta2 update does not set the v1beta1 status.failureReason", func(t *testing.T) {
		hub := &v1beta2.MemMachine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "m-forged-reason"}}
		require.NoError(t, c.Create(ctx, hub))
		forged := `{"failureReason":"Forged","failureMessage":"forged"}`
		hub.Annotations = map[string]string{conversion.StashAnnotation: forged, conversion.StatusStashAnnotation: forged}
		require.NoError(t, c.Update(ctx, hub))

		got := &v1beta1.MemMachine{}
		require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(hub), got))
		assert.Nil(t, got.Status.FailureReason)
		assert.Nil(t, got.Status.FailureMessage)
	})

	t.Run("a v1beta1 status write keeps the status v1beta1 cannot hold", func(t *testing.T) {
		hub := &v1beta2.MemMachineTemplate{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "t-legit"}}
		require.NoError(t, c.Create(ctx, hub))
		hub.Status = contract.MachineTemplateCapacity{Capacity: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}}
		require.NoError(t, c.Status().Update(ctx, hub))

		m := &v1beta2.MemMachine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "m-legit"}}
		require.NoError(t, c.Create(ctx, m))
		m.Status.FailureDomain = "zone-b"
		require.NoError(t, c.Status().Update(ctx, m))
		old := &v1beta1.MemMachine{}
		require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(m), old))
		old.Status.InstanceState = "running"
		require.NoError(t, c.Status().Update(ctx, old), "through v1beta1 /status, with the stash the API server gave")

		got := &v1beta2.MemMachine{}
		require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(m), got))
		assert.Equal(t, "zone-b", got.Status.FailureDomain)
		assert.Equal(t, "running", got.Status.InstanceState)
	})
}

// TestConversionBadStashAffectsOnlyItsObject stores a MemMachine whose stash is not JSON and lists every
// MemMachine, of every namespace, through v1beta1: the others come back, and the bad one comes back with what it
// holds and the bad stash reported in conversion.BadStashAnnotation.
func TestConversionBadStashAffectsOnlyItsObject(t *testing.T) {
	c, ns := startWebhooks(t)
	ctx := t.Context()
	other := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "other-"}}
	require.NoError(t, c.Create(ctx, other))

	for _, key := range []client.ObjectKey{{Namespace: ns, Name: "good-1"}, {Namespace: other.Name, Name: "good-2"}} {
		require.NoError(t, c.Create(ctx, &v1beta2.MemMachine{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}}))
	}
	bad := &v1beta2.MemMachine{ObjectMeta: metav1.ObjectMeta{Namespace: other.Name, Name: "bad",
		Annotations: map[string]string{conversion.StashAnnotation: `{"tags":`}},
		Spec: v1beta2.MemMachineSpec{ProviderID: v1beta2.ProviderID("i-0badbad0"), Flavor: v1beta2.FlavorLarge}}
	require.NoError(t, c.Create(ctx, bad))

	list := &v1beta1.MemMachineList{}
	require.NoError(t, c.List(ctx, list), "a v1beta1 LIST of every namespace")
	got := map[string]v1beta1.MemMachine{}
	for _, m := range list.Items {
		got[m.Namespace+"/"+m.Name] = m
	}
	assert.Contains(t, got, ns+"/good-1")
	assert.Contains(t, got, other.Name+"/good-2")
	require.Contains(t, got, other.Name+"/bad")
	b := got[other.Name+"/bad"]
	assert.Equal(t, new(v1beta2.ProviderID("i-0badbad0")), b.Spec.ProviderID)
	assert.Equal(t, v1beta2.FlavorLarge, b.Spec.Flavor)
	assert.Contains(t, b.Annotations[conversion.BadStashAnnotation], conversion.StashAnnotation)
	assert.NotContains(t, b.Annotations, conversion.StashAnnotation)
	assert.NotContains(t, got[ns+"/good-1"].Annotations, conversion.BadStashAnnotation)

	one := &v1beta1.MemMachine{}
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(bad), one), "a v1beta1 GET of the bad one")
	assert.Contains(t, one.Annotations, conversion.BadStashAnnotation)
}

// setAnnotations sets each annotation of keys to value.
func setAnnotations(obj metav1.Object, value string, keys ...string) {
	a := obj.GetAnnotations()
	if a == nil {
		a = map[string]string{}
	}
	for _, k := range keys {
		a[k] = value
	}
	obj.SetAnnotations(a)
}

package webhooks_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/contract/conversion"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta1"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/identity"
)

// TestConversionInAPIServer writes and reads memcloud's objects through both API versions of a real API server,
// whose CRDs envtest points at the conversion webhook of memcloud's manager: what one version cannot hold
// survives a write through it, in the stash annotation.
func TestConversionInAPIServer(t *testing.T) {
	c, ns := startWebhooks(t)
	ctx := t.Context()
	now := metav1.NewTime(time.Now().Truncate(time.Second))

	t.Run("a v1beta1 MemMachine", func(t *testing.T) {
		old := &v1beta1.MemMachine{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "m-v1beta1"},
			Spec:       v1beta1.MemMachineSpec{ProviderID: new(v1beta2.ProviderID("i-1f2e3d4c"))},
		}
		require.NoError(t, c.Create(ctx, old))
		assert.Equal(t, v1beta2.DefaultImage, old.Spec.Image, "defaulted")
		old.Status = v1beta1.MemMachineStatus{
			Ready:     true,
			Addresses: []contract.MachineAddress{{Type: contract.MachineInternalIP, Address: "10.0.1.4"}},
			Conditions: []conversion.V1Beta1Condition{{Type: v1beta2.ReadyCondition, Status: corev1.ConditionFalse,
				Severity: conversion.SeverityWarning, Reason: "Rebooting", LastTransitionTime: now}},
			FailureReason:  new("InstanceFailed"),
			InstanceState:  "running",
			Resources:      map[string]string{"instance": "i-1f2e3d4c"},
			FailureMessage: new("the instance stopped"),
		}
		require.NoError(t, c.Status().Update(ctx, old))

		hub := &v1beta2.MemMachine{}
		require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(old), hub))
		assert.Equal(t, new(true), hub.Status.Initialization.Provisioned)
		assert.Equal(t, "memcloud://i-1f2e3d4c", hub.Spec.ProviderID)
		assert.Equal(t, v1beta2.FlavorMedium, hub.Spec.Flavor)
		assert.Equal(t, []metav1.Condition{{Type: v1beta2.ReadyCondition, Status: metav1.ConditionFalse, Reason: "Rebooting",
			LastTransitionTime: now}}, hub.Status.Conditions, "Warning is not the default severity of False: stashed")
		assert.Contains(t, hub.Annotations[conversion.StatusStashAnnotation], `"failureReason":"InstanceFailed"`)

		hub.Status.FailureDomain = "zone-a"
		require.NoError(t, c.Status().Update(ctx, hub))

		got := &v1beta1.MemMachine{}
		require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(old), got))
		assert.True(t, got.Status.Ready)
		assert.Equal(t, old.Status.Conditions, got.Status.Conditions, "the severity came back")
		assert.Equal(t, new("InstanceFailed"), got.Status.FailureReason)
		assert.Equal(t, new("the instance stopped"), got.Status.FailureMessage)
		assert.Contains(t, got.Annotations[conversion.StatusStashAnnotation], `"failureDomain":"zone-a"`)

		got.Status.InstanceState = "stopped" // a write through v1beta1, which has no status.failureDomain
		require.NoError(t, c.Status().Update(ctx, got))
		got.Labels = map[string]string{"written-by": "v0.1"}
		require.NoError(t, c.Update(ctx, got))

		hub = &v1beta2.MemMachine{}
		require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(old), hub))
		assert.Equal(t, "zone-a", hub.Status.FailureDomain, "kept in the stash")
		assert.Equal(t, "stopped", hub.Status.InstanceState)
		assert.Equal(t, "v0.1", hub.Labels["written-by"])
		assert.Equal(t, new(true), hub.Status.Initialization.Provisioned)
	})

	t.Run("a v1beta1 MemCluster", func(t *testing.T) {
		old := &v1beta1.MemCluster{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "c-v1beta1"}}
		require.NoError(t, c.Create(ctx, old))
		assert.Len(t, old.Spec.Network.Subnets, 2, "the defaulting webhook, called in v1beta2, defaults a v1beta1 object")
		old.Status = v1beta1.MemClusterStatus{Ready: true, FailureDomains: map[string]conversion.V1Beta1FailureDomain{
			"zone-b": {ControlPlane: true},
			"zone-a": {Attributes: map[string]string{"rack": "1"}},
		}}
		require.NoError(t, c.Status().Update(ctx, old))

		hub := &v1beta2.MemCluster{}
		require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(old), hub))
		assert.Equal(t, new(true), hub.Status.Initialization.Provisioned)
		assert.Equal(t, []contract.FailureDomain{
			{Name: "zone-a", ControlPlane: new(false), Attributes: map[string]string{"rack": "1"}},
			{Name: "zone-b", ControlPlane: new(true)},
		}, hub.Status.FailureDomains, "sorted by name")

		hub.Status.FailureDomains = []contract.FailureDomain{{Name: "zone-b", ControlPlane: new(true)}, {Name: "zone-a"}}
		require.NoError(t, c.Status().Update(ctx, hub))

		got := &v1beta1.MemCluster{}
		require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(old), got))
		assert.True(t, got.Status.Ready)
		assert.Equal(t, map[string]conversion.V1Beta1FailureDomain{"zone-a": {}, "zone-b": {ControlPlane: true}}, got.Status.FailureDomains)
		got.Status.Resources = map[string]string{"network": "net-1"}
		require.NoError(t, c.Status().Update(ctx, got))

		hub = &v1beta2.MemCluster{}
		require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(old), hub))
		assert.Equal(t, []contract.FailureDomain{{Name: "zone-b", ControlPlane: new(true)}, {Name: "zone-a"}}, hub.Status.FailureDomains,
			"order and unset controlPlane kept in the stash")
		assert.Equal(t, map[string]string{"network": "net-1"}, hub.Status.Resources)
	})

	t.Run("a MemCluster's identityRef survives a write through v1beta1", func(t *testing.T) {
		hub := &v1beta2.MemCluster{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "c-identity"},
			Spec:       v1beta2.MemClusterSpec{IdentityRef: &identity.Ref{Kind: v1beta2.MemClusterIdentityKind, Name: "team-a"}},
		}
		require.NoError(t, c.Create(ctx, hub))

		old := &v1beta1.MemCluster{}
		require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(hub), old))
		old.Spec.ControlPlaneEndpoint = contract.APIEndpoint{Host: "lb.memcloud.local", Port: 6443}
		require.NoError(t, c.Update(ctx, old), "the validating webhook refuses a changed identityRef")

		got := &v1beta2.MemCluster{}
		require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(hub), got))
		assert.Equal(t, hub.Spec.IdentityRef, got.Spec.IdentityRef)
		assert.Equal(t, "lb.memcloud.local", got.Spec.ControlPlaneEndpoint.Host)
		assert.NotContains(t, got.Annotations, conversion.StashAnnotation)
	})

	t.Run("a MemMachineTemplate's capacity survives a write through v1beta1", func(t *testing.T) {
		old := &v1beta1.MemMachineTemplate{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "t-v1beta1"}}
		require.NoError(t, c.Create(ctx, old))

		hub := &v1beta2.MemMachineTemplate{}
		require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(old), hub))
		assert.Equal(t, v1beta2.FlavorMedium, hub.Spec.Template.Spec.Flavor)
		hub.Status = contract.MachineTemplateCapacity{Capacity: v1beta2.FlavorResources[v1beta2.FlavorMedium],
			NodeInfo: contract.NodeInfo{Architecture: contract.ArchitectureAmd64, OperatingSystem: "linux"}}
		require.NoError(t, c.Status().Update(ctx, hub))

		require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(old), old))
		assert.Contains(t, old.Annotations, conversion.StatusStashAnnotation)
		old.Labels = map[string]string{"written-by": "v0.1"}
		require.NoError(t, c.Update(ctx, old))

		got := &v1beta2.MemMachineTemplate{}
		require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(old), got))
		assert.Equal(t, hub.Status.NodeInfo, got.Status.NodeInfo)
		assert.True(t, got.Status.Capacity.Memory().Equal(*hub.Status.Capacity.Memory()))
		assert.Equal(t, "v0.1", got.Labels["written-by"])
	})
}

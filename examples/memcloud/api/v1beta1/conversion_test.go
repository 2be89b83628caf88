package v1beta1_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	ctrlconversion "sigs.k8s.io/controller-runtime/pkg/webhook/conversion"
	"sigs.k8s.io/randfill"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/contract/conversion"
	"github.com/capkit/capkit/contract/conversion/conversiontest"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta1"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/identity"
)

// fillFuncs shape what the API server would refuse and the conversions need not keep: a provider ID that points
// to "" (the schema wants one byte at least; memcloud's are memcloud://<instance>), empty or repeated condition
// types and reasons metav1.Condition does not allow (the conditions are list maps keyed by type), empty or
// repeated failure domain names (the v1beta1 map's keys, the v1beta2 list's map keys), and resource quantities,
// which randfill cannot fill.
var fillFuncs = []any{
	func(s *v1beta1.MemMachineSpec, c randfill.Continue) {
		c.FillNoCustom(s)
		if s.ProviderID != nil {
			s.ProviderID = new(v1beta2.ProviderID(fmt.Sprintf("i-%08x", c.Uint32())))
		}
	},
	func(cond *conversion.V1Beta1Condition, c randfill.Continue) {
		c.FillNoCustom(cond)
		cond.Type = fmt.Sprintf("Type%d", c.Uint64())
	},
	func(cond *metav1.Condition, c randfill.Continue) {
		c.FillNoCustom(cond)
		cond.Type = fmt.Sprintf("Type%d", c.Uint64())
		cond.Reason = fmt.Sprintf("Reason%d", c.Uint64())
	},
	func(d *contract.FailureDomain, c randfill.Continue) {
		c.FillNoCustom(d)
		d.Name = fmt.Sprintf("fd-%d", c.Uint64())
	},
	func(m *map[string]conversion.V1Beta1FailureDomain, c randfill.Continue) {
		c.FillNoCustom(m)
		delete(*m, "")
	},
	func(q *resource.Quantity, c randfill.Continue) {
		*q = *resource.NewQuantity(int64(c.Uint32()), resource.DecimalSI)
	},
}

// With both versions in the scheme, the kinds that have a v1beta1 are convertible, so controller-runtime's
// webhook builder serves /convert; the others have one version and are not.
func TestConvertibleKinds(t *testing.T) {
	s := runtime.NewScheme()
	require.NoError(t, v1beta2.AddToScheme(s))
	require.NoError(t, v1beta1.AddToScheme(s))
	for _, tc := range []struct {
		obj  runtime.Object
		want bool
	}{
		{&v1beta2.MemCluster{}, true}, {&v1beta2.MemMachine{}, true}, {&v1beta2.MemMachineTemplate{}, true},
		{&v1beta1.MemMachine{}, true},
		{&v1beta2.MemClusterTemplate{}, false}, {&v1beta2.MemMachinePool{}, false}, {&v1beta2.MemClusterIdentity{}, false},
	} {
		ok, err := ctrlconversion.IsConvertible(s, tc.obj)
		require.NoError(t, err)
		assert.Equal(t, tc.want, ok, "%T", tc.obj)
	}
}

func TestRoundTripMemCluster(t *testing.T) {
	conversiontest.RoundTrip[v1beta2.MemCluster, v1beta1.MemCluster](t, conversiontest.WithFuncs(fillFuncs...))
}

func TestRoundTripMemMachine(t *testing.T) {
	conversiontest.RoundTrip[v1beta2.MemMachine, v1beta1.MemMachine](t, conversiontest.WithFuncs(fillFuncs...))
}

func TestRoundTripMemMachineTemplate(t *testing.T) {
	conversiontest.RoundTrip[v1beta2.MemMachineTemplate, v1beta1.MemMachineTemplate](t, conversiontest.WithFuncs(fillFuncs...))
}

func TestMemMachineToHub(t *testing.T) {
	tests := []struct {
		name string
		in   v1beta1.MemMachineStatus
		want *bool // the hub's status.initialization.provisioned
	}{
		{name: "ready", in: v1beta1.MemMachineStatus{Ready: true, InstanceState: "running"}, want: new(true)},
		{name: "not ready", in: v1beta1.MemMachineStatus{InstanceState: "pending"}},
		{name: "failed", in: v1beta1.MemMachineStatus{FailureReason: new("InstanceFailed"), FailureMessage: new("the cloud lost it")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := &v1beta1.MemMachine{
				ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "m"},
				Spec:       v1beta1.MemMachineSpec{ProviderID: new("memcloud://i-1"), Image: "ubuntu-24.04", Flavor: v1beta2.FlavorSmall},
				Status:     tt.in,
			}
			hub := &v1beta2.MemMachine{}
			require.NoError(t, in.ConvertTo(hub))
			assert.Equal(t, tt.want, hub.Status.Initialization.Provisioned)
			assert.Equal(t, "memcloud://i-1", hub.Spec.ProviderID)
			assert.Equal(t, v1beta2.MemMachineSpec{ProviderID: "memcloud://i-1", Image: "ubuntu-24.04", Flavor: v1beta2.FlavorSmall}, hub.Spec)
			assert.Equal(t, tt.in.InstanceState, hub.Status.InstanceState)
			if tt.in.FailureReason != nil {
				assert.JSONEq(t, `{"failureReason":"InstanceFailed","failureMessage":"the cloud lost it"}`, hub.Annotations[conversion.StatusStashAnnotation])
				assert.NotContains(t, hub.Annotations, conversion.StashAnnotation, "status goes in the status stash")
			} else {
				assert.Empty(t, hub.Annotations, "nothing lost, nothing stashed")
			}

			back := &v1beta1.MemMachine{}
			require.NoError(t, back.ConvertFrom(hub))
			assert.Equal(t, in, back)
		})
	}
}

func TestMemClusterFailureDomainsToHub(t *testing.T) {
	in := &v1beta1.MemCluster{Status: v1beta1.MemClusterStatus{Ready: true, FailureDomains: map[string]conversion.V1Beta1FailureDomain{
		"zone-c": {},
		"zone-a": {ControlPlane: true, Attributes: map[string]string{"rack": "1"}},
		"zone-b": {ControlPlane: true},
	}}}
	hub := &v1beta2.MemCluster{}
	require.NoError(t, in.ConvertTo(hub))
	assert.Equal(t, []contract.FailureDomain{
		{Name: "zone-a", ControlPlane: new(true), Attributes: map[string]string{"rack": "1"}},
		{Name: "zone-b", ControlPlane: new(true)},
		{Name: "zone-c", ControlPlane: new(false)},
	}, hub.Status.FailureDomains, "sorted by name, controlPlane set")
	assert.Equal(t, new(true), hub.Status.Initialization.Provisioned)
	assert.Empty(t, hub.Annotations)
}

func TestMemClusterHubOnlyFieldsSurvive(t *testing.T) {
	hub := &v1beta2.MemCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c", Annotations: map[string]string{"keep": "me"}},
		Spec: v1beta2.MemClusterSpec{
			ControlPlaneEndpoint: contract.APIEndpoint{Host: "lb.memcloud", Port: 6443},
			FailureDomains:       []string{"zone-b", "zone-a"},
			IdentityRef:          &identity.Ref{Kind: "MemClusterIdentity", Name: "team-a"},
		},
		Status: v1beta2.MemClusterStatus{
			Initialization: contract.InfraClusterInitialization{Provisioned: new(false)},
			Conditions:     []metav1.Condition{{Type: v1beta2.ReadyCondition, Status: metav1.ConditionFalse, Reason: "Creating", ObservedGeneration: 2}},
			FailureDomains: []contract.FailureDomain{{Name: "zone-b"}, {Name: "zone-a", ControlPlane: new(true)}},
		},
	}
	spoke := &v1beta1.MemCluster{}
	require.NoError(t, spoke.ConvertFrom(hub))
	assert.False(t, spoke.Status.Ready)
	assert.Equal(t, map[string]conversion.V1Beta1FailureDomain{"zone-a": {ControlPlane: true}, "zone-b": {}}, spoke.Status.FailureDomains)
	assert.Equal(t, []conversion.V1Beta1Condition{{Type: v1beta2.ReadyCondition, Status: corev1.ConditionFalse,
		Severity: conversion.SeverityInfo, Reason: "Creating"}}, spoke.Status.Conditions)
	assert.Equal(t, "me", spoke.Annotations["keep"])
	assert.Contains(t, spoke.Annotations[conversion.StashAnnotation], `"identityRef":{"kind":"MemClusterIdentity","name":"team-a"}`)

	back := &v1beta2.MemCluster{}
	require.NoError(t, spoke.ConvertTo(back))
	assert.Equal(t, hub, back)
}

func TestMemMachineTemplateCapacitySurvives(t *testing.T) {
	hub := &v1beta2.MemMachineTemplate{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "t"},
		Spec: v1beta2.MemMachineTemplateSpec{Template: v1beta2.MemMachineTemplateResource{
			ObjectMeta: contract.TemplateObjectMeta{Labels: map[string]string{"role": "worker"}},
			Spec:       v1beta2.MemMachineSpec{Image: "ubuntu-24.04", Flavor: v1beta2.FlavorLarge},
		}},
		Status: contract.MachineTemplateCapacity{
			Capacity: v1beta2.FlavorResources[v1beta2.FlavorLarge],
			NodeInfo: contract.NodeInfo{Architecture: contract.ArchitectureAmd64, OperatingSystem: "linux"},
		},
	}
	spoke := &v1beta1.MemMachineTemplate{}
	require.NoError(t, spoke.ConvertFrom(hub))
	assert.Equal(t, v1beta1.MemMachineSpec{Image: "ubuntu-24.04", Flavor: v1beta2.FlavorLarge}, spoke.Spec.Template.Spec)
	assert.Contains(t, spoke.Annotations, conversion.StatusStashAnnotation)
	assert.NotContains(t, spoke.Annotations, conversion.StashAnnotation, "status goes in the status stash")

	back := &v1beta2.MemMachineTemplate{}
	require.NoError(t, spoke.ConvertTo(back))
	assert.True(t, back.Status.Capacity.Cpu().Equal(resource.MustParse("8")))
	assert.True(t, back.Status.Capacity.Memory().Equal(resource.MustParse("32Gi")))
	assert.Equal(t, hub.Status.NodeInfo, back.Status.NodeInfo)
	assert.Empty(t, back.Annotations)

	spoke = &v1beta1.MemMachineTemplate{}
	require.NoError(t, spoke.ConvertFrom(&v1beta2.MemMachineTemplate{}))
	assert.Empty(t, spoke.Annotations, "no status, nothing stashed")
}

// v1beta1 has no spec.tags: a v1beta2 MemMachine's or template's tags wait in the stash of the v1beta1 object.
func TestMemMachineTagsSurvive(t *testing.T) {
	tags := map[string]string{"team": "blue", "example.com/cost-center": "42"}
	spec := v1beta2.MemMachineSpec{ProviderID: "memcloud://i-1", Image: "ubuntu-24.04", Flavor: v1beta2.FlavorSmall, Tags: tags}
	t.Run("MemMachine", func(t *testing.T) {
		hub := &v1beta2.MemMachine{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "m"}, Spec: spec}
		spoke := &v1beta1.MemMachine{}
		require.NoError(t, spoke.ConvertFrom(hub))
		assert.Contains(t, spoke.Annotations[conversion.StashAnnotation], `"tags":{"example.com/cost-center":"42","team":"blue"}`)
		back := &v1beta2.MemMachine{}
		require.NoError(t, spoke.ConvertTo(back))
		assert.Equal(t, hub, back)
	})
	t.Run("MemMachineTemplate", func(t *testing.T) {
		spec := spec
		spec.ProviderID = ""
		hub := &v1beta2.MemMachineTemplate{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "t"}}
		hub.Spec.Template.Spec = spec
		spoke := &v1beta1.MemMachineTemplate{}
		require.NoError(t, spoke.ConvertFrom(hub))
		assert.Contains(t, spoke.Annotations[conversion.StashAnnotation], `"tags":{"example.com/cost-center":"42","team":"blue"}`)
		back := &v1beta2.MemMachineTemplate{}
		require.NoError(t, spoke.ConvertTo(back))
		assert.Equal(t, hub, back)
	})
}

// TestConvertBadStash: a stash that is not JSON costs only what it held; the object converts and reports it.
func TestConvertBadStash(t *testing.T) {
	in := &v1beta1.MemMachine{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "m",
		Annotations: map[string]string{conversion.StashAnnotation: "{", conversion.StatusStashAnnotation: "["}},
		Spec: v1beta1.MemMachineSpec{Image: "ubuntu-24.04"}, Status: v1beta1.MemMachineStatus{Ready: true}}
	hub := &v1beta2.MemMachine{}
	require.NoError(t, in.ConvertTo(hub))
	assert.Equal(t, "ubuntu-24.04", hub.Spec.Image)
	assert.Equal(t, new(true), hub.Status.Initialization.Provisioned)
	assert.Contains(t, hub.Annotations[conversion.BadStashAnnotation], `"conversion.capkit.io/stash" of "ns/m"`)
	assert.Contains(t, hub.Annotations[conversion.BadStatusStashAnnotation], `"conversion.capkit.io/status-stash" of "ns/m"`)

	hub.Annotations[conversion.StatusStashAnnotation] = "nope"
	back := &v1beta1.MemMachine{}
	require.NoError(t, back.ConvertFrom(hub))
	assert.True(t, back.Status.Ready)
	assert.NotContains(t, back.Annotations, conversion.BadStashAnnotation, "the report of the other conversion is gone")
	assert.Contains(t, back.Annotations[conversion.BadStatusStashAnnotation], `"conversion.capkit.io/status-stash" of "ns/m"`)
}

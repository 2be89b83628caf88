package v1beta1

import (
	"maps"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/conversion"

	"github.com/capkit/capkit/contract"
	capkitconversion "github.com/capkit/capkit/contract/conversion"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/identity"
)

// The kinds of this package convert to and from their hubs in package v1beta2.
var (
	_ conversion.Convertible = &MemCluster{}
	_ conversion.Convertible = &MemMachine{}
	_ conversion.Convertible = &MemMachineTemplate{}
)

// clusterHubOnlySpec is the spec a v1beta2 MemCluster holds that a v1beta1 one cannot, stashed on the v1beta1
// object (capkitconversion.Stash).
type clusterHubOnlySpec struct {
	IdentityRef *identity.Ref `json:"identityRef,omitempty"`
}

// clusterHubOnly is the status a v1beta2 MemCluster holds that a v1beta1 one cannot, stashed on the v1beta1
// object (capkitconversion.StashStatus).
type clusterHubOnly struct {
	Provisioned    *bool                                `json:"provisioned,omitempty"`
	Conditions     capkitconversion.ConditionsStash     `json:"conditions,omitempty"`
	FailureDomains capkitconversion.FailureDomainsStash `json:"failureDomains,omitzero"`
}

// spokeOnly is the status a v1beta1 MemCluster or MemMachine holds that a v1beta2 one cannot, stashed on the
// v1beta2 object (capkitconversion.StashStatus). v1beta1 has no spec field that v1beta2 lacks.
type spokeOnly struct {
	Conditions     capkitconversion.ConditionsStash `json:"conditions,omitempty"`
	FailureReason  *string                          `json:"failureReason,omitempty"`
	FailureMessage *string                          `json:"failureMessage,omitempty"`
}

// ConvertTo converts c to the hub, a *v1beta2.MemCluster.
func (c *MemCluster) ConvertTo(hub conversion.Hub) error {
	dst := hub.(*v1beta2.MemCluster)
	dst.ObjectMeta = *c.ObjectMeta.DeepCopy()
	var spec clusterHubOnlySpec
	var restored clusterHubOnly
	if err := restore(dst, &spec, &restored); err != nil {
		return err
	}
	dst.Spec = v1beta2.MemClusterSpec{
		ControlPlaneEndpoint: c.Spec.ControlPlaneEndpoint,
		Network:              *c.Spec.Network.DeepCopy(),
		LoadBalancer:         c.Spec.LoadBalancer,
		SecurityGroup:        *c.Spec.SecurityGroup.DeepCopy(),
		FailureDomains:       slices.Clone(c.Spec.FailureDomains),
		IdentityRef:          spec.IdentityRef,
	}
	conds, lost, err := capkitconversion.ConditionsToV1Beta2(c.Status.Conditions, restored.Conditions)
	if err != nil {
		return err
	}
	domains, err := capkitconversion.FailureDomainsToV1Beta2(c.Status.FailureDomains, restored.FailureDomains)
	if err != nil {
		return err
	}
	dst.Status = v1beta2.MemClusterStatus{
		Initialization: contract.InfraClusterInitialization{
			Provisioned: capkitconversion.ReadyToProvisioned(c.Status.Ready, restored.Provisioned),
		},
		Conditions:         conds,
		FailureDomains:     domains,
		Resources:          maps.Clone(c.Status.Resources),
		ObservedGeneration: c.Status.ObservedGeneration,
	}
	return capkitconversion.StashStatus(dst, spokeOnly{Conditions: lost, FailureReason: c.Status.FailureReason, FailureMessage: c.Status.FailureMessage})
}

// ConvertFrom converts the hub, a *v1beta2.MemCluster, to c.
func (c *MemCluster) ConvertFrom(hub conversion.Hub) error {
	src := hub.(*v1beta2.MemCluster)
	c.ObjectMeta = *src.ObjectMeta.DeepCopy()
	var restored spokeOnly
	if err := restore(c, &struct{}{}, &restored); err != nil {
		return err
	}
	c.Spec = MemClusterSpec{
		ControlPlaneEndpoint: src.Spec.ControlPlaneEndpoint,
		Network:              *src.Spec.Network.DeepCopy(),
		LoadBalancer:         src.Spec.LoadBalancer,
		SecurityGroup:        *src.Spec.SecurityGroup.DeepCopy(),
		FailureDomains:       slices.Clone(src.Spec.FailureDomains),
	}
	ready, provisioned := capkitconversion.ProvisionedToReady(src.Status.Initialization.Provisioned)
	conds, lost, err := capkitconversion.ConditionsToV1Beta1(src.Status.Conditions, restored.Conditions)
	if err != nil {
		return err
	}
	domains, domainsLost, err := capkitconversion.FailureDomainsToV1Beta1(src.Status.FailureDomains)
	if err != nil {
		return err
	}
	c.Status = MemClusterStatus{
		Ready:              ready,
		FailureDomains:     domains,
		Conditions:         conds,
		FailureReason:      restored.FailureReason,
		FailureMessage:     restored.FailureMessage,
		Resources:          maps.Clone(src.Status.Resources),
		ObservedGeneration: src.Status.ObservedGeneration,
	}
	return stash(c, clusterHubOnlySpec{IdentityRef: src.Spec.IdentityRef.DeepCopy()},
		clusterHubOnly{Provisioned: provisioned, Conditions: lost, FailureDomains: domainsLost})
}

// machineHubOnlySpec is the spec a v1beta2 MemMachine (or the MemMachine of a MemMachineTemplate) holds that a
// v1beta1 one cannot, stashed on the v1beta1 object (capkitconversion.Stash).
type machineHubOnlySpec struct {
	Tags  map[string]string   `json:"tags,omitempty"`
	Pools []v1beta2.IPPoolRef `json:"addressesFromPools,omitempty"`
}

// machineHubOnly is the status a v1beta2 MemMachine holds that a v1beta1 one cannot, stashed on the v1beta1
// object (capkitconversion.StashStatus).
type machineHubOnly struct {
	Provisioned   *bool                            `json:"provisioned,omitempty"`
	Conditions    capkitconversion.ConditionsStash `json:"conditions,omitempty"`
	FailureDomain string                           `json:"failureDomain,omitempty"`
}

// ConvertTo converts m to the hub, a *v1beta2.MemMachine.
func (m *MemMachine) ConvertTo(hub conversion.Hub) error {
	dst := hub.(*v1beta2.MemMachine)
	dst.ObjectMeta = *m.ObjectMeta.DeepCopy()
	var spec machineHubOnlySpec
	var restored machineHubOnly
	if err := restore(dst, &spec, &restored); err != nil {
		return err
	}
	dst.Spec = machineSpecToHub(m.Spec, spec.Tags, spec.Pools)
	conds, lost, err := capkitconversion.ConditionsToV1Beta2(m.Status.Conditions, restored.Conditions)
	if err != nil {
		return err
	}
	dst.Status = v1beta2.MemMachineStatus{
		Initialization: contract.InfraMachineInitialization{
			Provisioned: capkitconversion.ReadyToProvisioned(m.Status.Ready, restored.Provisioned),
		},
		Addresses:          slices.Clone(m.Status.Addresses),
		FailureDomain:      restored.FailureDomain,
		Conditions:         conds,
		Resources:          maps.Clone(m.Status.Resources),
		InstanceState:      m.Status.InstanceState,
		ObservedGeneration: m.Status.ObservedGeneration,
	}
	return capkitconversion.StashStatus(dst, spokeOnly{Conditions: lost, FailureReason: m.Status.FailureReason, FailureMessage: m.Status.FailureMessage})
}

// ConvertFrom converts the hub, a *v1beta2.MemMachine, to m.
func (m *MemMachine) ConvertFrom(hub conversion.Hub) error {
	src := hub.(*v1beta2.MemMachine)
	m.ObjectMeta = *src.ObjectMeta.DeepCopy()
	var restored spokeOnly
	if err := restore(m, &struct{}{}, &restored); err != nil {
		return err
	}
	m.Spec = machineSpecFromHub(src.Spec)
	ready, provisioned := capkitconversion.ProvisionedToReady(src.Status.Initialization.Provisioned)
	conds, lost, err := capkitconversion.ConditionsToV1Beta1(src.Status.Conditions, restored.Conditions)
	if err != nil {
		return err
	}
	m.Status = MemMachineStatus{
		Ready:              ready,
		Addresses:          slices.Clone(src.Status.Addresses),
		Conditions:         conds,
		FailureReason:      restored.FailureReason,
		FailureMessage:     restored.FailureMessage,
		Resources:          maps.Clone(src.Status.Resources),
		InstanceState:      src.Status.InstanceState,
		ObservedGeneration: src.Status.ObservedGeneration,
	}
	return stash(m, machineHubOnlySpec{Tags: maps.Clone(src.Spec.Tags), Pools: slices.Clone(src.Spec.AddressesFromPools)},
		machineHubOnly{Provisioned: provisioned, Conditions: lost, FailureDomain: src.Status.FailureDomain})
}

// ConvertTo converts t to the hub, a *v1beta2.MemMachineTemplate. The hub's status, which v1beta1 has not, comes
// from the status stash (a contract.MachineTemplateCapacity).
func (t *MemMachineTemplate) ConvertTo(hub conversion.Hub) error {
	dst := hub.(*v1beta2.MemMachineTemplate)
	dst.ObjectMeta = *t.ObjectMeta.DeepCopy()
	var spec machineHubOnlySpec
	var status contract.MachineTemplateCapacity
	if err := restore(dst, &spec, &status); err != nil {
		return err
	}
	dst.Spec.Template = v1beta2.MemMachineTemplateResource{
		ObjectMeta: *t.Spec.Template.ObjectMeta.DeepCopy(),
		Spec:       machineSpecToHub(t.Spec.Template.Spec, spec.Tags, spec.Pools),
	}
	dst.Status = status
	return nil
}

// ConvertFrom converts the hub, a *v1beta2.MemMachineTemplate, to t.
func (t *MemMachineTemplate) ConvertFrom(hub conversion.Hub) error {
	src := hub.(*v1beta2.MemMachineTemplate)
	t.ObjectMeta = *src.ObjectMeta.DeepCopy()
	if err := restore(t, &struct{}{}, &struct{}{}); err != nil { // ConvertTo stashes nothing on the hub
		return err
	}
	t.Spec.Template = MemMachineTemplateResource{
		ObjectMeta: *src.Spec.Template.ObjectMeta.DeepCopy(),
		Spec:       machineSpecFromHub(src.Spec.Template.Spec),
	}
	return stash(t, machineHubOnlySpec{Tags: maps.Clone(src.Spec.Template.Spec.Tags), Pools: slices.Clone(src.Spec.Template.Spec.AddressesFromPools)},
		src.Status.DeepCopy())
}

// restore reads obj's spec stash into spec and its status stash into status, removing both. A bad stash is no
// error: it is reported on obj (capkitconversion.BadStashAnnotation, BadStatusStashAnnotation) and converted
// without.
func restore(obj metav1.Object, spec, status any) error {
	if _, err := capkitconversion.Restore(obj, spec); err != nil {
		return err
	}
	_, err := capkitconversion.RestoreStatus(obj, status)
	return err
}

// stash writes what obj's version cannot hold: spec into its spec stash and status into its status stash, which
// only the status subresource may change: memcloud's defaulting webhooks keep the stored status (admission.Webhook.KeepStatus).
func stash(obj metav1.Object, spec, status any) error {
	if err := capkitconversion.Stash(obj, spec); err != nil {
		return err
	}
	return capkitconversion.StashStatus(obj, status)
}

// machineSpecToHub returns the v1beta2 spec of a v1beta1 MemMachine, with the tags and IPAM pools v1beta1 has
// not (restored from the stash, nil when none).
func machineSpecToHub(in MemMachineSpec, tags map[string]string, pools []v1beta2.IPPoolRef) v1beta2.MemMachineSpec {
	return v1beta2.MemMachineSpec{
		ProviderID:         capkitconversion.ProviderIDToV1Beta2(in.ProviderID),
		FailureDomain:      in.FailureDomain,
		Image:              in.Image,
		Flavor:             in.Flavor,
		Tags:               tags,
		AddressesFromPools: pools,
	}
}

// machineSpecFromHub returns the v1beta1 spec of a v1beta2 MemMachine, which loses only the tags and the IPAM
// pools (the caller stashes them).
func machineSpecFromHub(in v1beta2.MemMachineSpec) MemMachineSpec {
	return MemMachineSpec{
		ProviderID:    capkitconversion.ProviderIDToV1Beta1(in.ProviderID),
		FailureDomain: in.FailureDomain,
		Image:         in.Image,
		Flavor:        in.Flavor,
	}
}

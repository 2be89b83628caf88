package v1beta1

import (
	"sigs.k8s.io/controller-runtime/pkg/conversion"

	capkitconversion "github.com/capkit/capkit/contract/conversion"
	"github.com/capkit/capkit/contract/conversion/internal/testapi/v1beta2"
)

// hubOnly is the status a v1beta2 FooMachine holds that a v1beta1 one cannot, stashed on the v1beta1 object
// (StashStatus: status, which only the status subresource may change; KeepStatus guards the hub).
type hubOnly struct {
	Provisioned   *bool                            `json:"provisioned,omitempty"`
	Conditions    capkitconversion.ConditionsStash `json:"conditions,omitempty"`
	FailureDomain string                           `json:"failureDomain,omitempty"`
}

// spokeOnly is what a v1beta1 FooMachine holds that a v1beta2 one cannot, stashed on the v1beta2 object.
type spokeOnly struct {
	Conditions     capkitconversion.ConditionsStash `json:"conditions,omitempty"`
	FailureReason  *string                          `json:"failureReason,omitempty"`
	FailureMessage *string                          `json:"failureMessage,omitempty"`
}

// ConvertTo converts m to the hub.
func (m *FooMachine) ConvertTo(hub conversion.Hub) error {
	dst := hub.(*v1beta2.FooMachine)
	return m.convertTo(dst, true)
}

// ConvertFrom converts the hub to m.
func (m *FooMachine) ConvertFrom(hub conversion.Hub) error {
	return m.convertFrom(hub.(*v1beta2.FooMachine), true)
}

func (m *FooMachine) convertTo(dst *v1beta2.FooMachine, stash bool) error {
	dst.ObjectMeta = *m.ObjectMeta.DeepCopy()
	var restored hubOnly
	if _, err := capkitconversion.RestoreStatus(dst, &restored); err != nil {
		return err
	}
	dst.Spec.ProviderID = capkitconversion.ProviderIDToV1Beta2(m.Spec.ProviderID)
	dst.Spec.Size = m.Spec.Size
	dst.Status.Initialization.Provisioned = capkitconversion.ReadyToProvisioned(m.Status.Ready, restored.Provisioned)
	conds, lost, err := capkitconversion.ConditionsToV1Beta2(m.Status.Conditions, restored.Conditions)
	if err != nil {
		return err
	}
	dst.Status.Conditions = conds
	dst.Status.FailureDomain = restored.FailureDomain
	if !stash {
		return nil
	}
	return capkitconversion.StashStatus(dst, spokeOnly{Conditions: lost, FailureReason: m.Status.FailureReason, FailureMessage: m.Status.FailureMessage})
}

func (m *FooMachine) convertFrom(src *v1beta2.FooMachine, stash bool) error {
	m.ObjectMeta = *src.ObjectMeta.DeepCopy()
	var restored spokeOnly
	if _, err := capkitconversion.RestoreStatus(m, &restored); err != nil {
		return err
	}
	m.Spec.ProviderID = capkitconversion.ProviderIDToV1Beta1(src.Spec.ProviderID)
	m.Spec.Size = src.Spec.Size
	ready, provisioned := capkitconversion.ProvisionedToReady(src.Status.Initialization.Provisioned)
	m.Status.Ready = ready
	conds, lost, err := capkitconversion.ConditionsToV1Beta1(src.Status.Conditions, restored.Conditions)
	if err != nil {
		return err
	}
	m.Status.Conditions = conds
	m.Status.FailureReason, m.Status.FailureMessage = restored.FailureReason, restored.FailureMessage
	if !stash {
		return nil
	}
	return capkitconversion.StashStatus(m, hubOnly{Provisioned: provisioned, Conditions: lost, FailureDomain: src.Status.FailureDomain})
}

// ConvertTo converts m to the hub, stashing nothing.
func (m *LossyFooMachine) ConvertTo(hub conversion.Hub) error {
	return m.convertTo(hub.(*v1beta2.FooMachine), false)
}

// ConvertFrom converts the hub to m, stashing nothing.
func (m *LossyFooMachine) ConvertFrom(hub conversion.Hub) error {
	return m.convertFrom(hub.(*v1beta2.FooMachine), false)
}

// clusterHubOnly is what a v1beta2 FooCluster holds that a v1beta1 one cannot, stashed on the v1beta1 object.
type clusterHubOnly struct {
	Provisioned    *bool                                `json:"provisioned,omitempty"`
	Conditions     capkitconversion.ConditionsStash     `json:"conditions,omitempty"`
	FailureDomains capkitconversion.FailureDomainsStash `json:"failureDomains,omitzero"`
}

// clusterSpokeOnly is what a v1beta1 FooCluster holds that a v1beta2 one cannot, stashed on the v1beta2 object.
type clusterSpokeOnly struct {
	Conditions     capkitconversion.ConditionsStash `json:"conditions,omitempty"`
	FailureReason  *string                          `json:"failureReason,omitempty"`
	FailureMessage *string                          `json:"failureMessage,omitempty"`
}

// ConvertTo converts c to the hub.
func (c *FooCluster) ConvertTo(hub conversion.Hub) error {
	dst := hub.(*v1beta2.FooCluster)
	dst.ObjectMeta = *c.ObjectMeta.DeepCopy()
	var restored clusterHubOnly
	if _, err := capkitconversion.RestoreStatus(dst, &restored); err != nil {
		return err
	}
	dst.Spec.ControlPlaneEndpoint = c.Spec.ControlPlaneEndpoint
	dst.Status.Initialization.Provisioned = capkitconversion.ReadyToProvisioned(c.Status.Ready, restored.Provisioned)
	conds, lost, err := capkitconversion.ConditionsToV1Beta2(c.Status.Conditions, restored.Conditions)
	if err != nil {
		return err
	}
	dst.Status.Conditions = conds
	domains, err := capkitconversion.FailureDomainsToV1Beta2(c.Status.FailureDomains, restored.FailureDomains)
	if err != nil {
		return err
	}
	dst.Status.FailureDomains = domains
	return capkitconversion.StashStatus(dst, clusterSpokeOnly{Conditions: lost, FailureReason: c.Status.FailureReason, FailureMessage: c.Status.FailureMessage})
}

// ConvertFrom converts the hub to c.
func (c *FooCluster) ConvertFrom(hub conversion.Hub) error {
	src := hub.(*v1beta2.FooCluster)
	c.ObjectMeta = *src.ObjectMeta.DeepCopy()
	var restored clusterSpokeOnly
	if _, err := capkitconversion.RestoreStatus(c, &restored); err != nil {
		return err
	}
	c.Spec.ControlPlaneEndpoint = src.Spec.ControlPlaneEndpoint
	ready, provisioned := capkitconversion.ProvisionedToReady(src.Status.Initialization.Provisioned)
	c.Status.Ready = ready
	conds, lost, err := capkitconversion.ConditionsToV1Beta1(src.Status.Conditions, restored.Conditions)
	if err != nil {
		return err
	}
	c.Status.Conditions = conds
	domains, domainsLost, err := capkitconversion.FailureDomainsToV1Beta1(src.Status.FailureDomains)
	if err != nil {
		return err
	}
	c.Status.FailureDomains = domains
	c.Status.FailureReason, c.Status.FailureMessage = restored.FailureReason, restored.FailureMessage
	return capkitconversion.StashStatus(c, clusterHubOnly{Provisioned: provisioned, Conditions: lost, FailureDomains: domainsLost})
}

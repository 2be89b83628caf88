package contract

// The interfaces in this file give typed access to the contract fields of a provider's own API types, the
// way conditions.Setter gives access to conditions: a provider type implements them with one-line methods
// over its fields, which `capkit generate accessors` writes (zz_generated.accessors.go), capkit's scopes and
// reconcilers call them (their type constraints, InfraClusterObject and the others, list the ones each kind
// requires), and no object is
// ever converted as a whole to reach one field. Each method reads or writes exactly one field, at the path
// the type's contract version puts it; nothing else in the object changes, so maps and slices the provider
// holds stay valid. Conditions are reached through conditions.Setter. Unstructured objects get the same
// methods from Unstructured.

// ProvisionedAccessor is the provisioned flag of an InfraCluster or InfraMachine: status.initialization.provisioned
// (v1beta2) or status.ready (v1beta1).
type ProvisionedAccessor interface {
	// IsProvisioned reports whether the infrastructure is provisioned.
	IsProvisioned() bool
	// SetProvisioned sets the flag.
	SetProvisioned(provisioned bool)
}

// ControlPlaneEndpointAccessor is an InfraCluster's spec.controlPlaneEndpoint.
type ControlPlaneEndpointAccessor interface {
	// GetControlPlaneEndpoint returns spec.controlPlaneEndpoint, zero when unset.
	GetControlPlaneEndpoint() APIEndpoint
	// SetControlPlaneEndpoint sets spec.controlPlaneEndpoint.
	SetControlPlaneEndpoint(ep APIEndpoint)
}

// FailureDomainsAccessor is an InfraCluster's status.failureDomains, as a list whatever the version's shape.
type FailureDomainsAccessor interface {
	// GetFailureDomains returns status.failureDomains.
	GetFailureDomains() []FailureDomain
	// SetFailureDomains sets status.failureDomains.
	SetFailureDomains(domains []FailureDomain)
}

// ProviderIDAccessor is an InfraMachine's spec.providerID.
type ProviderIDAccessor interface {
	// GetProviderID returns spec.providerID, "" when unset.
	GetProviderID() string
	// SetProviderID sets spec.providerID.
	SetProviderID(id string)
}

// AddressesAccessor is an InfraMachine's status.addresses.
type AddressesAccessor interface {
	// GetAddresses returns status.addresses.
	GetAddresses() []MachineAddress
	// SetAddresses sets status.addresses.
	SetAddresses(addrs []MachineAddress)
}

// StatusFailureDomainAccessor is an InfraMachine's status.failureDomain: where the machine was placed (not
// spec.failureDomain, where Cluster API asked for it).
type StatusFailureDomainAccessor interface {
	// GetStatusFailureDomain returns status.failureDomain, "" when unset.
	GetStatusFailureDomain() string
	// SetStatusFailureDomain sets status.failureDomain.
	SetStatusFailureDomain(fd string)
}

// CapacityAccessor is an InfraMachineTemplate's status.capacity and status.nodeInfo (MachineTemplateCapacity),
// which package reconcile/capacity writes for the cluster autoscaler's scale from zero. Unstructured does not
// implement it: that controller works on a provider's typed templates.
type CapacityAccessor interface {
	// GetCapacity returns status.capacity and status.nodeInfo.
	GetCapacity() MachineTemplateCapacity
	// SetCapacity sets them.
	SetCapacity(c MachineTemplateCapacity)
}

// IsProvisioned reports whether provisioned is set and true.
func (i InfraClusterInitialization) IsProvisioned() bool {
	return i.Provisioned != nil && *i.Provisioned
}

// SetProvisioned sets provisioned.
func (i *InfraClusterInitialization) SetProvisioned(v bool) { i.Provisioned = &v }

// IsProvisioned reports whether provisioned is set and true.
func (i InfraMachineInitialization) IsProvisioned() bool {
	return i.Provisioned != nil && *i.Provisioned
}

// SetProvisioned sets provisioned.
func (i *InfraMachineInitialization) SetProvisioned(v bool) { i.Provisioned = &v }

package contract

import (
	"errors"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/capkit/capkit/conditions"
)

// UnstructuredAccessor gives an InfraCluster or InfraMachine read as *unstructured.Unstructured the typed
// accessors of this package (ProvisionedAccessor, ProviderIDAccessor, …, and conditions.Setter), at the paths
// of its contract version. It is for providers without Go types (a v1beta1 provider, tests); typed objects
// implement the accessors themselves.
//
// Call Validate once after reading the object: getters then cannot fail, and return the zero value for an
// absent field. A setter cannot fail on a validated object either; if it does, the error is kept, the
// object is left as it was, and Err returns it.
type UnstructuredAccessor struct {
	u   *unstructured.Unstructured
	v   Version
	err error
}

// Unstructured returns the accessors of u at the paths of contract version v.
func Unstructured(u *unstructured.Unstructured, v Version) *UnstructuredAccessor {
	return &UnstructuredAccessor{u: u, v: v}
}

// Validate checks that every contract field u holds has the contract's type; the error names the path.
func (a *UnstructuredAccessor) Validate() error {
	if a.u == nil {
		return errors.New("cannot read contract fields: nil object")
	}
	if !a.v.Valid() {
		return fmt.Errorf("cannot read contract fields: version %q: %w", a.v, ErrUnknownVersion)
	}
	ic, im := InfraCluster(a.v), InfraMachine(a.v)
	checks := []func() error{
		func() error { _, err := ic.Provisioned().Get(a.u); return err },
		func() error { _, err := ic.ControlPlaneEndpoint().Get(a.u); return err },
		func() error { _, err := ic.FailureDomains().Get(a.u); return err },
		func() error { _, err := ic.Conditions().Get(a.u); return err },
		func() error { _, err := im.ProviderID().Get(a.u); return err },
		func() error { _, err := im.Addresses().Get(a.u); return err },
		func() error { _, err := im.FailureDomain().Get(a.u); return err },
	}
	for _, check := range checks {
		if err := check(); err != nil && !errors.Is(err, ErrFieldNotFound) {
			return fmt.Errorf("cannot read contract fields of %s %q: %w", a.u.GetKind(), a.u.GetName(), err)
		}
	}
	return nil
}

// Err returns the first error a setter met, nil when every write succeeded.
func (a *UnstructuredAccessor) Err() error { return a.err }

// Object returns the object the accessors read and write.
func (a *UnstructuredAccessor) Object() *unstructured.Unstructured { return a.u }

// IsProvisioned implements ProvisionedAccessor.
func (a *UnstructuredAccessor) IsProvisioned() bool { return get(a, InfraMachine(a.v).Provisioned()) }

// SetProvisioned implements ProvisionedAccessor.
func (a *UnstructuredAccessor) SetProvisioned(v bool) { set(a, InfraMachine(a.v).Provisioned(), v) }

// GetControlPlaneEndpoint implements ControlPlaneEndpointAccessor.
func (a *UnstructuredAccessor) GetControlPlaneEndpoint() APIEndpoint {
	return get(a, InfraCluster(a.v).ControlPlaneEndpoint())
}

// SetControlPlaneEndpoint implements ControlPlaneEndpointAccessor.
func (a *UnstructuredAccessor) SetControlPlaneEndpoint(ep APIEndpoint) {
	set(a, InfraCluster(a.v).ControlPlaneEndpoint(), ep)
}

// GetFailureDomains implements FailureDomainsAccessor.
func (a *UnstructuredAccessor) GetFailureDomains() []FailureDomain {
	fds, _ := InfraCluster(a.v).FailureDomains().Get(a.u)
	return fds
}

// SetFailureDomains implements FailureDomainsAccessor.
func (a *UnstructuredAccessor) SetFailureDomains(domains []FailureDomain) {
	a.keep(InfraCluster(a.v).FailureDomains().Set(a.u, domains))
}

// GetProviderID implements ProviderIDAccessor.
func (a *UnstructuredAccessor) GetProviderID() string { return get(a, InfraMachine(a.v).ProviderID()) }

// SetProviderID implements ProviderIDAccessor.
func (a *UnstructuredAccessor) SetProviderID(id string) { set(a, InfraMachine(a.v).ProviderID(), id) }

// GetAddresses implements AddressesAccessor.
func (a *UnstructuredAccessor) GetAddresses() []MachineAddress {
	return get(a, InfraMachine(a.v).Addresses())
}

// SetAddresses implements AddressesAccessor.
func (a *UnstructuredAccessor) SetAddresses(addrs []MachineAddress) {
	set(a, InfraMachine(a.v).Addresses(), addrs)
}

// GetStatusFailureDomain implements StatusFailureDomainAccessor.
func (a *UnstructuredAccessor) GetStatusFailureDomain() string {
	return get(a, InfraMachine(a.v).FailureDomain())
}

// SetStatusFailureDomain implements StatusFailureDomainAccessor.
func (a *UnstructuredAccessor) SetStatusFailureDomain(fd string) {
	set(a, InfraMachine(a.v).FailureDomain(), fd)
}

// GetProviderIDList returns an InfraMachinePool's spec.providerIDList.
func (a *UnstructuredAccessor) GetProviderIDList() []string {
	return get(a, InfraMachinePool(a.v).ProviderIDList())
}

// SetProviderIDList sets an InfraMachinePool's spec.providerIDList.
func (a *UnstructuredAccessor) SetProviderIDList(ids []string) {
	set(a, InfraMachinePool(a.v).ProviderIDList(), ids)
}

// GetStatusReplicas returns an InfraMachinePool's status.replicas.
func (a *UnstructuredAccessor) GetStatusReplicas() int32 {
	return int32(get(a, InfraMachinePool(a.v).Replicas())) //nolint:gosec // a replica count fits
}

// SetStatusReplicas sets an InfraMachinePool's status.replicas.
func (a *UnstructuredAccessor) SetStatusReplicas(n int32) {
	set(a, InfraMachinePool(a.v).Replicas(), int64(n))
}

// GetConditions implements conditions.Getter.
func (a *UnstructuredAccessor) GetConditions() []metav1.Condition {
	return get(a, InfraMachine(a.v).Conditions())
}

// SetConditions implements conditions.Setter.
func (a *UnstructuredAccessor) SetConditions(c []metav1.Condition) {
	set(a, InfraMachine(a.v).Conditions(), c)
}

// GetGeneration returns the object's metadata.generation, for the conditions package.
func (a *UnstructuredAccessor) GetGeneration() int64 { return a.u.GetGeneration() }

func get[T any](a *UnstructuredAccessor, f Field[T]) T {
	v, _ := f.Get(a.u) // Validate reported a malformed field; an absent one is the zero value
	return v
}

func set[T any](a *UnstructuredAccessor, f Field[T], v T) { a.keep(f.Set(a.u, v)) }

func (a *UnstructuredAccessor) keep(err error) {
	if err != nil && a.err == nil {
		a.err = err
	}
}

var (
	_ ProvisionedAccessor          = (*UnstructuredAccessor)(nil)
	_ ControlPlaneEndpointAccessor = (*UnstructuredAccessor)(nil)
	_ FailureDomainsAccessor       = (*UnstructuredAccessor)(nil)
	_ ProviderIDAccessor           = (*UnstructuredAccessor)(nil)
	_ AddressesAccessor            = (*UnstructuredAccessor)(nil)
	_ StatusFailureDomainAccessor  = (*UnstructuredAccessor)(nil)
	_ conditions.Setter            = (*UnstructuredAccessor)(nil)
)

package scope

import (
	"errors"
	"fmt"
	"maps"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/contract"
)

// ErrFieldNotInType is returned when a provider type does not give access to a contract field: it does not
// implement the accessor interface of that field (contract.ProviderIDAccessor, …). The error names the
// interface, its methods and the contract path.
var ErrFieldNotInType = errors.New("field not in type")

// fields are the accessors of one infra object: its own methods for a typed object, the contract paths of
// its version for an unstructured one. A nil accessor is a field the type does not have.
type fields struct {
	conds          conditions.Setter
	provisioned    contract.ProvisionedAccessor
	endpoint       contract.ControlPlaneEndpointAccessor
	failureDomains contract.FailureDomainsAccessor
	providerID     contract.ProviderIDAccessor
	addresses      contract.AddressesAccessor
	statusFD       contract.StatusFailureDomainAccessor
	resources      ResourceIDsAccessor
	providerIDList contract.ProviderIDListAccessor
	replicas       contract.ReplicasAccessor
	u              *contract.UnstructuredAccessor // set for unstructured objects
}

func resolveFields(obj client.Object, v contract.Version, resourcesPath contract.Path) (fields, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		a := contract.Unstructured(u, v)
		if err := a.Validate(); err != nil {
			return fields{}, err
		}
		res := unstructuredResources{u: u, f: contract.NewField[map[string]string](resourcesPath...)}
		if _, err := res.f.Get(u); err != nil && !errors.Is(err, contract.ErrFieldNotFound) {
			return fields{}, fmt.Errorf("cannot read the resource IDs of %s %q: %w", u.GetKind(), u.GetName(), err)
		}
		return fields{conds: a, provisioned: a, endpoint: a, failureDomains: a, providerID: a, addresses: a,
			statusFD: a, resources: res, providerIDList: a, replicas: a, u: a}, nil
	}
	var f fields
	f.conds, _ = obj.(conditions.Setter)
	f.provisioned, _ = obj.(contract.ProvisionedAccessor)
	f.endpoint, _ = obj.(contract.ControlPlaneEndpointAccessor)
	f.failureDomains, _ = obj.(contract.FailureDomainsAccessor)
	f.providerID, _ = obj.(contract.ProviderIDAccessor)
	f.addresses, _ = obj.(contract.AddressesAccessor)
	f.statusFD, _ = obj.(contract.StatusFailureDomainAccessor)
	f.resources, _ = obj.(ResourceIDsAccessor)
	f.providerIDList, _ = obj.(contract.ProviderIDListAccessor)
	f.replicas, _ = obj.(contract.ReplicasAccessor)
	return f, nil
}

// accessor describes one accessor interface, for the error about a type that lacks it.
type accessor struct {
	iface, methods, path string
}

// The optional accessors, for the error about a type that lacks one. The required ones are type constraints
// (contract.InfraMachineObject, …): a type without them does not compile.
var (
	accFDs       = accessor{"contract.FailureDomainsAccessor", "GetFailureDomains, SetFailureDomains", "status.failureDomains"}
	accAddresses = accessor{"contract.AddressesAccessor", "GetAddresses, SetAddresses", "status.addresses"}
	accStatusFD  = accessor{"contract.StatusFailureDomainAccessor", "GetStatusFailureDomain, SetStatusFailureDomain", "status.failureDomain"}
	accResources = accessor{"scope.ResourceIDsAccessor", "GetResourceIDs, SetResourceIDs", "status.resources"}
)

// missing returns the ErrFieldNotInType error for obj's type, or nil when present is true.
func missing(obj client.Object, present bool, a accessor) error {
	if present {
		return nil
	}
	return fmt.Errorf("type %T does not implement %s (%s) for %s: %w", obj, a.iface, a.methods, a.path, ErrFieldNotInType)
}

// unstructuredResources keeps the resource-ID map of an unstructured object at a path.
type unstructuredResources struct {
	u *unstructured.Unstructured
	f contract.Field[map[string]string]
}

func (r unstructuredResources) GetResourceIDs() map[string]string {
	m, _ := r.f.Get(r.u) // validated when the scope was created
	return m
}

func (r unstructuredResources) SetResourceIDs(ids map[string]string) {
	if len(ids) == 0 {
		r.f.Delete(r.u)
		return
	}
	_ = r.f.Set(r.u, maps.Clone(ids)) // a map of strings under a validated parent always sets
}

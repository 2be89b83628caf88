package conversion

import (
	"fmt"
	"slices"
	"sort"

	"github.com/capkit/capkit/contract"
)

// MaxFailureDomains is the most failure domains the conversions accept, as many as Cluster API's v1beta2
// status.failureDomains allows.
const MaxFailureDomains = 100

// maxFailureDomainName is the longest failure domain name, as contract.FailureDomain's marker allows.
const maxFailureDomainName = 256

// V1Beta1FailureDomain is the value of one entry of a v1beta1 InfraCluster status.failureDomains map, keyed by
// the failure domain's name (Cluster API v1beta1's FailureDomainSpec).
// +kubebuilder:object:generate=true
type V1Beta1FailureDomain struct {
	// controlPlane determines if this failure domain is suitable for use by control plane machines.
	// +optional
	ControlPlane bool `json:"controlPlane,omitempty"`

	// attributes is a free form map of attributes an infrastructure provider might use or require.
	// +optional
	Attributes map[string]string `json:"attributes,omitempty"`
}

// FailureDomainsStash is what a v1beta2 failure domain list holds that the v1beta1 map cannot: FailureDomainsToV1Beta1
// returns it, a provider stashes it, and FailureDomainsToV1Beta2 takes it back. It is empty when nothing was lost.
type FailureDomainsStash struct {
	// Order is the names in the order of the list, when it was not sorted by name.
	Order []string `json:"order,omitempty"`
	// UnsetControlPlane is the names whose controlPlane was unset rather than false.
	UnsetControlPlane []string `json:"unsetControlPlane,omitempty"`
}

// FailureDomainsToV1Beta2 returns the v1beta2 list of a v1beta1 failure domain map: sorted by name, controlPlane
// always set, nil for nil. restored, the stash FailureDomainsToV1Beta1 returned, puts back the list's order when
// it names exactly the map's domains, and an unset controlPlane where the map says false. It fails, naming the
// domain, for an empty or too long name, and for more than MaxFailureDomains domains.
func FailureDomainsToV1Beta2(in map[string]V1Beta1FailureDomain, restored FailureDomainsStash) ([]contract.FailureDomain, error) {
	if in == nil {
		return nil, nil
	}
	if len(in) > MaxFailureDomains {
		return nil, fmt.Errorf("cannot convert failure domains: %d, more than %d", len(in), MaxFailureDomains)
	}
	names := make([]string, 0, len(in))
	for name := range in {
		if err := checkFailureDomainName(name); err != nil {
			return nil, err
		}
		names = append(names, name)
	}
	sort.Strings(names)
	if sorted := slices.Sorted(slices.Values(restored.Order)); slices.Equal(sorted, names) {
		names = restored.Order
	}
	out := make([]contract.FailureDomain, 0, len(in))
	for _, name := range names {
		d := in[name]
		var cp *bool
		if d.ControlPlane || !slices.Contains(restored.UnsetControlPlane, name) {
			cp = new(d.ControlPlane)
		}
		out = append(out, contract.FailureDomain{Name: name, ControlPlane: cp, Attributes: d.Attributes})
	}
	return out, nil
}

// FailureDomainsToV1Beta1 returns the v1beta1 map of a v1beta2 failure domain list (nil for nil), and the stash
// for FailureDomainsToV1Beta2: the list's order when it is not sorted by name and the names whose controlPlane
// is unset. It fails, naming the item, for an empty, too long or repeated name, and for more than
// MaxFailureDomains domains.
func FailureDomainsToV1Beta1(in []contract.FailureDomain) (map[string]V1Beta1FailureDomain, FailureDomainsStash, error) {
	var stash FailureDomainsStash
	if in == nil {
		return nil, stash, nil
	}
	if len(in) > MaxFailureDomains {
		return nil, stash, fmt.Errorf("cannot convert failure domains: %d, more than %d", len(in), MaxFailureDomains)
	}
	if err := contract.ValidateFailureDomains(in); err != nil {
		return nil, stash, fmt.Errorf("cannot convert failure domains: %w", err)
	}
	out := make(map[string]V1Beta1FailureDomain, len(in))
	names := make([]string, 0, len(in))
	for _, d := range in {
		if err := checkFailureDomainName(d.Name); err != nil {
			return nil, FailureDomainsStash{}, err
		}
		names = append(names, d.Name)
		if d.ControlPlane == nil {
			stash.UnsetControlPlane = append(stash.UnsetControlPlane, d.Name)
		}
		out[d.Name] = V1Beta1FailureDomain{ControlPlane: d.ControlPlane != nil && *d.ControlPlane, Attributes: d.Attributes}
	}
	if !slices.IsSorted(names) {
		stash.Order = names
	}
	slices.Sort(stash.UnsetControlPlane)
	return out, stash, nil
}

func checkFailureDomainName(name string) error {
	if name == "" {
		return fmt.Errorf("cannot convert failure domain %q: name must not be empty", name)
	}
	if len(name) > maxFailureDomainName {
		return fmt.Errorf("cannot convert failure domain %q: name of %d bytes, more than %d", name[:32]+"…", len(name), maxFailureDomainName)
	}
	return nil
}

package contract

import (
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// InfraClusterFields are the contract fields of an InfraCluster (e.g. AWSCluster, MemCluster) for one contract version.
type InfraClusterFields struct{ version Version }

// InfraCluster returns the InfraCluster contract fields of contract version v.
func InfraCluster(v Version) InfraClusterFields { return InfraClusterFields{version: v} }

// ControlPlaneEndpoint is spec.controlPlaneEndpoint, the same in every contract version.
func (c InfraClusterFields) ControlPlaneEndpoint() Field[APIEndpoint] {
	return fieldAt[APIEndpoint](pathSpecControlPlaneEndpoint)
}

// Provisioned is status.ready (v1beta1) or status.initialization.provisioned (v1beta2).
func (c InfraClusterFields) Provisioned() Field[bool] {
	return pick(c.version, fieldAt[bool](pathStatusReady), fieldAt[bool](pathStatusInitializationProvisioned))
}

// FailureDomains is status.failureDomains: a map keyed by name (v1beta1) or a list (v1beta2).
func (c InfraClusterFields) FailureDomains() FailureDomainsField {
	return FailureDomainsField{version: c.version, path: pathStatusFailureDomains}
}

// Conditions is where metav1.Conditions live: status.v1beta2.conditions (v1beta1) or status.conditions (v1beta2).
func (c InfraClusterFields) Conditions() Field[[]metav1.Condition] { return conditionsField(c.version) }

// InfraMachineFields are the contract fields of an InfraMachine (e.g. AWSMachine, MemMachine) for one contract version.
type InfraMachineFields struct{ version Version }

// InfraMachine returns the InfraMachine contract fields of contract version v.
func InfraMachine(v Version) InfraMachineFields { return InfraMachineFields{version: v} }

// ProviderID is spec.providerID, the same in every contract version.
func (c InfraMachineFields) ProviderID() Field[string] { return fieldAt[string](pathSpecProviderID) }

// Provisioned is status.ready (v1beta1) or status.initialization.provisioned (v1beta2).
func (c InfraMachineFields) Provisioned() Field[bool] {
	return pick(c.version, fieldAt[bool](pathStatusReady), fieldAt[bool](pathStatusInitializationProvisioned))
}

// Addresses is status.addresses.
func (c InfraMachineFields) Addresses() Field[[]MachineAddress] {
	return fieldAt[[]MachineAddress](pathStatusAddresses)
}

// FailureDomain is status.failureDomain: the failure domain the machine was actually placed in.
func (c InfraMachineFields) FailureDomain() Field[string] {
	return fieldAt[string](pathStatusFailureDomain)
}

// SpecFailureDomain is spec.failureDomain: the failure domain Cluster API asked for (copied from the Machine).
func (c InfraMachineFields) SpecFailureDomain() Field[string] {
	return fieldAt[string](pathSpecFailureDomain)
}

// Conditions is where metav1.Conditions live: status.v1beta2.conditions (v1beta1) or status.conditions (v1beta2).
func (c InfraMachineFields) Conditions() Field[[]metav1.Condition] { return conditionsField(c.version) }

// BootstrapConfigFields are the contract fields of a bootstrap config (e.g. KubeadmConfig).
type BootstrapConfigFields struct{ version Version }

// BootstrapConfig returns the bootstrap config contract fields of contract version v.
func BootstrapConfig(v Version) BootstrapConfigFields { return BootstrapConfigFields{version: v} }

// DataSecretName is status.dataSecretName, the same in every contract version.
func (c BootstrapConfigFields) DataSecretName() Field[string] {
	return fieldAt[string](pathStatusDataSecretName)
}

// DataSecretCreated is status.ready (v1beta1) or status.initialization.dataSecretCreated (v1beta2).
func (c BootstrapConfigFields) DataSecretCreated() Field[bool] {
	return pick(c.version, fieldAt[bool](pathStatusReady), fieldAt[bool](pathStatusInitializationDataSecretCreated))
}

// Conditions is where metav1.Conditions live for this contract version.
func (c BootstrapConfigFields) Conditions() Field[[]metav1.Condition] {
	return conditionsField(c.version)
}

// TemplateSpec is spec.template.spec of an InfraClusterTemplate, InfraMachineTemplate or bootstrap config template.
func TemplateSpec() Field[map[string]any] {
	return fieldAt[map[string]any](pathSpecTemplateSpec)
}

func conditionsField(v Version) Field[[]metav1.Condition] {
	return pick(v, fieldAt[[]metav1.Condition](pathStatusV1beta2Conditions),
		fieldAt[[]metav1.Condition](pathStatusConditions))
}

// FailureDomainsField reads and writes status.failureDomains in the shape of its contract version, and always
// presents it as a list sorted by name.
type FailureDomainsField struct {
	version Version
	path    Path
}

// Path returns the field's path.
func (f FailureDomainsField) Path() Path { return slices.Clone(f.path) }

// legacyFailureDomain is the value of one v1beta1 failure-domain map entry.
type legacyFailureDomain struct {
	ControlPlane bool              `json:"controlPlane,omitempty"`
	Attributes   map[string]string `json:"attributes,omitempty"`
}

// Get returns the failure domains sorted by name. A v1beta1 map entry becomes a FailureDomain named by its key,
// with ControlPlane always set (an absent controlPlane is false in v1beta1).
func (f FailureDomainsField) Get(u *unstructured.Unstructured) ([]FailureDomain, error) {
	if f.version != V1Beta1 {
		out, err := NewField[[]FailureDomain](f.path...).Get(u)
		if err != nil {
			return nil, err
		}
		SortFailureDomains(out)
		return out, nil
	}
	m, err := NewField[map[string]legacyFailureDomain](f.path...).Get(u)
	if err != nil {
		return nil, err
	}
	out := make([]FailureDomain, 0, len(m))
	for name, d := range m {
		cp := d.ControlPlane
		out = append(out, FailureDomain{Name: name, ControlPlane: &cp, Attributes: d.Attributes})
	}
	SortFailureDomains(out)
	return out, nil
}

// Set writes the failure domains in the shape of the field's contract version, sorted by name; names must be
// unique and not empty. A nil list removes the field; an empty list writes an empty list (or map).
func (f FailureDomainsField) Set(u *unstructured.Unstructured, domains []FailureDomain) error {
	if err := ValidateFailureDomains(domains); err != nil {
		return fmt.Errorf("cannot set %q: %w", f.path, err)
	}
	if domains == nil {
		if u == nil {
			return fmt.Errorf("cannot set %q: nil object", f.path)
		}
		NewField[any](f.path...).Delete(u)
		return nil
	}
	sorted := slices.Clone(domains)
	SortFailureDomains(sorted)
	if f.version != V1Beta1 {
		return NewField[[]FailureDomain](f.path...).Set(u, sorted)
	}
	m := make(map[string]legacyFailureDomain, len(sorted))
	for _, d := range sorted {
		m[d.Name] = legacyFailureDomain{ControlPlane: d.ControlPlane != nil && *d.ControlPlane, Attributes: d.Attributes}
	}
	return NewField[map[string]legacyFailureDomain](f.path...).Set(u, m)
}

// Delete removes the field; deleting an absent field is not an error.
func (f FailureDomainsField) Delete(u *unstructured.Unstructured) { NewField[any](f.path...).Delete(u) }

// SortFailureDomains sorts failure domains by name, the order in which capkit writes them.
func SortFailureDomains(d []FailureDomain) {
	slices.SortStableFunc(d, func(a, b FailureDomain) int { return strings.Compare(a.Name, b.Name) })
}

// ValidateFailureDomains checks that every failure domain has a name and that no name repeats; the error
// names the item.
func ValidateFailureDomains(domains []FailureDomain) error {
	seen := make(map[string]bool, len(domains))
	for i, d := range domains {
		if d.Name == "" {
			return fmt.Errorf("item %d: name must not be empty", i)
		}
		if seen[d.Name] {
			return fmt.Errorf("item %d: duplicate name %q", i, d.Name)
		}
		seen[d.Name] = true
	}
	return nil
}

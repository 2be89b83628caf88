package lint

import (
	"fmt"
	"slices"
	"strings"

	"github.com/capkit/capkit/contract"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/version"
)

// Rule identifiers of CheckCRD. The field rules of the contract (e.g. "infracluster.provisioned") come from Rules.
const (
	// RuleCRDInvalid: the CRD cannot be checked (nil, or no versions).
	RuleCRDInvalid = "crd.invalid"
	// RuleCRDScope: contract types must be namespaced.
	RuleCRDScope = "crd.scope"
	// RuleCRDListKind: spec.names.listKind must be "<Kind>List".
	RuleCRDListKind = "crd.list-kind"
	// RuleCRDStatusSubresource: every served version of a non-template contract type needs the status subresource.
	RuleCRDStatusSubresource = "crd.status-subresource"
	// RuleCRDContractLabel: a contract type needs a cluster.x-k8s.io/<contract> label.
	RuleCRDContractLabel = "crd.contract-label"
	// RuleCRDContractLabelVersion: every API version a contract label names must exist and be served.
	RuleCRDContractLabelVersion = "crd.contract-label-version"
	// RuleCRDContractUnsupported: the labels declare no contract that current Cluster API supports.
	RuleCRDContractUnsupported = "crd.contract-unsupported"
	// RuleCRDContractShape: the label declares one contract but the status has the shape of the other.
	RuleCRDContractShape = "crd.contract-shape"
	// RuleCRDServedVersionFields: a served API version lacks contract fields that another version has, so the
	// API server prunes them when the object is written or read through that version.
	RuleCRDServedVersionFields = "crd.served-version-fields"
	// RuleCRDUntypedField: a contract field is only kept by x-kubernetes-preserve-unknown-fields, so its type is
	// never validated.
	RuleCRDUntypedField = "crd.untyped-field"
	// RuleCRDStorageVersionFields: with conversion strategy None, the storage version's schema lacks a contract
	// field that a labelled version has, so the API server prunes it from every stored object.
	RuleCRDStorageVersionFields = "crd.storage-version-fields"
)

// CRDOption configures CheckCRD.
type CRDOption func(*crdOptions)

type crdOptions struct {
	role Kind
}

// WithRole checks the CRD as a type of role k instead of inferring the role with RoleOf.
func WithRole(k Kind) CRDOption { return func(o *crdOptions) { o.role = k } }

// RoleOf infers the contract role of a type from its API group and kind: a group containing "infrastructure"
// (e.g. infrastructure.cluster.x-k8s.io) with a kind ending in ClusterTemplate, MachinePoolTemplate,
// MachineTemplate, Cluster, MachinePool or Machine, or a group containing "bootstrap" with a kind ending in Template or Config. It returns false for
// every other type (e.g. a provider's MemVPC), which CheckCRD only checks for label consistency.
func RoleOf(group, kind string) (Kind, bool) {
	switch {
	case strings.Contains(group, "infrastructure"):
		for _, s := range []struct {
			suffix string
			role   Kind
		}{{"ClusterTemplate", KindInfraClusterTemplate}, {"MachinePoolTemplate", KindInfraMachinePoolTemplate},
			{"MachineTemplate", KindInfraMachineTemplate}, {"Cluster", KindInfraCluster}, {"MachinePool", KindInfraMachinePool},
			{"Machine", KindInfraMachine}} {
			if strings.HasSuffix(kind, s.suffix) {
				return s.role, true
			}
		}
	case strings.Contains(group, "bootstrap"):
		if strings.HasSuffix(kind, "Template") {
			return KindBootstrapConfigTemplate, true
		}
		if strings.HasSuffix(kind, "Config") {
			return KindBootstrapConfig, true
		}
	}
	return "", false
}

// CheckCRD checks a provider CRD against the contract: namespaced scope, listKind, the status subresource on every
// served version (templates excepted), contract labels that name existing served API versions, and, for every
// contract capkit knows (v1beta1, v1beta2) that a label declares, that the schema of each API version the label
// names has every field of Rules with the right type. A label that declares v1beta2 over a status still in
// v1beta1 shape (status.ready, failure domains as a map, no status.initialization) gets one RuleCRDContractShape
// violation that says so and lists every status field to fix, instead of one violation per field. When versions
// share their stored form (conversion strategy None), the storage version must have every contract field that a
// labelled version has (RuleCRDStorageVersionFields), and every other served version the contract fields the
// contract's API version has (RuleCRDServedVersionFields), else the API server prunes them. With a conversion
// webhook neither applies: the webhook may keep a field at another path of the storage version.
//
// The role is inferred with RoleOf unless WithRole gives it; a CRD of unknown role is only checked for listKind
// and the consistency of the contract labels it has. The result is sorted.
func CheckCRD(crd *apiextensionsv1.CustomResourceDefinition, opts ...CRDOption) Violations {
	if crd == nil {
		return Violations{{Rule: RuleCRDInvalid, Object: "CustomResourceDefinition", Message: "cannot check a nil CustomResourceDefinition"}}
	}
	o := crdOptions{}
	for _, opt := range opts {
		opt(&o)
	}
	c := crdChecker{crd: crd, object: "CustomResourceDefinition/" + crd.Name}
	role, known := o.role, o.role != ""
	if !known {
		role, known = RoleOf(crd.Spec.Group, crd.Spec.Names.Kind)
	}
	if known && Rules(role, contract.V1Beta2) == nil {
		c.add(RuleCRDInvalid, "", "unknown contract role %q", role)
		return c.out.Sorted()
	}
	if len(crd.Spec.Versions) == 0 {
		c.add(RuleCRDInvalid, "spec.versions", "the CRD has no versions")
		return c.out.Sorted()
	}
	c.checkListKind()
	c.checkName()
	if known {
		c.checkScope()
		if !isTemplate(role) {
			c.checkStatusSubresource()
		}
	}
	c.checkContract(role, known)
	return c.out.Sorted()
}

type crdChecker struct {
	crd    *apiextensionsv1.CustomResourceDefinition
	object string
	out    Violations
}

func (c *crdChecker) add(rule, path, format string, args ...any) {
	c.out = append(c.out, Violation{Rule: rule, Object: c.object, Path: path, Message: fmt.Sprintf(format, args...)})
}

func (c *crdChecker) checkScope() {
	if c.crd.Spec.Scope != apiextensionsv1.NamespaceScoped {
		c.add(RuleCRDScope, "spec.scope", "scope is %q, want %q: Cluster API objects and their infrastructure live in a namespace",
			c.crd.Spec.Scope, apiextensionsv1.NamespaceScoped)
	}
}

func (c *crdChecker) checkListKind() {
	want := c.crd.Spec.Names.Kind + "List"
	if got := c.crd.Spec.Names.ListKind; got != want {
		c.add(RuleCRDListKind, "spec.names.listKind", "listKind is %q, want %q", got, want)
	}
}

func (c *crdChecker) checkStatusSubresource() {
	for _, v := range c.crd.Spec.Versions {
		if v.Served && (v.Subresources == nil || v.Subresources.Status == nil) {
			c.add(RuleCRDStatusSubresource, "spec.versions["+v.Name+"].subresources.status",
				"served version %q has no status subresource: add the +kubebuilder:subresource:status marker, so that status is written through /status and spec changes cannot overwrite it", v.Name)
		}
	}
}

// version returns the CRD version named name, or nil.
func (c *crdChecker) version(name string) *apiextensionsv1.CustomResourceDefinitionVersion {
	for i := range c.crd.Spec.Versions {
		if c.crd.Spec.Versions[i].Name == name {
			return &c.crd.Spec.Versions[i]
		}
	}
	return nil
}

// checkContract checks the contract labels and, for each supported contract they declare, the schemas.
func (c *crdChecker) checkContract(role Kind, known bool) {
	keys := contract.VersionLabelKeys(c.crd.Labels)
	if len(keys) == 0 {
		if known {
			c.add(RuleCRDContractLabel, "metadata.labels", "no %s<contract> label: add %q: <API version> (e.g. %q) so that Cluster API knows which API version implements which contract",
				contract.VersionLabelPrefix, contract.VersionLabel(contract.V1Beta2), c.crd.Spec.Versions[len(c.crd.Spec.Versions)-1].Name)
		}
		return
	}
	named := map[string]bool{} // API versions named by a supported contract label
	var labelled []contractVersions
	var newest contract.Version
	var newestAPI string
	for _, key := range keys {
		apiVersions := c.checkLabelValue(key)
		cv := contract.Version(strings.TrimPrefix(key, contract.VersionLabelPrefix))
		if !cv.Valid() || !known {
			continue
		}
		if newest == "" && len(apiVersions) > 0 {
			newest, newestAPI = cv, apiVersions[len(apiVersions)-1]
		}
		if len(apiVersions) > 0 {
			labelled = append(labelled, contractVersions{cv, apiVersions})
		}
		for _, name := range apiVersions {
			named[name] = true
			c.checkSchema(role, cv, name)
		}
	}
	if known && !slices.ContainsFunc(keys, func(k string) bool {
		return contract.Version(strings.TrimPrefix(k, contract.VersionLabelPrefix)).Valid()
	}) {
		c.add(RuleCRDContractUnsupported, "metadata.labels", "labels declare only %s, which current Cluster API does not support: declare %q or %q",
			strings.Join(keys, ", "), contract.VersionLabel(contract.V1Beta2), contract.VersionLabel(contract.V1Beta1))
	}
	if newest != "" && sharesStoredForm(c.crd) {
		c.checkStorageVersion(role, labelled)
		c.checkServedVersions(role, newest, newestAPI, named)
	}
}

// checkLabelValue checks one contract label and returns the served API versions it names, oldest first.
func (c *crdChecker) checkLabelValue(key string) []string {
	path := "metadata.labels[" + key + "]"
	value := c.crd.Labels[key]
	if value == "" {
		c.add(RuleCRDContractLabelVersion, path, "label %q is empty: want the API versions that implement the contract, joined by %q (e.g. %q)", key, "_", "v1alpha4_v1beta1")
		return nil
	}
	var out []string
	for _, name := range strings.Split(value, "_") {
		v := c.version(name)
		switch {
		case name == "":
			c.add(RuleCRDContractLabelVersion, path, "label %q has value %q with an empty API version: join versions with a single %q", key, value, "_")
		case v == nil:
			c.add(RuleCRDContractLabelVersion, path, "label %q names API version %q, which the CRD does not define (versions: %q): remove %s from the label or add it to spec.versions",
				key, name, c.versionNames(), name)
		case !v.Served:
			c.add(RuleCRDContractLabelVersion, path, "label %q names API version %q, which the CRD does not serve: remove %s from the label or serve it (served: true); Cluster API reads the contract fields through the newest version the label names",
				key, name, name)
		default:
			out = append(out, name)
		}
	}
	slices.SortFunc(out, version.CompareKubeAwareVersionStrings)
	return slices.Compact(out)
}

func (c *crdChecker) versionNames() []string {
	out := make([]string, 0, len(c.crd.Spec.Versions))
	for _, v := range c.crd.Spec.Versions {
		out = append(out, v.Name)
	}
	return out
}

// schemaOf returns the openAPIV3Schema of API version name, or nil.
func (c *crdChecker) schemaOf(name string) *apiextensionsv1.JSONSchemaProps {
	v := c.version(name)
	if v == nil || v.Schema == nil {
		return nil
	}
	return v.Schema.OpenAPIV3Schema
}

// checkServedVersions checks that every served API version not named by a contract label, except the storage
// version, has the contract fields that the API version of contract cv (contractAPI) has; they share one stored
// form, so a field absent from a version's schema is pruned.
func (c *crdChecker) checkServedVersions(role Kind, cv contract.Version, contractAPI string, named map[string]bool) {
	root := c.schemaOf(contractAPI)
	for _, v := range c.crd.Spec.Versions {
		if !v.Served || named[v.Name] || v.Storage {
			continue // the storage version is checked by checkStorageVersion
		}
		other := c.schemaOf(v.Name)
		var lost []string
		for _, r := range Rules(role, cv) {
			if _, res, _ := lookupSchema(root, r.Path); res != schemaFound {
				continue
			}
			if _, res, _ := lookupSchema(other, r.Path); res == schemaMissing {
				lost = append(lost, r.Path.String())
			}
		}
		if len(lost) > 0 {
			c.add(RuleCRDServedVersionFields, "spec.versions["+v.Name+"].schema",
				"served API version %q has no %s, which %q (contract %s) has; with conversion strategy None every version shares the stored object, so the API server prunes these fields whenever the object is written or read through %q: add them to %q or stop serving it",
				v.Name, strings.Join(lost, ", "), contractAPI, cv, v.Name, v.Name)
		}
	}
}

// sharesStoredForm reports whether all versions of the CRD share one stored JSON form (no conversion webhook).
func sharesStoredForm(crd *apiextensionsv1.CustomResourceDefinition) bool {
	return crd.Spec.Conversion == nil || crd.Spec.Conversion.Strategy == "" || crd.Spec.Conversion.Strategy == apiextensionsv1.NoneConverter
}

// RuleCRDName is the rule that a CRD's metadata.name is "<plural>.<group>"; the API server refuses any other.
const RuleCRDName = "crd.name"

// checkName checks the CRD's name and plural.
func (c *crdChecker) checkName() {
	want := c.crd.Spec.Names.Plural + "." + c.crd.Spec.Group
	if got := c.crd.Name; got != want && c.crd.Spec.Names.Plural != "" && c.crd.Spec.Group != "" {
		c.add(RuleCRDName, "metadata.name", "name is %q, want %q (<plural>.<group>): the API server refuses the CRD", got, want)
	}
	if plural := c.crd.Spec.Names.Plural; plural != strings.ToLower(plural) || slices.Contains([]string{"", c.crd.Spec.Names.Kind}, plural) {
		c.add(RuleCRDName, "spec.names.plural", "plural is %q, want the lower-case plural of kind %q", plural, c.crd.Spec.Names.Kind)
	}
}

package lint

import "github.com/capkit/capkit/contract"

// Kind is a role a provider's type plays in the contract.
type Kind string

// Contract roles.
const (
	KindInfraCluster            Kind = "InfraCluster"
	KindInfraMachine            Kind = "InfraMachine"
	KindBootstrapConfig         Kind = "BootstrapConfig"
	KindInfraClusterTemplate    Kind = "InfraClusterTemplate"
	KindInfraMachineTemplate    Kind = "InfraMachineTemplate"
	KindBootstrapConfigTemplate Kind = "BootstrapConfigTemplate"
	// KindInfraMachinePool is the infrastructure of a core MachinePool (an instance group).
	KindInfraMachinePool Kind = "InfraMachinePool"
	// KindInfraMachinePoolTemplate is the template of InfraMachinePools (ClusterClass).
	KindInfraMachinePoolTemplate Kind = "InfraMachinePoolTemplate"
)

// FieldRule is one field the contract asks a provider's type to have.
type FieldRule struct {
	// Rule is a stable identifier, e.g. "infracluster.provisioned", used in violations.
	Rule string
	// Path is where the field lives.
	Path contract.Path
	// Type is the OpenAPI type the field must have: boolean, string, integer, object or array.
	Type string
	// Required is true when the contract makes the field mandatory; optional fields are checked for type only.
	Required bool
	// Hint tells the provider author what to do when the field is missing or wrong.
	Hint string
	// Items are the fields each item of an array (or each value of an object used as a map) must have, with
	// paths relative to the item. Empty when the contract says nothing about the items.
	Items []FieldRule
}

// Rules returns the fields contract version v asks of a type in role k.
func Rules(k Kind, v contract.Version) []FieldRule {
	switch k {
	case KindInfraCluster:
		return []FieldRule{
			{Rule: "infracluster.controlPlaneEndpoint", Path: contract.Path{"spec", "controlPlaneEndpoint"}, Type: "object", Required: true,
				Hint: "embed contract.APIEndpoint as spec.controlPlaneEndpoint"},
			{Rule: "infracluster.controlPlaneEndpoint.host", Path: contract.Path{"spec", "controlPlaneEndpoint", "host"}, Type: "string", Required: true,
				Hint: "spec.controlPlaneEndpoint.host must be a string"},
			{Rule: "infracluster.controlPlaneEndpoint.port", Path: contract.Path{"spec", "controlPlaneEndpoint", "port"}, Type: "integer", Required: true,
				Hint: "spec.controlPlaneEndpoint.port must be an integer"},
			provisionedRule("infracluster", v),
			failureDomainsRule(v),
			conditionsRule("infracluster", v),
		}
	case KindInfraMachine:
		return []FieldRule{
			{Rule: "inframachine.providerID", Path: contract.Path{"spec", "providerID"}, Type: "string", Required: true,
				Hint: "add spec.providerID (string); Cluster API copies it to the Machine and matches it with the Node"},
			provisionedRule("inframachine", v),
			{Rule: "inframachine.addresses", Path: contract.Path{"status", "addresses"}, Type: "array",
				Hint: "status.addresses must be a list of contract.MachineAddress", Items: []FieldRule{
					{Rule: "inframachine.addresses.type", Path: contract.Path{"type"}, Type: "string", Required: true,
						Hint: "each address needs a type: Hostname, ExternalIP, InternalIP, ExternalDNS or InternalDNS"},
					{Rule: "inframachine.addresses.address", Path: contract.Path{"address"}, Type: "string", Required: true,
						Hint: "each address needs an address (string)"},
				}},
			{Rule: "inframachine.failureDomain", Path: contract.Path{"status", "failureDomain"}, Type: "string",
				Hint: "status.failureDomain must be a string"},
			conditionsRule("inframachine", v),
		}
	case KindBootstrapConfig:
		ready := FieldRule{Rule: "bootstrapconfig.dataSecretCreated", Type: "boolean", Required: true}
		if v == contract.V1Beta1 {
			ready.Path, ready.Hint = contract.Path{"status", "ready"}, "add status.ready (boolean)"
		} else {
			ready.Path, ready.Hint = contract.Path{"status", "initialization", "dataSecretCreated"},
				"embed contract.BootstrapConfigInitialization as status.initialization"
		}
		return []FieldRule{
			{Rule: "bootstrapconfig.dataSecretName", Path: contract.Path{"status", "dataSecretName"}, Type: "string", Required: true,
				Hint: "add status.dataSecretName (string) naming the bootstrap data Secret"},
			ready,
			conditionsRule("bootstrapconfig", v),
		}
	case KindInfraMachinePool:
		return machinePoolRules(v)
	case KindInfraClusterTemplate, KindInfraMachineTemplate, KindBootstrapConfigTemplate, KindInfraMachinePoolTemplate:
		rules := []FieldRule{
			{Rule: "template.spec", Path: contract.Path{"spec", "template", "spec"}, Type: "object", Required: true,
				Hint: "templates must have spec.template.spec holding the templated object's spec"},
			{Rule: "template.metadata", Path: contract.Path{"spec", "template", "metadata"}, Type: "object",
				Hint: "spec.template.metadata must be an object of labels and annotations (contract.TemplateObjectMeta)"},
		}
		if k == KindInfraMachineTemplate { // autoscaling from zero, optional
			rules = append(rules,
				FieldRule{Rule: "template.capacity", Path: contract.Path{"status", "capacity"}, Type: "object",
					Hint: "status.capacity must be a map of resource quantities (corev1.ResourceList; contract.MachineTemplateCapacity)"},
				FieldRule{Rule: "template.nodeInfo", Path: contract.Path{"status", "nodeInfo"}, Type: "object",
					Hint: "status.nodeInfo must be an object with architecture and operatingSystem (contract.NodeInfo)"})
		}
		return rules
	}
	return nil
}

// machinePoolRules are the fields of an InfraMachinePool: the list of its instances' provider IDs, their
// count, the provisioned flag (and status.ready for v1beta2 too: Cluster API v1.14 reads only that for
// machine pools), the optional kind of MachinePool Machines, and conditions.
func machinePoolRules(v contract.Version) []FieldRule {
	rules := []FieldRule{
		{Rule: "inframachinepool.providerIDList", Path: contract.Path{"spec", "providerIDList"}, Type: "array", Required: true,
			Hint: "add spec.providerIDList ([]string): the provider IDs of the pool's instances, which Cluster API matches with Nodes"},
		{Rule: "inframachinepool.replicas", Path: contract.Path{"status", "replicas"}, Type: "integer", Required: true,
			Hint: "add status.replicas (int32): how many instances the pool has"},
		provisionedRule("inframachinepool", v),
		{Rule: "inframachinepool.infrastructureMachineKind", Path: contract.Path{"status", "infrastructureMachineKind"}, Type: "string",
			Hint: "status.infrastructureMachineKind must be a string naming the kind of the pool's InfraMachines"},
		conditionsRule("inframachinepool", v),
	}
	if v != contract.V1Beta1 {
		rules[2].Hint = "embed contract.InfraMachinePoolInitialization as status.initialization"
		rules = append(rules, FieldRule{Rule: "inframachinepool.ready", Path: contract.Path{"status", "ready"}, Type: "boolean", Required: true,
			Hint: "add status.ready (boolean) too: Cluster API v1.14 reads only status.ready for machine pools, whatever the contract"})
	}
	return rules
}

func provisionedRule(prefix string, v contract.Version) FieldRule {
	r := FieldRule{Rule: prefix + ".provisioned", Type: "boolean", Required: true}
	if v == contract.V1Beta1 {
		r.Path, r.Hint = contract.Path{"status", "ready"}, "add status.ready (boolean) for contract v1beta1"
	} else {
		r.Path = contract.Path{"status", "initialization", "provisioned"}
		r.Hint = "embed contract.InfraClusterInitialization or InfraMachineInitialization as status.initialization (v1beta2 replaces status.ready)"
	}
	return r
}

func failureDomainsRule(v contract.Version) FieldRule {
	r := FieldRule{Rule: "infracluster.failureDomains", Path: contract.Path{"status", "failureDomains"}}
	items := []FieldRule{
		{Rule: "infracluster.failureDomains.controlPlane", Path: contract.Path{"controlPlane"}, Type: "boolean",
			Hint: "controlPlane must be a boolean"},
		{Rule: "infracluster.failureDomains.attributes", Path: contract.Path{"attributes"}, Type: "object",
			Hint: "attributes must be a map of strings"},
	}
	if v == contract.V1Beta1 {
		r.Type, r.Hint = "object", "v1beta1 failure domains are a map keyed by name"
	} else {
		r.Type, r.Hint = "array", "v1beta2 failure domains are a list of contract.FailureDomain, not a map"
		items = append([]FieldRule{{Rule: "infracluster.failureDomains.name", Path: contract.Path{"name"}, Type: "string",
			Required: true, Hint: "each failure domain needs a name (string)"}}, items...)
	}
	r.Items = items
	return r
}

func conditionsRule(prefix string, v contract.Version) FieldRule {
	r := FieldRule{Rule: prefix + ".conditions", Type: "array",
		Hint: "conditions must be a list of metav1.Condition"}
	r.Path = pick(v, contract.Path{"status", "v1beta2", "conditions"}, contract.Path{"status", "conditions"})
	item := func(name, typ string, required bool) FieldRule {
		return FieldRule{Rule: prefix + ".conditions." + name, Path: contract.Path{name}, Type: typ, Required: required,
			Hint: "conditions must be metav1.Condition: " + name + " must be " + typ}
	}
	r.Items = []FieldRule{
		item("type", "string", true),
		item("status", "string", true),
		item("lastTransitionTime", "string", true),
		item("reason", "string", true),
		item("message", "string", true),
		item("observedGeneration", "integer", false),
	}
	return r
}

// pick returns v1beta1 for contract v1beta1 and v1beta2 for every later version.
func pick[T any](v contract.Version, v1beta1, v1beta2 T) T {
	if v == contract.V1Beta1 {
		return v1beta1
	}
	return v1beta2
}

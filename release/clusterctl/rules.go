package clusterctl

import (
	"slices"
	"strings"

	"github.com/capkit/capkit/contract/lint"
)

// Level says how strongly the source of a rule asks for what the rule checks.
type Level string

// Levels of the rules of CheckFiles.
const (
	// LevelError is a MUST of the contract, or something clusterctl or the API server refuses or gets wrong.
	LevelError Level = "error"
	// LevelWarning is a SHOULD (or SHOULD NOT) of the contract.
	LevelWarning Level = "warning"
	// LevelNote is advice: the source asks for nothing, but the finding is likely a mistake. A note does not make
	// capkit check fail.
	LevelNote Level = "note"
)

// RuleInfo describes one rule of CheckFiles: what it checks, how strongly its source asks for it, and the source.
type RuleInfo struct {
	// ID is the rule identifier findings carry; an ID ending in ".*" stands for every rule with that prefix (the
	// field rules of lint.Rules, e.g. "infracluster.provisioned").
	ID string
	// Level is the level of the rule's findings.
	Level Level
	// What says what the rule checks, in one sentence.
	What string
	// Source is the address of the contract text or of the clusterctl (or Kubernetes) code the rule enforces.
	Source string
}

// Sources of the rules.
const (
	contractBook        = "https://cluster-api.sigs.k8s.io/developer/providers/contracts/"
	srcClusterctl       = contractBook + "clusterctl"
	srcInfraCluster     = contractBook + "infra-cluster"
	srcInfraMachine     = contractBook + "infra-machine"
	srcBootstrapConfig  = contractBook + "bootstrap-config"
	srcInfraMachinePool = contractBook + "infra-machinepool"
	srcIPAM             = contractBook + "ipam#infrastructure-provider"
	srcRepositoryPkg    = "https://pkg.go.dev/sigs.k8s.io/cluster-api/cmd/clusterctl/client/repository"
	srcYAMLProcessor    = "https://pkg.go.dev/sigs.k8s.io/cluster-api/cmd/clusterctl/client/yamlprocessor"
	srcCRDVersioning    = "https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definition-versioning/"
	srcCRDAPI           = "https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/"
)

// ruleTable is every rule capkit check reports: those of CheckFiles and those of lint.CheckCRD it runs.
var ruleTable = []RuleInfo{
	// CRDs (lint.CheckCRD and CheckFiles).
	{lint.RuleCRDInvalid, LevelError, "a CRD has at least one version", srcCRDAPI},
	{RuleCRDAPIVersion, LevelError, "CRDs are apiextensions.k8s.io/v1 (v1beta1 was removed in Kubernetes 1.22)", srcCRDAPI},
	{lint.RuleCRDName, LevelError, "a CRD is named <plural>.<group>, with a lower-case plural (the API server and clusterctl init refuse any other name)", srcCRDAPI},
	{lint.RuleCRDScope, LevelError, "contract types are namespace-scoped (\"All resources MUST be namespace-scoped\")", srcInfraCluster + "#all-resources-scope"},
	{lint.RuleCRDListKind, LevelError, "the list resource is named <Kind>List (\"The list resource MUST be named as <InfraCluster>List\")", srcInfraCluster + "#infracluster-infraclusterlist-resource-definition"},
	{lint.RuleCRDStatusSubresource, LevelWarning, "every served version of a contract type (templates excepted) has the status subresource, as the contract's example types do (+kubebuilder:subresource:status); the contract text has no MUST for it", srcInfraCluster + "#infracluster-infraclusterlist-resource-definition"},
	{lint.RuleCRDContractLabel, LevelError, "a contract type's CRD carries a cluster.x-k8s.io/<contract> label (\"Providers MUST set cluster.x-k8s.io/<version> label\"); not judged on CRDs that carry no contract label at all outside a components file (controller-gen's output, labelled by kustomize): capkit check lists those as not checked", srcInfraCluster + "#all-resources-apiversion-field-value"},
	{lint.RuleCRDContractLabelVersion, LevelError, "each API version a contract label names is defined and served (\"Each value MUST point to an available version in your CRD Spec\")", srcInfraCluster + "#all-resources-apiversion-field-value"},
	{lint.RuleCRDContractUnsupported, LevelError, "the labels declare a contract current Cluster API reads (v1beta1 or v1beta2)", srcInfraCluster + "#all-resources-apiversion-field-value"},
	{lint.RuleCRDContractShape, LevelError, "the status of each labelled API version has the shape of the contract its label declares", srcInfraCluster + "#infracluster-initialization-completed"},
	{lint.RuleCRDServedVersionFields, LevelError, "with conversion None, every served version has the contract fields of the labelled version (else the API server prunes them)", srcCRDVersioning},
	{lint.RuleCRDStorageVersionFields, LevelError, "with conversion None, the storage version has every contract field of a labelled version (else the API server prunes it from stored objects)", srcCRDVersioning},
	{lint.RuleCRDUntypedField, LevelError, "a contract field has a schema type, not only x-kubernetes-preserve-unknown-fields", srcInfraCluster},
	{"infracluster.*", LevelError, "the InfraCluster fields of the contract version the label declares, at the right type (spec.controlPlaneEndpoint, status.initialization.provisioned or status.ready, failure domains, conditions)", srcInfraCluster},
	{"inframachine.*", LevelError, "the InfraMachine fields of the contract (spec.providerID, status.initialization.provisioned or status.ready, addresses, failure domain, conditions)", srcInfraMachine},
	{"bootstrapconfig.*", LevelError, "the BootstrapConfig fields of the contract (status.dataSecretName, status.initialization.dataSecretCreated or status.ready, conditions)", srcBootstrapConfig},
	{"inframachinepool.*", LevelError, "the InfraMachinePool fields of the contract (spec.providerIDList, status.replicas, provisioned, conditions)", srcInfraMachinePool},
	{"template.spec", LevelError, "a template type has spec.template.spec", srcInfraCluster + "#infraclustertemplate-infraclustertemplatelist-resource-definition"},
	{"template.metadata", LevelError, "spec.template.metadata of a template type is an object of labels and annotations", srcInfraCluster + "#infraclustertemplate-infraclustertemplatelist-resource-definition"},
	{"template.capacity", LevelError, "status.capacity of an InfraMachineTemplate, when present, is a map of quantities", srcInfraMachine + "#inframachinetemplate-support-cluster-autoscaling-from-zero"},
	{"template.nodeInfo", LevelError, "status.nodeInfo of an InfraMachineTemplate, when present, is an object", srcInfraMachine + "#inframachinetemplate-support-cluster-autoscaling-from-zero"},
	{RuleCRDMoveLabel, LevelError, "a cluster-scoped CRD that plays no contract role (an identity) carries clusterctl.cluster.x-k8s.io/move or move-hierarchy: clusterctl move moves only objects linked to a Cluster through owner references or labelled for the move; not judged on CRDs that carry no contract label at all outside a components file (kustomize adds both)", srcClusterctl + "#move"},

	// metadata.yaml.
	{RuleMetadataAPIVersion, LevelError, "apiVersion clusterctl.cluster.x-k8s.io/v1alpha3 and kind Metadata (clusterctl accepts an empty kind)", srcRepositoryPkg},
	{RuleMetadataReleaseSeries, LevelError, "releaseSeries has at least one entry, each with major and minor, none twice", srcClusterctl + "#validation-rules"},
	{RuleMetadataContract, LevelError, "each release series names a contract; the newest one a contract current clusterctl installs (v1beta1, v1beta2)", srcRepositoryPkg},
	{RuleMetadataCRDContract, LevelError, "the provider's labelled CRDs declare the contract of the newest release series (\"The contract version for a specific release series must match the contract version that is declared in the CRD\"); CRDs without contract labels are not compared", srcClusterctl + "#metadata-yaml"},
	{RuleMetadataDocuments, LevelError, "metadata.yaml holds exactly one Metadata document", srcRepositoryPkg},

	// Components.
	{RuleComponentsNamespace, LevelError, "one Namespace object (\"should contain one Namespace\"; clusterctl aborts on more than one, and needs --target-namespace without one)", srcClusterctl + "#target-namespace"},
	{RuleComponentsObjectNamespace, LevelError, "every namespaced object is in the target namespace (\"All the objects in the components YAML MUST belong to the target namespace\")", srcClusterctl + "#target-namespace"},
	{RuleComponentsProviderLabel, LevelWarning, "every object carries cluster.x-k8s.io/provider (\"should be labeled with cluster.x-k8s.io/provider\")", srcClusterctl + "#labels"},
	{RuleComponentsManager, LevelError, "a Deployment runs the controller in a container named manager (\"MUST be called manager\")", srcClusterctl + "#controllers--watching-namespace"},
	{RuleComponentsImage, LevelError, "container images are canonical references after clusterctl's default variables (\"canonical names should be used\"; clusterctl init fails on others: util/container.ImageFromString)", "https://pkg.go.dev/sigs.k8s.io/cluster-api/util/container#ImageFromString"},
	{RuleComponentsInjectCAFrom, LevelError, "cert-manager.io/inject-ca-from is <namespace>/<certificate> (clusterctl init refuses any other value when it rewrites the namespace)", srcRepositoryPkg},
	{RuleComponentsAggregatedRole, LevelError, "contract CRDs outside the groups Cluster API's manager role already grants (infrastructure, bootstrap, controlplane, addons.cluster.x-k8s.io) are granted by a ClusterRole labelled cluster.x-k8s.io/aggregate-to-manager (\"If your provider uses a different API group, you MUST grant full read/write RBAC permissions\")", srcInfraCluster + "#all-resources-api-group"},
	{RuleComponentsIPAMRBAC, LevelError, "a ClusterRole that names ipaddressclaims grants what the IPAM contract has an infrastructure provider do: create and get IPAddressClaims, get IPAddresses", srcIPAM},
	{RuleComponentsConversionWebhook, LevelError, "a multi-version CRD whose versions differ has a conversion webhook served by the components (else the API server prunes fields)", srcCRDVersioning},

	// Cluster templates.
	{RuleTemplateCluster, LevelNote, "a cluster template holds a Cluster: clusterctl generate cluster renders one without, but the contract describes a template as all the objects of a workload cluster, and a ClusterClass is published as clusterclass-<name>.yaml", srcClusterctl + "#workload-cluster-templates"},
	{RuleTemplateInfrastructureRef, LevelError, "the Cluster's infrastructureRef names an InfraCluster kind of the provider and an object of the template (\"contain all the required objects\")", srcClusterctl + "#links-to-external-objects"},
	{RuleTemplateNamespace, LevelNote, "objects set no namespace other than ${NAMESPACE}: clusterctl generate cluster sets every object's namespace to the target namespace, so this only matters to those who apply the file as it is", srcClusterctl + "#cluster-template-transformations"},

	// ClusterClass definitions.
	{RuleClusterClassCount, LevelError, "a ClusterClass definition holds one ClusterClass", srcClusterctl + "#clusterclass-definitions"},
	{RuleClusterClassFileName, LevelWarning, "clusterclass-<ClusterClass name>.yaml (\"should be named clusterclass-{ClusterClass-name}.yaml\"; clusterctl generate cluster looks for that name)", srcClusterctl + "#naming-conventions-2"},
	{RuleClusterClassTemplateRef, LevelError, "every template the ClusterClass references is in the file, in the reference form of its API version (\"all the objects required that make up the ClusterClass\")", srcClusterctl + "#clusterclass-definitions"},
	{RuleClusterClassNamespace, LevelError, "no Namespace object (\"MUST assume the target namespace already exists\")", srcClusterctl + "#target-namespace-2"},
	{RuleClusterClassObjectNamespace, LevelWarning, "no namespace on template references (\"should NOT specify a namespace\") or objects (\"recommended\")", srcClusterctl + "#target-namespace-2"},
	{RuleClusterClassVariables, LevelWarning, "a clusterclass-<name>.yaml release asset uses no clusterctl variables (\"SHOULD NOT have any environment variables\"); files that hold a ClusterClass under another name are not release assets", srcClusterctl + "#variables-2"},

	// Files as a whole.
	{RuleClusterctlList, LevelError, "no List documents in release files: clusterctl reads each YAML document as one object (util/yaml.ToUnstructured) and does not expand Lists", "https://pkg.go.dev/sigs.k8s.io/cluster-api/util/yaml#ToUnstructured"},
	{RuleVariableSyntax, LevelError, "every ${ is a reference drone/envsubst parses: clusterctl refuses the whole file otherwise", srcYAMLProcessor},
	{RuleVariableUnsupported, LevelError, "no ${VAR-default} (clusterctl rejects the file), ${VAR:?msg} or ${VAR:+alt} (not evaluated)", srcYAMLProcessor},
	{RuleVariableUnbraced, LevelNote, "an upper-case $VAR that no shell script of the same object assigns: clusterctl leaves it as it is (it substitutes only ${VAR}), so a clusterctl variable written so is never filled in", srcYAMLProcessor},
}

// Rules returns the rules capkit check reports (CheckFiles, and lint.CheckCRD on every CRD), with their level and
// source, in the order of docs/contract-and-check.md.
func Rules() []RuleInfo { return slices.Clone(ruleTable) }

// LevelOf returns the level of a rule identifier: the level of its entry in Rules, or of the family entry
// ("infracluster.*") whose prefix it has; LevelError for a rule that Rules does not list.
func LevelOf(rule string) Level {
	for _, r := range ruleTable {
		if r.ID == rule {
			return r.Level
		}
	}
	for _, r := range ruleTable {
		if prefix, ok := strings.CutSuffix(r.ID, "*"); ok && strings.HasPrefix(rule, prefix) {
			return r.Level
		}
	}
	return LevelError
}

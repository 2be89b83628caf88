package contract

// The paths of the contract fields, shared by every Field that reads them, so that building a Field costs
// no allocation. Field.Path returns a copy; nothing may change these.
var (
	pathSpecBootstrapDataSecretName                    = Path{"spec", "bootstrap", "dataSecretName"}
	pathSpecClusterName                                = Path{"spec", "clusterName"}
	pathSpecControlPlaneEndpoint                       = Path{"spec", "controlPlaneEndpoint"}
	pathSpecFailureDomain                              = Path{"spec", "failureDomain"}
	pathSpecInfrastructureRef                          = Path{"spec", "infrastructureRef"}
	pathSpecPaused                                     = Path{"spec", "paused"}
	pathSpecProviderID                                 = Path{"spec", "providerID"}
	pathSpecTemplateSpec                               = Path{"spec", "template", "spec"}
	pathSpecVersion                                    = Path{"spec", "version"}
	pathStatusAddresses                                = Path{"status", "addresses"}
	pathStatusBootstrapReady                           = Path{"status", "bootstrapReady"}
	pathStatusConditions                               = Path{"status", "conditions"}
	pathStatusDataSecretName                           = Path{"status", "dataSecretName"}
	pathStatusFailureDomain                            = Path{"status", "failureDomain"}
	pathStatusFailureDomains                           = Path{"status", "failureDomains"}
	pathStatusInfrastructureReady                      = Path{"status", "infrastructureReady"}
	pathStatusInitializationBootstrapDataSecretCreated = Path{"status", "initialization", "bootstrapDataSecretCreated"}
	pathStatusInitializationDataSecretCreated          = Path{"status", "initialization", "dataSecretCreated"}
	pathStatusInitializationInfrastructureProvisioned  = Path{"status", "initialization", "infrastructureProvisioned"}
	pathStatusInitializationProvisioned                = Path{"status", "initialization", "provisioned"}
	pathStatusReady                                    = Path{"status", "ready"}
	pathStatusV1beta2Conditions                        = Path{"status", "v1beta2", "conditions"}
)

// fieldAt returns the accessor of the field at one of the shared paths above.
func fieldAt[T any](p Path) Field[T] { return Field[T]{path: p} }

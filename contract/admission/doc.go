// Package admission builds the admission webhooks of a provider's API type from the functions that default and check
// its spec. Webhook makes the defaulting and validating webhooks that controller-runtime serves, with Cluster API's
// rules around them. (Conversion webhooks are package contract/conversion's; this package was contract/webhook before
// v0.2.0.)
//
// A Webhook checks the spec on create, and on update both the change (ValidateSpecUpdate, e.g. the fields that
// are immutable) and, unless the object is being deleted, the new spec: a finalizer can always be removed.
// With Template set it is the webhook of an InfraClusterTemplate or InfraMachineTemplate: the spec it
// defaults and checks is spec.template.spec, and the template's whole spec cannot change after creation,
// except in the server-side-apply dry-runs of Cluster API's topology controller, which ClusterClass rollouts
// need to pass: those requests carry the dry-run flag and the TopologyDryRunAnnotation. From ExampleWebhook:
//
//	machineTemplate := admission.Webhook[*MachineTemplate, MachineSpec]{
//		GroupKind:    schema.GroupKind{Group: "infrastructure.example.com", Kind: "MyMachineTemplate"},
//		Template:     true,
//		Spec:         func(t *MachineTemplate) *MachineSpec { return &t.Spec.Template.Spec },
//		DefaultSpec:  defaultMachineSpec,
//		ValidateSpec: validateMachineSpec,
//	}
//
// ValidateName checks the name of a new object, for a cloud that names a resource after it within limits of its
// own (a vSphere VM's name has at most 80 characters).
//
// The rules of the contract's fields that every provider writes again are functions for ValidateSpec and
// ValidateSpecUpdate: ValidateUnchanged (a field that never changes, its error naming the new value and the old
// one, where ValidateImmutableExcept names only the field), ValidateSetOnce (an InfraMachine's providerID or failureDomain goes from empty to a value and
// never changes after), ValidateEndpoint (an InfraCluster's controlPlaneEndpoint has both host and port, or
// neither) and ValidateEndpointUpdate (it never changes once set). Their errors name the field, the new value and
// the old one (ExampleValidateSetOnce).
//
// SetupWithManager(mgr, hooks...) registers every webhook of a provider with the manager, as
// examples/memcloud/webhooks does for its clusters, machines and their templates.
//
// That immutability rule is ValidateImmutable, for a provider that writes its template webhook by hand
// (ExampleValidateImmutable_handWritten; controller-runtime's package admission is imported as cradmission beside
// this one):
//
//	// ValidateUpdate refuses any change of the template's spec.
//	func (MachineTemplateWebhook) ValidateUpdate(ctx context.Context, oldT, newT *MachineTemplate) (cradmission.Warnings, error) {
//		errs := admission.ValidateImmutable(ctx, newT, field.NewPath("spec"), oldT.Spec, newT.Spec)
//		if len(errs) == 0 {
//			return nil, nil
//		}
//		return nil, apierrors.NewInvalid(groupKind, newT.Name, errs)
//	}
//
// providertest.AssertTemplateAcceptsTopologyDryRun checks the rule on envtest, through the webhooks a provider
// serves.
//
// An InfraMachine whose provider changes some fields on the running machine (package inplace) lets exactly
// those change: its ValidateSpecUpdate calls ValidateImmutableExcept with the same list of fields as the
// extension's inplace.Config.Mutable, and refuses a change of any other field, naming it
// (ExampleValidateImmutableExcept). Its template stays immutable: Cluster API replaces templates, it does not
// edit them.
//
// The kubebuilder markers (+kubebuilder:webhook) stay in the provider: the paths are controller-runtime's,
// /mutate-<group>-<version>-<kind> for a Webhook with DefaultSpec and /validate-<group>-<version>-<kind>.
package admission

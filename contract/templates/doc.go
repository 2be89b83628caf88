// Package templates helps a provider with its InfraClusterTemplate and InfraMachineTemplate types: the
// admission rule that a template cannot change after creation, with the exception Cluster API's contract
// requires, and the fields they share.
//
// Cluster API's topology controller (ClusterClass) computes each rollout with a server-side-apply dry-run of
// the templates it would write. Those requests carry the dry-run flag and the
// topology.cluster.x-k8s.io/dry-run annotation, and must pass a provider's immutability check, or ClusterClass
// rollouts break. ValidateImmutable does both:
//
//	func (MyMachineTemplate) ValidateUpdate(ctx context.Context, oldT, newT *v1beta2.MyMachineTemplate) (admission.Warnings, error) {
//		errs := templates.ValidateImmutable(ctx, newT, field.NewPath("spec"), oldT.Spec, newT.Spec)
//		return nil, apierrors.NewInvalid(groupKind, newT.Name, errs) // nil when errs is empty
//	}
package templates

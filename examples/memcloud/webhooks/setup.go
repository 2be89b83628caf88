package webhooks

import (
	"fmt"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/capkit/capkit/contract/admission"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
)

// The markers below generate config/webhook/manifests.yaml. Their paths are the ones controller-runtime's
// webhook builder derives from the group, version and kind.
//
// +kubebuilder:webhookconfiguration:mutating=true,name=memcloud-mutating-webhook-configuration
// +kubebuilder:webhookconfiguration:mutating=false,name=memcloud-validating-webhook-configuration
//
// +kubebuilder:webhook:path=/mutate-infrastructure-memcloud-capkit-io-v1beta2-memcluster,mutating=true,failurePolicy=fail,sideEffects=None,groups=infrastructure.memcloud.capkit.io,resources=memclusters,verbs=create;update,versions=v1beta2,name=default.memcluster.infrastructure.memcloud.capkit.io,admissionReviewVersions=v1
// +kubebuilder:webhook:path=/validate-infrastructure-memcloud-capkit-io-v1beta2-memcluster,mutating=false,failurePolicy=fail,sideEffects=None,groups=infrastructure.memcloud.capkit.io,resources=memclusters,verbs=create;update,versions=v1beta2,name=validation.memcluster.infrastructure.memcloud.capkit.io,admissionReviewVersions=v1
// +kubebuilder:webhook:path=/mutate-infrastructure-memcloud-capkit-io-v1beta2-memmachine,mutating=true,failurePolicy=fail,sideEffects=None,groups=infrastructure.memcloud.capkit.io,resources=memmachines,verbs=create;update,versions=v1beta2,name=default.memmachine.infrastructure.memcloud.capkit.io,admissionReviewVersions=v1
// +kubebuilder:webhook:path=/validate-infrastructure-memcloud-capkit-io-v1beta2-memmachine,mutating=false,failurePolicy=fail,sideEffects=None,groups=infrastructure.memcloud.capkit.io,resources=memmachines,verbs=create;update,versions=v1beta2,name=validation.memmachine.infrastructure.memcloud.capkit.io,admissionReviewVersions=v1
// +kubebuilder:webhook:path=/mutate-infrastructure-memcloud-capkit-io-v1beta2-memclustertemplate,mutating=true,failurePolicy=fail,sideEffects=None,groups=infrastructure.memcloud.capkit.io,resources=memclustertemplates,verbs=create;update,versions=v1beta2,name=default.memclustertemplate.infrastructure.memcloud.capkit.io,admissionReviewVersions=v1
// +kubebuilder:webhook:path=/validate-infrastructure-memcloud-capkit-io-v1beta2-memclustertemplate,mutating=false,failurePolicy=fail,sideEffects=None,groups=infrastructure.memcloud.capkit.io,resources=memclustertemplates,verbs=create;update,versions=v1beta2,name=validation.memclustertemplate.infrastructure.memcloud.capkit.io,admissionReviewVersions=v1
// +kubebuilder:webhook:path=/mutate-infrastructure-memcloud-capkit-io-v1beta2-memmachinetemplate,mutating=true,failurePolicy=fail,sideEffects=None,groups=infrastructure.memcloud.capkit.io,resources=memmachinetemplates,verbs=create;update,versions=v1beta2,name=default.memmachinetemplate.infrastructure.memcloud.capkit.io,admissionReviewVersions=v1
// +kubebuilder:webhook:path=/validate-infrastructure-memcloud-capkit-io-v1beta2-memmachinetemplate,mutating=false,failurePolicy=fail,sideEffects=None,groups=infrastructure.memcloud.capkit.io,resources=memmachinetemplates,verbs=create;update,versions=v1beta2,name=validation.memmachinetemplate.infrastructure.memcloud.capkit.io,admissionReviewVersions=v1
// +kubebuilder:webhook:path=/mutate-infrastructure-memcloud-capkit-io-v1beta2-memmachinepool,mutating=true,failurePolicy=fail,sideEffects=None,groups=infrastructure.memcloud.capkit.io,resources=memmachinepools,verbs=create;update,versions=v1beta2,name=default.memmachinepool.infrastructure.memcloud.capkit.io,admissionReviewVersions=v1
// +kubebuilder:webhook:path=/validate-infrastructure-memcloud-capkit-io-v1beta2-memmachinepool,mutating=false,failurePolicy=fail,sideEffects=None,groups=infrastructure.memcloud.capkit.io,resources=memmachinepools,verbs=create;update,versions=v1beta2,name=validation.memmachinepool.infrastructure.memcloud.capkit.io,admissionReviewVersions=v1
// +kubebuilder:webhook:path=/validate-infrastructure-memcloud-capkit-io-v1beta2-memclusteridentity,mutating=false,failurePolicy=fail,sideEffects=None,groups=infrastructure.memcloud.capkit.io,resources=memclusteridentities,verbs=create;update,versions=v1beta2,name=validation.memclusteridentity.infrastructure.memcloud.capkit.io,admissionReviewVersions=v1

// SetupWithManager registers the defaulting and validating webhooks of MemCluster, MemMachine,
// MemClusterTemplate, MemMachineTemplate, MemMachinePool and MemClusterIdentity with the manager's webhook
// server. The manager's scheme must hold the v1beta2 types (v1beta2.AddToScheme). When it holds the v1beta1
// types too (v1beta1.AddToScheme), controller-runtime's webhook builder also serves /convert, the conversion
// webhook of MemCluster, MemMachine and MemMachineTemplate, whose v1beta2 versions are the hubs. Requests to the
// admission webhooks come in v1beta2: the API server converts a v1beta1 object before it calls them. The
// defaulting webhooks of the three converted kinds keep the stored status (admission.Webhook.KeepStatus): a write
// to the main resource keeps it, whatever stash it carries.
func SetupWithManager(mgr ctrl.Manager) error {
	if err := ctrl.NewWebhookManagedBy(mgr, &v1beta2.MemClusterIdentity{}).WithValidator(MemClusterIdentity{}).Complete(); err != nil {
		return fmt.Errorf("cannot set up the MemClusterIdentity webhook: %w", err)
	}
	return admission.SetupWithManager(mgr, MemCluster, MemMachine, MemClusterTemplate, MemMachineTemplate, MemMachinePool)
}

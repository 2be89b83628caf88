package webhooks

import (
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/capkit/capkit/contract/admission"
)

// The markers below generate config/webhook/manifests.yaml. Their paths are the ones controller-runtime's
// webhook builder derives from the group, version and kind.
//
// +kubebuilder:webhookconfiguration:mutating=true,name=podcloud-mutating-webhook-configuration
// +kubebuilder:webhookconfiguration:mutating=false,name=podcloud-validating-webhook-configuration
//
// +kubebuilder:webhook:path=/mutate-infrastructure-podcloud-capkit-io-v1beta2-podcluster,mutating=true,failurePolicy=fail,sideEffects=None,groups=infrastructure.podcloud.capkit.io,resources=podclusters,verbs=create;update,versions=v1beta2,name=default.podcluster.infrastructure.podcloud.capkit.io,admissionReviewVersions=v1
// +kubebuilder:webhook:path=/validate-infrastructure-podcloud-capkit-io-v1beta2-podcluster,mutating=false,failurePolicy=fail,sideEffects=None,groups=infrastructure.podcloud.capkit.io,resources=podclusters,verbs=create;update,versions=v1beta2,name=validation.podcluster.infrastructure.podcloud.capkit.io,admissionReviewVersions=v1
// +kubebuilder:webhook:path=/mutate-infrastructure-podcloud-capkit-io-v1beta2-podclustertemplate,mutating=true,failurePolicy=fail,sideEffects=None,groups=infrastructure.podcloud.capkit.io,resources=podclustertemplates,verbs=create;update,versions=v1beta2,name=default.podclustertemplate.infrastructure.podcloud.capkit.io,admissionReviewVersions=v1
// +kubebuilder:webhook:path=/validate-infrastructure-podcloud-capkit-io-v1beta2-podclustertemplate,mutating=false,failurePolicy=fail,sideEffects=None,groups=infrastructure.podcloud.capkit.io,resources=podclustertemplates,verbs=create;update,versions=v1beta2,name=validation.podclustertemplate.infrastructure.podcloud.capkit.io,admissionReviewVersions=v1
// +kubebuilder:webhook:path=/validate-infrastructure-podcloud-capkit-io-v1beta2-podmachine,mutating=false,failurePolicy=fail,sideEffects=None,groups=infrastructure.podcloud.capkit.io,resources=podmachines,verbs=create;update,versions=v1beta2,name=validation.podmachine.infrastructure.podcloud.capkit.io,admissionReviewVersions=v1
// +kubebuilder:webhook:path=/validate-infrastructure-podcloud-capkit-io-v1beta2-podmachinetemplate,mutating=false,failurePolicy=fail,sideEffects=None,groups=infrastructure.podcloud.capkit.io,resources=podmachinetemplates,verbs=create;update,versions=v1beta2,name=validation.podmachinetemplate.infrastructure.podcloud.capkit.io,admissionReviewVersions=v1

// SetupWithManager registers the defaulting webhooks of PodCluster and PodClusterTemplate and the validating
// webhooks of PodCluster, PodMachine, PodClusterTemplate and PodMachineTemplate with the manager's webhook
// server. The manager's scheme must hold the v1beta2 types (v1beta2.AddToScheme).
func SetupWithManager(mgr ctrl.Manager) error {
	return admission.SetupWithManager(mgr, PodCluster, PodMachine, PodClusterTemplate, PodMachineTemplate)
}

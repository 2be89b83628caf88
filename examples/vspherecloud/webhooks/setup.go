package webhooks

import (
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/capkit/capkit/contract/admission"
)

// The markers below generate config/webhook/manifests.yaml. Their paths are the ones controller-runtime's
// webhook builder derives from the group, version and kind. There is no defaulting webhook: nothing of
// vspherecloud's specs has a default that the CRD schema cannot give.
//
// +kubebuilder:webhookconfiguration:mutating=false,name=vspherecloud-validating-webhook-configuration
//
// +kubebuilder:webhook:path=/validate-infrastructure-vspherecloud-capkit-io-v1beta2-vspherecluster,mutating=false,failurePolicy=fail,sideEffects=None,groups=infrastructure.vspherecloud.capkit.io,resources=vsphereclusters,verbs=create;update,versions=v1beta2,name=validation.vspherecluster.infrastructure.vspherecloud.capkit.io,admissionReviewVersions=v1
// +kubebuilder:webhook:path=/validate-infrastructure-vspherecloud-capkit-io-v1beta2-vspheremachine,mutating=false,failurePolicy=fail,sideEffects=None,groups=infrastructure.vspherecloud.capkit.io,resources=vspheremachines,verbs=create;update,versions=v1beta2,name=validation.vspheremachine.infrastructure.vspherecloud.capkit.io,admissionReviewVersions=v1
// +kubebuilder:webhook:path=/validate-infrastructure-vspherecloud-capkit-io-v1beta2-vspheremachinetemplate,mutating=false,failurePolicy=fail,sideEffects=None,groups=infrastructure.vspherecloud.capkit.io,resources=vspheremachinetemplates,verbs=create;update,versions=v1beta2,name=validation.vspheremachinetemplate.infrastructure.vspherecloud.capkit.io,admissionReviewVersions=v1

// SetupWithManager registers the validating webhooks of VSphereCluster, VSphereMachine and VSphereMachineTemplate
// with the manager's webhook server. The manager's scheme must hold the v1beta2 types (v1beta2.AddToScheme).
func SetupWithManager(mgr ctrl.Manager) error {
	return admission.SetupWithManager(mgr, VSphereCluster, VSphereMachine, VSphereMachineTemplate)
}

package webhooks

import (
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/capkit/capkit/contract/admission"
)

// The markers below generate config/webhook/manifests.yaml. Their paths are the ones controller-runtime's
// webhook builder derives from the group, version and kind.
//
// +kubebuilder:webhookconfiguration:mutating=true,name=quux-mutating-webhook-configuration
// +kubebuilder:webhookconfiguration:mutating=false,name=quux-validating-webhook-configuration
//
// +kubebuilder:webhook:path=/mutate-infrastructure-sample-capkit-io-v1beta2-quuxcluster,mutating=true,failurePolicy=fail,sideEffects=None,groups=infrastructure.sample.capkit.io,resources=quuxclusters,verbs=create;update,versions=v1beta2,name=default.quuxcluster.infrastructure.sample.capkit.io,admissionReviewVersions=v1
// +kubebuilder:webhook:path=/validate-infrastructure-sample-capkit-io-v1beta2-quuxcluster,mutating=false,failurePolicy=fail,sideEffects=None,groups=infrastructure.sample.capkit.io,resources=quuxclusters,verbs=create;update,versions=v1beta2,name=validation.quuxcluster.infrastructure.sample.capkit.io,admissionReviewVersions=v1
// +kubebuilder:webhook:path=/mutate-infrastructure-sample-capkit-io-v1beta2-quuxmachine,mutating=true,failurePolicy=fail,sideEffects=None,groups=infrastructure.sample.capkit.io,resources=quuxmachines,verbs=create;update,versions=v1beta2,name=default.quuxmachine.infrastructure.sample.capkit.io,admissionReviewVersions=v1
// +kubebuilder:webhook:path=/validate-infrastructure-sample-capkit-io-v1beta2-quuxmachine,mutating=false,failurePolicy=fail,sideEffects=None,groups=infrastructure.sample.capkit.io,resources=quuxmachines,verbs=create;update,versions=v1beta2,name=validation.quuxmachine.infrastructure.sample.capkit.io,admissionReviewVersions=v1
// +kubebuilder:webhook:path=/mutate-infrastructure-sample-capkit-io-v1beta2-quuxclustertemplate,mutating=true,failurePolicy=fail,sideEffects=None,groups=infrastructure.sample.capkit.io,resources=quuxclustertemplates,verbs=create;update,versions=v1beta2,name=default.quuxclustertemplate.infrastructure.sample.capkit.io,admissionReviewVersions=v1
// +kubebuilder:webhook:path=/validate-infrastructure-sample-capkit-io-v1beta2-quuxclustertemplate,mutating=false,failurePolicy=fail,sideEffects=None,groups=infrastructure.sample.capkit.io,resources=quuxclustertemplates,verbs=create;update,versions=v1beta2,name=validation.quuxclustertemplate.infrastructure.sample.capkit.io,admissionReviewVersions=v1
// +kubebuilder:webhook:path=/mutate-infrastructure-sample-capkit-io-v1beta2-quuxmachinetemplate,mutating=true,failurePolicy=fail,sideEffects=None,groups=infrastructure.sample.capkit.io,resources=quuxmachinetemplates,verbs=create;update,versions=v1beta2,name=default.quuxmachinetemplate.infrastructure.sample.capkit.io,admissionReviewVersions=v1
// +kubebuilder:webhook:path=/validate-infrastructure-sample-capkit-io-v1beta2-quuxmachinetemplate,mutating=false,failurePolicy=fail,sideEffects=None,groups=infrastructure.sample.capkit.io,resources=quuxmachinetemplates,verbs=create;update,versions=v1beta2,name=validation.quuxmachinetemplate.infrastructure.sample.capkit.io,admissionReviewVersions=v1
// +capkit:scaffold:webhookmarkers

// SetupWithManager registers the webhooks of every kind with the manager's webhook server. The manager's
// scheme must hold the v1beta2 types.
func SetupWithManager(mgr ctrl.Manager) error {
	hooks := []admission.Registrar{QuuxCluster, QuuxMachine, QuuxClusterTemplate, QuuxMachineTemplate}
	// +capkit:scaffold:webhooks
	return admission.SetupWithManager(mgr, hooks...)
}

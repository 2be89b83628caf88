package webhooks

import (
	"maps"
	"regexp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/capkit/capkit/contract/admission"
	"github.com/capkit/capkit/examples/podcloud/api/v1beta2"
)

// Parts of imageReference, after the grammar of github.com/distribution/reference.
const (
	// hostLabel is one dot-separated label of a registry host name.
	hostLabel = `[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?`
	// registry is a host name with a dot, "localhost", or a host with a port; a first path component like
	// "kindest" in "kindest/node" is a repository, not a registry.
	registry = `(?:(?:` + hostLabel + `(?:\.` + hostLabel + `)+|localhost)(?::[0-9]{1,5})?|` + hostLabel + `:[0-9]{1,5})`
	// pathComponent is a lower-case name whose parts are separated by '.', '_', "__" or dashes.
	pathComponent = `[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*`
	// tag is the optional tag after ':'.
	tag = `[a-zA-Z0-9_][a-zA-Z0-9._-]{0,127}`
	// digest is the optional digest after '@'.
	digest = `sha256:[a-f0-9]{64}`
)

// imageReference matches a container image reference: [registry[:port]/]path[:tag][@sha256:digest].
var imageReference = regexp.MustCompile(`^(?:` + registry + `/)?` + pathComponent + `(?:/` + pathComponent + `)*` +
	`(?::` + tag + `)?(?:@` + digest + `)?$`)

// ValidatePodMachineSpec checks spec, found at path (spec, or spec.template.spec of a PodMachineTemplate):
// image, when set, must be a container image reference, providerID, when set, a podcloud provider ID
// (see v1beta2.PodIDFromProviderID), and resources must pass ValidateResources. Every error names the field
// and its value.
func ValidatePodMachineSpec(spec *v1beta2.PodMachineSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if spec.Image != "" && !imageReference.MatchString(spec.Image) {
		errs = append(errs, field.Invalid(path.Child("image"), spec.Image,
			`must be a container image reference such as "kindest/node:v1.36.3" or "registry.example.com:5000/node@sha256:<64 hex digits>"`))
	}
	if spec.ProviderID != "" {
		if _, err := v1beta2.PodIDFromProviderID(spec.ProviderID); err != nil {
			errs = append(errs, field.Invalid(path.Child("providerID"), spec.ProviderID,
				`must be "`+v1beta2.ProviderIDPrefix+`" followed by the Pod's namespace, name and UID, separated by '/'`))
		}
	}
	return append(errs, ValidateResources(path.Child("resources"), spec.Resources)...)
}

// ValidateResources checks the resources of a machine, found at path: only the names of
// v1beta2.PodMachineResourceNames (cpu and memory), each greater than zero. Empty resources are valid (no
// requests and no limits). The errors are sorted by resource name.
func ValidateResources(path *field.Path, resources corev1.ResourceList) field.ErrorList {
	var errs field.ErrorList
	for _, name := range slices.Sorted(maps.Keys(resources)) {
		q := resources[name]
		switch {
		case !slices.Contains(v1beta2.PodMachineResourceNames, name):
			errs = append(errs, field.NotSupported(path, name, v1beta2.PodMachineResourceNames))
		case q.Sign() <= 0:
			errs = append(errs, field.Invalid(path.Key(string(name)), q.String(), "must be greater than zero"))
		}
	}
	return errs
}

// resourcesString returns resources as "cpu=2,memory=4Gi", sorted by name, the way kubectl set resources
// takes them; "" for none.
func resourcesString(resources corev1.ResourceList) string {
	parts := make([]string, 0, len(resources))
	for _, name := range slices.Sorted(maps.Keys(resources)) {
		q := resources[name]
		parts = append(parts, string(name)+"="+q.String())
	}
	return strings.Join(parts, ",")
}

// ValidatePodMachineSpecUpdate checks that an update of a PodMachine's spec, found at path, changes nothing
// but providerID, and that only from empty to a value. Every error names the field, the new value and the
// old one.
func ValidatePodMachineSpecUpdate(oldP, newP *v1beta2.PodMachineSpec, path *field.Path) field.ErrorList {
	oldSpec, newSpec := *oldP, *newP // copies: providerID is cleared below
	errs := admission.ValidateSetOnce(path.Child("providerID"), oldSpec.ProviderID, newSpec.ProviderID)
	errs = append(errs, admission.ValidateUnchanged(path.Child("failureDomain"), oldSpec.FailureDomain, newSpec.FailureDomain)...)
	errs = append(errs, admission.ValidateUnchanged(path.Child("image"), oldSpec.Image, newSpec.Image)...)
	if !equality.Semantic.DeepEqual(oldSpec.Resources, newSpec.Resources) {
		errs = append(errs, admission.ValidateUnchanged(path.Child("resources"), resourcesString(oldSpec.Resources), resourcesString(newSpec.Resources))...)
	}
	// A field added to the spec later is immutable too, until it gets its own check above.
	oldSpec.ProviderID, newSpec.ProviderID = "", ""
	if len(errs) == 0 && !equality.Semantic.DeepEqual(oldSpec, newSpec) {
		errs = append(errs, field.Forbidden(path, apivalidation.FieldImmutableErrorMsg+", except providerID, which may be set once"))
	}
	return errs
}

// PodMachine is the validating admission webhook of PodMachine: ValidatePodMachineSpec, and
// ValidatePodMachineSpecUpdate on a change.
var PodMachine = admission.Webhook[*v1beta2.PodMachine, v1beta2.PodMachineSpec]{
	GroupKind: groupKind("PodMachine"), Spec: func(m *v1beta2.PodMachine) *v1beta2.PodMachineSpec { return &m.Spec },
	ValidateSpec: ValidatePodMachineSpec, ValidateSpecUpdate: ValidatePodMachineSpecUpdate,
}

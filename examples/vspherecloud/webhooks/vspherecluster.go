package webhooks

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/capkit/capkit/contract/admission"
	"github.com/capkit/capkit/examples/vspherecloud/api/v1beta2"
	"github.com/capkit/capkit/examples/vspherecloud/cloud"
)

// ValidateVSphereClusterSpec checks spec, found at path, for what the CRD schema cannot: spec.server is a vCenter
// that the controllers can reach (ValidateServer), and the control plane endpoint has both host and port, or
// neither (admission.ValidateEndpoint).
func ValidateVSphereClusterSpec(spec *v1beta2.VSphereClusterSpec, path *field.Path) field.ErrorList {
	errs := ValidateServer(path.Child("server"), spec.Server)
	return append(errs, admission.ValidateEndpoint(path.Child("controlPlaneEndpoint"), spec.ControlPlaneEndpoint)...)
}

// ValidateServer checks a vCenter's address, found at path: a host name, host:port, or an https URL, as
// cloud.ParseURL reads it when the controllers connect, with no user name or password (they belong in the
// credentials Secret, not in a spec every reader of the VSphereCluster sees).
func ValidateServer(path *field.Path, server string) field.ErrorList {
	u, err := cloud.ParseURL(server)
	switch {
	case err != nil:
		return field.ErrorList{field.Invalid(path, server, `must be a host name, host:port or https URL of the vCenter, such as "vcenter.example.com" or "https://vcenter.example.com/sdk"`)}
	case u.Scheme != "https":
		return field.ErrorList{field.Invalid(path, server, "must be reached over https, not "+u.Scheme)}
	case u.User != nil:
		// server is not echoed: it holds the credentials.
		return field.ErrorList{field.Forbidden(path, "must not hold a user name or password: put them in the Secret of spec.credentialsSecretRef")}
	}
	return nil
}

// hasUserInfo reports whether server, read as cloud.ParseURL reads it, names a user.
func hasUserInfo(server string) bool {
	u, err := cloud.ParseURL(server)
	return err == nil && u.User != nil
}

// ValidateVSphereClusterSpecUpdate checks that an update of a VSphereCluster's spec, found at path, keeps the
// fields that cannot change: server and datacenter (the cluster's VMs live there; another vCenter or datacenter
// cannot see them, and they would leak), and the control plane endpoint once it is set. The thumbprint and the
// credentials Secret may change, for a new certificate or new credentials. Every error names the field, the new
// value and the old one.
func ValidateVSphereClusterSpecUpdate(oldSpec, newSpec *v1beta2.VSphereClusterSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if !hasUserInfo(oldSpec.Server) && !hasUserInfo(newSpec.Server) { // never echo credentials
		errs = append(errs, admission.ValidateUnchanged(path.Child("server"), oldSpec.Server, newSpec.Server)...)
	} else if oldSpec.Server != newSpec.Server {
		errs = append(errs, field.Forbidden(path.Child("server"), "field is immutable"))
	}
	errs = append(errs, admission.ValidateUnchanged(path.Child("datacenter"), oldSpec.Datacenter, newSpec.Datacenter)...)
	return append(errs, admission.ValidateEndpointUpdate(path.Child("controlPlaneEndpoint"), oldSpec.ControlPlaneEndpoint, newSpec.ControlPlaneEndpoint)...)
}

// VSphereCluster is the validating admission webhook of VSphereCluster: ValidateVSphereClusterSpec, and
// ValidateVSphereClusterSpecUpdate on a change.
var VSphereCluster = admission.Webhook[*v1beta2.VSphereCluster, v1beta2.VSphereClusterSpec]{
	GroupKind: groupKind("VSphereCluster"), Spec: func(c *v1beta2.VSphereCluster) *v1beta2.VSphereClusterSpec { return &c.Spec },
	ValidateSpec: ValidateVSphereClusterSpec, ValidateSpecUpdate: ValidateVSphereClusterSpecUpdate,
}

// groupKind returns the group and kind of a vspherecloud kind, which the webhooks' errors name.
func groupKind(kind string) schema.GroupKind { return v1beta2.GroupVersion.WithKind(kind).GroupKind() }

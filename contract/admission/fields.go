package admission

import (
	"fmt"
	"net"
	"reflect"
	"strconv"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/capkit/capkit/contract"
)

// FieldImmutableOnceSet is the start of the detail of the error about a field that may be set once and then
// changed (ValidateSetOnce, ValidateEndpointUpdate).
const FieldImmutableOnceSet = "field is immutable once set"

// ValidateUnchanged checks a field, found at path, that never changes after creation. It returns an Invalid error
// naming the new value and the old one, or nothing when they are equal:
//
//	spec.datacenter: Invalid value: "dc2": field is immutable (was "dc1")
//
// ValidateImmutableExcept covers a whole spec but names only the fields; a provider calls ValidateUnchanged for the
// fields whose values tell the user what went wrong, and ValidateImmutableExcept for the rest.
func ValidateUnchanged[V comparable](path *field.Path, oldValue, newValue V) field.ErrorList {
	if oldValue == newValue {
		return nil
	}
	return field.ErrorList{field.Invalid(path, newValue, fmt.Sprintf("%s (was %s)", apivalidation.FieldImmutableErrorMsg, quoted(oldValue)))}
}

// quoted returns v as %q when it is a string (of a named string type too, as field.Invalid shows the value),
// else as %v.
func quoted(v any) string {
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.String {
		return strconv.Quote(rv.String())
	}
	return fmt.Sprint(v)
}

// ValidateSetOnce checks a string field, found at path, that may go from empty to a value and never changes after:
// an InfraMachine's spec.providerID and spec.failureDomain. It returns an Invalid error naming the new value and
// the old one, or nothing when the old value is empty or equal to the new one:
//
//	spec.providerID: Invalid value: "vsphere://b": field is immutable once set (was "vsphere://a")
func ValidateSetOnce(path *field.Path, oldValue, newValue string) field.ErrorList {
	if oldValue == "" || oldValue == newValue {
		return nil
	}
	return field.ErrorList{field.Invalid(path, newValue, fmt.Sprintf("%s (was %q)", FieldImmutableOnceSet, oldValue))}
}

// ValidateEndpoint checks an InfraCluster's control plane endpoint, found at path (spec.controlPlaneEndpoint):
// both host and port, or neither (the contract's "not set yet"). A CRD schema cannot say it of a struct whose
// fields are both optional; Cluster API copies a half-set endpoint to the Cluster as it is.
func ValidateEndpoint(path *field.Path, ep contract.APIEndpoint) field.ErrorList {
	switch {
	case ep.Host != "" && ep.Port == 0:
		return field.ErrorList{field.Required(path.Child("port"), fmt.Sprintf("must be set when host is set (host %q)", ep.Host))}
	case ep.Host == "" && ep.Port != 0:
		return field.ErrorList{field.Required(path.Child("host"), fmt.Sprintf("must be set when port is set (port %d)", ep.Port))}
	}
	return nil
}

// ValidateEndpointUpdate checks that an InfraCluster's control plane endpoint, found at path, keeps its value once
// set: Cluster API copies it to the Cluster once, and every kubeconfig and certificate of the cluster names it. It
// returns an Invalid error naming the new endpoint and the old one as "host:port" ("" for none), or nothing when
// the old endpoint is empty or unchanged.
func ValidateEndpointUpdate(path *field.Path, oldEP, newEP contract.APIEndpoint) field.ErrorList {
	if oldEP.IsZero() || oldEP == newEP {
		return nil
	}
	return field.ErrorList{field.Invalid(path, endpointString(newEP), fmt.Sprintf("%s (was %q)", FieldImmutableOnceSet, endpointString(oldEP)))}
}

// EndpointString returns ep as "host:port" ("[host]:port" for an IPv6 address), or "" when ep is empty.
func endpointString(ep contract.APIEndpoint) string {
	if ep.IsZero() {
		return ""
	}
	return net.JoinHostPort(ep.Host, strconv.Itoa(int(ep.Port)))
}

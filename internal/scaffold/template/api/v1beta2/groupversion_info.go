package v1beta2

import (
	"errors"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupName is the API group of the provider's types.
const GroupName = "infrastructure.sample.capkit.io"

var (
	// GroupVersion is the group and version of the types in this package.
	GroupVersion = schema.GroupVersion{Group: GroupName, Version: "v1beta2"}

	// SchemeBuilder registers the types of this package in a runtime.Scheme.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)

	// AddToScheme adds the types of this package to a runtime.Scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

// addKnownTypes registers the types of this package and the common metav1 types for GroupVersion.
func addKnownTypes(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion,
		&QuuxCluster{}, &QuuxClusterList{},
		&QuuxMachine{}, &QuuxMachineList{},
		&QuuxClusterTemplate{}, &QuuxClusterTemplateList{},
		&QuuxMachineTemplate{}, &QuuxMachineTemplateList{},
		// +capkit:scaffold:types
	)
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}

// ProviderIDPrefix starts the provider ID of every instance: "quux://" followed by the instance ID.
const ProviderIDPrefix = "quux://"

// ErrInvalidProviderID is wrapped by the error of InstanceIDFromProviderID for a provider ID it cannot parse.
var ErrInvalidProviderID = errors.New("invalid provider ID")

// ProviderID returns the provider ID of the instance instanceID.
func ProviderID(instanceID string) string { return ProviderIDPrefix + instanceID }

// InstanceIDFromProviderID returns the instance ID of a provider ID made by ProviderID.
func InstanceIDFromProviderID(providerID string) (string, error) {
	id, ok := strings.CutPrefix(providerID, ProviderIDPrefix)
	if !ok || id == "" || strings.ContainsAny(id, "/ \t\r\n") {
		return "", fmt.Errorf("cannot parse provider ID %q: want %q and an instance ID: %w", providerID, ProviderIDPrefix, ErrInvalidProviderID)
	}
	return id, nil
}

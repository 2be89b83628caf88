package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupName is the API group of memcloud's types.
const GroupName = "infrastructure.memcloud.capkit.io"

var (
	// GroupVersion is the group and version of the types in this package.
	GroupVersion = schema.GroupVersion{Group: GroupName, Version: "v1beta1"}

	// SchemeBuilder registers the types of this package in a runtime.Scheme.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)

	// AddToScheme adds the types of this package to a runtime.Scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

// addKnownTypes registers the types of this package and the common metav1 types for GroupVersion.
func addKnownTypes(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion,
		&MemCluster{}, &MemClusterList{},
		&MemMachine{}, &MemMachineList{},
		&MemMachineTemplate{}, &MemMachineTemplateList{},
	)
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}

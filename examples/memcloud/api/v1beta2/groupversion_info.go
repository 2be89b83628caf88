package v1beta2

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

// GroupName is the API group of memcloud's types.
const GroupName = "infrastructure.memcloud.capkit.io"

var (
	// GroupVersion is the group and version of the types in this package.
	GroupVersion = schema.GroupVersion{Group: GroupName, Version: "v1beta2"}

	// SchemeBuilder registers the types of this package in a runtime.Scheme.
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}

	// AddToScheme adds the types of this package to a runtime.Scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

func init() {
	SchemeBuilder.Register(
		&MemCluster{}, &MemClusterList{},
		&MemMachine{}, &MemMachineList{},
		&MemClusterTemplate{}, &MemClusterTemplateList{},
		&MemMachineTemplate{}, &MemMachineTemplateList{},
	)
}

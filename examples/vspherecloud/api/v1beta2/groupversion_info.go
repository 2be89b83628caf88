package v1beta2

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupName is the API group of vspherecloud's types.
const GroupName = "infrastructure.vspherecloud.capkit.io"

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
		&VSphereCluster{}, &VSphereClusterList{},
		&VSphereMachine{}, &VSphereMachineList{},
		&VSphereMachineTemplate{}, &VSphereMachineTemplateList{},
		&VSphereClusterIdentity{}, &VSphereClusterIdentityList{},
	)
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}

// Condition types that vspherecloud's controllers set, besides the Paused condition of the conditions package.
const (
	// ReadyCondition summarizes the other conditions of a VSphereCluster or VSphereMachine.
	ReadyCondition = "Ready"
	// VCenterReadyCondition is true when vspherecloud has logged in to a VSphereCluster's vCenter.
	VCenterReadyCondition = "VCenterReady"
	// VMReadyCondition is true when a VSphereMachine's VM runs and guest tools report its address.
	VMReadyCondition = "VMReady"
)

package v1beta2

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/capkit/capkit/identity"
)

// VSphereClusterIdentityKind is the kind a VSphereCluster's spec.identityRef names.
const VSphereClusterIdentityKind = "VSphereClusterIdentity"

// VSphereClusterIdentitySpec is the desired state of a VSphereClusterIdentity.
type VSphereClusterIdentitySpec struct {
	// allowedNamespaces says which namespaces' VSphereClusters may use this identity: those listed, and those whose
	// labels match the selector. Unset or empty allows none.
	// +optional
	AllowedNamespaces *identity.AllowedNamespaces `json:"allowedNamespaces,omitempty"`

	// secretName is the Secret, in vspherecloud's own namespace, whose "username" and "password" log in to the
	// vCenters of the VSphereClusters that use this identity.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	SecretName string `json:"secretName"`
}

// VSphereClusterIdentity is a vCenter account that the VSphereClusters of the allowed namespaces log in with, so that
// their teams never hold its password: the Secret lives in vspherecloud's namespace. It is cluster-scoped, and moves
// with clusterctl together with its Secret (the move-hierarchy label).
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=vsphereclusteridentities,scope=Cluster,categories=cluster-api
// +kubebuilder:metadata:labels="clusterctl.cluster.x-k8s.io/move-hierarchy="
// +kubebuilder:printcolumn:name="Secret",type="string",JSONPath=".spec.secretName",description="Credentials Secret"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since creation"
type VSphereClusterIdentity struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state of the identity.
	// +required
	Spec VSphereClusterIdentitySpec `json:"spec"`
}

// VSphereClusterIdentityList is a list of VSphereClusterIdentities.
//
// +kubebuilder:object:root=true
type VSphereClusterIdentityList struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// items are the identities.
	Items []VSphereClusterIdentity `json:"items"`
}

// GetAllowedNamespaces implements identity.Object.
func (i *VSphereClusterIdentity) GetAllowedNamespaces() *identity.AllowedNamespaces {
	return i.Spec.AllowedNamespaces
}

// GetSecretName implements identity.Object.
func (i *VSphereClusterIdentity) GetSecretName() string { return i.Spec.SecretName }

// GetIdentityRef implements identity.Referencer: the VSphereClusterIdentity the VSphereCluster logs in with, nil when
// it names a credentials Secret of its own namespace (spec.credentialsSecretRef).
func (v *VSphereCluster) GetIdentityRef() *identity.Ref { return v.Spec.IdentityRef }

// Both implement capkit's identity interfaces.
var (
	_ identity.Object     = (*VSphereClusterIdentity)(nil)
	_ identity.Referencer = (*VSphereCluster)(nil)
)

package v1beta2

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/capkit/capkit/identity"
)

// Keys of a MemClusterIdentity's credentials Secret.
const (
	// CredentialsAccessKeyID is the key of the memcloud account's access key ID.
	CredentialsAccessKeyID = "accessKeyID"
	// CredentialsSecretAccessKey is the key of the memcloud account's secret access key.
	CredentialsSecretAccessKey = "secretAccessKey"
)

// MemClusterIdentityKind is the kind a MemCluster's spec.identityRef names.
const MemClusterIdentityKind = "MemClusterIdentity"

// MemClusterIdentitySpec is the desired state of a MemClusterIdentity.
type MemClusterIdentitySpec struct {
	// allowedNamespaces says which namespaces' MemClusters may use this identity: those listed, and those
	// whose labels match the selector. Unset or empty allows none.
	// +optional
	AllowedNamespaces *identity.AllowedNamespaces `json:"allowedNamespaces,omitempty"`

	// secretName is the Secret, in memcloud's own namespace, that holds the account's credentials under the
	// keys accessKeyID and secretAccessKey.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	SecretName string `json:"secretName"`
}

// MemClusterIdentity is a memcloud account that MemClusters of the allowed namespaces use: one management
// cluster serves many tenants, each in their own account. It is cluster-scoped, and moves with clusterctl
// together with its Secret (the move-hierarchy label).
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=memclusteridentities,scope=Cluster,categories=cluster-api
// +kubebuilder:metadata:labels="clusterctl.cluster.x-k8s.io/move-hierarchy="
// +kubebuilder:printcolumn:name="Secret",type="string",JSONPath=".spec.secretName",description="Credentials Secret"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since creation"
type MemClusterIdentity struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the object's metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// spec is the desired state of the identity.
	// +required
	Spec MemClusterIdentitySpec `json:"spec"`
}

// MemClusterIdentityList is a list of MemClusterIdentity.
//
// +kubebuilder:object:root=true
type MemClusterIdentityList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the list's metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the identities.
	Items []MemClusterIdentity `json:"items"`
}

// GetAllowedNamespaces implements identity.Object.
func (i *MemClusterIdentity) GetAllowedNamespaces() *identity.AllowedNamespaces {
	return i.Spec.AllowedNamespaces
}

// GetSecretName implements identity.Object.
func (i *MemClusterIdentity) GetSecretName() string { return i.Spec.SecretName }

// GetIdentityRef implements identity.Referencer: the MemClusterIdentity the MemCluster's cloud resources
// live under, nil for memcloud's default account.
func (c *MemCluster) GetIdentityRef() *identity.Ref { return c.Spec.IdentityRef }

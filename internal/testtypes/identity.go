package testtypes

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/capkit/capkit/identity"
)

// FooClusterIdentity is a cluster-scoped identity: which namespaces may use it and which Secret (in the
// provider's namespace) holds its credentials. FooCluster references one in spec.identityRef.
type FooClusterIdentity struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              FooClusterIdentitySpec `json:"spec,omitempty"`
}

// FooClusterIdentitySpec is the spec of FooClusterIdentity.
type FooClusterIdentitySpec struct {
	AllowedNamespaces *identity.AllowedNamespaces `json:"allowedNamespaces,omitempty"`
	SecretName        string                      `json:"secretName,omitempty"`
}

// FooClusterIdentityList is a list of FooClusterIdentity.
type FooClusterIdentityList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []FooClusterIdentity `json:"items"`
}

// GetAllowedNamespaces implements identity.Object.
func (i *FooClusterIdentity) GetAllowedNamespaces() *identity.AllowedNamespaces {
	return i.Spec.AllowedNamespaces
}

// GetSecretName implements identity.Object.
func (i *FooClusterIdentity) GetSecretName() string { return i.Spec.SecretName }

// DeepCopyObject implements runtime.Object.
func (i *FooClusterIdentity) DeepCopyObject() runtime.Object { return deepCopy(i) }

// DeepCopyObject implements runtime.Object.
func (l *FooClusterIdentityList) DeepCopyObject() runtime.Object { return deepCopy(l) }

// GetIdentityRef implements identity.Referencer.
func (c *FooCluster) GetIdentityRef() *identity.Ref { return c.Spec.IdentityRef }

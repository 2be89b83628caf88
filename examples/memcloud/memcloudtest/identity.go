package memcloudtest

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/identity"
)

// CreateIdentity sets up a tenant as an operator would: a memcloud account named name in cl, its credentials
// in the Secret providerNamespace/name, and the MemClusterIdentity name that lets the namespaces allowed use
// them. The Secret is owned by the identity, so that clusterctl move takes it along (the identity's CRD has
// the move-hierarchy label).
func CreateIdentity(ctx context.Context, c client.Client, cl *cloud.Cloud, providerNamespace, name string, allowed ...string) error {
	creds, err := cl.CreateAccount(name)
	if err != nil {
		return fmt.Errorf("cannot create the memcloud account of identity %q: %w", name, err)
	}
	id := &v1beta2.MemClusterIdentity{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: v1beta2.MemClusterIdentitySpec{SecretName: name, AllowedNamespaces: &identity.AllowedNamespaces{NamespaceList: allowed}}}
	if err := c.Create(ctx, id); err != nil {
		return fmt.Errorf("cannot create MemClusterIdentity %q: %w", name, err)
	}
	return WriteCredentials(ctx, c, id, providerNamespace, creds)
}

// WriteCredentials creates or updates the credentials Secret of identity id in providerNamespace, owned by id.
func WriteCredentials(ctx context.Context, c client.Client, id *v1beta2.MemClusterIdentity, providerNamespace string, creds cloud.Credentials) error {
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: providerNamespace, Name: id.Spec.SecretName}}
	data := map[string][]byte{
		v1beta2.CredentialsAccessKeyID:     []byte(creds.AccessKeyID),
		v1beta2.CredentialsSecretAccessKey: []byte(creds.SecretAccessKey),
	}
	err := c.Get(ctx, client.ObjectKeyFromObject(secret), secret)
	switch {
	case err == nil:
		secret.Data = data
		err = c.Update(ctx, secret)
	case client.IgnoreNotFound(err) == nil:
		secret.Data = data
		secret.OwnerReferences = []metav1.OwnerReference{{APIVersion: v1beta2.GroupVersion.String(), Kind: v1beta2.MemClusterIdentityKind,
			Name: id.Name, UID: id.UID, BlockOwnerDeletion: ptr.To(true)}}
		err = c.Create(ctx, secret)
	}
	if err != nil {
		return fmt.Errorf("cannot write the credentials Secret %s/%s of MemClusterIdentity %q: %w", providerNamespace, id.Spec.SecretName, id.Name, err)
	}
	return nil
}

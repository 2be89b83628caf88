package services

import (
	"context"
	"fmt"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/examples/vspherecloud/api/v1beta2"
	"github.com/capkit/capkit/examples/vspherecloud/cloud"
	"github.com/capkit/capkit/identity"
)

// Sessions logs in to the vCenters of VSphereClusters and keeps one session per vCenter, user and password, shared
// by the clusters that use the same ones and by their machines' services, and makes no vCenter call to log in once a
// session exists. It is safe for concurrent use.
//
// The credentials are those of the VSphereCluster's identity (spec.identityRef), which the reconcilers resolved and
// put into the reconcile's context before any step (identity.CredentialsFromContext: controllers.WithIdentities),
// or else those of its credentials Secret (spec.credentialsSecretRef), whose metadata a reconcile reads from a cache
// and whose data only when it is new or changed (identity.SecretCache).
//
// Sessions are an identity.Clients: each VSphereCluster (namespace and name) uses one session, its machines' the same
// one. When the cluster's server or credentials change (a rotated Secret, of its own or of its identity), the next
// Client moves it to a session of the new ones and logs the old one out if no other cluster uses it; Forget, at the
// end of the cluster's delete, does the same and drops what the SecretCache holds of its Secret. A machine's call
// still running on a session logged out by a rotation fails, and is retried on the new one.
type Sessions struct {
	secrets *identity.SecretCache
	clients *identity.Clients[*cloud.Client]

	mu       sync.Mutex
	secretOf map[types.NamespacedName]types.NamespacedName // the credentials Secret each cluster read last
}

// NewSessions returns the sessions of the VSphereClusters whose credentials Secrets' metadata meta reads (the
// manager's cached client) and whose Secrets secrets reads (the manager's API reader: Secrets are not cached).
func NewSessions(meta, secrets client.Reader) *Sessions {
	return &Sessions{secrets: identity.NewSecretCache(meta, secrets, v1beta2.CredentialsUsername, v1beta2.CredentialsPassword),
		clients:  identity.NewClients(logout, identity.WithCloseTimeout(LogoutTimeout)),
		secretOf: map[types.NamespacedName]types.NamespacedName{}}
}

// LogoutTimeout bounds the logout of a session no VSphereCluster uses any more.
const LogoutTimeout = 10 * time.Second

// Client returns the session with the vCenter of vc, logging in when there is none for its server and credentials.
// A session vc used before with other ones is logged out unless another cluster uses it (a failed logout is logged
// to the logger of ctx).
func (s *Sessions) Client(ctx context.Context, vc *v1beta2.VSphereCluster) (*cloud.Client, error) {
	creds, err := s.credentials(ctx, vc)
	if err != nil {
		return nil, err
	}
	user, password := creds.Get(v1beta2.CredentialsUsername), creds.Get(v1beta2.CredentialsPassword)
	cfg := cloud.Config{URL: vc.Spec.Server, Thumbprint: vc.Spec.Thumbprint, Username: string(user), Password: string(password)}
	login := identity.NewCredentials(map[string][]byte{v1beta2.CredentialsUsername: user, v1beta2.CredentialsPassword: password}) // not the Secret's other keys
	return s.clients.Get(ctx, client.ObjectKeyFromObject(vc), fmt.Sprintf("%q %q", cfg.URL, cfg.Thumbprint), login,
		func(ctx context.Context) (*cloud.Client, error) { return cloud.Connect(ctx, cfg) })
}

// Forget drops vc, once its delete is done: its session is logged out unless another cluster uses it, and the
// SecretCache forgets its credentials Secret unless another cluster reads it. A cluster never seen is a no-op. The
// error is the logout's (it names the vCenter, never the credentials); the session is dropped all the same.
func (s *Sessions) Forget(ctx context.Context, vc *v1beta2.VSphereCluster) error {
	s.setSecret(client.ObjectKeyFromObject(vc), nil)
	return s.clients.Release(ctx, client.ObjectKeyFromObject(vc))
}

// logout logs c out.
func logout(ctx context.Context, c *cloud.Client) error { return c.Close(ctx) }

// setSecret records the credentials Secret cluster reads (nil: none, its identity's or deleted), and drops the one it
// read before from the SecretCache when no other cluster reads it.
func (s *Sessions) setSecret(cluster types.NamespacedName, key *types.NamespacedName) {
	s.mu.Lock()
	defer s.mu.Unlock()
	prev, had := s.secretOf[cluster]
	if key != nil {
		s.secretOf[cluster] = *key
	} else {
		delete(s.secretOf, cluster)
	}
	if !had || (key != nil && prev == *key) {
		return
	}
	for _, other := range s.secretOf {
		if other == prev {
			return
		}
	}
	s.secrets.Forget(prev)
}

// credentials returns the credentials of vc: its identity's, bound to ctx, or its Secret's. A VSphereCluster that
// names an identity never falls back to a Secret: without identities bound (a manager without
// controllers.WithIdentities), it is refused.
func (s *Sessions) credentials(ctx context.Context, vc *v1beta2.VSphereCluster) (identity.Credentials, error) {
	switch ref := vc.Spec.IdentityRef; {
	case ref != nil:
		s.setSecret(client.ObjectKeyFromObject(vc), nil)
		creds, ok := identity.CredentialsFromContext(ctx)
		if !ok {
			return identity.Credentials{}, &identity.RefusedError{Reason: conditions.ReasonIdentityNotFound,
				Message: fmt.Sprintf("spec.identityRef names %s %q, but vspherecloud runs without identities: give its manager --identity-namespace", ref.Kind, ref.Name)}
		}
		return creds, nil
	case vc.Spec.CredentialsSecretRef.Name == "":
		return identity.Credentials{}, &identity.RefusedError{Reason: conditions.ReasonIdentityRefMissing,
			Message: "neither spec.credentialsSecretRef nor spec.identityRef is set: set one"}
	}
	key := types.NamespacedName{Namespace: vc.Namespace, Name: vc.Spec.CredentialsSecretRef.Name}
	s.setSecret(client.ObjectKeyFromObject(vc), &key)
	creds, _, err := s.secrets.Credentials(ctx, key)
	return creds, err
}

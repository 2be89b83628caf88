package services

import (
	"context"
	"crypto/sha256"
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/examples/vspherecloud/api/v1beta2"
	"github.com/capkit/capkit/examples/vspherecloud/cloud"
	"github.com/capkit/capkit/identity"
)

// Sessions logs in to the vCenters of VSphereClusters and keeps one session per vCenter, user and password, shared
// by the cluster's and the machines' services, and makes no vCenter call to log in once a session exists. It is safe
// for concurrent use.
//
// The credentials are those of the VSphereCluster's identity (spec.identityRef), which the reconcilers resolved and
// put into the reconcile's context before any step (identity.CredentialsFromContext: controllers.WithIdentities),
// or else those of its credentials Secret (spec.credentialsSecretRef), whose metadata a reconcile reads from a cache
// and whose data only when it is new or changed (identity.SecretCache).
type Sessions struct {
	secrets *identity.SecretCache
	mu      sync.Mutex
	clients map[[sha256.Size]byte]*cloud.Client
}

// NewSessions returns the sessions of the VSphereClusters whose credentials Secrets' metadata meta reads (the
// manager's cached client) and whose Secrets secrets reads (the manager's API reader: Secrets are not cached).
func NewSessions(meta, secrets client.Reader) *Sessions {
	return &Sessions{secrets: identity.NewSecretCache(meta, secrets, v1beta2.CredentialsUsername, v1beta2.CredentialsPassword),
		clients: map[[sha256.Size]byte]*cloud.Client{}}
}

// Client returns the session with the vCenter of vc, logging in when there is none for its server and credentials.
func (s *Sessions) Client(ctx context.Context, vc *v1beta2.VSphereCluster) (*cloud.Client, error) {
	creds, err := s.credentials(ctx, vc)
	if err != nil {
		return nil, err
	}
	cfg := cloud.Config{URL: vc.Spec.Server, Thumbprint: vc.Spec.Thumbprint,
		Username: string(creds.Get(v1beta2.CredentialsUsername)), Password: string(creds.Get(v1beta2.CredentialsPassword))}
	key := sha256.Sum256(fmt.Appendf(nil, "%q %q %q %q", cfg.URL, cfg.Thumbprint, cfg.Username, cfg.Password))
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.clients[key]; ok {
		return c, nil
	}
	c, err := cloud.Connect(ctx, cfg)
	if err != nil {
		return nil, err
	}
	s.clients[key] = c
	return c, nil
}

// credentials returns the credentials of vc: its identity's, bound to ctx, or its Secret's. A VSphereCluster that
// names an identity never falls back to a Secret: without identities bound (a manager without
// controllers.WithIdentities), it is refused.
func (s *Sessions) credentials(ctx context.Context, vc *v1beta2.VSphereCluster) (identity.Credentials, error) {
	switch ref := vc.Spec.IdentityRef; {
	case ref != nil:
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
	creds, _, err := s.secrets.Credentials(ctx, types.NamespacedName{Namespace: vc.Namespace, Name: vc.Spec.CredentialsSecretRef.Name})
	return creds, err
}

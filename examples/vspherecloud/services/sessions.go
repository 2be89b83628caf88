package services

import (
	"context"
	"crypto/sha256"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/examples/vspherecloud/api/v1beta2"
	"github.com/capkit/capkit/examples/vspherecloud/cloud"
)

// Sessions logs in to the vCenters of VSphereClusters and keeps one session per vCenter, user and password, shared
// by the cluster's and the machines' services: a reconcile reads the credentials Secret (one API read, uncached) and
// makes no vCenter call to log in once a session exists. It is safe for concurrent use.
type Sessions struct {
	secrets client.Reader
	mu      sync.Mutex
	clients map[[sha256.Size]byte]*cloud.Client
}

// NewSessions returns the sessions of the VSphereClusters whose credentials Secrets secrets reads (the manager's
// API reader: Secrets are not cached).
func NewSessions(secrets client.Reader) *Sessions {
	return &Sessions{secrets: secrets, clients: map[[sha256.Size]byte]*cloud.Client{}}
}

// Client returns the session with the vCenter of vc, logging in when there is none for its server and credentials.
func (s *Sessions) Client(ctx context.Context, vc *v1beta2.VSphereCluster) (*cloud.Client, error) {
	cfg, err := s.config(ctx, vc)
	if err != nil {
		return nil, err
	}
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

// config returns how to reach the vCenter of vc, with the credentials of its Secret.
func (s *Sessions) config(ctx context.Context, vc *v1beta2.VSphereCluster) (cloud.Config, error) {
	name := vc.Spec.CredentialsSecretRef.Name
	secret := &corev1.Secret{}
	if err := s.secrets.Get(ctx, client.ObjectKey{Namespace: vc.Namespace, Name: name}, secret); err != nil {
		return cloud.Config{}, fmt.Errorf("cannot read the credentials Secret %q: %w", name, err)
	}
	user, password := secret.Data[v1beta2.CredentialsUsername], secret.Data[v1beta2.CredentialsPassword]
	if len(user) == 0 || len(password) == 0 {
		// not terminal: the Secret is not watched, and a reconcile retried with backoff sees it fixed
		return cloud.Config{}, fmt.Errorf("cannot read the credentials Secret %q: it must hold %q and %q",
			name, v1beta2.CredentialsUsername, v1beta2.CredentialsPassword)
	}
	return cloud.Config{URL: vc.Spec.Server, Thumbprint: vc.Spec.Thumbprint, Username: string(user), Password: string(password)}, nil
}

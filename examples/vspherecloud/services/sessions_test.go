package services_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vmware/govmomi/session"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/examples/vspherecloud/api/v1beta2"
	"github.com/capkit/capkit/examples/vspherecloud/cloud"
	"github.com/capkit/capkit/examples/vspherecloud/services"
	"github.com/capkit/capkit/examples/vspherecloud/vspheretest"
	"github.com/capkit/capkit/identity"
	"github.com/capkit/capkit/scope/scopetest"
)

const rotated = "rotated-pa55word"

// loggedIn reports whether c's session is still logged in to the simulator.
func loggedIn(t *testing.T, c *cloud.Client) bool {
	t.Helper()
	us, err := session.NewManager(c.Vim25()).UserSession(t.Context())
	require.NoError(t, err)
	return us != nil
}

// secretReads counts the reads of whole Secrets (not of their metadata) through a reader.
type secretReads struct {
	client.Reader
	n atomic.Int32
}

func (r *secretReads) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if _, ok := obj.(*corev1.Secret); ok {
		r.n.Add(1)
	}
	return r.Reader.Get(ctx, key, obj, opts...)
}

// credentialsOf returns the credentials of the simulator's user with password.
func credentialsOf(password string) identity.Credentials {
	return identity.NewCredentials(map[string][]byte{v1beta2.CredentialsUsername: []byte(vspheretest.Username),
		v1beta2.CredentialsPassword: []byte(password)})
}

// TestSessionsRotation rotates the password of a VSphereCluster, in its Secret or in its identity's: the next Client
// logs in with the new one and logs the old session out, and one session stays at the simulator.
func TestSessionsRotation(t *testing.T) {
	tests := []struct {
		name     string
		identity bool
	}{
		{name: "the credentials Secret"},
		{name: "the identity's Secret, bound by the reconciler", identity: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sim := vspheretest.New(t)
			sim.AllowPassword(rotated)
			secret := &corev1.Secret{}
			c := fake.NewClientBuilder().WithObjects(secretOf(sim)).Build()
			s := sessionsOf(c)
			vc := vsphereCluster(sim)
			ctx := t.Context()
			if tt.identity {
				vc.Spec.CredentialsSecretRef = v1beta2.SecretReference{}
				vc.Spec.IdentityRef = &identity.Ref{Kind: v1beta2.VSphereClusterIdentityKind, Name: "team-a"}
				ctx = identity.ContextWithCredentials(ctx, credentialsOf(sim.Config.Password))
			}
			before := sim.Sessions(t)
			old, err := s.Client(ctx, vc)
			require.NoError(t, err)
			require.Equal(t, before+1, sim.Sessions(t))

			if tt.identity {
				ctx = identity.ContextWithCredentials(t.Context(), credentialsOf(rotated))
			} else {
				require.NoError(t, c.Get(ctx, client.ObjectKey{Namespace: "ns", Name: "vcenter"}, secret))
				secret.Data[v1beta2.CredentialsPassword] = []byte(rotated)
				require.NoError(t, c.Update(ctx, secret))
			}
			cur, err := s.Client(ctx, vc)
			require.NoError(t, err)
			assert.NotSame(t, old, cur, "a session of the new password")
			assert.Equal(t, before+1, sim.Sessions(t), "one session: the old one is logged out")
			assert.False(t, loggedIn(t, old), "the old session is logged out")
			assert.True(t, loggedIn(t, cur))

			again, err := s.Client(ctx, vc)
			require.NoError(t, err)
			assert.Same(t, cur, again)
			require.NoError(t, s.Forget(ctx, vc))
			assert.Equal(t, before, sim.Sessions(t))
		})
	}
}

// secretOf returns the Secret "vcenter" with the simulator's credentials.
func secretOf(sim *vspheretest.Simulator) *corev1.Secret {
	return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "vcenter"}, Data: map[string][]byte{
		v1beta2.CredentialsUsername: []byte(sim.Config.Username), v1beta2.CredentialsPassword: []byte(sim.Config.Password)}}
}

// TestSessionsShared: two VSphereClusters with the same credentials, and their machines, share one session; the delete
// of one (VCenter.Delete) keeps it, the delete of the other logs it out; forgetting a cluster never seen, or one
// forgotten, is a no-op. The Secret the clusters read is read again only once neither uses it.
func TestSessionsShared(t *testing.T) {
	ctx := t.Context()
	sim := vspheretest.New(t)
	reads := &secretReads{Reader: fake.NewClientBuilder().WithObjects(secretOf(sim)).Build()}
	s := services.NewSessions(reads, reads)
	v, err := services.NewVCenter(s)
	require.NoError(t, err)
	del := func(vc *v1beta2.VSphereCluster) {
		t.Helper()
		res, err := v.Delete(ctx, &scopetest.FakeClusterScope[*v1beta2.VSphereCluster]{
			FakeObject: scopetest.FakeObject[*v1beta2.VSphereCluster]{Object: vc, Version: contract.V1Beta2}})
		require.NoError(t, err)
		require.True(t, res.Done)
	}
	c1, c2 := vsphereCluster(sim), vsphereCluster(sim)
	c2.Name = "c2"
	before := sim.Sessions(t)

	first, err := s.Client(ctx, c1)
	require.NoError(t, err)
	for range 3 { // c1's machines and c2 and its machines
		for _, vc := range []*v1beta2.VSphereCluster{c1, c2} {
			c, err := s.Client(ctx, vc)
			require.NoError(t, err)
			assert.Same(t, first, c)
		}
	}
	assert.Equal(t, before+1, sim.Sessions(t), "one session")
	assert.EqualValues(t, 1, reads.n.Load(), "the Secret read once")

	del(c1)
	assert.Equal(t, before+1, sim.Sessions(t), "c2 uses it")
	assert.True(t, loggedIn(t, first))
	c, err := s.Client(ctx, c2)
	require.NoError(t, err)
	assert.Same(t, first, c)
	assert.EqualValues(t, 1, reads.n.Load(), "c2 reads the Secret: still cached")

	never := vsphereCluster(sim)
	never.Name = "never-seen"
	require.NoError(t, s.Forget(ctx, never))
	assert.Equal(t, before+1, sim.Sessions(t))

	del(c2)
	assert.Equal(t, before, sim.Sessions(t), "logged out")
	assert.False(t, loggedIn(t, first))
	del(c2) // again, as after a failed removal of the finalizer
	assert.Equal(t, before, sim.Sessions(t))

	c, err = s.Client(ctx, c2)
	require.NoError(t, err)
	assert.NotSame(t, first, c, "logged in again")
	assert.EqualValues(t, 2, reads.n.Load(), "the Secret was forgotten")
	require.NoError(t, s.Forget(ctx, c2))
}

// TestSessionsConcurrent calls Client and Forget for two clusters from many goroutines (run it with -race): once all
// are forgotten, no session is left at the simulator, and a Client never fails.
func TestSessionsConcurrent(t *testing.T) {
	ctx := t.Context()
	sim := vspheretest.New(t)
	s := sessionsOf(fake.NewClientBuilder().WithObjects(secretOf(sim)).Build())
	c1, c2 := vsphereCluster(sim), vsphereCluster(sim)
	c2.Name = "c2"
	clusters := []*v1beta2.VSphereCluster{c1, c2}
	before := sim.Sessions(t)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 10 {
				vc := clusters[(g+i)%2]
				if i%4 == 3 {
					assert.NoError(t, s.Forget(ctx, vc))
					continue
				}
				_, err := s.Client(ctx, vc)
				assert.NoError(t, err)
			}
		})
	}
	wg.Wait()
	for _, vc := range clusters {
		require.NoError(t, s.Forget(ctx, vc))
	}
	assert.Equal(t, before, sim.Sessions(t))
}

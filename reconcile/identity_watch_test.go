package reconcile_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlconfig "sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/identity"
	"github.com/capkit/capkit/internal/testtypes"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope"
)

// secretRequests records the paths of the Secret lists and watches a manager sends.
type secretRequests struct {
	mu    sync.Mutex
	paths []string
}

func (s *secretRequests) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		if req.Method == http.MethodGet && strings.HasSuffix(req.URL.Path, "/secrets") {
			s.mu.Lock()
			s.paths = append(s.paths, req.URL.Path)
			s.mu.Unlock()
		}
		return rt.RoundTrip(req)
	})
}

func (s *secretRequests) get() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.paths...)
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// TestIdentityWatchesReachOnlyTheUsers: a change of an identity or of its credentials Secret reconciles the
// InfraClusters that use that identity, and only those, found through an index rather than a walk over every
// InfraCluster; the Secrets are listed and watched in the identities' Secret namespace only, for the watches
// and for the binder's reads of their metadata, even when the manager's cache is limited to another namespace
// (where, read through it, they could not be read at all).
func TestIdentityWatchesReachOnlyTheUsers(t *testing.T) {
	ns := env.Namespace(t, "rec")
	ctx := context.Background()
	idX, idY := ns+"-x", ns+"-y"
	_, provider := newTestBinder(t, ns, idX) // idX's credentials: Secret "creds" in provider
	setAllowed(t, idX, ns)
	require.NoError(t, env.Client.Create(ctx, &testtypes.FooClusterIdentity{ObjectMeta: metav1.ObjectMeta{Name: idY},
		Spec: testtypes.FooClusterIdentitySpec{AllowedNamespaces: &identity.AllowedNamespaces{NamespaceList: []string{ns}}, SecretName: "creds-y"}}))
	require.NoError(t, env.Client.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: provider, Name: "creds-y"},
		Data: map[string][]byte{"token": []byte("y")}}))
	decoy := env.Namespace(t, "rec") // a Secret of the same name elsewhere is not idX's
	require.NoError(t, env.Client.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: decoy, Name: "creds"}}))

	var mu sync.Mutex
	reconciles := map[string]int{}
	count := func(name string) int {
		mu.Lock()
		defer mu.Unlock()
		return reconciles[name]
	}
	step := reconcile.ServiceFuncs[clusterScope]{ReconcileFunc: func(_ context.Context, s clusterScope) (step.Result, error) {
		mu.Lock()
		reconciles[s.InfraCluster().GetName()]++
		mu.Unlock()
		return step.Result{Done: true}, nil
	}}
	seen := &secretRequests{}
	cfg := rest.CopyConfig(env.Config)
	cfg.WrapTransport = seen.wrap
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: env.Scheme, Metrics: metricsserver.Options{BindAddress: "0"},
		Controller: ctrlconfig.Controller{SkipNameValidation: ptr.To(true)},
		Cache:      cache.Options{DefaultNamespaces: map[string]cache.Config{ns: {}}}})
	require.NoError(t, err)
	// Wired as a provider wires it (memcloud): identities and Secret metadata through the manager's cache, the
	// Secret's data through the API reader.
	b := binderReading(t, mgr.GetClient(), provider, identity.WithSecretReader(mgr.GetAPIReader()))
	r, err := reconcile.NewClusterReconcilerFor(mgr.GetClient(), &testtypes.FooCluster{},
		[]reconcile.Step[clusterScope]{{Name: "Network", Service: step}}, reconcile.WithScopeOptions(scope.WithContractVersion(contract.V1Beta2)),
		reconcile.WithIdentityFor(b, &testtypes.FooCluster{}))
	require.NoError(t, err)
	require.NoError(t, r.SetupWithManager(mgr))

	users := map[string]string{"x1": idX, "x2": idX, "y1": idY, "none": ""}
	for name, id := range users {
		cluster := createCluster(t, ns, name, nil)
		obj := &testtypes.FooCluster{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, OwnerReferences: []metav1.OwnerReference{ownerRef(cluster)}}}
		if id != "" {
			obj.Spec.IdentityRef = &identity.Ref{Kind: "FooClusterIdentity", Name: id}
		}
		require.NoError(t, env.Client.Create(ctx, obj))
	}
	mgrCtx, cancel := context.WithCancel(ctx)
	stopped := make(chan error, 1)
	go func() { stopped <- mgr.Start(mgrCtx) }()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-stopped)
	})
	require.True(t, mgr.GetCache().WaitForCacheSync(ctx))
	require.Eventually(t, func() bool { return count("x1") > 0 && count("x2") > 0 && count("y1") > 0 && count("none") > 0 },
		30*time.Second, 20*time.Millisecond, "every cluster reconciled")

	// The mapping, through the index: exactly the users of each identity and of each Secret.
	tests := []struct {
		name, identity, secret string
		want                   []string
	}{
		{name: "identity x", identity: idX, want: []string{ns + "/x1", ns + "/x2"}},
		{name: "identity y", identity: idY, want: []string{ns + "/y1"}},
		{name: "identity nobody uses", identity: ns + "-z"},
		{name: "x's Secret", secret: "creds", want: []string{ns + "/x1", ns + "/x2"}},
		{name: "y's Secret", secret: "creds-y", want: []string{ns + "/y1"}},
		{name: "a Secret no identity names", secret: "other"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := r.IdentityUsersForTest(ctx, mgr, tt.identity, tt.secret)
			require.NoError(t, err)
			assert.ElementsMatch(t, tt.want, got)
		})
	}

	// The watches, end to end: rotating x's Secret, then changing x itself, reconciles x's users.
	for what, poke := range map[string]func(){
		"x's Secret rotated": func() {
			s := &corev1.Secret{}
			require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: provider, Name: "creds"}, s))
			s.Data["token"] = []byte("rotated")
			require.NoError(t, env.Client.Update(ctx, s))
		},
		"x changed": func() { setAllowed(t, idX, ns, decoy) },
	} {
		x1, x2 := count("x1"), count("x2")
		poke()
		assert.Eventually(t, func() bool { return count("x1") > x1 && count("x2") > x2 }, 30*time.Second, 20*time.Millisecond,
			"%s: x1 and x2 reconciled", what)
	}

	// Secrets are listed and watched in the provider namespace only.
	paths := seen.get()
	require.NotEmpty(t, paths)
	for _, p := range paths {
		assert.Equal(t, "/api/v1/namespaces/"+provider+"/secrets", p)
	}
}

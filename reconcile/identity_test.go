package reconcile_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/go-logr/logr/funcr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/identity"
	"github.com/capkit/capkit/internal/testtypes"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/reconcile/internal/fakecloud"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope"
)

const tenantSecret = "tenant-secret-must-never-leak"

type accountKey struct{}

// identityFixture is a FooCluster reconciler with identities: its one step records, per call, the secret of
// the credentials the Binder put into the context.
type identityFixture struct {
	r        *reconcile.ClusterReconciler[*testtypes.FooCluster]
	rec      *fakecloud.Recorder
	provider string
	idName   string
	mu       sync.Mutex
	seen     []string // secret per step call ("reconcile:…", "delete:…")
	logs     strings.Builder
}

// newTestBinder creates the FooClusterIdentity idName (allowing no namespace but "not-"+tenant) with its
// credentials Secret in a new provider namespace, and returns a Binder that puts the Secret's token into the
// context under accountKey, and the provider namespace.
func newTestBinder(t *testing.T, tenant, idName string) (identity.Binder, string) {
	t.Helper()
	ctx := context.Background()
	provider := env.Namespace(t, "provider")
	require.NoError(t, env.Client.Create(ctx, &testtypes.FooClusterIdentity{ObjectMeta: metav1.ObjectMeta{Name: idName},
		Spec: testtypes.FooClusterIdentitySpec{AllowedNamespaces: &identity.AllowedNamespaces{NamespaceList: []string{"not-" + tenant}}, SecretName: "creds"}}))
	require.NoError(t, env.Client.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: provider, Name: "creds"},
		Data: map[string][]byte{"token": []byte(tenantSecret)}}))
	return binderReading(t, env.Client, provider), provider
}

// binderReading returns a Binder of FooClusterIdentities whose credentials Secrets are in provider, reading
// through reader (opts may add the Secret reader), that puts the Secret's token into the context under
// accountKey.
func binderReading(t *testing.T, reader client.Reader, provider string, opts ...identity.ResolverOption) identity.Binder {
	t.Helper()
	res, err := identity.NewResolverFor(reader, "FooClusterIdentity", &testtypes.FooClusterIdentity{},
		provider, append([]identity.ResolverOption{identity.WithRequiredKeys("token")}, opts...)...)
	require.NoError(t, err)
	b, err := identity.NewBinder(res, func(_ context.Context, c identity.Credentials) (string, error) { return string(c.Get("token")), nil },
		func(ctx context.Context, token string) context.Context {
			return context.WithValue(ctx, accountKey{}, token)
		})
	require.NoError(t, err)
	return b
}

func newIdentityFixture(t *testing.T, tenant string) *identityFixture {
	t.Helper()
	f := &identityFixture{rec: &fakecloud.Recorder{}, idName: tenant + "-identity"}
	_, provider := newTestBinder(t, tenant, f.idName)
	f.provider = provider
	var err error
	step := func(what string) func(ctx context.Context, _ clusterScope) (step.Result, error) {
		return func(ctx context.Context, _ clusterScope) (step.Result, error) {
			token, _ := ctx.Value(accountKey{}).(string)
			f.mu.Lock()
			f.seen = append(f.seen, what+":"+token)
			f.mu.Unlock()
			return step.Result{Done: true}, nil
		}
	}
	f.r, err = reconcile.NewClusterReconcilerFor(env.Client, &testtypes.FooCluster{},
		[]reconcile.Step[clusterScope]{{Name: "Network", Service: reconcile.ServiceFuncs[clusterScope]{ReconcileFunc: step("reconcile"), DeleteFunc: step("delete")}}},
		reconcile.WithEventRecorder(f.rec), reconcile.WithScopeOptions(scope.WithContractVersion(contract.V1Beta2)),
		reconcile.WithIdentities(&testtypes.FooCluster{}, tokenIdentities(provider)))
	require.NoError(t, err)
	return f
}

// tokenIdentities is the identity.Config of FooClusterIdentities whose credentials Secrets are in provider and
// hold a token, which the binder puts into the context under accountKey.
func tokenIdentities(provider string) identity.Config[string] {
	return identity.Config[string]{
		Kind: "FooClusterIdentity", Prototype: &testtypes.FooClusterIdentity{}, Namespace: provider, RequiredKeys: []string{"token"},
		Credentials: func(_ context.Context, c identity.Credentials) (string, error) { return string(c.Get("token")), nil },
		Bind: func(ctx context.Context, token string) context.Context {
			return context.WithValue(ctx, accountKey{}, token)
		},
	}
}

// TestWithIdentitiesRefusesAnIncompleteConfig: every field WithIdentities needs is checked by the reconciler's
// constructor, and the error names it.
func TestWithIdentitiesRefusesAnIncompleteConfig(t *testing.T) {
	valid := tokenIdentities("provider")
	var nilCluster *testtypes.FooCluster
	tests := []struct {
		name         string
		infraCluster identity.Referencer
		mutate       func(*identity.Config[string])
		wantMsg      string
	}{
		{name: "missing kind", infraCluster: &testtypes.FooCluster{}, mutate: func(c *identity.Config[string]) { c.Kind = "" },
			wantMsg: "WithIdentities: cannot create identity binder: Config.Kind is empty"},
		{name: "nil prototype", infraCluster: &testtypes.FooCluster{}, mutate: func(c *identity.Config[string]) { c.Prototype = nil },
			wantMsg: `Config.Prototype of kind "FooClusterIdentity" is nil`},
		{name: "nil pointer prototype", infraCluster: &testtypes.FooCluster{},
			mutate:  func(c *identity.Config[string]) { c.Prototype = (*testtypes.FooClusterIdentity)(nil) },
			wantMsg: "Config.Prototype is a nil *testtypes.FooClusterIdentity"},
		{name: "missing namespace", infraCluster: &testtypes.FooCluster{}, mutate: func(c *identity.Config[string]) { c.Namespace = "" },
			wantMsg: `Config.Namespace of kind "FooClusterIdentity" is empty`},
		{name: "missing credentials", infraCluster: &testtypes.FooCluster{}, mutate: func(c *identity.Config[string]) { c.Credentials = nil },
			wantMsg: `Config.Credentials of kind "FooClusterIdentity" is nil`},
		{name: "missing bind", infraCluster: &testtypes.FooCluster{}, mutate: func(c *identity.Config[string]) { c.Bind = nil },
			wantMsg: `Config.Bind of kind "FooClusterIdentity" is nil`},
		{name: "empty required key", infraCluster: &testtypes.FooCluster{}, mutate: func(c *identity.Config[string]) { c.RequiredKeys = []string{"token", ""} },
			wantMsg: `Config.RequiredKeys[1] of kind "FooClusterIdentity" is empty`},
		{name: "nil infraCluster", mutate: func(*identity.Config[string]) {}, wantMsg: "WithIdentities: infraCluster is nil"},
		{name: "nil pointer infraCluster", infraCluster: nilCluster, mutate: func(*identity.Config[string]) {},
			wantMsg: "WithIdentities: infraCluster is a nil *testtypes.FooCluster"},
	}
	ok := reconcile.Step[clusterScope]{Name: "A", Service: reconcile.ServiceFuncs[clusterScope]{}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := valid
			tt.mutate(&cfg)
			_, err := reconcile.NewClusterReconcilerFor(env.Client, &testtypes.FooCluster{}, []reconcile.Step[clusterScope]{ok},
				reconcile.WithIdentities(tt.infraCluster, cfg))
			require.Error(t, err)
			assert.Contains(t, err.Error(), "cannot create InfraCluster reconciler: ")
			assert.Contains(t, err.Error(), tt.wantMsg)
		})
	}
	_, err := reconcile.NewClusterReconcilerFor(env.Client, &testtypes.FooCluster{}, []reconcile.Step[clusterScope]{ok},
		reconcile.WithIdentities(&testtypes.FooCluster{}, valid))
	require.NoError(t, err)
}

func (f *identityFixture) reconcile(t *testing.T, obj client.Object) ctrl.Result {
	t.Helper()
	log := funcr.New(func(prefix, args string) { f.logs.WriteString(prefix + args + "\n") }, funcr.Options{Verbosity: 100})
	res, err := f.r.Reconcile(ctrl.LoggerInto(t.Context(), log), req(obj))
	require.NoError(t, err)
	return res
}

func (f *identityFixture) calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.seen...)
}

func (f *identityFixture) setAllowed(t *testing.T, namespaces ...string) {
	t.Helper()
	setAllowed(t, f.idName, namespaces...)
}

// setAllowed makes the FooClusterIdentity name allow namespaces only.
func setAllowed(t *testing.T, name string, namespaces ...string) {
	t.Helper()
	id := &testtypes.FooClusterIdentity{ObjectMeta: metav1.ObjectMeta{Name: name}}
	id = get(t, id)
	id.Spec.AllowedNamespaces.NamespaceList = namespaces
	require.NoError(t, env.Client.Update(t.Context(), id))
}

// TestWithIdentityRefusesBeforeAnyCloudCall walks one cluster through its identity's life: refused while its
// namespace is not allowed (no step runs, IdentityReady says why), reconciled once allowed with the Secret's
// credentials in the steps' context, a rotated Secret used at the next reconcile, a delete that waits while
// the namespace is not allowed again, and no credential in any condition, event or log line.
func TestWithIdentityRefusesBeforeAnyCloudCall(t *testing.T) {
	ns := env.Namespace(t, "rec")
	ctx := t.Context()
	f := newIdentityFixture(t, ns)
	obj, _ := newFooCluster(t, ns, false, func(c *testtypes.FooCluster) {
		c.Spec.IdentityRef = &identity.Ref{Kind: "FooClusterIdentity", Name: f.idName}
	})

	res := f.reconcile(t, obj)
	assert.Equal(t, reconcile.DefaultIdentityRecheck, res.RequeueAfter)
	assert.Empty(t, f.calls(), "no step, so no cloud call, for a namespace that is not allowed")
	obj = get(t, obj)
	assert.True(t, controllerutil.ContainsFinalizer(obj, f.r.Finalizer()))
	c := meta.FindStatusCondition(obj.Status.Conditions, reconcile.ConditionIdentityReady)
	require.NotNil(t, c)
	assert.Equal(t, metav1.ConditionFalse, c.Status)
	assert.Equal(t, conditions.ReasonNamespaceNotAllowed, c.Reason)
	assert.Contains(t, c.Message, `does not allow namespace "`+ns+`"`)
	ready := meta.FindStatusCondition(obj.Status.Conditions, conditions.Ready)
	require.NotNil(t, ready)
	assert.Equal(t, metav1.ConditionFalse, ready.Status, "Ready summarises IdentityReady")
	assert.Contains(t, f.rec.All(), "Warning NamespaceNotAllowed Reconcile "+c.Message)

	f.setAllowed(t, ns)
	f.reconcile(t, obj)
	assert.Equal(t, []string{"reconcile:" + tenantSecret}, f.calls())
	obj = get(t, obj)
	assert.True(t, meta.IsStatusConditionTrue(obj.Status.Conditions, reconcile.ConditionIdentityReady))

	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: f.provider, Name: "creds"}}
	secret = get(t, secret)
	secret.Data["token"] = []byte("rotated-" + tenantSecret)
	require.NoError(t, env.Client.Update(ctx, secret))
	f.reconcile(t, obj)
	assert.Equal(t, "reconcile:rotated-"+tenantSecret, f.calls()[len(f.calls())-1], "a rotated Secret is used at the next reconcile")

	// Not allowed any more: the delete waits, with its finalizer, instead of calling the cloud.
	f.setAllowed(t)
	require.NoError(t, env.Client.Delete(ctx, obj))
	n := len(f.calls())
	f.reconcile(t, obj)
	assert.Len(t, f.calls(), n, "no delete step without an allowed identity")
	obj = get(t, obj)
	assert.True(t, controllerutil.ContainsFinalizer(obj, f.r.Finalizer()))
	f.setAllowed(t, ns)
	f.reconcile(t, obj)
	assert.Equal(t, "delete:rotated-"+tenantSecret, f.calls()[len(f.calls())-1])
	err := env.Client.Get(ctx, client.ObjectKeyFromObject(obj), &testtypes.FooCluster{})
	assert.True(t, apierrors.IsNotFound(err), "deleted once the identity allows it again: %v", err)

	// A cluster refused from the start has nothing in the cloud: its delete needs no credentials.
	other, _ := newFooCluster(t, env.Namespace(t, "rec"), false, func(c *testtypes.FooCluster) {
		c.Spec.IdentityRef = &identity.Ref{Kind: "FooClusterIdentity", Name: "missing"}
	})
	n = len(f.calls())
	f.reconcile(t, other)
	require.NoError(t, env.Client.Delete(ctx, other))
	f.reconcile(t, other)
	assert.Len(t, f.calls(), n, "no step, in reconcile or delete")
	err = env.Client.Get(ctx, client.ObjectKeyFromObject(other), &testtypes.FooCluster{})
	assert.True(t, apierrors.IsNotFound(err), "deleted without a cloud call: %v", err)

	// Nothing printed or recorded holds the credentials.
	assert.NotEmpty(t, f.logs.String())
	assert.NotContains(t, f.logs.String(), tenantSecret)
	for _, e := range f.rec.All() {
		assert.NotContains(t, e, tenantSecret)
	}
}

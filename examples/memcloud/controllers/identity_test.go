package controllers_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/memcloudtest"
	"github.com/capkit/capkit/examples/memcloud/services"
	"github.com/capkit/capkit/identity"
	"github.com/capkit/capkit/providertest/lifecycle"
	"github.com/capkit/capkit/reconcile"
)

// logBuffer collects the manager's log lines at every verbosity.
type logBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuffer) write(prefix, args string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b.WriteString(prefix + " " + args + "\n")
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// tenant is one team: its namespace, its identity (and memcloud account) and its cluster's lifecycle driver.
type tenant struct {
	ns, identity string
	driver       *lifecycle.Driver
}

// TestIdentitiesKeepTenantsApart runs two tenants' clusters, both named "demo", in two memcloud accounts
// through MemClusterIdentities, and checks what multi-tenancy promises: each account holds only its tenant's
// resources; a cluster naming another tenant's identity is refused before any cloud call; a namespace removed
// from allowedNamespaces makes no more cloud calls (its delete waits, and resumes when allowed again); rotated
// credentials are picked up from the Secret; and no credential appears in any log line (at the highest
// verbosity), event or condition.
func TestIdentitiesKeepTenantsApart(t *testing.T) {
	ctx := context.Background()
	cl := memcloudtest.NewCloud(t, cloud.WithSeed(23))
	system := env.Namespace(t, "controllers")
	logs := &logBuffer{}
	p, err := memcloudtest.StartProvider(ctx, env, memcloudtest.Options{Shared: cl, IdentityNamespace: system,
		Logger: funcr.New(logs.write, funcr.Options{Verbosity: 100})})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, p.Stop()) })

	tenants := map[string]*tenant{}
	for _, name := range []string{"a", "b"} {
		tn := &tenant{ns: env.Namespace(t, "controllers"), identity: "tenant-" + name + "-" + system[len(system)-5:]}
		require.NoError(t, memcloudtest.CreateIdentity(ctx, env.Client, cl, system, tn.identity, tn.ns))
		spec := memcloudtest.LifecycleSpec(memcloudtest.Cluster{Namespace: tn.ns, Name: "demo", ControlPlane: 1, Workers: 1,
			Identity: tn.identity}, p.LeakChecker())
		tn.driver, err = lifecycle.New(env.Client, spec)
		require.NoError(t, err)
		require.NoError(t, tn.driver.Create(ctx))
		tenants[name] = tn
	}
	for _, tn := range tenants {
		require.NoError(t, tn.driver.WaitProvisioned(ctx), tn.ns)
	}
	a, b := tenants["a"], tenants["b"]

	// Every resource is in the account of the tenant whose cluster it belongs to; both accounts have the same
	// resources, with the same names and tags.
	perAccount := map[string]int{}
	for _, r := range cl.All() {
		account, ok := cl.AccountOf(r.ID)
		require.True(t, ok, r.ID)
		owner := r.Tags[services.TagCluster]
		switch {
		case strings.HasPrefix(owner, a.ns+"/"):
			assert.Equal(t, a.identity, account, "%s of %s", r.ID, owner)
		case strings.HasPrefix(owner, b.ns+"/"):
			assert.Equal(t, b.identity, account, "%s of %s", r.ID, owner)
		default:
			t.Errorf("resource %s of %q belongs to no tenant", r.ID, owner)
		}
		perAccount[account]++
	}
	assert.Equal(t, 5+2, perAccount[a.identity], "network, 2 subnets, security group, load balancer, 2 instances")
	assert.Equal(t, perAccount[a.identity], perAccount[b.identity])
	// (Unauthorized calls are not asserted here: this manager also sees the other tests' objects, which name
	// no identity. The demo asserts that every call of a run carries the identity's credentials.)
	assert.Positive(t, cl.Calls().ByAccount[a.identity])
	assert.Positive(t, cl.Calls().ByAccount[b.identity])

	// Tenant b names tenant a's identity: refused, nothing created.
	thief := &v1beta2.MemCluster{}
	spec := memcloudtest.LifecycleSpec(memcloudtest.Cluster{Namespace: b.ns, Name: "thief", ControlPlane: 1, Identity: a.identity}, p.LeakChecker())
	d, err := lifecycle.New(env.Client, spec)
	require.NoError(t, err)
	require.NoError(t, d.Create(ctx))
	waitIdentityCondition(t, client.ObjectKey{Namespace: b.ns, Name: "thief"}, thief, metav1.ConditionFalse, conditions.ReasonNamespaceNotAllowed)
	assert.Contains(t, meta.FindStatusCondition(thief.Status.Conditions, reconcile.ConditionIdentityReady).Message,
		`MemClusterIdentity "`+a.identity+`" does not allow namespace "`+b.ns+`"`)
	assert.Empty(t, thief.Status.Resources)
	for _, r := range cl.All() {
		assert.NotEqual(t, b.ns+"/thief", r.Tags[services.TagCluster], "nothing is created for a refused cluster")
	}

	// Tenant b is no longer allowed: its clusters make no more cloud calls, and its delete waits.
	setAllowed(t, b.identity, "someone-else")
	waitIdentityCondition(t, client.ObjectKey{Namespace: b.ns, Name: "demo"}, &v1beta2.MemCluster{}, metav1.ConditionFalse, conditions.ReasonNamespaceNotAllowed)
	calls := cl.Calls().ByAccount[b.identity]
	deleted := make(chan error, 1)
	go func() { deleted <- b.driver.Delete(ctx) }()
	waitDeleteRefused(t, b.ns, b.driver.MachineNames())
	assert.Equal(t, calls, cl.Calls().ByAccount[b.identity], "no cloud call for a namespace the identity no longer allows")
	assert.Equal(t, perAccount[b.identity], countAccount(cl, b.identity), "nothing of tenant b was deleted")
	setAllowed(t, b.identity, b.ns)
	require.NoError(t, <-deleted, "the delete resumes once the namespace is allowed again")
	assert.Zero(t, countAccount(cl, b.identity), "tenant b's resources are gone")
	assert.Equal(t, perAccount[a.identity], countAccount(cl, a.identity), "tenant a's are not")

	// Rotation: the old credentials stop working in the cloud; the new ones reach the provider through the
	// Secret, and tenant a's delete uses them.
	id := &v1beta2.MemClusterIdentity{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Name: a.identity}, id))
	creds, err := cl.RotateCredentials(a.identity)
	require.NoError(t, err)
	require.NoError(t, memcloudtest.WriteCredentials(ctx, env.Client, id, system, creds))
	if err := a.driver.Delete(ctx); err != nil {
		mc := &v1beta2.MemCluster{}
		_ = env.Client.Get(ctx, client.ObjectKey{Namespace: a.ns, Name: "demo"}, mc)
		lines := strings.Split(logs.String(), "\n")
		t.Fatalf("%v\nconditions: %+v\nlast log lines:\n%s", err, mc.Status.Conditions, strings.Join(lines[max(0, len(lines)-30):], "\n"))
	}
	assert.Zero(t, countAccount(cl, a.identity))
	require.NoError(t, d.Delete(ctx), "the refused cluster is deleted without any cloud call")
	assert.Empty(t, cl.All())

	// No credential anywhere: logs at the highest verbosity, events, conditions.
	var secrets []string
	for _, tn := range tenants {
		s := &corev1.Secret{}
		require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: system, Name: tn.identity}, s))
		secrets = append(secrets, string(s.Data[v1beta2.CredentialsSecretAccessKey]))
	}
	require.NotEmpty(t, logs.String())
	assert.Contains(t, logs.String(), "identity refused", "the refusals are logged")
	events := &corev1.EventList{}
	require.NoError(t, env.Client.List(ctx, events))
	for _, s := range append(secrets, creds.SecretAccessKey) {
		require.NotEmpty(t, s)
		assert.NotContains(t, logs.String(), s)
		for _, e := range events.Items {
			assert.NotContains(t, e.Message, s)
		}
	}
}

// waitIdentityCondition waits until the MemCluster key has IdentityReady with status and reason, into mc.
func waitIdentityCondition(t *testing.T, key client.ObjectKey, mc *v1beta2.MemCluster, status metav1.ConditionStatus, reason string) {
	t.Helper()
	require.Eventually(t, func() bool {
		if env.Client.Get(t.Context(), key, mc) != nil {
			return false
		}
		c := meta.FindStatusCondition(mc.Status.Conditions, reconcile.ConditionIdentityReady)
		return c != nil && c.Status == status && c.Reason == reason
	}, 30*time.Second, 50*time.Millisecond, "MemCluster %s: IdentityReady %s %s", key, status, reason)
}

// waitDeleteRefused waits until the controller has reconciled the deletion of each MemMachine of names in ns
// with its identity refused: Deleting True, which the reconciler writes only on the delete path and patches
// only once the identity was resolved and any cloud call was made, and IdentityReady False with
// ReasonNamespaceNotAllowed, which says that no delete step ran. (Lifecycle drivers that play Cluster API
// delete the InfraMachines first, and the InfraCluster only once they are gone.)
func waitDeleteRefused(t *testing.T, ns string, names []string) {
	t.Helper()
	for _, name := range names {
		key := client.ObjectKey{Namespace: ns, Name: name}
		mm := &v1beta2.MemMachine{}
		require.Eventually(t, func() bool {
			if env.Client.Get(t.Context(), key, mm) != nil || mm.DeletionTimestamp.IsZero() {
				return false
			}
			deleting := meta.FindStatusCondition(mm.Status.Conditions, conditions.Deleting)
			id := meta.FindStatusCondition(mm.Status.Conditions, reconcile.ConditionIdentityReady)
			return deleting != nil && deleting.Status == metav1.ConditionTrue &&
				id != nil && id.Status == metav1.ConditionFalse && id.Reason == conditions.ReasonNamespaceNotAllowed
		}, 30*time.Second, 50*time.Millisecond, "MemMachine %s: deletion reconciled with the identity refused", key)
	}
}

// setAllowed sets the namespaces a MemClusterIdentity allows.
func setAllowed(t *testing.T, name string, namespaces ...string) {
	t.Helper()
	id := &v1beta2.MemClusterIdentity{}
	require.NoError(t, env.Client.Get(t.Context(), client.ObjectKey{Name: name}, id))
	id.Spec.AllowedNamespaces = &identity.AllowedNamespaces{NamespaceList: namespaces}
	require.NoError(t, env.Client.Update(t.Context(), id))
}

// countAccount counts the live resources of account.
func countAccount(cl *cloud.Cloud, account string) int {
	n := 0
	for _, r := range cl.All() {
		if a, _ := cl.AccountOf(r.ID); a == account {
			n++
		}
	}
	return n
}

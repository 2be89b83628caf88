package lifecycle_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/contract/lint"
	"github.com/capkit/capkit/providertest"
	"github.com/capkit/capkit/providertest/lifecycle"
	"github.com/capkit/capkit/providertest/testenv"
	"github.com/capkit/capkit/scope"
)

const fakeFinalizer = "mem.example.io/cleanup"

// The kinds of ../testdata/crds.
var (
	memClusterGVK = schema.GroupVersionKind{Group: "infrastructure.example.io", Version: "v1alpha1", Kind: "MemCluster"}
	memMachineGVK = schema.GroupVersionKind{Group: "infrastructure.example.io", Version: "v1alpha1", Kind: "MemMachine"}
)

// fakeProvider is a tiny provider for MemCluster and MemMachine (../testdata/crds) that polls instead of
// watching: it keeps one cloud resource per infra object, tagged with the object's ownership key.
type fakeProvider struct {
	c           client.Client
	ns          string
	core        contract.Version
	leakyDelete bool // MemMachine deletes forget their cloud resource
	actAsCAPI   bool // deletes the descendants of a deleted Cluster, as Cluster API's controllers would

	mu    sync.Mutex
	cloud map[string]string // resource name → ownership key
}

func (p *fakeProvider) run(ctx context.Context) {
	for ctx.Err() == nil {
		p.reconcileAll(ctx, memClusterGVK, p.cluster)
		p.reconcileAll(ctx, memMachineGVK, p.machine)
		if p.actAsCAPI {
			p.deleteOrphans(ctx)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (p *fakeProvider) reconcileAll(ctx context.Context, gvk schema.GroupVersionKind, f func(context.Context, *unstructured.Unstructured)) {
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
	if err := p.c.List(ctx, list, client.InNamespace(p.ns)); err != nil {
		return
	}
	for i := range list.Items {
		f(ctx, &list.Items[i])
	}
}

// begin adds the finalizer and the ownership key, or, on delete, cleans up; it reports whether to go on.
func (p *fakeProvider) begin(ctx context.Context, u *unstructured.Unstructured, resource string, leak bool) bool {
	if u.GetDeletionTimestamp() != nil {
		if !leak {
			p.mu.Lock()
			delete(p.cloud, resource)
			p.mu.Unlock()
		}
		controllerutil.RemoveFinalizer(u, fakeFinalizer)
		_ = p.c.Update(ctx, u)
		return false
	}
	if u.GetLabels()[scope.OwnershipKeyLabel] == "" {
		controllerutil.AddFinalizer(u, fakeFinalizer)
		labels := u.GetLabels()
		labels[scope.OwnershipKeyLabel] = "key-" + u.GetName()
		u.SetLabels(labels)
		_ = p.c.Update(ctx, u)
		return false
	}
	return slices.ContainsFunc(u.GetOwnerReferences(), func(r metav1.OwnerReference) bool { return r.Controller != nil && *r.Controller })
}

func (p *fakeProvider) create(resource, key string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cloud[resource] = key
}

func (p *fakeProvider) cluster(ctx context.Context, u *unstructured.Unstructured) {
	if !p.begin(ctx, u, "net-"+u.GetName(), false) {
		return
	}
	p.create("net-"+u.GetName(), u.GetLabels()[scope.OwnershipKeyLabel])
	if ok, _ := contract.InfraCluster(contract.V1Beta2).Provisioned().Get(u); ok {
		return
	}
	_ = contract.InfraCluster(contract.V1Beta2).ControlPlaneEndpoint().Set(u, contract.APIEndpoint{Host: u.GetName() + ".mem.local", Port: 6443})
	if p.c.Update(ctx, u) != nil {
		return
	}
	_ = contract.InfraCluster(contract.V1Beta2).Provisioned().Set(u, true)
	_ = p.c.Status().Update(ctx, u)
}

func (p *fakeProvider) machine(ctx context.Context, u *unstructured.Unstructured) {
	if !p.begin(ctx, u, "vm-"+u.GetName(), p.leakyDelete) {
		return
	}
	cluster := &unstructured.Unstructured{}
	cluster.SetGroupVersionKind(providertest.ClusterGVK(p.core))
	if p.c.Get(ctx, client.ObjectKey{Namespace: p.ns, Name: contract.ClusterNameOf(u)}, cluster) != nil {
		return
	}
	if ok, _ := contract.Cluster(p.core).InfrastructureProvisioned().Get(cluster); !ok {
		return
	}
	if ok, _ := contract.InfraMachine(contract.V1Beta2).Provisioned().Get(u); ok {
		return
	}
	p.create("vm-"+u.GetName(), u.GetLabels()[scope.OwnershipKeyLabel])
	_ = contract.InfraMachine(contract.V1Beta2).ProviderID().Set(u, "mem://vm-"+u.GetName())
	if p.c.Update(ctx, u) != nil {
		return
	}
	_ = contract.InfraMachine(contract.V1Beta2).Provisioned().Set(u, true)
	_ = p.c.Status().Update(ctx, u)
}

// deleteOrphans deletes the Machines and infra objects whose Cluster is gone.
func (p *fakeProvider) deleteOrphans(ctx context.Context) {
	for _, gvk := range []schema.GroupVersionKind{providertest.MachineGVK(p.core), memMachineGVK, memClusterGVK} {
		p.reconcileAll(ctx, gvk, func(ctx context.Context, u *unstructured.Unstructured) {
			cluster := &unstructured.Unstructured{}
			cluster.SetGroupVersionKind(providertest.ClusterGVK(p.core))
			if err := p.c.Get(ctx, client.ObjectKey{Namespace: p.ns, Name: contract.ClusterNameOf(u)}, cluster); client.IgnoreNotFound(err) == nil && err != nil {
				_ = p.c.Delete(ctx, u)
			}
		})
	}
}

func (p *fakeProvider) leaks(_ context.Context, q lifecycle.LeakQuery) ([]string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for res, key := range p.cloud {
		if slices.Contains(q.OwnershipKeys, key) {
			out = append(out, res)
		}
	}
	slices.Sort(out)
	return out, nil
}

func startProvider(t *testing.T, p *fakeProvider) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); p.run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
}

// snippet:start spec
func lifecycleSpec(ns string, core contract.Version, p *fakeProvider) lifecycle.Spec {
	return lifecycle.Spec{
		Namespace: ns, ClusterName: "demo", CoreVersion: core,
		InfraClusterGVK: memClusterGVK, InfraMachineGVK: memMachineGVK,
		InfraCluster: func(_, _ string) (client.Object, error) {
			u := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"region": "eu-1"}}}
			return u, nil
		},
		InfraMachine: func(_, _ string, cp bool) (client.Object, error) {
			size := "small"
			if cp {
				size = "large"
			}
			return &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"image": "ubuntu", "size": size}}}, nil
		},
		ControlPlaneMachines: 1, WorkerMachines: 2,
		PlayCAPI:     true,
		Timeout:      30 * time.Second,
		PollInterval: 50 * time.Millisecond,
		LeakChecker:  lifecycle.LeakCheckerFunc(p.leaks),
	}
}

// snippet:end spec

func TestLifecyclePlaysCAPI(t *testing.T) {
	for _, core := range []contract.Version{contract.V1Beta1, contract.V1Beta2} {
		t.Run(string(core), func(t *testing.T) {
			ns := env.Namespace(t, "lifecycle")
			p := &fakeProvider{c: env.Client, ns: ns, core: core, cloud: map[string]string{}}
			startProvider(t, p)
			spec := lifecycleSpec(ns, core, p)
			checked := false
			spec.OnProvisioned = func(ctx context.Context, l *lifecycle.Driver) error {
				checked = true
				assertCAPIPlayed(t, ctx, l, core)
				return nil
			}
			lifecycle.Run(t, env.Client, spec)
			assert.True(t, checked, "OnProvisioned was called")
			p.mu.Lock()
			defer p.mu.Unlock()
			assert.Empty(t, p.cloud, "the provider deleted its cloud resources")
		})
	}
}

// assertCAPIPlayed checks what the driver did in Cluster API's place.
func assertCAPIPlayed(t *testing.T, ctx context.Context, l *lifecycle.Driver, core contract.Version) {
	spec := l.Spec()
	cluster := &unstructured.Unstructured{}
	cluster.SetGroupVersionKind(providertest.ClusterGVK(core))
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: spec.Namespace, Name: spec.ClusterName}, cluster))
	ok, _ := contract.Cluster(core).InfrastructureProvisioned().Get(cluster)
	assert.True(t, ok, "Cluster infrastructure provisioned")
	ep, _ := contract.Cluster(core).ControlPlaneEndpoint().Get(cluster)
	assert.Equal(t, "demo.mem.local", ep.Host, "endpoint copied to the Cluster")

	ic, err := l.InfraCluster(ctx)
	require.NoError(t, err)
	assert.Equal(t, "eu-1", ic.Object["spec"].(map[string]any)["region"], "the template's spec is kept")
	assert.Equal(t, cluster.GetUID(), metav1.GetControllerOf(ic).UID, "InfraCluster controlled by the Cluster")
	providertest.AssertObjectConformance(t, ic, lint.KindInfraCluster, contract.V1Beta2)

	ims, err := l.InfraMachines(ctx)
	require.NoError(t, err)
	require.Len(t, ims, 3)
	assert.Equal(t, []string{"demo-cp-0", "demo-md-0", "demo-md-1"}, l.MachineNames())
	for _, im := range ims {
		providertest.AssertProvisioned(t, im, contract.V1Beta2)
		providertest.AssertObjectConformance(t, im, lint.KindInfraMachine, contract.V1Beta2)
		m := &unstructured.Unstructured{}
		m.SetGroupVersionKind(providertest.MachineGVK(core))
		require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(im), m))
		assert.Equal(t, m.GetUID(), metav1.GetControllerOf(im).UID, "InfraMachine controlled by its Machine")
		f := contract.Machine(core)
		id, _ := f.ProviderID().Get(m)
		assert.Equal(t, "mem://vm-"+m.GetName(), id, "providerID copied to the Machine")
		for _, field := range []contract.Field[bool]{f.InfrastructureProvisioned(), f.BootstrapDataSecretCreated()} {
			ok, _ := field.Get(m)
			assert.True(t, ok, field.Path().String())
		}
		secret := &corev1.Secret{}
		require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(im), secret))
		assert.Empty(t, lint.CheckBootstrapSecret(secret, nil))
		assert.Equal(t, cluster.GetUID(), secret.OwnerReferences[0].UID)
	}
	keys, err := l.OwnershipKeys(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"key-demo", "key-demo-cp-0", "key-demo-md-0", "key-demo-md-1"}, keys)
}

func TestLifecycleReportsLeaks(t *testing.T) {
	ctx := context.Background()
	ns := env.Namespace(t, "leaky")
	p := &fakeProvider{c: env.Client, ns: ns, core: contract.V1Beta2, cloud: map[string]string{}, leakyDelete: true}
	startProvider(t, p)
	l, err := lifecycle.New(env.Client, lifecycleSpec(ns, contract.V1Beta2, p))
	require.NoError(t, err)
	err = l.Run(ctx)
	require.ErrorIs(t, err, lifecycle.ErrLeaked)
	assert.Contains(t, err.Error(), "3 cloud resource(s) remain")
	assert.Contains(t, err.Error(), "vm-demo-md-1")
	assert.NotContains(t, err.Error(), "net-demo", "the InfraCluster's network was deleted")
}

func TestLifecycleWithCAPIControllers(t *testing.T) {
	// PlayCAPI false: the provider waits for owner references that only Cluster API sets, so nothing
	// provisions and the wait names what is missing; the delete leaves the cascade to "Cluster API".
	ctx := context.Background()
	ns := env.Namespace(t, "nocapi")
	p := &fakeProvider{c: env.Client, ns: ns, core: contract.V1Beta2, cloud: map[string]string{}, actAsCAPI: true}
	startProvider(t, p)
	spec := lifecycleSpec(ns, contract.V1Beta2, p)
	spec.PlayCAPI, spec.Timeout = false, time.Second
	l, err := lifecycle.New(env.Client, spec)
	require.NoError(t, err)
	require.NoError(t, l.Create(ctx))
	err = l.WaitProvisioned(ctx)
	require.ErrorIs(t, err, lifecycle.ErrTimeout)
	assert.Contains(t, err.Error(), `MemCluster "`+ns+`/demo" is not provisioned`)

	l2, err := lifecycle.New(env.Client, func() lifecycle.Spec { s := spec; s.Timeout = 30 * time.Second; return s }())
	require.NoError(t, err)
	require.NoError(t, l2.Delete(ctx))
	for _, name := range l.MachineNames() {
		err := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &corev1.Secret{})
		assert.True(t, client.IgnoreNotFound(err) == nil && err != nil, "Secret %q deleted", name)
	}
}

func TestNewLifecycleValidates(t *testing.T) {
	p := &fakeProvider{}
	valid := lifecycleSpec("ns", contract.V1Beta2, p)
	tests := []struct {
		name  string
		edit  func(s *lifecycle.Spec)
		field string
	}{
		{"namespace", func(s *lifecycle.Spec) { s.Namespace = "Bad_NS" }, `namespace "Bad_NS"`},
		{"cluster name", func(s *lifecycle.Spec) { s.ClusterName = "" }, `clusterName ""`},
		{"infra cluster kind", func(s *lifecycle.Spec) { s.InfraClusterGVK.Kind = "" }, "infraClusterGVK"},
		{"infra machine kind", func(s *lifecycle.Spec) { s.InfraMachineGVK = schema.GroupVersionKind{} }, "infraMachineGVK"},
		{"no machines", func(s *lifecycle.Spec) { s.ControlPlaneMachines, s.WorkerMachines = 0, 0 }, `machines "0+0"`},
		{"core version", func(s *lifecycle.Spec) { s.CoreVersion = "v1" }, `coreVersion "v1"`},
		{"contract version", func(s *lifecycle.Spec) { s.ContractVersion = "v2" }, `contractVersion "v2"`},
		{"leak checker", func(s *lifecycle.Spec) { s.LeakChecker = nil }, "leakChecker"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := valid
			tc.edit(&s)
			_, err := lifecycle.New(env.Client, s)
			require.ErrorIs(t, err, lifecycle.ErrInvalidSpec)
			assert.Contains(t, err.Error(), tc.field)
		})
	}
	_, err := lifecycle.New(nil, valid)
	require.ErrorIs(t, err, lifecycle.ErrInvalidSpec)

	l, err := lifecycle.New(env.Client, lifecycle.Spec{Namespace: "ns", ClusterName: "c",
		InfraClusterGVK: memClusterGVK, InfraMachineGVK: memMachineGVK, WorkerMachines: 1, LeakChecker: lifecycle.LeakCheckerFunc(p.leaks)})
	require.NoError(t, err)
	got := l.Spec()
	assert.Equal(t, contract.V1Beta2, got.CoreVersion)
	assert.Equal(t, contract.V1Beta2, got.ContractVersion)
	assert.Equal(t, testenv.KubernetesVersion, got.KubernetesVersion)
	assert.Equal(t, 2*time.Minute, got.Timeout)
	assert.Contains(t, string(got.BootstrapData("m", false)), "#cloud-config")
}

func TestLifecycleTemplateErrors(t *testing.T) {
	ctx := t.Context()
	ns := env.Namespace(t, "templates")
	p := &fakeProvider{}
	spec := lifecycleSpec(ns, contract.V1Beta2, p)
	spec.InfraMachine = func(string, string, bool) (client.Object, error) { return nil, errors.New("no image") }
	l, err := lifecycle.New(env.Client, spec)
	require.NoError(t, err)
	err = l.Create(ctx)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `cannot build MemMachine "demo-cp-0": no image`)
	require.Error(t, l.Create(ctx), "a second Create finds the Cluster already there")

	failing := lifecycle.LeakCheckerFunc(func(context.Context, lifecycle.LeakQuery) ([]string, error) {
		return nil, fmt.Errorf("cloud unreachable")
	})
	spec.LeakChecker = failing
	l, err = lifecycle.New(env.Client, spec)
	require.NoError(t, err)
	_, err = l.Leaks(ctx, nil)
	assert.ErrorContains(t, err, "cloud unreachable")
}

func TestLifecycleOnPollReportsProgress(t *testing.T) {
	ns := env.Namespace(t, "lifecycle")
	p := &fakeProvider{c: env.Client, ns: ns, core: contract.V1Beta2, cloud: map[string]string{}}
	startProvider(t, p)
	spec := lifecycleSpec(ns, contract.V1Beta2, p)
	var polls []lifecycle.Poll
	spec.OnPoll = func(_ context.Context, p lifecycle.Poll) { polls = append(polls, p) }
	lifecycle.Run(t, env.Client, spec)

	byPhase := map[string][]lifecycle.Poll{}
	for _, p := range polls {
		byPhase[p.Phase] = append(byPhase[p.Phase], p)
		assert.Equal(t, p.Done, len(p.Pending) == 0, "a wait is done exactly when nothing is pending: %+v", p)
	}
	require.Len(t, byPhase, 2, "only the phases %q and %q", lifecycle.PhaseProvisioning, lifecycle.PhaseDeletion)
	prov := byPhase[lifecycle.PhaseProvisioning]
	require.NotEmpty(t, prov)
	assert.True(t, prov[len(prov)-1].Done, "the provisioning wait ends done")
	for _, p := range prov[:len(prov)-1] {
		assert.False(t, p.Done, "only the last provisioning check is done")
	}
	// Delete waits for the InfraMachines, then the Machines and Secrets, the InfraCluster, the Cluster.
	done := 0
	for _, p := range byPhase[lifecycle.PhaseDeletion] {
		if p.Done {
			done++
		}
	}
	assert.Equal(t, 4, done, "each of the four deletion waits of PlayCAPI ends done once")
}

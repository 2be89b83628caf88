package clusterctl_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	clusterctlv1 "sigs.k8s.io/cluster-api/cmd/clusterctl/api/v1alpha3"
	clusterctl "sigs.k8s.io/cluster-api/cmd/clusterctl/client"
	"sigs.k8s.io/cluster-api/cmd/clusterctl/client/config"

	"github.com/capkit/capkit/contract/conversion"
	"github.com/capkit/capkit/contract/lint"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/services"
	"github.com/capkit/capkit/examples/memcloud/webhooks"
	"github.com/capkit/capkit/providertest/testenv"
	"github.com/capkit/capkit/reconcile/ensure"
	capkitclusterctl "github.com/capkit/capkit/release/clusterctl"
	"github.com/capkit/capkit/test/internal/capienv"
)

// memcloud's releases: v0.1.0 implements the v1beta1 contract with API version v1beta1; v0.2.0, today's code,
// implements v1beta2, stores v1beta2 and still serves v1beta1 through its conversion webhook.
const (
	oldMemcloudVersion = "v0.1.0"
	newMemcloudVersion = memcloudVersion
)

// memcloudCRDs are the CRDs of the kinds v0.1.0 had, which the upgrade converts.
var memcloudCRDs = []string{"memclusters." + v1beta2.GroupName, "memmachines." + v1beta2.GroupName, "memmachinetemplates." + v1beta2.GroupName}

// TestUpgradeFromV1beta1ContractWithClusterctl upgrades memcloud from v0.1.0 (contract v1beta1) to v0.2.0
// (contract v1beta2) with clusterctl's library on a management cluster that runs the real Cluster API v1.14 core
// and kubeadm bootstrap managers and a provisioned cluster (a control plane Machine and a MachineDeployment of
// two workers). clusterctl installs both releases from a local repository; the managers of the releases run
// in-process when clusterctl deploys them, on a cloud that outlives them. The upgrade re-provisions nothing (the
// same instances, no new cloud resource), Cluster API reads the new contract's fields at once (every Machine
// keeps InfrastructureReady, the Cluster its endpoint), conversion.MigrateStorage moves the stored objects to
// v1beta2 (after which v1beta1 can be dropped from the CRDs and every object still reads), a scale-up provisions
// on the new contract, and deleting the Cluster leaves nothing.
func TestUpgradeFromV1beta1ContractWithClusterctl(t *testing.T) {
	ctx := context.Background()
	step := capienv.StepTimer(t)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir()) // clusterctl's own configuration folder, empty

	const name, workers = "wl", 2
	run := startOnOldRelease(ctx, t, memcloudRelease(t, ""), name, workers, step)
	e, c, cl, ns, log, kubeconfig := run.env, run.clusterctl, run.cloud, run.ns, run.log, run.kubeconfig
	assertV1beta1Shape(ctx, t, e.Client, ns, name)
	before := cl.Calls()
	resources, created := ids(cl.All()), cl.TotalCreated()
	require.Len(t, resources, 1+2+1+1+1+workers, cl.Report(cloud.OwnerTagValue(services.TagCluster)).String())
	providerIDs := machineProviderIDs(ctx, t, e.Client, ns)
	endpoint := clusterEndpoint(ctx, t, e.Client, ns, name)

	// Cluster API must keep every Machine Running and InfrastructureReady from here to the end of the upgrade.
	watch := watchMachines(ctx, t, e.Client, ns)

	// clusterctl upgrade apply --infrastructure memcloud-system/memcloud:v0.2.0. clusterctl scales the old
	// Deployment down first and waits for its Pods to go: so does v0.1.0's manager here.
	require.NoError(t, run.old.Stop())
	route := routeWebhooks(ctx, t, e)
	err := c.ApplyUpgrade(ctx, clusterctl.ApplyUpgradeOptions{Kubeconfig: clusterctl.Kubeconfig{Path: kubeconfig},
		InfrastructureProviders: []string{"memcloud-system/memcloud:" + newMemcloudVersion}})
	require.NoError(t, err, "clusterctl upgrade apply; its log:\n%s", log)
	require.NoError(t, route.wait(ctx), "the CRDs' conversion webhook and the admission webhooks of %s are routed to the manager", newMemcloudVersion)
	assertInstalled(ctx, t, e.Client, newMemcloudVersion, "v1beta2")
	step("clusterctl upgrade apply installed memcloud " + newMemcloudVersion)
	startMemcloud(t, e, cl, "upgraded")
	step("memcloud " + newMemcloudVersion + " running")

	waitUpgraded(ctx, t, e.Client, ns, name, workers)
	step("memcloud " + newMemcloudVersion + " reconciled every object: provisioned on the v1beta2 contract")
	after := cl.Calls()
	assert.Equal(t, resources, ids(cl.All()), "the same cloud resources, none deleted")
	assert.Equal(t, created, cl.TotalCreated(), "no cloud resource created by the upgrade")
	assert.Empty(t, cl.Duplicates(cloud.OwnerTagValue(ensure.TagOwnershipKey), ensure.TagResourceKey))
	assert.Equal(t, providerIDs, machineProviderIDs(ctx, t, e.Client, ns), "the same instances: spec.providerID converted, not re-provisioned")
	assert.Equal(t, endpoint, clusterEndpoint(ctx, t, e.Client, ns, name), "the Cluster keeps its endpoint")
	assert.Zero(t, after.Mutations-before.Mutations, "the new manager only reads the cloud: %s", delta(before, after))
	t.Logf("cloud calls from the upgrade until memcloud %s reconciled everything: %d (%d mutations, %d reads): %s",
		newMemcloudVersion, after.Total()-before.Total(), after.Mutations-before.Mutations, after.Reads-before.Reads, delta(before, after))

	// The stored objects move to v1beta2: after MigrateStorage the API server lets v1beta1 go, and an object
	// still stored in v1beta1 would then be unreadable (conversion's envtest test shows it).
	migrated := 0
	for _, crd := range memcloudCRDs {
		n, err := conversion.MigrateStorage(ctx, e.Client, crd)
		require.NoError(t, err)
		migrated += n
	}
	assert.Equal(t, 1+(1+workers)+1, migrated, "every object of the three kinds: the MemCluster, the MemMachines and the template")
	for _, crd := range memcloudCRDs {
		require.NoError(t, dropVersion(ctx, e.Client, crd, "v1beta1"), "the API server lets v1beta1 go once nothing is stored in it")
	}
	assertReadable(ctx, t, e.Client, ns, 1+workers)
	step(fmt.Sprintf("storage migrated: %d objects rewritten in v1beta2, v1beta1 dropped from the CRDs", migrated))
	watch.stop()
	assert.Empty(t, watch.violations(), "Cluster API kept every Machine Running and InfrastructureReady through the upgrade")
	t.Logf("Machine states sampled during the upgrade: %d", watch.samples())

	// Scale up on the new contract.
	md := &clusterv1.MachineDeployment{}
	require.NoError(t, e.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "workers"}, md))
	md.Spec.Replicas = ptr.To[int32](workers + 1)
	require.NoError(t, e.Client.Update(ctx, md))
	run.nodes = append(run.nodes, joinNewWorkers(ctx, t, e.Client, ns, run.nodes, workers+1)...)
	assert.Equal(t, created+1, cl.TotalCreated(), "the scale-up creates one instance")
	assert.Empty(t, cl.Duplicates(cloud.OwnerTagValue(ensure.TagOwnershipKey), ensure.TagResourceKey))
	step("scaled up to 3 workers on the v1beta2 contract")

	// Delete: memcloud v0.2.0 deletes everything v0.1.0 created.
	deleteCluster(ctx, t, e.Client, ns, name)
	assert.Empty(t, cl.All(), "the cloud is empty: %s", cl.Report(cloud.OwnerTagValue(services.TagCluster)))
	assert.Empty(t, cl.Leaks(cloud.OwnerTagValue(services.TagCluster), ns+"/"+name), "nothing leaked")
	step("cluster deleted: the cloud is empty")
}

// upgradeRun is a management cluster on memcloud v0.1.0 with a provisioned cluster, ready for an upgrade.
type upgradeRun struct {
	env        *testenv.Environment
	kubeconfig string
	clusterctl clusterctl.Client
	log        *capienv.ClusterctlLog
	cloud      *cloud.Cloud
	capi       *capienv.Managers
	old        *oldManager
	ns         string
	nodes      []string
}

// startOnOldRelease starts a management cluster (newUpgradeEnvironment) whose clusterctl repository has memcloud
// v0.1.0 and next as v0.2.0, installs v0.1.0 with clusterctl init, starts Cluster API's managers and v0.1.0's,
// and provisions cluster name with a control plane Machine and workers, in API version v1beta1.
func startOnOldRelease(ctx context.Context, t *testing.T, next release, name string, workers int32, step func(string)) *upgradeRun {
	t.Helper()
	r := &upgradeRun{env: newUpgradeEnvironment(t), log: capienv.CaptureClusterctlLog()}
	r.kubeconfig = writeKubeconfig(t, r.env, "management")
	r.clusterctl = newClusterctl(ctx, t, next)
	step("management cluster started: Cluster API's CRDs and inventory, no memcloud")

	// clusterctl init --infrastructure memcloud:v0.1.0
	_, err := r.clusterctl.Init(ctx, clusterctl.InitOptions{Kubeconfig: clusterctl.Kubeconfig{Path: r.kubeconfig},
		InfrastructureProviders: []string{"memcloud:" + oldMemcloudVersion}})
	require.NoError(t, err, "clusterctl init; its log:\n%s", r.log)
	assertInstalled(ctx, t, r.env.Client, oldMemcloudVersion, "v1beta1")
	step("clusterctl init installed memcloud " + oldMemcloudVersion)

	r.cloud, err = cloud.New(cloud.WithSeed(43))
	require.NoError(t, err)
	r.capi = capienv.StartT(t, r.env.Config, r.env.Client, capienv.AllComponents)
	r.old = startOldMemcloud(t, r.env, r.cloud)
	step("Cluster API and memcloud " + oldMemcloudVersion + " running")

	r.ns, err = r.env.CreateNamespace(ctx, "upgrade")
	require.NoError(t, err)
	dumpOnFailure(t, r.env.Client, "management cluster", r.ns)
	r.nodes = provision(ctx, t, r.env, r.ns, name, workers, v1beta1Objects(t))
	t.Cleanup(func() { assert.NoError(t, capienv.DeleteNodes(context.Background(), r.env.Client, r.nodes...)) })
	step("cluster provisioned on the v1beta1 contract: control plane and workers Running")
	return r
}

// v1beta1Objects are memcloud's objects as a user of v0.1.0 wrote them, in API version v1beta1: v0.1.0 had no
// defaulting webhook, so the MemCluster spells out its network, load balancer and ingress rules (the values
// v0.2.0's webhook defaults).
func v1beta1Objects(t *testing.T) infraObjects {
	var spec v1beta2.MemClusterSpec
	webhooks.DefaultMemClusterSpec(&spec)
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&spec)
	require.NoError(t, err)
	return infraObjects{
		cluster: func(ns, name string) client.Object {
			u := newOld(oldMemClusterGVK, ns, name)
			u.Object["spec"] = m
			return u
		},
		machine: func(ns, name string) client.Object { return newOld(oldMemMachineGVK, ns, name) },
		template: func(ns, name string) client.Object {
			u := newOld(oldMemTemplateGVK, ns, name)
			require.NoError(t, unstructured.SetNestedField(u.Object, string(v1beta2.FlavorSmall), "spec", "template", "spec", "flavor"))
			return u
		},
	}
}

// newUpgradeEnvironment starts a management cluster without memcloud, which clusterctl installs: Cluster API's
// CRDs and inventory (core and kubeadm bootstrap at the module's version), cert-manager's API (clusterctl init
// finds it in place and installs none; no certificate is ever issued here: the webhooks are routed to the
// in-process managers, whose certificate is envtest's), and envtest's webhook serving certificate.
func newUpgradeEnvironment(t *testing.T) *testenv.Environment {
	t.Helper()
	e, err := capienv.NewEnvironment(addToScheme, testenv.WithCRDs(certManagerCRDs()...),
		testenv.WithWebhooks(envtest.WebhookInstallOptions{}))
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, e.Stop()) })
	v, err := capienv.ModuleVersion("")
	require.NoError(t, err)
	providers, err := capienv.ClusterAPIProviders("", v, capienv.Core, capienv.KubeadmBootstrap)
	require.NoError(t, err)
	require.NoError(t, capienv.InstallInventory(t.Context(), e.Client, providers...))
	return e
}

// certManagerCRDs are cert-manager's Issuer and Certificate, without schema: what clusterctl creates of them.
func certManagerCRDs() []*apiextensionsv1.CustomResourceDefinition {
	schema := &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
		Type: "object", XPreserveUnknownFields: ptr.To(true)}}
	crd := func(plural, kind string) *apiextensionsv1.CustomResourceDefinition {
		return &apiextensionsv1.CustomResourceDefinition{
			ObjectMeta: metav1.ObjectMeta{Name: plural + ".cert-manager.io"},
			Spec: apiextensionsv1.CustomResourceDefinitionSpec{Group: "cert-manager.io", Scope: apiextensionsv1.NamespaceScoped,
				Names:    apiextensionsv1.CustomResourceDefinitionNames{Plural: plural, Kind: kind, ListKind: kind + "List"},
				Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true, Schema: schema}}},
		}
	}
	return []*apiextensionsv1.CustomResourceDefinition{crd("issuers", "Issuer"), crd("certificates", "Certificate")}
}

// release is what a release of memcloud publishes for clusterctl.
type release struct{ components, metadata []byte }

// memcloudRelease reads a release's files from examples/memcloud/config/dir ("" for today's).
func memcloudRelease(t *testing.T, dir string) release {
	t.Helper()
	read := func(file string) []byte {
		data, err := os.ReadFile(filepath.Join("..", "..", "examples", "memcloud", "config", dir, file))
		require.NoError(t, err)
		return data
	}
	return release{components: read("infrastructure-components.yaml"), metadata: read("metadata.yaml")}
}

// newClusterctl returns a clusterctl client whose repository is a local folder, as `clusterctl init` and
// `clusterctl upgrade` read a provider's releases: Cluster API core and kubeadm bootstrap at the module's
// version (their metadata; their components are never fetched, they are installed already), memcloud v0.1.0
// from examples/memcloud/config/releases and next as memcloud v0.2.0.
func newClusterctl(ctx context.Context, t *testing.T, next release) clusterctl.Client {
	t.Helper()
	base := t.TempDir()
	v, err := capienv.ModuleVersion("")
	require.NoError(t, err)
	moduleDir, err := capienv.ModuleDir("")
	require.NoError(t, err)
	capiMetadata, err := os.ReadFile(filepath.Join(moduleDir, "metadata.yaml"))
	require.NoError(t, err)
	write := func(label, version, file string, data []byte) string {
		path := filepath.Join(base, label, version, file)
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, data, 0o644))
		return path
	}
	core := write("cluster-api", v, "core-components.yaml", []byte("# installed by the test (capienv)\n"))
	write("cluster-api", v, "metadata.yaml", capiMetadata)
	bootstrap := write("bootstrap-kubeadm", v, "bootstrap-components.yaml", []byte("# installed by the test (capienv)\n"))
	write("bootstrap-kubeadm", v, "metadata.yaml", capiMetadata)
	old := memcloudRelease(t, filepath.Join("releases", oldMemcloudVersion))
	write("infrastructure-memcloud", oldMemcloudVersion, "infrastructure-components.yaml", old.components)
	write("infrastructure-memcloud", oldMemcloudVersion, "metadata.yaml", old.metadata)
	memcloud := write("infrastructure-memcloud", newMemcloudVersion, "infrastructure-components.yaml", next.components)
	write("infrastructure-memcloud", newMemcloudVersion, "metadata.yaml", next.metadata)

	reader := config.NewMemoryReader()
	for _, p := range []struct {
		name, url string
		typ       clusterctlv1.ProviderType
	}{
		{"cluster-api", core, clusterctlv1.CoreProviderType},
		{"kubeadm", bootstrap, clusterctlv1.BootstrapProviderType},
		{"memcloud", memcloud, clusterctlv1.InfrastructureProviderType},
	} {
		_, err := reader.AddProvider(p.name, p.typ, p.url)
		require.NoError(t, err)
	}
	cfg, err := config.New(ctx, "", config.InjectReader(reader))
	require.NoError(t, err)
	c, err := clusterctl.New(ctx, "", clusterctl.InjectConfig(cfg))
	require.NoError(t, err)
	return c
}

// assertInstalled checks clusterctl's inventory entry of memcloud and the storage version of its CRDs.
func assertInstalled(ctx context.Context, t *testing.T, c client.Client, version, storage string) {
	t.Helper()
	got := inventoryVersions(ctx, t, c)
	assert.Equal(t, version, got["memcloud-system/infrastructure-memcloud"], "clusterctl's inventory: %v", got)
	for _, name := range memcloudCRDs {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		require.NoError(t, c.Get(ctx, client.ObjectKey{Name: name}, crd))
		for _, v := range crd.Spec.Versions {
			if v.Storage {
				assert.Equal(t, storage, v.Name, "storage version of %s in memcloud %s", name, version)
			}
		}
	}
}

// assertV1beta1Shape checks that memcloud v0.1.0 wrote the v1beta1 contract's fields and no v1beta2 one.
func assertV1beta1Shape(ctx context.Context, t *testing.T, c client.Client, ns, name string) {
	t.Helper()
	mc := newOld(oldMemClusterGVK, ns, name)
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(mc), mc))
	ready, _, _ := unstructured.NestedBool(mc.Object, "status", "ready")
	assert.True(t, ready, "v0.1.0 writes the MemCluster's status.ready")
	l := &unstructured.UnstructuredList{}
	l.SetGroupVersionKind(oldMemMachineGVK.GroupVersion().WithKind("MemMachineList"))
	require.NoError(t, c.List(ctx, l, client.InNamespace(ns)))
	for _, mm := range l.Items {
		ready, _, _ := unstructured.NestedBool(mm.Object, "status", "ready")
		assert.True(t, ready, "v0.1.0 writes MemMachine %q's status.ready", mm.GetName())
		_, found, _ := unstructured.NestedFieldNoCopy(mm.Object, "status", "initialization")
		assert.False(t, found, "v0.1.0 knows nothing of status.initialization")
	}
}

// machineProviderIDs returns the providerID of each Machine of namespace ns, by name.
func machineProviderIDs(ctx context.Context, t *testing.T, c client.Client, ns string) map[string]string {
	t.Helper()
	list := &clusterv1.MachineList{}
	require.NoError(t, c.List(ctx, list, client.InNamespace(ns)))
	out := map[string]string{}
	for _, m := range list.Items {
		out[m.Name] = m.Spec.ProviderID
	}
	return out
}

// clusterEndpoint returns the Cluster's control plane endpoint.
func clusterEndpoint(ctx context.Context, t *testing.T, c client.Client, ns, name string) clusterv1.APIEndpoint {
	t.Helper()
	cluster := &clusterv1.Cluster{}
	require.NoError(t, c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, cluster))
	require.NotEmpty(t, cluster.Spec.ControlPlaneEndpoint.Host)
	return cluster.Spec.ControlPlaneEndpoint
}

// waitUpgraded waits until memcloud v0.2.0 has reconciled every object: each MemMachine and the MemCluster
// reads as provisioned in v1beta2 with v0.2.0's conditions, and every Machine runs.
func waitUpgraded(ctx context.Context, t *testing.T, c client.Client, ns, name string, workers int) {
	t.Helper()
	var last string
	require.Eventually(t, func() bool {
		mms := &v1beta2.MemMachineList{}
		if err := c.List(ctx, mms, client.InNamespace(ns)); err != nil {
			last = err.Error()
			return false
		}
		for _, mm := range mms.Items {
			if !ptr.Deref(mm.Status.Initialization.Provisioned, false) || mm.Status.ObservedGeneration != mm.Generation ||
				!meta.IsStatusConditionTrue(mm.Status.Conditions, v1beta2.InstanceReadyCondition) {
				last = fmt.Sprintf("MemMachine %q not reconciled by v0.2.0: %+v", mm.Name, mm.Status)
				return false
			}
		}
		mc := &v1beta2.MemCluster{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, mc); err != nil || !ptr.Deref(mc.Status.Initialization.Provisioned, false) ||
			!meta.IsStatusConditionTrue(mc.Status.Conditions, v1beta2.LoadBalancerReadyCondition) {
			last = fmt.Sprintf("MemCluster not reconciled by v0.2.0: %v %+v", err, mc.Status)
			return false
		}
		return len(mms.Items) == 1+workers
	}, moveWait, tick, "memcloud %s must reconcile every object: %v", newMemcloudVersion, stringer(func() string { return last }))
}

// dropVersion removes version from the CRD named name, as a release that stops serving it would.
func dropVersion(ctx context.Context, c client.Client, name, version string) error {
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := c.Get(ctx, client.ObjectKey{Name: name}, crd); err != nil {
		return err
	}
	crd.Spec.Versions = slices.DeleteFunc(crd.Spec.Versions, func(v apiextensionsv1.CustomResourceDefinitionVersion) bool { return v.Name == version })
	return c.Update(ctx, crd)
}

// assertReadable waits until the API server serves every MemMachine, MemMachineTemplate and MemCluster of ns in
// v1beta2 (it re-initializes a CRD's storage after the update), which it can only do for objects stored in a
// version the CRD still has.
func assertReadable(ctx context.Context, t *testing.T, c client.Client, ns string, machines int) {
	t.Helper()
	var err error
	require.Eventually(t, func() bool {
		mms, mcs, mmts := &v1beta2.MemMachineList{}, &v1beta2.MemClusterList{}, &v1beta2.MemMachineTemplateList{}
		for _, l := range []client.ObjectList{mms, mcs, mmts} {
			if err = c.List(ctx, l, client.InNamespace(ns)); err != nil {
				return false
			}
		}
		return len(mms.Items) == machines && len(mcs.Items) == 1 && len(mmts.Items) == 1
	}, moveWait, tick, "every memcloud object reads in v1beta2 once v1beta1 is dropped: %v", stringer(func() string { return fmt.Sprint(err) }))
}

// joinNewWorkers waits for the MachineDeployment's Machines beyond nodes, plays their kubelets and waits until
// want workers run; it returns the new Nodes' names.
func joinNewWorkers(ctx context.Context, t *testing.T, c client.Client, ns string, nodes []string, want int) []string {
	t.Helper()
	var joined []string
	require.Eventually(t, func() bool {
		list := &clusterv1.MachineList{}
		if c.List(ctx, list, client.InNamespace(ns), client.MatchingLabels{clusterv1.MachineDeploymentNameLabel: "workers"}) != nil {
			return false
		}
		running := 0
		for _, m := range list.Items {
			if m.Spec.ProviderID != "" && !slices.Contains(nodes, m.Name) && !slices.Contains(joined, m.Name) {
				if capienv.JoinNode(ctx, c, m.Name, m.Spec.ProviderID) != nil {
					return false
				}
				joined = append(joined, m.Name)
			}
			if m.Status.Phase == string(clusterv1.MachinePhaseRunning) {
				running++
			}
		}
		return running == want
	}, moveWait, tick, "the new worker must be provisioned by memcloud %s and run", newMemcloudVersion)
	for _, name := range joined {
		mm := &v1beta2.MemMachine{}
		require.NoError(t, c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, mm))
		assert.True(t, ptr.Deref(mm.Status.Initialization.Provisioned, false), "MemMachine %q provisioned on the v1beta2 contract", name)
	}
	return joined
}

// machineWatch samples the Machines of a namespace until stopped and records every sample in which one is not
// Running with InfrastructureReady true.
type machineWatch struct {
	cancel context.CancelFunc
	done   chan struct{}
	mu     sync.Mutex
	n      int
	bad    []string
}

// watchMachines starts sampling the Machines of ns every tick.
func watchMachines(ctx context.Context, t *testing.T, c client.Client, ns string) *machineWatch {
	ctx, cancel := context.WithCancel(ctx)
	w := &machineWatch{cancel: cancel, done: make(chan struct{})}
	t.Cleanup(w.stop)
	go func() {
		defer close(w.done)
		for ctx.Err() == nil {
			list := &clusterv1.MachineList{}
			if err := c.List(ctx, list, client.InNamespace(ns)); err == nil {
				w.mu.Lock()
				w.n++
				for _, m := range list.Items {
					if m.Status.Phase != string(clusterv1.MachinePhaseRunning) ||
						!meta.IsStatusConditionTrue(m.Status.Conditions, clusterv1.MachineInfrastructureReadyCondition) {
						cond := meta.FindStatusCondition(m.Status.Conditions, clusterv1.MachineInfrastructureReadyCondition)
						w.bad = append(w.bad, fmt.Sprintf("Machine %q: phase %q, InfrastructureReady %+v", m.Name, m.Status.Phase, cond))
					}
				}
				w.mu.Unlock()
			}
			select {
			case <-ctx.Done():
			case <-time.After(tick):
			}
		}
	}()
	return w
}

func (w *machineWatch) stop() {
	w.cancel()
	<-w.done
}

func (w *machineWatch) samples() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.n
}

func (w *machineWatch) violations() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.bad)
}

// webhookRoute points the webhooks clusterctl installs for memcloud (the CRDs' conversion webhook and the
// admission webhooks, which name memcloud's Service) at the in-process manager's webhook server, with envtest's
// CA: what the Service, its Pods and cert-manager's CA injector do in a real management cluster.
type webhookRoute struct {
	cancel context.CancelFunc
	done   chan struct{}
	mu     sync.Mutex
	routed map[string]bool
	err    error
}

// routeWebhooks starts routing memcloud's webhooks on e until the test ends.
func routeWebhooks(ctx context.Context, t *testing.T, e *testenv.Environment) *webhookRoute {
	t.Helper()
	wo := e.WebhookInstallOptions()
	base := "https://" + net.JoinHostPort(wo.LocalServingHost, strconv.Itoa(wo.LocalServingPort))
	ctx, cancel := context.WithCancel(ctx)
	r := &webhookRoute{cancel: cancel, done: make(chan struct{}), routed: map[string]bool{}}
	t.Cleanup(func() { r.cancel(); <-r.done })
	selector := client.MatchingLabels{clusterv1.ProviderNameLabel: "infrastructure-memcloud"}
	clientConfig := func(svc, path *string) (string, bool) {
		if svc == nil {
			return "", false
		}
		return base + ptr.Deref(path, "/"), true
	}
	go func() {
		defer close(r.done)
		for ctx.Err() == nil {
			err := r.routeOnce(ctx, e.Client, selector, wo.LocalServingCAData, clientConfig)
			r.mu.Lock()
			r.err = err
			r.mu.Unlock()
			select {
			case <-ctx.Done():
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	return r
}

// routeOnce rewrites every webhook of memcloud that still names a Service.
func (r *webhookRoute) routeOnce(ctx context.Context, c client.Client, selector client.MatchingLabels, ca []byte,
	url func(svc, path *string) (string, bool)) error {
	crds := &apiextensionsv1.CustomResourceDefinitionList{}
	if err := c.List(ctx, crds, selector); err != nil {
		return err
	}
	for i := range crds.Items {
		crd := &crds.Items[i]
		conv := crd.Spec.Conversion
		if conv == nil || conv.Webhook == nil || conv.Webhook.ClientConfig == nil || conv.Webhook.ClientConfig.Service == nil {
			continue
		}
		u, _ := url(&conv.Webhook.ClientConfig.Service.Name, conv.Webhook.ClientConfig.Service.Path)
		conv.Webhook.ClientConfig = &apiextensionsv1.WebhookClientConfig{URL: &u, CABundle: ca}
		if err := c.Update(ctx, crd); err != nil {
			return err
		}
		r.mark("crd/" + crd.Name)
	}
	validating := &admissionregistrationv1.ValidatingWebhookConfigurationList{}
	mutating := &admissionregistrationv1.MutatingWebhookConfigurationList{}
	if err := c.List(ctx, validating, selector); err != nil {
		return err
	}
	if err := c.List(ctx, mutating, selector); err != nil {
		return err
	}
	route := func(cc *admissionregistrationv1.WebhookClientConfig) bool {
		if cc.Service == nil {
			return false
		}
		u, _ := url(&cc.Service.Name, cc.Service.Path)
		*cc = admissionregistrationv1.WebhookClientConfig{URL: &u, CABundle: ca}
		return true
	}
	for i := range validating.Items {
		o, changed := &validating.Items[i], false
		for j := range o.Webhooks {
			changed = route(&o.Webhooks[j].ClientConfig) || changed
		}
		if changed {
			if err := c.Update(ctx, o); err != nil {
				return err
			}
			r.mark("validating/" + o.Name)
		}
	}
	for i := range mutating.Items {
		o, changed := &mutating.Items[i], false
		for j := range o.Webhooks {
			changed = route(&o.Webhooks[j].ClientConfig) || changed
		}
		if changed {
			if err := c.Update(ctx, o); err != nil {
				return err
			}
			r.mark("mutating/" + o.Name)
		}
	}
	return nil
}

func (r *webhookRoute) mark(what string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.routed[what] = true
}

// wait waits until the three converted CRDs and both webhook configurations are routed.
func (r *webhookRoute) wait(ctx context.Context) error {
	want := []string{"validating/memcloud-validating-webhook-configuration", "mutating/memcloud-mutating-webhook-configuration"}
	for _, crd := range memcloudCRDs {
		want = append(want, "crd/"+crd)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		r.mu.Lock()
		missing := slices.DeleteFunc(slices.Clone(want), func(w string) bool { return r.routed[w] })
		err := r.err
		r.mu.Unlock()
		if len(missing) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not routed: %v (last error: %w)", missing, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// labelOnlyRelease is the release CAPK #391 shipped, made from v0.1.0: the CRDs' contract label moved to
// cluster.x-k8s.io/v1beta2 (still naming API version v1beta1) and metadata.yaml advertises v1beta2 for the 0.2
// series, while the schema and the manager stay v0.1.0's.
func labelOnlyRelease(t *testing.T) release {
	t.Helper()
	old := memcloudRelease(t, filepath.Join("releases", oldMemcloudVersion))
	const from, to = "cluster.x-k8s.io/v1beta1: v1beta1", "cluster.x-k8s.io/v1beta2: v1beta1"
	require.Equal(t, len(memcloudCRDs), strings.Count(string(old.components), from), "v0.1.0's CRDs carry the v1beta1 contract label")
	return release{components: []byte(strings.ReplaceAll(string(old.components), from, to)), metadata: memcloudRelease(t, "").metadata}
}

// checkRelease runs capkit check's release rules on r's files, as `capkit check` does on a release folder.
func checkRelease(t *testing.T, r release) lint.Violations {
	t.Helper()
	dir := t.TempDir()
	var files []*capkitclusterctl.YAMLFile
	for name, data := range map[string][]byte{"infrastructure-components.yaml": r.components, "metadata.yaml": r.metadata} {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, data, 0o644))
		f, err := capkitclusterctl.ReadYAMLFile(path)
		require.NoError(t, err)
		files = append(files, f)
	}
	findings, err := capkitclusterctl.CheckFiles(files...)
	require.NoError(t, err)
	return findings.Violations()
}

// TestLabelOnlyReleaseIsCaughtAndBreaksProvisioning is the same upgrade with the release that only moves the
// contract label (CAPK #391). capkit check refuses it before it ships, with one violation for each CRD whose
// contract has status fields (MemCluster, MemMachine), which names the missing field, and passes both real releases. Shipped anyway, clusterctl installs it without a complaint, and
// Cluster API then reads status.initialization.provisioned, which the v1beta1 schema cannot hold: a worker added
// after the upgrade gets its instance and status.ready, and its Machine never gets further than Provisioning.
func TestLabelOnlyReleaseIsCaughtAndBreaksProvisioning(t *testing.T) {
	ctx := context.Background()
	step := capienv.StepTimer(t)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())

	assert.Empty(t, checkRelease(t, memcloudRelease(t, filepath.Join("releases", oldMemcloudVersion))).Strings(), "capkit check passes v0.1.0")
	assert.Empty(t, checkRelease(t, memcloudRelease(t, "")).Strings(), "capkit check passes v0.2.0")
	labelOnly := labelOnlyRelease(t)
	violations := checkRelease(t, labelOnly)
	// One per CRD that the contract gives fields: MemMachineTemplate's label moves harmlessly.
	require.Len(t, violations, 2, "one violation for MemCluster and one for MemMachine: %v", violations.Strings())
	for i, kind := range []string{"memclusters", "memmachines"} {
		v := violations[i]
		assert.Equal(t, "CustomResourceDefinition/"+kind+"."+v1beta2.GroupName, v.Object)
		assert.Equal(t, "crd.contract-shape", v.Rule, v.String())
		assert.Contains(t, v.Message, "status.initialization.provisioned", "the message names the field to add: %s", v)
	}
	t.Logf("capkit check on the label-only release:\n%s", strings.Join(violations.Strings(), "\n"))

	// Shipped anyway.
	const name = "wl"
	run := startOnOldRelease(ctx, t, labelOnly, name, 1, step)
	e := run.env
	require.NoError(t, run.old.Stop())
	err := run.clusterctl.ApplyUpgrade(ctx, clusterctl.ApplyUpgradeOptions{Kubeconfig: clusterctl.Kubeconfig{Path: run.kubeconfig},
		InfrastructureProviders: []string{"memcloud-system/memcloud:" + newMemcloudVersion}})
	require.NoError(t, err, "clusterctl has nothing against the label-only release; its log:\n%s", run.log)
	assertInstalled(ctx, t, e.Client, newMemcloudVersion, "v1beta1")
	run.old = startOldMemcloud(t, e, run.cloud) // the release's manager is v0.1.0's
	step("upgraded to the label-only release")

	md := &clusterv1.MachineDeployment{}
	require.NoError(t, e.Client.Get(ctx, client.ObjectKey{Namespace: run.ns, Name: "workers"}, md))
	md.Spec.Replicas = ptr.To[int32](2)
	require.NoError(t, e.Client.Update(ctx, md))

	// The new worker's MemMachine: instance running and status.ready true.
	var mm *unstructured.Unstructured
	require.Eventually(t, func() bool {
		l := &unstructured.UnstructuredList{}
		l.SetGroupVersionKind(oldMemMachineGVK.GroupVersion().WithKind("MemMachineList"))
		if e.Client.List(ctx, l, client.InNamespace(run.ns)) != nil {
			return false
		}
		for i := range l.Items {
			if slices.Contains(run.nodes, l.Items[i].GetName()) {
				continue
			}
			ready, _, _ := unstructured.NestedBool(l.Items[i].Object, "status", "ready")
			state, _, _ := unstructured.NestedString(l.Items[i].Object, "status", "instanceState")
			if ready && state == string(cloud.InstanceRunning) {
				mm = &l.Items[i]
				return true
			}
		}
		return false
	}, moveWait, tick, "the label-only release's manager provisions the new worker's instance")
	step("the new worker's instance runs and its MemMachine says status.ready: true")

	// Cluster API reconciles the Machine after that and still waits for status.initialization.provisioned: its log
	// says so twice more (the second time from a reconcile that started after status.ready was set), with the
	// Machine touched to make it reconcile.
	logPath := run.capi.Get(capienv.Core).LogPath()
	waiting := func() int {
		data, err := os.ReadFile(logPath)
		require.NoError(t, err)
		n := 0
		for _, line := range strings.Split(string(data), "\n") {
			if strings.Contains(line, "Waiting for infrastructure provider to set status.initialization.provisioned on MemMachine") &&
				strings.Contains(line, mm.GetName()) {
				n++
			}
		}
		return n
	}
	machine := client.ObjectKey{Namespace: run.ns, Name: mm.GetName()}
	seen := waiting()
	require.Eventually(t, func() bool {
		if waiting() >= seen+2 {
			return true
		}
		_, _ = capienv.NudgeMachineWithoutNodeRef(ctx, e.Client, machine) // an error shows as the timeout
		return false
	}, moveWait, tick, "Cluster API reconciles the Machine and waits for status.initialization.provisioned")
	m := &clusterv1.Machine{}
	require.NoError(t, e.Client.Get(ctx, machine, m))
	assert.Empty(t, m.Spec.ProviderID, "Cluster API never copies the providerID")
	assert.False(t, ptr.Deref(m.Status.Initialization.InfrastructureProvisioned, false), "nor sees the infrastructure provisioned")
	assert.Equal(t, string(clusterv1.MachinePhaseProvisioning), m.Status.Phase)
	_, found, _ := unstructured.NestedFieldNoCopy(mm.Object, "status", "initialization")
	assert.False(t, found, "the v1beta1 schema has no status.initialization to write")
	step(fmt.Sprintf("Machine %q stays %s: %d log lines of Cluster API waiting for status.initialization.provisioned", m.Name, m.Status.Phase, waiting()))
}

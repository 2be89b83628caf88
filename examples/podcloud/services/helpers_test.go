package services_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/examples/podcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/podcloud/services"
	"github.com/capkit/capkit/providertest/testenv"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope"
	"github.com/capkit/capkit/scope/scopetest"
)

// env is the target cluster of every test: a real kube-apiserver and etcd, without controllers. Pods stay
// Pending until a test writes their status, and a scheduled Pod deleted gracefully stays until a test
// deletes it with a grace period of 0, as the kubelet would.
var env *testenv.Environment

func TestMain(m *testing.M) { testenv.Main(m, &env, testenv.WithoutCAPICRDs()) }

// poll is the poll interval of Ensure outside a reconcile, as servicetest calls the services: it is only
// compared, never waited for.
const poll = step.DefaultPollInterval

// Names of the management cluster side: the fake scopes never reach an API server, so the management
// namespace needs not exist.
const (
	mgmtNamespace = "mgmt"
	clusterName   = "c1"
	// kubeVersion is the Machines' spec.version.
	kubeVersion = "v1.36.3"
)

// clusterFake is the fake scope of a PodCluster.
type clusterFake = *scopetest.FakeClusterScope[*v1beta2.PodCluster]

// machineFake is the fake scope of a PodMachine.
type machineFake = *scopetest.FakeMachineScope[*v1beta2.PodMachine]

// createServiceAccount creates the ServiceAccount name in ns: Pods are refused without it (admission).
func createServiceAccount(t testing.TB, ns, name string) {
	t.Helper()
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	require.NoError(t, env.Client.Create(t.Context(), sa))
}

// clusterScope returns a new fake scope of the PodCluster of Cluster cluster, whose objects live in the
// target namespace ns; edit changes the PodCluster before the test.
func clusterScope(cluster, ns string, edit ...func(*v1beta2.PodCluster)) clusterFake {
	pc := &v1beta2.PodCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: mgmtNamespace, Name: cluster, Generation: 1},
		Spec:       v1beta2.PodClusterSpec{Namespace: ns},
	}
	for _, e := range edit {
		e(pc)
	}
	return &scopetest.FakeClusterScope[*v1beta2.PodCluster]{FakeObject: scopetest.FakeObject[*v1beta2.PodCluster]{
		Object: pc, OwnershipKeyValue: "key-" + cluster, ClusterInfo: scope.ClusterInfo{Name: cluster},
	}}
}

// machineOpt changes a machine scope before the test.
type machineOpt func(machineFake)

// controlPlane makes the Machine a control plane Machine.
func controlPlane(s machineFake) { s.MachineInfo.ControlPlane = true }

// inZone makes Cluster API place the Machine in zone ("" for none).
func inZone(zone string) machineOpt {
	return func(s machineFake) { s.MachineInfo.FailureDomain = zone }
}

// ofCluster makes the machine belong to Cluster name.
func ofCluster(name string) machineOpt {
	return func(s machineFake) { s.ClusterInfo.Name = name }
}

// withData sets the bootstrap data.
func withData(data string) machineOpt {
	return func(s machineFake) { s.BootstrapValue = []byte(data) }
}

// machineScope returns a new fake scope of PodMachine name of Cluster "c1": a worker of Kubernetes
// kubeVersion placed in zone "zone-a", whose bootstrap data is joinData.
func machineScope(name string, opts ...machineOpt) machineFake {
	s := &scopetest.FakeMachineScope[*v1beta2.PodMachine]{
		FakeObject: scopetest.FakeObject[*v1beta2.PodMachine]{
			Object:            &v1beta2.PodMachine{ObjectMeta: metav1.ObjectMeta{Namespace: mgmtNamespace, Name: name, Generation: 1}},
			OwnershipKeyValue: "key-" + name,
			ClusterInfo:       scope.ClusterInfo{Name: clusterName, InfrastructureProvisioned: true},
		},
		MachineInfo:    scope.MachineInfo{Name: name, Version: kubeVersion, FailureDomain: "zone-a", BootstrapDataSecretName: name},
		BootstrapValue: []byte(joinData),
	}
	for _, o := range opts {
		o(s)
	}
	return s
}

// clusterWithoutServiceAccount is a Cluster whose PodCluster has not recorded its ServiceAccount yet.
const clusterWithoutServiceAccount = "c-new"

// lookupIn returns the ClusterLookup of machines whose PodCluster keeps its objects in ns: the PodCluster
// has recorded its ServiceAccount, but that of clusterWithoutServiceAccount.
func lookupIn(ns string) services.ClusterLookup {
	return services.ClusterLookupFunc(func(_ context.Context, c scope.ClusterInfo) (*v1beta2.PodCluster, error) {
		pc := &v1beta2.PodCluster{
			ObjectMeta: metav1.ObjectMeta{Namespace: mgmtNamespace, Name: c.Name},
			Spec:       v1beta2.PodClusterSpec{Namespace: ns},
		}
		if c.Name != clusterWithoutServiceAccount {
			pc.Status.Resources = map[string]string{services.KeyServiceAccount: ns + "/" + services.ServiceAccountName(c.Name) + "/uid-1"}
		}
		return pc, nil
	})
}

// noPodCluster is the lookup of a machine whose PodCluster is gone.
var noPodCluster = services.ClusterLookupFunc(func(context.Context, scope.ClusterInfo) (*v1beta2.PodCluster, error) {
	return nil, scope.ErrNoInfraCluster
})

// get reads the object named like obj (namespace and name) from the API server into obj.
func get(t testing.TB, obj client.Object) {
	t.Helper()
	require.NoError(t, env.Client.Get(t.Context(), client.ObjectKeyFromObject(obj), obj))
}

// exists reports whether the object named like obj exists.
func exists(t testing.TB, obj client.Object) bool {
	t.Helper()
	err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(obj), obj)
	if apierrors.IsNotFound(err) {
		return false
	}
	require.NoError(t, err)
	return true
}

// owned lists the objects of list's kind in ns that carry the ownership key of an owner.
func owned(t testing.TB, list client.ObjectList, ns, ownershipKey string) {
	t.Helper()
	require.NoError(t, env.Client.List(t.Context(), list, client.InNamespace(ns),
		client.MatchingLabels{ensure.TagOwnershipKey: ownershipKey}))
}

// podOf returns the Pod of a machine scope, by name, in ns.
func podOf(t testing.TB, ns string, s machineFake) *corev1.Pod {
	t.Helper()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: s.Object.Name}}
	get(t, pod)
	return pod
}

// setPodStatus writes the status of the Pod as the kubelet would.
func setPodStatus(t testing.TB, pod *corev1.Pod, status corev1.PodStatus) {
	t.Helper()
	get(t, pod)
	pod.Status = status
	require.NoError(t, env.Client.Status().Update(t.Context(), pod))
}

// running is the status of a Pod that runs with IP ip.
func running(ip string) corev1.PodStatus {
	return corev1.PodStatus{Phase: corev1.PodRunning, PodIP: ip, PodIPs: []corev1.PodIP{{IP: ip}}}
}

// bind schedules the Pod onto node, as the scheduler would.
func bind(t testing.TB, pod *corev1.Pod, node string) {
	t.Helper()
	b := &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Namespace: pod.Namespace, Name: pod.Name},
		Target: corev1.ObjectReference{Kind: "Node", Name: node}}
	require.NoError(t, env.Client.SubResource("binding").Create(t.Context(), pod, b))
	get(t, pod)
	require.Equal(t, node, pod.Spec.NodeName)
}

// forceDelete deletes the Pod at once, as the kubelet does once its containers stopped.
func forceDelete(t testing.TB, pod *corev1.Pod) {
	t.Helper()
	err := env.Client.Delete(t.Context(), pod, client.GracePeriodSeconds(0))
	require.NoError(t, client.IgnoreNotFound(err))
}

// createNode creates a Node of the target cluster, in zone when not empty, and deletes it after the test:
// nodes are cluster-wide, so no test of this package that creates nodes runs in parallel.
func createNode(t testing.TB, name, zone string) {
	t.Helper()
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if zone != "" {
		n.Labels = map[string]string{corev1.LabelTopologyZone: zone}
	}
	require.NoError(t, env.Client.Create(t.Context(), n))
	t.Cleanup(func() {
		err := env.Client.Delete(context.Background(), n, client.GracePeriodSeconds(0))
		if err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("cannot delete node %s: %v", name, err)
		}
	})
}

// errBootstrapReadAgain is a bootstrap data error: a scope that returns it fails any step that reads the data.
var errBootstrapReadAgain = errors.New("the bootstrap data was read again")

// preMachine runs a machine step once on a scope, to bring it into the starting state of a case, and
// requires that the result is want (nil: any result without error).
func preMachine(t testing.TB, svc reconcile.Service[services.MachineScope], s machineFake, want *step.Result) {
	t.Helper()
	pre(t, svc, services.MachineScope(s), want)
}

// preCluster is preMachine for a cluster step.
func preCluster(t testing.TB, svc reconcile.Service[services.ClusterScope], s clusterFake, want *step.Result) {
	t.Helper()
	pre(t, svc, services.ClusterScope(s), want)
}

func pre[S any](t testing.TB, svc reconcile.Service[S], s S, want *step.Result) {
	t.Helper()
	res, err := svc.Reconcile(t.Context(), s)
	require.NoError(t, err)
	if want != nil {
		require.Equal(t, *want, res)
	}
}

// provisionedEndpoint returns the cluster steps and a cluster scope in a fresh namespace on which the endpoint
// step is done, and the control plane Service it made.
func provisionedEndpoint(t *testing.T) (*clusterSteps, clusterFake, *corev1.Service) {
	t.Helper()
	steps := newClusterSteps(t)
	s := clusterScope(clusterName, env.Namespace(t, "podcloud"))
	preCluster(t, steps.endpoint, s, &done)
	return steps, s, serviceOf(t, s)
}

// done is the result of a step that is done.
var done = step.Result{Done: true}

// pendingPod is the result of the Pod step for a Pod (ID id, named name) that is not scheduled.
func pendingPod(id, name string) step.Result {
	return step.Result{Reason: services.ReasonPodPending, RequeueAfter: poll,
		Message: `resource "pod" (id "` + id + `"): pod ` + name + ` is Pending, not scheduled yet`}
}

// podID returns the ID ("namespace/name/uid") spec.providerID records.
func podID(t testing.TB, s machineFake) string {
	t.Helper()
	id, err := v1beta2.PodIDFromProviderID(s.Object.Spec.ProviderID)
	require.NoError(t, err)
	return id
}

// boolPtr is ptr.To for the assertions on *bool fields.
func boolPtr(b bool) *bool { return ptr.To(b) }

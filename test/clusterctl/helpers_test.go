package clusterctl_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	bootstrapv1 "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/controllers"
	"github.com/capkit/capkit/examples/memcloud/webhooks"
	"github.com/capkit/capkit/providertest/testenv"
	"github.com/capkit/capkit/test/internal/capienv"
)

// The helpers of this file are test/e2e's (helpers_test.go), with the API server as an argument: a move has two.

const kubernetesVersion = "v1.35.0"

// memRef references a memcloud object, as Cluster and Machine specs do.
func memRef(kind, name string) clusterv1.ContractVersionedObjectReference {
	return clusterv1.ContractVersionedObjectReference{APIGroup: v1beta2.GroupName, Kind: kind, Name: name}
}

// kubeadmRef references a kubeadm bootstrap config or template.
func kubeadmRef(kind, name string) clusterv1.ContractVersionedObjectReference {
	return clusterv1.ContractVersionedObjectReference{APIGroup: bootstrapv1.GroupVersion.Group, Kind: kind, Name: name}
}

// createAll creates objs in order through c.
func createAll(ctx context.Context, c client.Client, objs ...client.Object) error {
	for _, o := range objs {
		if err := c.Create(ctx, o); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	return nil
}

// joinNode plays the kubelet of a booted instance: it creates a Node with providerID in the workload cluster
// (the API server of c) and reports it Ready without memory, disk or PID pressure, which Cluster API's
// NodeHealthy needs. A Node that exists already is left as it is.
func joinNode(ctx context.Context, c client.Client, name, providerID string) error {
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.NodeSpec{ProviderID: providerID}}
	if err := c.Create(ctx, node); err != nil {
		if apierrors.IsAlreadyExists(err) {
			return nil
		}
		return err
	}
	now := metav1.Now()
	for _, cond := range []struct {
		typ    corev1.NodeConditionType
		status corev1.ConditionStatus
	}{
		{corev1.NodeReady, corev1.ConditionTrue}, {corev1.NodeMemoryPressure, corev1.ConditionFalse},
		{corev1.NodeDiskPressure, corev1.ConditionFalse}, {corev1.NodePIDPressure, corev1.ConditionFalse},
	} {
		node.Status.Conditions = append(node.Status.Conditions, corev1.NodeCondition{Type: cond.typ, Status: cond.status,
			Reason: "CapkitClusterctl", LastHeartbeatTime: now, LastTransitionTime: now})
	}
	return c.Status().Update(ctx, node)
}

// deleteNodes deletes the Nodes named names that are left (Cluster API keeps the last control plane Node of a
// deleted cluster).
func deleteNodes(ctx context.Context, c client.Client, names ...string) error {
	for _, n := range names {
		if err := c.Delete(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n}}); client.IgnoreNotFound(err) != nil {
			return err
		}
	}
	return nil
}

// dumpKinds are the kinds dumpOnFailure prints: Cluster API's and memcloud's.
var dumpKinds = append(slices.Clone(capienv.DumpKinds),
	v1beta2.GroupVersion.WithKind("MemCluster"), v1beta2.GroupVersion.WithKind("MemMachine"))

// dumpOnFailure prints the Cluster API and memcloud objects of namespace ns in the API server of c, named
// what, when the test fails.
func dumpOnFailure(t *testing.T, c client.Client, what, ns string) {
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("objects in %q of the %s:\n%s", ns, what, capienv.Dump(context.Background(), c, ns, dumpKinds...))
		}
	})
}

// logLines is how many lines of memcloud's log a failed test prints.
const logLines = 60

// startMemcloud starts memcloud's controllers and webhooks in-process on e (testenv.StartManager) on cloud cl,
// which outlives the manager as a real cloud outlives a management cluster, logging to a file named after what.
// memcloudtest.StartProvider would make a cloud of its own. At cleanup it stops the manager and, if the test
// failed, prints the tail of its log.
func startMemcloud(t *testing.T, e *testenv.Environment, cl *cloud.Cloud, what string) *testenv.Manager {
	t.Helper()
	path := filepath.Join(t.TempDir(), what+"-memcloud.log")
	f, err := os.Create(path)
	if err != nil {
		t.Fatalf("cannot create memcloud's log: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	m, err := e.StartManager(ctx, zap.New(zap.WriteTo(f), zap.UseDevMode(false)), func(mgr ctrl.Manager) error {
		if err := controllers.SetupWithManager(mgr, cl, controllers.WithPollInterval(100*time.Millisecond)); err != nil {
			return err
		}
		return webhooks.SetupWithManager(mgr)
	})
	if err != nil {
		_ = f.Close()
		t.Fatalf("cannot start memcloud on the %s: %v\n%s", what, err, tail(path, logLines))
	}
	t.Cleanup(func() {
		if err := m.Stop(); err != nil {
			t.Errorf("memcloud's manager on the %s: %v", what, err)
		}
		if t.Failed() {
			t.Logf("memcloud's log on the %s, last %d lines (%s):\n%s", what, logLines, path, tail(path, logLines))
		}
		_ = f.Close()
	})
	return m
}

// tail returns the last n lines of the file at path.
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// writeKubeconfig writes a kubeconfig file for the API server of e, as clusterctl's --kubeconfig and
// --to-kubeconfig read them, and returns its path.
func writeKubeconfig(t *testing.T, e *testenv.Environment, name string) string {
	t.Helper()
	b, err := capienv.Kubeconfig(e.Config, name)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name+".kubeconfig")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

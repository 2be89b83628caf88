package clusterctl_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	bootstrapv1 "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/memcloudtest"
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

// dumpOnFailure prints the Cluster API and memcloud objects of namespace ns in the API server of c, named
// what, when the test fails.
func dumpOnFailure(t *testing.T, c client.Client, what, ns string) {
	capienv.DumpOnFailure(t, c, what, ns, v1beta2.GroupVersion.WithKind("MemCluster"), v1beta2.GroupVersion.WithKind("MemMachine"))
}

// logLines is how many lines of memcloud's log a failed test prints.
const logLines = 60

// startMemcloud starts memcloud's controllers and webhooks in-process on e on cloud cl, which outlives the
// manager as a real cloud outlives a management cluster, logging to a file named after what. At cleanup it
// stops the manager and, if the test failed, prints the tail of its log.
func startMemcloud(t *testing.T, e *testenv.Environment, cl *cloud.Cloud, what string) *memcloudtest.Provider {
	t.Helper()
	path := filepath.Join(t.TempDir(), what+"-memcloud.log")
	f, err := os.Create(path)
	if err != nil {
		t.Fatalf("cannot create memcloud's log: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p, err := memcloudtest.StartProvider(ctx, e, memcloudtest.Options{Shared: cl, PollInterval: 100 * time.Millisecond,
		Logger: zap.New(zap.WriteTo(f), zap.UseDevMode(false))})
	if err != nil {
		_ = f.Close()
		t.Fatalf("cannot start memcloud on the %s: %v\n%s", what, err, capienv.TailFile(path, logLines))
	}
	t.Cleanup(func() {
		if err := p.Stop(); err != nil {
			t.Errorf("memcloud's manager on the %s: %v", what, err)
		}
		if t.Failed() {
			t.Logf("memcloud's log on the %s, last %d lines (%s):\n%s", what, logLines, path, capienv.TailFile(path, logLines))
		}
		_ = f.Close()
	})
	return p
}

// writeKubeconfig writes a kubeconfig file for the API server of e, as clusterctl's --kubeconfig and
// --to-kubeconfig read them, and returns its path.
func writeKubeconfig(t *testing.T, e *testenv.Environment, name string) string {
	t.Helper()
	path, err := capienv.WriteKubeconfig(t.TempDir(), e.Config, name)
	require.NoError(t, err)
	return path
}

// deleteCluster deletes Cluster ns/name on the API server of c and waits until Cluster API and memcloud have
// deleted it with its Machines and infrastructure.
func deleteCluster(ctx context.Context, t *testing.T, c client.Client, ns, name string) {
	t.Helper()
	cluster := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	require.NoError(t, c.Delete(ctx, cluster))
	require.Eventually(t, func() bool {
		err := c.Get(ctx, client.ObjectKeyFromObject(cluster), &clusterv1.Cluster{})
		return client.IgnoreNotFound(err) == nil && err != nil
	}, moveWait, tick, "deleting the Cluster deletes its Machines and infrastructure")
}

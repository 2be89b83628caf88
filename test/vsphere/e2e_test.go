package vsphere_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/capkit/capkit/examples/vspherecloud/services"
	"github.com/capkit/capkit/examples/vspherecloud/vspheretest"
	"github.com/capkit/capkit/ipam"
	"github.com/capkit/capkit/test/internal/capienv"
)

// settle is how long a crash test lets a provider meet the clones in flight before they end: a few of its polls.
const settle = 5 * time.Second

// TestVSphereCloudWithRealClusterAPI runs vspherecloud's manager as a process with the real Cluster API managers on
// the simulator: three clusters provision (the Machines reach Running once the harness plays their kubelets) and
// delete with one clone per machine and no VM left, a manager killed the moment its clone call reaches vCenter
// makes no second VM once it is started again, and clusters deleted while their clones run leave no VM. vspherecloud
// has no operation bookkeeping of its own: the clone is an operation of capkit's ensure (ensure.Accepted).
func TestVSphereCloudWithRealClusterAPI(t *testing.T) {
	ctx := t.Context()
	w := newWorld(t)
	r := w.start(t, capkitProvider("--poll-interval=1s"))

	t.Run("fleet", func(t *testing.T) {
		f, err := runFleet(ctx, r, 3, 0, joinNodes)
		require.NoError(t, err)
		assert.Equal(t, 3, f.vms, "one VM per machine")
		assert.Equal(t, 3, f.clones, "one clone per machine")
		assert.Zero(t, f.left, "no VM left after the delete")
		t.Logf("3 clusters of one control plane Machine each: provisioned in %s (Machines Running once their kubelets were played), "+
			"deleted in %s; %d VMs cloned once each, %d left", f.provision.Round(time.Millisecond), f.delete.Round(time.Millisecond), f.vms, f.left)
		t.Logf("vspherecloud's requests: vCenter %d to provision, %d to delete; API server %d to provision (%d writes in all), %d to delete",
			f.vcProvision, f.vcDelete, f.k8sProvision, f.writes, f.k8sDelete)
	})
	t.Run("failure domains", func(t *testing.T) {
		placed, err := failureDomains(ctx, r)
		require.NoError(t, err)
		assert.Equal(t, []string{"fd-a", "fd-b"}, placed.cluster, "Cluster API copied the VSphereCluster's failure domains to the Cluster")
		assert.Equal(t, vspheretest.OtherComputeCluster, placed.computeCluster, "the VM runs in the compute cluster of its Machine's failure domain")
		t.Logf("failure domains %v reported on the Cluster; the Machine of fd-b runs in compute cluster %s", placed.cluster, placed.computeCluster)
	})
	t.Run("virtual IP", func(t *testing.T) {
		vip, err := virtualIP(ctx, t, r)
		require.NoError(t, err)
		assert.Equal(t, clusterv1.APIEndpoint{Host: "10.20.0.10", Port: 6443}, vip.endpoint,
			"the Cluster's endpoint is the first address of the pool, which Cluster API copied from the VSphereCluster")
		assert.Equal(t, "10.20.0.10", vip.address, "the IPAddress the in-cluster IPAM provider made for the claim")
		assert.Zero(t, vip.claimsLeft, "the delete released the claim")
		t.Logf("control plane endpoint %s:%d from an InClusterIPPool of the real in-cluster IPAM provider; %d claims left after the delete",
			vip.endpoint.Host, vip.endpoint.Port, vip.claimsLeft)
	})
	t.Run("crash during clone", func(t *testing.T) {
		c, err := crashDuringClone(ctx, r, 2, settle)
		require.NoError(t, err)
		assert.Equal(t, 2, c.provisioned, "every machine provisions after the restart")
		assert.Equal(t, 2, c.vms, "no duplicate VM")
		// The VM's name is its idempotency (ensure.IdempotentByName): the restarted manager, finding a note of a
		// create but no VM yet, may clone again; vCenter fails the second clone of a name with DuplicateName.
		assert.LessOrEqual(t, c.clones, 4, "at most one more clone per machine")
		assert.Zero(t, c.left)
		t.Logf("manager killed the moment its first clone call reached vCenter, then started again: %d machines provisioned with %d VMs "+
			"(%d clones, the extra ones refused as DuplicateName), %d VMs left after the delete", c.machines, c.vms, c.clones, c.left)
	})
	t.Run("delete during clone", func(t *testing.T) {
		c, err := deleteDuringClone(ctx, r, 2, settle)
		require.NoError(t, err)
		assert.Zero(t, c.left, "the delete waited for the clones and destroyed their VMs")
		assert.Equal(t, 2, c.clones)
		t.Logf("clusters deleted while their clones ran: the delete waited for the clone tasks, %d clones, %d VMs leaked", c.clones, c.left)
	})
}

// joinNodes plays the kubelet of every provisioned Machine of ns, named after its VM, and waits until each is
// Running.
func joinNodes(ctx context.Context, ns string) error {
	var machines clusterv1.MachineList
	if err := env.Client.List(ctx, &machines, client.InNamespace(ns)); err != nil {
		return err
	}
	for _, m := range machines.Items {
		if _, err := services.IDFromProviderID(m.Spec.ProviderID); err != nil {
			return err
		}
		key := client.ObjectKeyFromObject(&m)
		if err := waitFor(ctx, time.Minute, "Machine "+key.String()+" Running", func() (bool, error) {
			if _, err := capienv.JoinFirstControlPlaneNode(ctx, env.Client, key, m.Name, m.Spec.ProviderID); err != nil {
				return false, err
			}
			got := &clusterv1.Machine{}
			err := env.Client.Get(ctx, key, got)
			return got.Status.Phase == string(clusterv1.MachinePhaseRunning), err
		}); err != nil {
			return err
		}
	}
	return nil
}

// placed is where failureDomains found things: the failure domains on the Cluster, and the compute cluster of the
// VM.
type placed struct {
	cluster        []string
	computeCluster string
}

// failureDomains provisions a cluster whose VSphereCluster has a failure domain in each of the simulator's compute
// clusters and whose Machine is placed in the second, then deletes it.
func failureDomains(ctx context.Context, r *running) (placed, error) {
	var p placed
	ns := r.namespace(ctx, "fd")
	err := r.createCluster(ctx, ns, "fd", func(vc *unstructured.Unstructured, m *clusterv1.Machine) {
		vc.Object["spec"].(map[string]any)["failureDomains"] = []any{
			map[string]any{"name": "fd-a", "computeCluster": vspheretest.ComputeCluster},
			map[string]any{"name": "fd-b", "computeCluster": vspheretest.OtherComputeCluster},
		}
		m.Spec.FailureDomain = "fd-b"
	})
	if err == nil {
		err = waitProvisioned(ctx, ns, 1, fleetTimeout(1))
	}
	if err != nil {
		return p, err
	}
	if err := waitFor(ctx, time.Minute, "the Cluster's failure domains", func() (bool, error) {
		cluster := &clusterv1.Cluster{}
		err := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "fd"}, cluster)
		p.cluster = nil
		for _, fd := range cluster.Status.FailureDomains {
			p.cluster = append(p.cluster, fd.Name)
		}
		return len(p.cluster) == 2, err
	}); err != nil {
		return p, err
	}
	m := &clusterv1.Machine{}
	if err := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "fd-cp"}, m); err != nil {
		return p, err
	}
	uuid, err := services.IDFromProviderID(m.Spec.ProviderID)
	if err != nil {
		return p, err
	}
	if p.computeCluster, err = r.w.sim.ComputeClusterOf(uuid); err != nil {
		return p, err
	}
	return p, deleteClusters(ctx, env.Client, ns, fleetTimeout(1))
}

// vip is what virtualIP found: the Cluster's endpoint, the address of the claim, and the claims left after the
// delete.
type vip struct {
	endpoint   clusterv1.APIEndpoint
	address    string
	claimsLeft int
}

// virtualIP provisions a cluster whose VSphereCluster gives no endpoint but a virtual IP from an InClusterIPPool of
// the real in-cluster IPAM provider, then deletes it.
func virtualIP(ctx context.Context, t *testing.T, r *running) (vip, error) {
	var v vip
	crds, err := capienv.IPAMCRDs()
	if err != nil {
		return v, err
	}
	if _, err := envtest.InstallCRDs(env.Config, envtest.CRDInstallOptions{CRDs: crds}); err != nil {
		return v, err
	}
	capienv.StartIPAMProvider(t, env.Config, "vsphere")
	ns := r.namespace(ctx, "vip")
	pool := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{
		"addresses": []any{"10.20.0.10-10.20.0.20"}, "prefix": int64(24), "gateway": "10.20.0.1"}}}
	pool.SetAPIVersion("ipam.cluster.x-k8s.io/v1alpha2")
	pool.SetKind("InClusterIPPool")
	pool.SetNamespace(ns)
	pool.SetName("vips")
	if err := env.Client.Create(ctx, pool); err != nil {
		return v, err
	}
	err = r.createCluster(ctx, ns, "vip", func(vc *unstructured.Unstructured, _ *clusterv1.Machine) {
		spec := vc.Object["spec"].(map[string]any)
		delete(spec, "controlPlaneEndpoint")
		spec["virtualIP"] = map[string]any{"poolRef": map[string]any{"apiGroup": "ipam.cluster.x-k8s.io", "kind": "InClusterIPPool", "name": "vips"}}
	})
	if err == nil {
		err = waitProvisioned(ctx, ns, 1, fleetTimeout(1))
	}
	if err != nil {
		return v, err
	}
	cluster := &clusterv1.Cluster{}
	if err := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "vip"}, cluster); err != nil {
		return v, err
	}
	v.endpoint = cluster.Spec.ControlPlaneEndpoint
	addr := &unstructured.Unstructured{}
	addr.SetGroupVersionKind(ipam.AddressGVK)
	if err := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: ipam.ClaimName("vip", services.VirtualIPDevice, 0)}, addr); err != nil {
		return v, err
	}
	v.address, _, _ = unstructured.NestedString(addr.Object, "spec", "address")
	if err := deleteClusters(ctx, env.Client, ns, fleetTimeout(1)); err != nil {
		return v, err
	}
	claims := &unstructured.UnstructuredList{}
	claims.SetGroupVersionKind(ipam.ClaimGVK.GroupVersion().WithKind(ipam.ClaimKind + "List"))
	err = env.Client.List(ctx, claims, client.InNamespace(ns))
	v.claimsLeft = len(claims.Items)
	return v, err
}

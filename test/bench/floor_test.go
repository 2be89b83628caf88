package bench_test

import (
	"context"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/webhooks"
	"github.com/capkit/capkit/reconcile"
)

// The watch-filter values of the two fleets of BenchmarkFleet: memcloud's capkit controllers reconcile the
// first, the floor controller the second, in the same manager.
const (
	capkitFleet = "capkit"
	floorFleet  = "floor"
)

// floorNetwork is the subnet and security group a floor fleet's instances are created in, made directly in
// the cloud: the floor fleet has no MemCluster.
type floorNetwork struct{ subnetID, securityGroupID string }

// floor is the least any infrastructure provider must do to provision a MemMachine, for BenchmarkFleet to
// measure capkit against: read the MemMachine, its Machine and its Cluster (from the manager's cache, as
// capkit does), read the bootstrap data Secret by name through the API reader (as capkit does), create the
// instance with an idempotency token, and write the provisioned status in one patch. It keeps no finalizer,
// records no ID, writes no condition, searches nothing, and has no crash safety beyond the token.
type floor struct {
	client client.Client
	api    client.Reader
	cloud  *cloud.Cloud

	mu       sync.Mutex
	networks map[string]floorNetwork // by namespace
}

// setupFloor registers the floor controller, named "floor", with mgr: one worker, MemMachines with the
// watch-filter label floorFleet only.
func setupFloor(mgr ctrl.Manager, cl *cloud.Cloud) (*floor, error) {
	f := &floor{client: mgr.GetClient(), api: mgr.GetAPIReader(), cloud: cl, networks: map[string]floorNetwork{}}
	return f, ctrl.NewControllerManagedBy(mgr).Named("floor").
		For(&v1beta2.MemMachine{}, builder.WithPredicates(reconcile.ResourceHasFilterLabel(floorFleet))).
		Complete(f)
}

// network creates the subnet and security group of a floor fleet in namespace ns.
func (f *floor) network(ctx context.Context, ns string) error {
	net, err := f.cloud.CreateNetwork(ctx, cloud.NetworkSpec{Name: ns, CIDR: "10.0.0.0/16"})
	if err != nil {
		return fmt.Errorf("cannot create the floor's network: %w", err)
	}
	sub, err := f.cloud.CreateSubnet(ctx, cloud.SubnetSpec{Name: ns + "-worker", NetworkID: net.ID, CIDR: "10.0.64.0/18"})
	if err != nil {
		return fmt.Errorf("cannot create the floor's subnet: %w", err)
	}
	sg, err := f.cloud.CreateSecurityGroup(ctx, cloud.SecurityGroupSpec{Name: ns, NetworkID: net.ID})
	if err != nil {
		return fmt.Errorf("cannot create the floor's security group: %w", err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.networks[ns] = floorNetwork{subnetID: sub.ID, securityGroupID: sg.ID}
	return nil
}

// Reconcile provisions one MemMachine.
func (f *floor) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	mm := &v1beta2.MemMachine{}
	if err := f.client.Get(ctx, req.NamespacedName, mm); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if mm.IsProvisioned() || !mm.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	owner := metav1.GetControllerOf(mm)
	if owner == nil {
		return ctrl.Result{}, nil
	}
	machine := core("Machine")
	if err := f.client.Get(ctx, client.ObjectKey{Namespace: mm.Namespace, Name: owner.Name}, machine); err != nil {
		return ctrl.Result{}, err
	}
	clusterName, _ := contract.Machine(contract.V1Beta2).ClusterName().Get(machine)
	cluster := core("Cluster")
	if err := f.client.Get(ctx, client.ObjectKey{Namespace: mm.Namespace, Name: clusterName}, cluster); err != nil {
		return ctrl.Result{}, err
	}
	if ok, _ := contract.Cluster(contract.V1Beta2).InfrastructureProvisioned().Get(cluster); !ok {
		return ctrl.Result{}, nil
	}
	secretName, _ := contract.Machine(contract.V1Beta2).BootstrapDataSecretName().Get(machine)
	secret := &corev1.Secret{}
	if err := f.api.Get(ctx, client.ObjectKey{Namespace: mm.Namespace, Name: secretName}, secret); err != nil {
		return ctrl.Result{}, err
	}
	f.mu.Lock()
	net := f.networks[mm.Namespace]
	f.mu.Unlock()
	spec := mm.Spec
	webhooks.DefaultMemMachineSpec(&spec)
	inst, err := f.cloud.CreateInstance(ctx, cloud.InstanceSpec{
		Name: mm.Name, SubnetID: net.subnetID, Image: spec.Image, Flavor: string(spec.Flavor),
		SecurityGroupIDs: []string{net.securityGroupID}, UserData: secret.Data[contract.BootstrapDataKey],
		IdempotencyToken: string(mm.UID),
	})
	if err != nil {
		return ctrl.Result{}, err
	}
	if inst.State != cloud.InstanceRunning {
		return ctrl.Result{RequeueAfter: 100 * time.Millisecond}, nil
	}
	base := mm.DeepCopy()
	mm.Status.InstanceState = string(inst.State)
	mm.Status.Addresses = []contract.MachineAddress{{Type: contract.MachineInternalIP, Address: inst.PrivateIP}}
	mm.SetProvisioned(true)
	return ctrl.Result{}, f.client.Status().Patch(ctx, mm, client.MergeFrom(base))
}

// core returns an empty unstructured core Cluster API object of kind, v1beta2.
func core(kind string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(contract.GroupName + "/v1beta2")
	u.SetKind(kind)
	return u
}

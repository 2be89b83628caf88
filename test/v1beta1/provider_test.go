package v1beta1_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlconfig "sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope"
)

// The provider's API: one group, one API version implementing contract v1beta1 (see testdata/).
const (
	group      = "infrastructure.v1beta1.capkit.io"
	apiVersion = "v1alpha1"
	// tagCluster is the cloud tag holding "<namespace>/<cluster>", so that leaks are found per cluster.
	tagCluster = "v1beta1.capkit.io/cluster"
	// providerIDPrefix is the scheme of the providerIDs the provider writes.
	providerIDPrefix = "memcloud://"
	// Failure domains the OldCluster reports, as a v1beta1 map.
	zoneA, zoneB = "zone-a", "zone-b"
)

var (
	oldClusterGVK = schema.GroupVersionKind{Group: group, Version: apiVersion, Kind: "OldCluster"}
	oldMachineGVK = schema.GroupVersionKind{Group: group, Version: apiVersion, Kind: "OldMachine"}
)

// The services see the narrow scope interfaces over unstructured objects, and write contract fields with
// contract.Unstructured at the paths of the version the scope discovered (v1beta1).
type (
	clusterScope = scope.ClusterScoper[*unstructured.Unstructured]
	machineScope = scope.MachineScoper[*unstructured.Unstructured]
)

func newUnstructured(gvk schema.GroupVersionKind) func() *unstructured.Unstructured {
	return func() *unstructured.Unstructured {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(gvk)
		return u
	}
}

// failureDomains are what the OldCluster reports: one zone for control planes, one for workers only.
func failureDomains() []contract.FailureDomain {
	return []contract.FailureDomain{
		{Name: zoneA, ControlPlane: ptr.To(true), Attributes: map[string]string{"rack": "a1"}},
		{Name: zoneB, ControlPlane: ptr.To(false)},
	}
}

// clusterTags tags every cloud resource with its cluster, for cloud.Report and cloud.Leaks.
func clusterTags(obj *unstructured.Unstructured, cluster scope.ClusterInfo) ensure.Option {
	return ensure.WithTags(map[string]string{tagCluster: obj.GetNamespace() + "/" + cluster.Name})
}

// clusterSteps are the OldCluster's services: a network with one subnet, then a load balancer whose address
// becomes the control plane endpoint.
func clusterSteps(cl *cloud.Cloud) []reconcile.Step[clusterScope] {
	networks, subnets, lbs := networkResource(cl), subnetResource(cl), loadBalancerResource(cl)
	network := reconcile.ServiceFuncs[clusterScope]{
		ReconcileFunc: func(ctx context.Context, s clusterScope) (step.Result, error) {
			net, err := ensure.Exists(ctx, s, "network", networks,
				ensure.Given(cloud.NetworkSpec{Name: s.InfraCluster().GetName(), CIDR: "10.0.0.0/16"}), clusterTags(s.InfraCluster(), s.Cluster()))
			if err != nil || !net.Result.Done {
				return net.Result, err
			}
			subnet, err := ensure.Exists(ctx, s, "subnet", subnets,
				ensure.Given(cloud.SubnetSpec{Name: s.InfraCluster().GetName(), NetworkID: net.ID, CIDR: "10.0.1.0/24"}), clusterTags(s.InfraCluster(), s.Cluster()))
			return subnet.Result, err
		},
		DeleteFunc: func(ctx context.Context, s clusterScope) (step.Result, error) {
			if res, err := ensure.Deleted(ctx, s, "subnet", subnets); err != nil || !res.Done {
				return res, err
			}
			return ensure.Deleted(ctx, s, "network", networks)
		},
	}
	loadBalancer := reconcile.ServiceFuncs[clusterScope]{
		ReconcileFunc: func(ctx context.Context, s clusterScope) (step.Result, error) {
			netID, ok := s.ResourceID("network")
			if !ok {
				return step.Result{Reason: "WaitingForNetwork"}, nil
			}
			lb, err := ensure.Exists(ctx, s, "apiserver", lbs, ensure.Given(cloud.LoadBalancerSpec{Name: s.InfraCluster().GetName() + "-apiserver", NetworkID: netID}), clusterTags(s.InfraCluster(), s.Cluster()))
			if err != nil || !lb.Result.Done {
				return lb.Result, err
			}
			got := lb.Observed
			oc := contract.Unstructured(s.InfraCluster(), s.ContractVersion())
			oc.SetControlPlaneEndpoint(contract.APIEndpoint{Host: got.Host, Port: int32(got.Port)})
			oc.SetFailureDomains(failureDomains())
			oc.SetProvisioned(true)
			if err := oc.Err(); err != nil {
				return step.Result{}, err
			}
			return step.Result{Done: true}, nil
		},
		DeleteFunc: func(ctx context.Context, s clusterScope) (step.Result, error) {
			return ensure.Deleted(ctx, s, "apiserver", lbs)
		},
	}
	return []reconcile.Step[clusterScope]{
		{Name: "Network", Service: network},
		{Name: "LoadBalancer", Service: loadBalancer},
	}
}

// machineSteps is the OldMachine's service: an instance in the cluster's subnet that boots with the
// Machine's bootstrap data.
func machineSteps(c client.Client, cl *cloud.Cloud) []reconcile.Step[machineScope] {
	instances := instanceResource(cl)
	instance := reconcile.ServiceFuncs[machineScope]{
		ReconcileFunc: func(ctx context.Context, s machineScope) (step.Result, error) {
			subnet, err := clusterSubnet(ctx, c, s)
			if err != nil || subnet == "" {
				return step.Result{Reason: "WaitingForSubnet"}, err
			}
			spec := ensure.Lazy(func(ctx context.Context) (cloud.InstanceSpec, error) {
				data, _, err := s.BootstrapData(ctx) // read only when the instance must be created
				return cloud.InstanceSpec{Name: s.InfraMachine().GetName(), SubnetID: subnet, Image: "ubuntu-24.04", Flavor: "small", UserData: data}, err
			})
			inst, err := ensure.Exists(ctx, s, "instance", instances, spec, clusterTags(s.InfraMachine(), s.Cluster()))
			if err != nil || !inst.Result.Done {
				return inst.Result, err
			}
			got := inst.Observed
			if got.State != cloud.InstanceRunning {
				return step.Result{Reason: "InstanceNotRunning", Message: "instance " + inst.ID + " is " + string(got.State),
					RequeueAfter: 200 * time.Millisecond}, nil
			}
			om := contract.Unstructured(s.InfraMachine(), s.ContractVersion())
			om.SetProviderID(providerIDPrefix + inst.ID)
			om.SetAddresses([]contract.MachineAddress{
				{Type: contract.MachineInternalIP, Address: got.PrivateIP},
				{Type: contract.MachineHostName, Address: s.InfraMachine().GetName()},
			})
			om.SetProvisioned(true)
			if err := om.Err(); err != nil {
				return step.Result{}, err
			}
			// Look at the instance again now and then: its state shows in the conditions.
			return step.Result{Done: true, RequeueAfter: time.Second}, nil
		},
		DeleteFunc: func(ctx context.Context, s machineScope) (step.Result, error) {
			return ensure.Deleted(ctx, s, "instance", instances)
		},
	}
	return []reconcile.Step[machineScope]{{Name: "Instance", Service: instance}}
}

// clusterSubnet returns the subnet ID the machine's OldCluster recorded in status.resources, "" when none yet.
func clusterSubnet(ctx context.Context, c client.Client, s machineScope) (string, error) {
	name, _, err := unstructured.NestedString(s.Cluster().Object.Object, "spec", "infrastructureRef", "name")
	if err != nil || name == "" {
		return "", err
	}
	oc := newUnstructured(oldClusterGVK)()
	if err := c.Get(ctx, client.ObjectKey{Namespace: s.InfraMachine().GetNamespace(), Name: name}, oc); err != nil {
		return "", fmt.Errorf("cannot get OldCluster %q: %w", name, err)
	}
	id, _, err := unstructured.NestedString(oc.Object, "status", "resources", "subnet")
	return id, err
}

// provider is the in-test v1beta1-contract provider: its two reconcilers in a controller-runtime manager
// on env, logging to a file.
type provider struct {
	logPath string
	cancel  context.CancelFunc
	done    chan error
}

// startProvider starts the provider on cl for the test; cleanup stops it and prints the log tail on failure.
func startProvider(t *testing.T, cl *cloud.Cloud) *provider {
	t.Helper()
	p := &provider{logPath: filepath.Join(t.TempDir(), "provider.log")}
	f, err := os.Create(p.logPath)
	if err != nil {
		t.Fatalf("cannot create the provider log: %v", err)
	}
	mgr, err := ctrl.NewManager(env.Config, ctrl.Options{
		Scheme:                 env.Scheme,
		Logger:                 zap.New(zap.WriteTo(f), zap.UseDevMode(false)),
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             ctrlconfig.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		t.Fatalf("cannot create the provider's manager: %v", err)
	}
	// No scope.WithContractVersion: the scopes discover v1beta1 from the CRDs' cluster.x-k8s.io/v1beta1 label.
	opts := []reconcile.Option{reconcile.WithPollInterval(500 * time.Millisecond)}
	cr, err := reconcile.NewUnstructuredClusterReconciler(mgr.GetClient(), oldClusterGVK, clusterSteps(cl), opts...)
	if err != nil {
		t.Fatal(err)
	}
	mr, err := reconcile.NewUnstructuredMachineReconciler(mgr.GetClient(), oldMachineGVK, machineSteps(mgr.GetClient(), cl), opts...)
	if err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(cr.SetupWithManager(mgr), mr.SetupWithManager(mgr)); err != nil {
		t.Fatalf("cannot set up the provider's reconcilers: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	p.cancel, p.done = cancel, make(chan error, 1)
	go func() { p.done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		p.cancel()
		if err := <-p.done; err != nil {
			t.Errorf("provider manager: %v", err)
		}
		if t.Failed() {
			b, _ := os.ReadFile(p.logPath)
			t.Logf("provider log (%s):\n%s", p.logPath, tail(string(b), 80))
		}
		_ = f.Close()
	})
	waitCtx, stop := context.WithTimeout(ctx, 30*time.Second)
	defer stop()
	if !mgr.GetCache().WaitForCacheSync(waitCtx) {
		t.Fatal("the provider's caches did not sync")
	}
	return p
}

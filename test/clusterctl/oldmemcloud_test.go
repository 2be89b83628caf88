package clusterctl_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlconfig "sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/services"
	"github.com/capkit/capkit/providertest/testenv"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope"
	"github.com/capkit/capkit/test/internal/capienv"
)

// memcloud v0.1.0's manager, for the upgrade test. The repository holds v0.1.0's API (examples/memcloud/api/v1beta1)
// and release files (examples/memcloud/config/releases/v0.1.0), not a build of its manager, so the test runs one
// that does what v0.1.0's did: capkit's reconcilers over the v1beta1 objects (unstructured, with the v1beta1
// contract's paths: status.ready, spec.providerID, failure domains as a map), memcloud's cloud resources, resource keys, tags and finalizers. That is what lets the
// v0.2.0 manager find every resource again after the upgrade.

// The kinds v0.1.0 reconciled, at the API version it served.
var (
	oldMemClusterGVK  = schema.GroupVersionKind{Group: v1beta2.GroupName, Version: "v1beta1", Kind: "MemCluster"}
	oldMemMachineGVK  = schema.GroupVersionKind{Group: v1beta2.GroupName, Version: "v1beta1", Kind: "MemMachine"}
	oldMemTemplateGVK = schema.GroupVersionKind{Group: v1beta2.GroupName, Version: "v1beta1", Kind: "MemMachineTemplate"}
)

type (
	oldClusterScope = scope.ClusterScoper[*unstructured.Unstructured]
	oldMachineScope = scope.MachineScoper[*unstructured.Unstructured]
)

// newOld returns an empty v1beta1 object of gvk in namespace ns named name.
func newOld(gvk schema.GroupVersionKind, ns, name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	u.SetNamespace(ns)
	u.SetName(name)
	return u
}

// oldClusterSpec decodes the spec of a v1beta1 MemCluster: its fields are v1beta2's less identityRef.
func oldClusterSpec(u *unstructured.Unstructured) (v1beta2.MemClusterSpec, error) {
	var spec v1beta2.MemClusterSpec
	m, _, err := unstructured.NestedMap(u.Object, "spec")
	if err == nil {
		err = runtime.DefaultUnstructuredConverter.FromUnstructured(m, &spec)
	}
	if err != nil {
		return spec, fmt.Errorf("cannot decode the spec of MemCluster %q: %w", u.GetName(), err)
	}
	return spec, nil
}

// oldTags tags a cluster's resources as memcloud does (services.TagCluster).
func oldTags(ns, cluster string) ensure.Option {
	return ensure.WithTags(map[string]string{services.TagCluster: services.ClusterTagValue(ns, cluster)})
}

// oldClusterSteps are v0.1.0's MemCluster steps: the network, its subnets and the security group, then the load
// balancer, whose address becomes the endpoint, and the failure domains.
func oldClusterSteps(res services.Resources) []reconcile.Step[oldClusterScope] {
	name := func(s oldClusterScope, key string) string { return s.Cluster().Name + "-" + key }
	network := reconcile.ServiceFuncs[oldClusterScope]{
		ReconcileFunc: func(ctx context.Context, s oldClusterScope) (step.Result, error) {
			mc := s.InfraCluster()
			spec, err := oldClusterSpec(mc)
			if err != nil {
				return step.Result{}, err
			}
			tags := oldTags(mc.GetNamespace(), s.Cluster().Name)
			net, err := ensure.Exists(ctx, s, services.KeyNetwork, res.Networks,
				ensure.Given(cloud.NetworkSpec{Name: name(s, services.KeyNetwork), CIDR: spec.Network.CIDR}), tags)
			if err != nil || !net.Result.Done {
				return net.Result, err
			}
			for _, sn := range spec.Network.Subnets {
				key := services.SubnetKey(sn.Name)
				r, err := ensure.Exists(ctx, s, key, res.Subnets,
					ensure.Given(cloud.SubnetSpec{Name: name(s, key), NetworkID: net.ID, CIDR: sn.CIDR}), tags)
				if err != nil || !r.Result.Done {
					return r.Result, err
				}
			}
			sg, err := ensure.Exists(ctx, s, services.KeySecurityGroup, res.SecurityGroups, ensure.Given(cloud.SecurityGroupSpec{
				Name: name(s, services.KeySecurityGroup), NetworkID: net.ID,
				Description: "cluster " + services.ClusterTagValue(mc.GetNamespace(), s.Cluster().Name),
				Ingress:     services.IngressRules(spec),
			}), tags)
			return sg.Result, err
		},
		DeleteFunc: func(ctx context.Context, s oldClusterScope) (step.Result, error) {
			spec, err := oldClusterSpec(s.InfraCluster())
			if err != nil {
				return step.Result{}, err
			}
			if r, err := ensure.Deleted(ctx, s, services.KeySecurityGroup, res.SecurityGroups); err != nil || !r.Done {
				return r, err
			}
			for _, sn := range slices.Backward(spec.Network.Subnets) {
				if r, err := ensure.Deleted(ctx, s, services.SubnetKey(sn.Name), res.Subnets); err != nil || !r.Done {
					return r, err
				}
			}
			return ensure.Deleted(ctx, s, services.KeyNetwork, res.Networks)
		},
	}
	loadBalancer := reconcile.ServiceFuncs[oldClusterScope]{
		ReconcileFunc: func(ctx context.Context, s oldClusterScope) (step.Result, error) {
			mc := s.InfraCluster()
			spec, err := oldClusterSpec(mc)
			if err != nil {
				return step.Result{}, err
			}
			netID, ok := s.ResourceID(services.KeyNetwork)
			if !ok {
				return step.Result{Reason: services.ReasonWaitingForNetwork}, nil
			}
			lb, err := ensure.Exists(ctx, s, services.KeyLoadBalancer, res.LoadBalancers, ensure.Given(cloud.LoadBalancerSpec{
				Name: name(s, services.KeyLoadBalancer), NetworkID: netID, Port: int(spec.LoadBalancer.Port)}),
				oldTags(mc.GetNamespace(), s.Cluster().Name))
			if err != nil || !lb.Result.Done {
				return lb.Result, err
			}
			w := contract.Unstructured(mc, s.ContractVersion())
			if spec.ControlPlaneEndpoint.Host == "" {
				w.SetControlPlaneEndpoint(contract.APIEndpoint{Host: lb.Observed.Host, Port: int32(lb.Observed.Port)})
			}
			domains := make([]contract.FailureDomain, 0, len(spec.FailureDomains))
			for _, fd := range spec.FailureDomains {
				domains = append(domains, contract.FailureDomain{Name: fd, ControlPlane: ptr.To(true)})
			}
			if len(domains) > 0 {
				w.SetFailureDomains(domains)
			}
			w.SetProvisioned(true)
			return step.Result{Done: true}, w.Err()
		},
		DeleteFunc: func(ctx context.Context, s oldClusterScope) (step.Result, error) {
			return ensure.Deleted(ctx, s, services.KeyLoadBalancer, res.LoadBalancers)
		},
	}
	return []reconcile.Step[oldClusterScope]{{Name: "Network", Service: network}, {Name: "LoadBalancer", Service: loadBalancer}}
}

// oldClusterResources returns the spec and status.resources of the machine's v1beta1 MemCluster.
func oldClusterResources(ctx context.Context, c client.Client, s oldMachineScope) (v1beta2.MemClusterSpec, map[string]string, error) {
	name, _, err := unstructured.NestedString(s.Cluster().Object.Object, "spec", "infrastructureRef", "name")
	if err != nil {
		return v1beta2.MemClusterSpec{}, nil, fmt.Errorf("cannot find the MemCluster of cluster %q: %w", s.Cluster().Name, err)
	}
	if name == "" {
		return v1beta2.MemClusterSpec{}, nil, fmt.Errorf("cannot find the MemCluster of cluster %q: no spec.infrastructureRef.name", s.Cluster().Name)
	}
	mc := newOld(oldMemClusterGVK, s.InfraMachine().GetNamespace(), name)
	if err := c.Get(ctx, client.ObjectKeyFromObject(mc), mc); err != nil {
		return v1beta2.MemClusterSpec{}, nil, fmt.Errorf("cannot get MemCluster %q: %w", name, err)
	}
	spec, err := oldClusterSpec(mc)
	if err != nil {
		return spec, nil, err
	}
	resources, _, err := unstructured.NestedStringMap(mc.Object, "status", "resources")
	return spec, resources, err
}

// oldMachineSteps is v0.1.0's MemMachine step: the instance, in the subnet of the machine's role with the
// cluster's security group and the Machine's bootstrap data, registered with the load balancer when it is a
// control plane machine.
func oldMachineSteps(c client.Client, cl *cloud.Cloud, res services.Resources) []reconcile.Step[oldMachineScope] {
	instance := reconcile.ServiceFuncs[oldMachineScope]{
		ReconcileFunc: func(ctx context.Context, s oldMachineScope) (step.Result, error) {
			mm := s.InfraMachine()
			spec, resources, err := oldClusterResources(ctx, c, s)
			if err != nil {
				return step.Result{}, err
			}
			role := v1beta2.SubnetRoleWorker
			if s.Machine().ControlPlane {
				role = v1beta2.SubnetRoleControlPlane
			}
			subnet, _ := spec.Network.Subnet(role)
			subnetID, sgID, lbID := resources[services.SubnetKey(subnet.Name)], resources[services.KeySecurityGroup], resources[services.KeyLoadBalancer]
			if subnetID == "" || sgID == "" || lbID == "" {
				return step.Result{Reason: services.ReasonWaitingForNetwork}, nil
			}
			image, _, _ := unstructured.NestedString(mm.Object, "spec", "image")
			flavor, _, _ := unstructured.NestedString(mm.Object, "spec", "flavor")
			desired := ensure.Lazy(func(ctx context.Context) (cloud.InstanceSpec, error) {
				data, _, err := s.BootstrapData(ctx)
				return cloud.InstanceSpec{Name: mm.GetName(), SubnetID: subnetID, Image: image, Flavor: flavor,
					SecurityGroupIDs: []string{sgID}, UserData: data}, err
			})
			inst, err := ensure.Exists(ctx, s, services.KeyInstance, res.Instances, desired,
				oldTags(mm.GetNamespace(), s.Cluster().Name), ensure.CreateOnce())
			if err != nil {
				return step.Result{}, err
			}
			w := contract.Unstructured(mm, s.ContractVersion())
			w.SetProviderID(v1beta2.ProviderID(inst.ID))
			if err := unstructured.SetNestedField(mm.Object, string(inst.Observed.State), "status", "instanceState"); err != nil {
				return step.Result{}, err
			}
			if !inst.Result.Done {
				return inst.Result, w.Err()
			}
			if s.Machine().ControlPlane {
				lb, err := cl.GetLoadBalancer(ctx, lbID)
				if err != nil {
					return step.Result{}, fmt.Errorf("cannot read load balancer %q: %w", lbID, err)
				}
				if !slices.Contains(lb.Targets, inst.ID) {
					if err := cl.RegisterTarget(ctx, lbID, inst.ID); err != nil {
						return step.Result{}, fmt.Errorf("cannot register instance %q: %w", inst.ID, err)
					}
				}
			}
			w.SetAddresses([]contract.MachineAddress{
				{Type: contract.MachineInternalIP, Address: inst.Observed.PrivateIP},
				{Type: contract.MachineHostName, Address: inst.Observed.Name},
			})
			w.SetProvisioned(inst.Observed.State == cloud.InstanceRunning)
			return step.Result{Done: true}, w.Err()
		},
		DeleteFunc: func(ctx context.Context, s oldMachineScope) (step.Result, error) {
			return ensure.Deleted(ctx, s, services.KeyInstance, res.Instances)
		},
	}
	return []reconcile.Step[oldMachineScope]{{Name: "Instance", Service: instance}}
}

// oldManager is memcloud v0.1.0's manager running in-process on a management cluster.
type oldManager struct {
	cancel context.CancelFunc
	done   chan error
}

// startOldMemcloud starts v0.1.0's manager on e and cloud cl, logging to a file; Stop stops it, and cleanup
// stops it if the test did not and prints the log's tail if the test failed.
func startOldMemcloud(t *testing.T, e *testenv.Environment, cl *cloud.Cloud) *oldManager {
	t.Helper()
	path := filepath.Join(t.TempDir(), "memcloud-v0.1.0.log")
	f, err := os.Create(path)
	if err != nil {
		t.Fatalf("cannot create the log of memcloud v0.1.0: %v", err)
	}
	mgr, err := ctrl.NewManager(e.Config, ctrl.Options{
		Scheme:                 e.Scheme,
		Logger:                 zap.New(zap.WriteTo(f), zap.UseDevMode(false)),
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             ctrlconfig.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		t.Fatalf("cannot create the manager of memcloud v0.1.0: %v", err)
	}
	res := services.NewResources(cl)
	// v0.1.0 was written for the v1beta1 contract: it writes its paths whatever the CRDs' labels say.
	opts := []reconcile.Option{reconcile.WithPollInterval(200 * time.Millisecond),
		reconcile.WithScopeOptions(scope.WithContractVersion(contract.V1Beta1))}
	cr, err1 := reconcile.NewUnstructuredClusterReconciler(mgr.GetClient(), oldMemClusterGVK, oldClusterSteps(res),
		append(opts, reconcile.WithFinalizer(v1beta2.MemClusterFinalizer))...)
	mr, err2 := reconcile.NewUnstructuredMachineReconciler(mgr.GetClient(), oldMemMachineGVK, oldMachineSteps(mgr.GetClient(), cl, res),
		append(opts, reconcile.WithFinalizer(v1beta2.MemMachineFinalizer))...)
	if err := errors.Join(err1, err2); err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(cr.SetupWithManager(mgr), mr.SetupWithManager(mgr)); err != nil {
		t.Fatalf("cannot set up the reconcilers of memcloud v0.1.0: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	m := &oldManager{cancel: cancel, done: make(chan error, 1)}
	go func() { m.done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		if err := m.Stop(); err != nil {
			t.Errorf("memcloud v0.1.0: %v", err)
		}
		if t.Failed() {
			t.Logf("memcloud v0.1.0's log, last %d lines (%s):\n%s", logLines, path, capienv.TailFile(path, logLines))
		}
		_ = f.Close()
	})
	waitCtx, stop := context.WithTimeout(ctx, 30*time.Second)
	defer stop()
	if !mgr.GetCache().WaitForCacheSync(waitCtx) {
		t.Fatal("the caches of memcloud v0.1.0 did not sync")
	}
	return m
}

// Stop stops the manager and returns its error; calling it again returns nil.
func (m *oldManager) Stop() error {
	if m.done == nil {
		return nil
	}
	m.cancel()
	err := <-m.done
	m.done = nil
	return err
}

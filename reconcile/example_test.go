package reconcile_test

import (
	"context"
	"fmt"
	"maps"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope"
	"github.com/capkit/capkit/scope/scopetest"
)

// vmSpec is what a provider asks of its cloud for one VM.
type vmSpec struct{ Image string }

// vm is a VM as the toy cloud reports it.
type vm struct {
	ID   string
	Tags map[string]string
}

// toyVMs is a cloud API of VMs (ID → VM), as ensure.ResourceFuncs over a map. Its creates ignore the idempotency
// token, and its tag search lists a VM as soon as the create returns: the Resource declares both, so that
// ensure.Exists writes no note before a create (ensure.Guarantees).
func toyVMs(vms map[string]*vm) ensure.Resource[vmSpec, *vm] {
	return ensure.NewResource(ensure.ResourceFuncs[vmSpec, *vm]{
		GetFunc: func(_ context.Context, id string) (*vm, bool, error) {
			v, ok := vms[id]
			return v, ok, nil
		},
		FindByTagsFunc: func(_ context.Context, tags map[string]string) (*vm, bool, error) {
		next:
			for _, v := range vms {
				for k, want := range tags {
					if v.Tags[k] != want {
						continue next
					}
				}
				return v, true, nil
			}
			return nil, false, nil
		},
		CreateFunc: func(_ context.Context, _ vmSpec, _ string, tags map[string]string) (*vm, error) {
			v := &vm{ID: fmt.Sprintf("vm-%d", len(vms)+1), Tags: maps.Clone(tags)}
			vms[v.ID] = v
			return v, nil
		},
		DeleteFunc: func(_ context.Context, id string) error { delete(vms, id); return nil },
		IDFunc:     func(v *vm) string { return v.ID },
		Guarantees: ensure.Guarantees{Idempotency: ensure.NotIdempotent, ImmediateSearch: true},
	})
}

// A provider wires its services as ordered steps over scope.MachineScoper of its own type, here memcloud's
// MemMachine (capkit's example provider). Reconcile adds the finalizer, waits for the Cluster's
// infrastructure and the bootstrap data, runs the steps and writes their conditions. The VM's spec is Lazy:
// the bootstrap data Secret is read only when the VM must be created, so the second reconcile of the
// provisioned machine makes no API request at all, and one cloud read. The first makes 4 writes (finalizer and
// ownership key, the VM's ID, spec, status) because toyVMs declares its immediate search; a Resource that declares
// nothing makes one more, the note of the create (ensure.Guarantees).
func ExampleNewMachineReconcilerFor() {
	ctx := context.Background()
	cloud := toyVMs(map[string]*vm{})
	type S = scope.MachineScoper[*v1beta2.MemMachine]
	vm := reconcile.ServiceFuncs[S]{
		ReconcileFunc: func(ctx context.Context, s S) (step.Result, error) {
			m := s.InfraMachine()
			spec := ensure.Lazy(func(ctx context.Context) (vmSpec, error) {
				if _, _, err := s.BootstrapData(ctx); err != nil { // the user data of the VM; never log it
					return vmSpec{}, err
				}
				return vmSpec{Image: m.Spec.Image}, nil
			})
			res, err := ensure.Exists(ctx, s, "vm", cloud, spec)
			if err != nil || !res.Result.Done {
				return res.Result, err
			}
			m.SetProviderID(v1beta2.ProviderID(res.ID))
			m.SetProvisioned(true)
			return step.Result{Done: true}, nil
		},
		DeleteFunc: func(ctx context.Context, s S) (step.Result, error) {
			return ensure.Deleted(ctx, s, "vm", cloud)
		},
	}

	// What the API server holds once Cluster API created the machine; in a provider, mgr.GetClient().
	machine := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Machine",
		"metadata": map[string]any{"namespace": "default", "name": "m-0", "labels": map[string]any{contract.ClusterNameLabel: "demo"}},
		"spec":     map[string]any{"clusterName": "demo", "bootstrap": map[string]any{"dataSecretName": "m-0-bootstrap"}},
	}}
	cluster := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Cluster",
		"metadata": map[string]any{"namespace": "default", "name": "demo"},
		"status":   map[string]any{"initialization": map[string]any{"infrastructureProvisioned": true}},
	}}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "m-0-bootstrap"},
		Data: map[string][]byte{"value": []byte("#cloud-config\n")}}
	infra := &v1beta2.MemMachine{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "m-0",
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "cluster.x-k8s.io/v1beta2", Kind: "Machine", Name: "m-0"}}},
		Spec: v1beta2.MemMachineSpec{Image: v1beta2.DefaultImage}}
	scheme := runtime.NewScheme() // as in the provider's main: client-go's types and its own
	_ = clientgoscheme.AddToScheme(scheme)
	_ = v1beta2.AddToScheme(scheme)
	c := scopetest.NewCountingClient(fake.NewClientBuilder().WithScheme(scheme).
		WithObjects(machine, cluster, secret, infra).WithStatusSubresource(infra).Build())

	r, err := reconcile.NewMachineReconcilerFor(c, &v1beta2.MemMachine{},
		[]reconcile.Step[S]{{Name: "VM", Service: vm}},
		reconcile.WithScopeOptions(scope.WithContractVersion(contract.V1Beta2)))
	if err != nil {
		fmt.Println(err)
		return
	}
	// In a provider: r.SetupWithManager(mgr).
	req := ctrl.Request{NamespacedName: client.ObjectKeyFromObject(infra)}
	if _, err := r.Reconcile(ctx, req); err != nil {
		fmt.Println(err)
		return
	}
	got := &v1beta2.MemMachine{}
	_ = c.Get(ctx, req.NamespacedName, got)
	fmt.Println("finalizers:", got.Finalizers)
	fmt.Println("providerID:", got.Spec.ProviderID, "provisioned:", got.IsProvisioned())
	fmt.Println("VMReady:", conditions.IsTrue(got, "VMReady"), "Ready:", conditions.IsTrue(got, conditions.Ready))
	fmt.Println("writes:", c.Writes())

	c.Reset()
	_, _ = r.Reconcile(ctx, req)
	var read []string
	for _, r := range c.ReadLog() {
		read = append(read, r.Kind)
	}
	fmt.Println("next reconcile reads:", read, "writes:", c.Writes())
	// Output:
	// finalizers: [infrastructure.memcloud.capkit.io/memmachine]
	// providerID: memcloud://vm-1 provisioned: true
	// VMReady: true Ready: true
	// writes: 4
	// next reconcile reads: [*v1beta2.MemMachine Machine Cluster] writes: 0
}

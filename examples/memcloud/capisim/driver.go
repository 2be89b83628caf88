package capisim

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
)

// Driver plays Cluster API's part for one cluster on an API server without Cluster API's controllers: it
// creates the core objects and memcloud's, then, on every Sync, does what Cluster API's controllers would do
// for the provider to make progress, minimally:
//
//   - it sets the owner references Cluster → MemCluster and Machine → MemMachine;
//   - once the MemCluster is provisioned, it copies the endpoint to the Cluster and sets the Cluster's
//     status.initialization.infrastructureProvisioned;
//   - once a MemMachine is provisioned, it copies spec.providerID, status.addresses and the provisioned flag
//     to the Machine;
//   - while deleting, it deletes each MemMachine, then its Machine once the MemMachine is gone, then the
//     MemCluster once no MemMachine is left, then the Cluster once the MemCluster is gone.
//
// Sync is idempotent and writes only what is missing, so a test calls it in a require.Eventually loop and a
// demo on a ticker.
type Driver struct {
	c        client.Client
	spec     ClusterSpec
	deleting bool
}

// New returns a driver for spec that reads and writes through c, whose scheme holds memcloud's v1beta2 types
// and client-go's.
func New(c client.Client, spec ClusterSpec) (*Driver, error) {
	if c == nil {
		return nil, errors.New("cannot create the CAPI driver: client is nil")
	}
	if err := spec.validate(); err != nil {
		return nil, fmt.Errorf("cannot create the CAPI driver: %w", err)
	}
	return &Driver{c: c, spec: spec}, nil
}

// Spec returns the cluster's spec, defaulted.
func (d *Driver) Spec() ClusterSpec { return d.spec }

// MachineNames returns the names of the Machines (and MemMachines) in creation order.
func (d *Driver) MachineNames() []string {
	var out []string
	for _, m := range d.spec.machines() {
		out = append(out, m.name)
	}
	return out
}

// Create creates the Cluster, the MemCluster, and per machine a bootstrap Secret, a Machine and a MemMachine.
// Objects that exist already are kept.
func (d *Driver) Create(ctx context.Context) error {
	objs := []client.Object{d.spec.newCluster(), d.spec.newMemCluster()}
	for _, m := range d.spec.machines() {
		objs = append(objs, d.spec.newBootstrapSecret(m), d.spec.newMachine(m), d.spec.newMemMachine(m))
	}
	for _, o := range objs {
		if err := d.c.Create(ctx, o); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("cannot create %T %s/%s: %w", o, o.GetNamespace(), o.GetName(), err)
		}
	}
	return nil
}

func (d *Driver) core(kind string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(schema.FromAPIVersionAndKind(CoreAPIVersion, kind))
	return u
}

// get reads obj by name; found is false when it does not exist.
func (d *Driver) get(ctx context.Context, name string, obj client.Object) (found bool, err error) {
	err = d.c.Get(ctx, client.ObjectKey{Namespace: d.spec.Namespace, Name: name}, obj)
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	return err == nil, err
}

// Sync does one round of Cluster API's work; see Driver.
func (d *Driver) Sync(ctx context.Context) error {
	cluster := d.core("Cluster")
	found, err := d.get(ctx, d.spec.Name, cluster)
	if err != nil || !found {
		return err
	}
	mc := &v1beta2.MemCluster{}
	mcFound, err := d.get(ctx, d.spec.Name, mc)
	if err != nil {
		return err
	}
	if mcFound && !d.deleting {
		if err := d.own(ctx, mc, cluster); err != nil {
			return err
		}
		if err := d.syncCluster(ctx, cluster, mc); err != nil {
			return err
		}
	}
	left := 0
	for _, m := range d.spec.machines() {
		n, err := d.syncMachine(ctx, m.name)
		if err != nil {
			return err
		}
		left += n
	}
	if !d.deleting {
		return nil
	}
	switch {
	case left > 0:
		return nil
	case mcFound && mc.DeletionTimestamp.IsZero():
		return client.IgnoreNotFound(d.c.Delete(ctx, mc))
	case !mcFound:
		return client.IgnoreNotFound(d.c.Delete(ctx, cluster))
	}
	return nil
}

// own adds the owner reference to owner on obj when it is missing.
func (d *Driver) own(ctx context.Context, obj client.Object, owner *unstructured.Unstructured) error {
	for _, r := range obj.GetOwnerReferences() {
		if r.UID == owner.GetUID() {
			return nil
		}
	}
	base := obj.DeepCopyObject().(client.Object)
	obj.SetOwnerReferences(append(obj.GetOwnerReferences(), metav1.OwnerReference{
		APIVersion: owner.GetAPIVersion(), Kind: owner.GetKind(), Name: owner.GetName(), UID: owner.GetUID(),
		Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
	}))
	if err := d.c.Patch(ctx, obj, client.MergeFrom(base)); err != nil {
		return fmt.Errorf("cannot set the owner of %s/%s: %w", obj.GetNamespace(), obj.GetName(), err)
	}
	return nil
}

// syncCluster copies the MemCluster's endpoint and provisioned flag to the Cluster.
func (d *Driver) syncCluster(ctx context.Context, cluster *unstructured.Unstructured, mc *v1beta2.MemCluster) error {
	f := contract.Cluster(contract.V1Beta2)
	if ep := mc.Spec.ControlPlaneEndpoint; ep.Host != "" {
		if cur, _ := f.ControlPlaneEndpoint().Get(cluster); cur != ep {
			base := cluster.DeepCopy()
			if err := f.ControlPlaneEndpoint().Set(cluster, ep); err != nil {
				return err
			}
			if err := d.c.Patch(ctx, cluster, client.MergeFrom(base)); err != nil {
				return fmt.Errorf("cannot set the endpoint of Cluster %q: %w", cluster.GetName(), err)
			}
		}
	}
	provisioned := ptr.Deref(mc.Status.Initialization.Provisioned, false)
	if cur, _ := f.InfrastructureProvisioned().Get(cluster); cur == provisioned || !provisioned {
		return nil
	}
	base := cluster.DeepCopy()
	if err := f.InfrastructureProvisioned().Set(cluster, true); err != nil {
		return err
	}
	if err := d.c.Status().Patch(ctx, cluster, client.MergeFrom(base)); err != nil {
		return fmt.Errorf("cannot set the infrastructure of Cluster %q provisioned: %w", cluster.GetName(), err)
	}
	return nil
}

// syncMachine owns the MemMachine by its Machine and copies its contract fields, or deletes them; it returns
// 1 while the MemMachine exists.
func (d *Driver) syncMachine(ctx context.Context, name string) (int, error) {
	machine := d.core("Machine")
	found, err := d.get(ctx, name, machine)
	if err != nil || !found {
		return 0, err
	}
	mm := &v1beta2.MemMachine{}
	mmFound, err := d.get(ctx, name, mm)
	if err != nil {
		return 0, err
	}
	if d.deleting {
		switch {
		case !mmFound:
			return 0, client.IgnoreNotFound(d.c.Delete(ctx, machine))
		case mm.DeletionTimestamp.IsZero():
			return 1, client.IgnoreNotFound(d.c.Delete(ctx, mm))
		}
		return 1, nil
	}
	if !mmFound {
		return 0, nil
	}
	if err := d.own(ctx, mm, machine); err != nil {
		return 1, err
	}
	if !ptr.Deref(mm.Status.Initialization.Provisioned, false) {
		return 1, nil
	}
	f := contract.Machine(contract.V1Beta2)
	if cur, _ := f.ProviderID().Get(machine); cur != mm.Spec.ProviderID {
		base := machine.DeepCopy()
		if err := f.ProviderID().Set(machine, mm.Spec.ProviderID); err != nil {
			return 1, err
		}
		if err := d.c.Patch(ctx, machine, client.MergeFrom(base)); err != nil {
			return 1, fmt.Errorf("cannot set the providerID of Machine %q: %w", name, err)
		}
	}
	if cur, _ := f.InfrastructureProvisioned().Get(machine); !cur {
		base := machine.DeepCopy()
		if err := f.InfrastructureProvisioned().Set(machine, true); err != nil {
			return 1, err
		}
		addrs := make([]any, 0, len(mm.Status.Addresses))
		for _, a := range mm.Status.Addresses {
			addrs = append(addrs, map[string]any{"type": string(a.Type), "address": a.Address})
		}
		if err := unstructured.SetNestedSlice(machine.Object, addrs, "status", "addresses"); err != nil {
			return 1, err
		}
		if err := d.c.Status().Patch(ctx, machine, client.MergeFrom(base)); err != nil {
			return 1, fmt.Errorf("cannot set the infrastructure of Machine %q provisioned: %w", name, err)
		}
	}
	return 1, nil
}

// Provisioned reports whether the MemCluster and every MemMachine are provisioned.
func (d *Driver) Provisioned(ctx context.Context) (bool, error) {
	mc := &v1beta2.MemCluster{}
	if found, err := d.get(ctx, d.spec.Name, mc); err != nil || !found || !ptr.Deref(mc.Status.Initialization.Provisioned, false) {
		return false, err
	}
	for _, m := range d.spec.machines() {
		mm := &v1beta2.MemMachine{}
		if found, err := d.get(ctx, m.name, mm); err != nil || !found || !ptr.Deref(mm.Status.Initialization.Provisioned, false) {
			return false, err
		}
	}
	return true, nil
}

// Delete starts deleting the cluster the way Cluster API does: machines first, then the cluster. The
// following Syncs carry it on.
func (d *Driver) Delete(ctx context.Context) error {
	d.deleting = true
	return d.Sync(ctx)
}

// Gone reports whether every object of the cluster is deleted (bootstrap Secrets aside).
func (d *Driver) Gone(ctx context.Context) (bool, error) {
	type named struct {
		name string
		obj  client.Object
	}
	objs := []named{{d.spec.Name, d.core("Cluster")}, {d.spec.Name, &v1beta2.MemCluster{}}}
	for _, m := range d.spec.machines() {
		objs = append(objs, named{m.name, d.core("Machine")}, named{m.name, &v1beta2.MemMachine{}})
	}
	for _, o := range objs {
		if found, err := d.get(ctx, o.name, o.obj); err != nil || found {
			return false, err
		}
	}
	return true, nil
}

package controllers

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/services"
	"github.com/capkit/capkit/identity"
	"github.com/capkit/capkit/inplace"
)

// InPlaceExtensionName is the name of memcloud's in-place update extension: Cluster API discovers its handlers
// as memcloud-can-update-machine, memcloud-can-update-machineset and memcloud-update-machine.
const InPlaceExtensionName = "memcloud"

// NewInPlaceExtension returns memcloud's in-place update extension (package inplace) on memcloud cl: it
// declares the MemMachine fields memcloud changes on a running instance (v1beta2.InPlaceFields: flavor, tags),
// so that Cluster API updates a MachineDeployment whose new MemMachineTemplate changes only those in place, and
// its Update decodes the MemMachine and calls services.UpdateInstanceInPlace. The MemMachine is the one the API
// server holds, read through r when the call arrives, after the package checked that Cluster API is updating its
// Machine in place (a forged request is refused): the request's copy is never used.
//
// With WithIdentities, the update calls memcloud with the account of the machine's cluster, as the controllers
// do: the identity of the MemCluster that carries the live MemMachine's cluster-name label, read through r (the
// manager's client in SetupInPlaceExtension), refused with the same errors. Without, it calls memcloud without
// credentials, which works only on a cloud without accounts. Other options are ignored.
func NewInPlaceExtension(r client.Reader, cl *cloud.Cloud, opts ...Option) (inplace.Config, error) {
	if cl == nil {
		return inplace.Config{}, fmt.Errorf("cannot create memcloud's in-place update extension: %w", errNilCloud)
	}
	if r == nil {
		return inplace.Config{}, errors.New("cannot create memcloud's in-place update extension: reader is nil")
	}
	var b identity.Binder
	if ids, ok := newConfig(opts).identities(); ok {
		var err error
		if b, err = ids.NewBinder(r); err != nil {
			return inplace.Config{}, fmt.Errorf("cannot create memcloud's in-place update extension: %w", err)
		}
	}
	// snippet:start config
	cfg := inplace.Config{
		Name:                InPlaceExtensionName,
		InfraMachine:        schema.GroupKind{Group: v1beta2.GroupName, Kind: "MemMachine"},
		InfraMachineVersion: v1beta2.GroupVersion.Version,
		Reader:              r,
		Mutable:             v1beta2.InPlaceFields,
		Update: func(ctx context.Context, desired *unstructured.Unstructured) (inplace.Progress, error) {
			mm := &v1beta2.MemMachine{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(desired.Object, mm); err != nil {
				return inplace.Progress{}, fmt.Errorf("cannot read MemMachine %q: %w", desired.GetNamespace()+"/"+desired.GetName(), err)
			}
			if b != nil {
				bound, err := bindMachine(ctx, r, b, mm)
				if err != nil {
					return inplace.Progress{}, err
				}
				ctx = bound
			}
			return services.UpdateInstanceInPlace(ctx, cl, mm)
		},
	}
	// snippet:end config
	return cfg, cfg.Validate()
}

// SetupInPlaceExtension registers memcloud's in-place update extension (NewInPlaceExtension, with mgr's client)
// on mgr's webhook server, beside the admission webhooks: an ExtensionConfig whose clientConfig points at the
// webhook Service (and takes its CA bundle) makes Cluster API call it. Call it once per manager, with the
// options given to SetupWithManager.
func SetupInPlaceExtension(mgr ctrl.Manager, cl *cloud.Cloud, opts ...Option) error {
	if mgr == nil {
		return errors.New("cannot set up memcloud's in-place update extension: manager is nil")
	}
	cfg, err := NewInPlaceExtension(mgr.GetClient(), cl, opts...)
	if err != nil {
		return err
	}
	if err := inplace.Register(mgr.GetWebhookServer(), cfg); err != nil {
		return fmt.Errorf("cannot set up memcloud's in-place update extension: %w", err)
	}
	return nil
}

// bindMachine returns ctx with the memcloud credentials of mm's cluster: the identity of the MemCluster in mm's
// namespace that carries mm's cluster-name label (Cluster API labels both).
func bindMachine(ctx context.Context, r client.Reader, b identity.Binder, mm *v1beta2.MemMachine) (context.Context, error) {
	name := mm.Namespace + "/" + mm.Name
	cluster := mm.Labels[contract.ClusterNameLabel]
	if cluster == "" {
		return ctx, fmt.Errorf("cannot find the identity of MemMachine %q: it has no %s label", name, contract.ClusterNameLabel)
	}
	list := &v1beta2.MemClusterList{}
	if err := r.List(ctx, list, client.InNamespace(mm.Namespace), client.MatchingLabels{contract.ClusterNameLabel: cluster}); err != nil {
		return ctx, fmt.Errorf("cannot find the MemCluster of MemMachine %q: %w", name, err)
	}
	if len(list.Items) != 1 {
		return ctx, fmt.Errorf("cannot find the MemCluster of MemMachine %q: %d MemClusters of cluster %q", name, len(list.Items), cluster)
	}
	mc := &list.Items[0]
	bound, err := b.Bind(ctx, mc.Namespace, mc.Spec.IdentityRef)
	if err != nil {
		return ctx, fmt.Errorf("cannot use the identity of MemCluster %q for MemMachine %q: %w", mc.Namespace+"/"+mc.Name, name, err)
	}
	return bound, nil
}

package controllers

import (
	"errors"
	"fmt"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/examples/podcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/podcloud/services"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/reconcile/capacity"
	"github.com/capkit/capkit/scope"
)

// Step names of the reconcilers; each step writes the condition <name>Ready.
const (
	StepServiceAccount  = "ServiceAccount"
	StepEndpoint        = "Endpoint"
	StepFailureDomains  = "FailureDomains"
	StepBootstrapSecret = "BootstrapSecret"
	StepPod             = "Pod"
)

// Option configures the reconcilers and SetupWithManager.
type Option func(*config)

type config struct {
	client        client.Client // the management cluster
	target        client.Client // the target cluster; the management cluster when nil
	reconcileOpts []reconcile.Option
}

// DefaultResyncPeriod is how often a provisioned PodCluster or PodMachine looks at its objects again, to find
// a Pod deleted or failed behind podcloud's back: one read of the target cluster per machine per period.
const DefaultResyncPeriod = 30 * time.Second

// WithClient makes the reconcilers read and write the management cluster through c instead of the manager's
// client.
func WithClient(c client.Client) Option { return func(o *config) { o.client = c } }

// WithTarget makes the services keep the Pods, Secrets, Services and ServiceAccounts in the cluster c reaches
// (build it from a kubeconfig with client.New). c must read from the API server, not from a cache: a cache
// that has not seen a new Pod yet would make it look deleted, and a machine whose Pod is gone is failed for
// good. Without it, SetupWithManager targets the management cluster with an uncached client of the manager's
// configuration.
func WithTarget(c client.Client) Option { return func(o *config) { o.target = c } }

// WithReconcileOptions passes opts to both reconcilers, after podcloud's own (a requeue of
// services.DefaultPollInterval, a resync of DefaultResyncPeriod, contract v1beta2, podcloud's finalizers), so
// that they win: e.g. reconcile.WithPollInterval, reconcile.WithResyncPeriod, reconcile.WithWatchFilter,
// reconcile.WithMaxConcurrentReconciles.
func WithReconcileOptions(opts ...reconcile.Option) Option {
	return func(o *config) { o.reconcileOpts = append(o.reconcileOpts, opts...) }
}

func newConfig(opts []Option) config {
	var cfg config
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	if cfg.target == nil {
		cfg.target = cfg.client
	}
	return cfg
}

func (cfg config) reconcileOptions(finalizer string) []reconcile.Option {
	return append([]reconcile.Option{
		reconcile.WithPollInterval(services.DefaultPollInterval),
		reconcile.WithResyncPeriod(DefaultResyncPeriod),
		reconcile.WithScopeOptions(scope.WithContractVersion(contract.V1Beta2)),
		reconcile.WithFinalizer(finalizer),
	}, cfg.reconcileOpts...)
}

// ClusterSteps returns the steps of a PodCluster on the target cluster, in order: ServiceAccount, Endpoint,
// FailureDomains.
func ClusterSteps(target client.Client) ([]reconcile.Step[services.ClusterScope], error) {
	sa, err1 := services.NewServiceAccount(target)
	ep, err2 := services.NewEndpoint(target)
	fd, err3 := services.NewFailureDomains(target)
	if err := errors.Join(err1, err2, err3); err != nil {
		return nil, err
	}
	return []reconcile.Step[services.ClusterScope]{
		{Name: StepServiceAccount, Service: sa},
		{Name: StepEndpoint, Service: ep},
		{Name: StepFailureDomains, Service: fd},
	}, nil
}

// MachineSteps returns the steps of a PodMachine on the target cluster, in order: BootstrapSecret, Pod.
// lookup finds the machine's PodCluster (services.PodClusterLookup).
func MachineSteps(target client.Client, lookup services.ClusterLookup) ([]reconcile.Step[services.MachineScope], error) {
	secret, err1 := services.NewBootstrap(target, lookup)
	pod, err2 := services.NewPod(target, target, lookup)
	if err := errors.Join(err1, err2); err != nil {
		return nil, err
	}
	return []reconcile.Step[services.MachineScope]{
		{Name: StepBootstrapSecret, Service: secret},
		{Name: StepPod, Service: pod},
	}, nil
}

var errNilClient = errors.New("client must not be nil")

// NewClusterReconciler returns the PodCluster reconciler, reading and writing the management cluster through c.
func NewClusterReconciler(c client.Client, opts ...Option) (*reconcile.ClusterReconciler[*v1beta2.PodCluster], error) {
	if c == nil {
		return nil, fmt.Errorf("cannot create the PodCluster reconciler: %w", errNilClient)
	}
	cfg := newConfig(append([]Option{WithClient(c)}, opts...))
	steps, err := ClusterSteps(cfg.target)
	if err != nil {
		return nil, err
	}
	return reconcile.NewClusterReconcilerFor(c, &v1beta2.PodCluster{}, steps,
		cfg.reconcileOptions(v1beta2.PodClusterFinalizer)...)
}

// NewMachineReconciler returns the PodMachine reconciler, reading and writing the management cluster through c.
func NewMachineReconciler(c client.Client, opts ...Option) (*reconcile.MachineReconciler[*v1beta2.PodMachine], error) {
	if c == nil {
		return nil, fmt.Errorf("cannot create the PodMachine reconciler: %w", errNilClient)
	}
	cfg := newConfig(append([]Option{WithClient(c)}, opts...))
	steps, err := MachineSteps(cfg.target, services.PodClusterLookup(c))
	if err != nil {
		return nil, err
	}
	return reconcile.NewMachineReconcilerFor(c, &v1beta2.PodMachine{}, steps,
		cfg.reconcileOptions(v1beta2.PodMachineFinalizer)...)
}

// NewTemplateCapacityReconciler returns the PodMachineTemplate reconciler, which keeps each template's
// status.capacity and status.nodeInfo (services.TemplateCapacity) for the cluster autoscaler's scale from zero,
// reading and writing the management cluster through c.
func NewTemplateCapacityReconciler(c client.Client) (*capacity.Reconciler[*v1beta2.PodMachineTemplate], error) {
	if c == nil {
		return nil, fmt.Errorf("cannot create the PodMachineTemplate reconciler: %w", errNilClient)
	}
	return capacity.NewReconcilerFor(c, &v1beta2.PodMachineTemplate{},
		services.TemplateCapacity)
}

// SetupWithManager registers podcloud's PodCluster and PodMachine controllers, and the PodMachineTemplate
// controller that reports each template's capacity, with mgr. The manager's scheme must hold the v1beta2 types
// and client-go's core types. Events go to the manager's recorder unless options say otherwise (reconcile.WithEventRecorder); bootstrap data
// is read through the manager's API reader, never from a cache.
func SetupWithManager(mgr ctrl.Manager, opts ...Option) error {
	if mgr == nil {
		return errors.New("cannot set up podcloud's controllers: manager is nil")
	}
	direct, err := client.New(mgr.GetConfig(), client.Options{Scheme: mgr.GetScheme(), Mapper: mgr.GetRESTMapper()})
	if err != nil {
		return fmt.Errorf("cannot create the client of the target cluster: %w", err)
	}
	all := append([]Option{WithClient(mgr.GetClient()), WithTarget(direct)}, opts...)
	cfg := newConfig(all)
	cr, err := NewClusterReconciler(cfg.client, all...)
	if err != nil {
		return err
	}
	if err := cr.SetupWithManager(mgr); err != nil {
		return fmt.Errorf("cannot set up the PodCluster controller: %w", err)
	}
	mr, err := NewMachineReconciler(cfg.client, all...)
	if err != nil {
		return err
	}
	if err := mr.SetupWithManager(mgr); err != nil {
		return fmt.Errorf("cannot set up the PodMachine controller: %w", err)
	}
	tr, err := NewTemplateCapacityReconciler(cfg.client)
	if err != nil {
		return err
	}
	if err := tr.SetupWithManager(mgr, "podmachinetemplate"); err != nil {
		return fmt.Errorf("cannot set up the PodMachineTemplate controller: %w", err)
	}
	return nil
}

package controllers

import (
	"context"
	"errors"
	"fmt"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/contract/templates"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/services"
	"github.com/capkit/capkit/identity"
	"github.com/capkit/capkit/ratelimit"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/scope"
)

// Step names of the reconcilers; each step writes the condition <name>Ready.
const (
	StepNetwork       = "Network"
	StepSubnets       = "Subnets"
	StepSecurityGroup = "SecurityGroup"
	StepLoadBalancer  = "LoadBalancer"
	StepInstance      = "Instance"
	StepInstanceGroup = "InstanceGroup"
)

// Option configures the reconcilers and SetupWithManager.
type Option func(*config)

type config struct {
	limiters          *ratelimit.Limiters
	identityNamespace string
	secretReader      client.Reader
	client            client.Client
	watchFilter       string
	poll              time.Duration
	recorder          reconcile.EventRecorder
}

// WithClient makes SetupWithManager use c instead of the manager's client, for example a
// scopetest.CountingClient wrapping it.
func WithClient(c client.Client) Option { return func(o *config) { o.client = c } }

// WithWatchFilter reconciles only objects with the cluster.x-k8s.io/watch-filter label set to value.
func WithWatchFilter(value string) Option { return func(o *config) { o.watchFilter = value } }

// WithPollInterval sets how long to wait before looking again at a step that is not done: a booting
// instance, a blocked delete (default services.DefaultPollInterval).
func WithPollInterval(d time.Duration) Option { return func(o *config) { o.poll = d } }

// WithEventRecorder emits the reconcilers' events through rec (SetupWithManager: the manager's recorder).
func WithEventRecorder(rec reconcile.EventRecorder) Option {
	return func(o *config) { o.recorder = rec }
}

// WithRateLimiter makes every reconciler wait on l before each cloud call its services make through
// reconcile.Ensure (one bucket per memcloud account). Pass the same Limiters to every reconciler.
func WithRateLimiter(l *ratelimit.Limiters) Option { return func(o *config) { o.limiters = l } }

// withSecretReader sets the reader of credentials Secrets unless WithIdentities set one.
func withSecretReader(r client.Reader) Option {
	return func(o *config) {
		if o.secretReader == nil {
			o.secretReader = r
		}
	}
}

// WithIdentities makes the reconcilers call memcloud with the account of each MemCluster's spec.identityRef
// (a MemClusterIdentity), whose credentials Secret is in namespace (memcloud's own). A MemCluster without
// identityRef uses memcloud without credentials, which works only on a cloud without accounts. Credentials
// Secrets are read through secrets (SetupWithManager: the manager's uncached API reader; nil: the client).
func WithIdentities(namespace string, secrets client.Reader) Option {
	return func(o *config) {
		o.identityNamespace = namespace
		if secrets != nil {
			o.secretReader = secrets
		}
	}
}

func newConfig(opts []Option) config {
	cfg := config{poll: services.DefaultPollInterval}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	if cfg.poll <= 0 {
		cfg.poll = services.DefaultPollInterval
	}
	return cfg
}

// identityOption returns the reconcile option that binds each cluster's memcloud account, or nil.
func (cfg config) identityOption(c client.Client) (reconcile.Option, error) {
	if cfg.identityNamespace == "" {
		return nil, nil
	}
	opts := []identity.ResolverOption{identity.WithRequiredKeys(v1beta2.CredentialsAccessKeyID, v1beta2.CredentialsSecretAccessKey)}
	if cfg.secretReader != nil {
		opts = append(opts, identity.WithSecretReader(cfg.secretReader))
	}
	r, err := identity.NewResolver(c, v1beta2.MemClusterIdentityKind, func() *v1beta2.MemClusterIdentity { return &v1beta2.MemClusterIdentity{} },
		cfg.identityNamespace, opts...)
	if err != nil {
		return nil, err
	}
	b, err := identity.NewBinder(r,
		func(_ context.Context, c identity.Credentials) (cloud.Credentials, error) {
			return cloud.Credentials{AccessKeyID: string(c.Get(v1beta2.CredentialsAccessKeyID)),
				SecretAccessKey: string(c.Get(v1beta2.CredentialsSecretAccessKey))}, nil
		},
		cloud.WithCredentials)
	if err != nil {
		return nil, err
	}
	return reconcile.WithIdentity(b, func() identity.Referencer { return &v1beta2.MemCluster{} }), nil
}

// allReconcileOptions returns the reconcile options, with the identity binding if configured.
func (cfg config) allReconcileOptions(c client.Client) ([]reconcile.Option, error) {
	idOpt, err := cfg.identityOption(c)
	if err != nil {
		return nil, err
	}
	return append(cfg.reconcileOptions(), idOpt), nil
}

func (cfg config) reconcileOptions() []reconcile.Option {
	opts := []reconcile.Option{
		reconcile.WithDefaultRequeue(cfg.poll),
		reconcile.WithWatchFilter(cfg.watchFilter),
		reconcile.WithScopeOptions(scope.WithContractVersion(contract.V1Beta2)),
	}
	if cfg.recorder != nil {
		opts = append(opts, reconcile.WithEventRecorder(cfg.recorder))
	}
	if cfg.limiters != nil {
		opts = append(opts, reconcile.WithRateLimiter(cfg.limiters))
	}
	return opts
}

var errNilCloud = errors.New("cloud must not be nil")

// ClusterSteps returns the steps of a MemCluster, in order: Network, Subnets, SecurityGroup, LoadBalancer.
func ClusterSteps(cl *cloud.Cloud, opts ...services.Option) ([]reconcile.Step[scope.ClusterScoper[*v1beta2.MemCluster]], error) {
	network, err1 := services.NewNetwork(cl, opts...)
	subnets, err2 := services.NewSubnets(cl, opts...)
	sg, err3 := services.NewSecurityGroup(cl, opts...)
	lb, err4 := services.NewLoadBalancer(cl, opts...)
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		return nil, err
	}
	return []reconcile.Step[scope.ClusterScoper[*v1beta2.MemCluster]]{
		{Name: StepNetwork, Service: network},
		{Name: StepSubnets, Service: subnets},
		{Name: StepSecurityGroup, Service: sg},
		{Name: StepLoadBalancer, Service: lb},
	}, nil
}

// MachineSteps returns the steps of a MemMachine: Instance. lookup finds the cluster network
// (services.MemClusterLookup).
func MachineSteps(cl *cloud.Cloud, lookup services.NetworkLookup, opts ...services.Option) ([]reconcile.Step[scope.MachineScoper[*v1beta2.MemMachine]], error) {
	inst, err := services.NewInstance(cl, lookup, opts...)
	if err != nil {
		return nil, err
	}
	return []reconcile.Step[scope.MachineScoper[*v1beta2.MemMachine]]{{Name: StepInstance, Service: inst}}, nil
}

// MachinePoolSteps returns the steps of a MemMachinePool: InstanceGroup. lookup finds the cluster network.
func MachinePoolSteps(cl *cloud.Cloud, lookup services.NetworkLookup, opts ...services.Option) ([]reconcile.Step[services.PoolScope], error) {
	g, err := services.NewInstanceGroup(cl, lookup, opts...)
	if err != nil {
		return nil, err
	}
	return []reconcile.Step[services.PoolScope]{{Name: StepInstanceGroup, Service: g}}, nil
}

// NewMachinePoolReconciler returns the MemMachinePool reconciler on memcloud cl, reading and writing through c.
func NewMachinePoolReconciler(c client.Client, cl *cloud.Cloud, opts ...Option) (*reconcile.MachinePoolReconciler[*v1beta2.MemMachinePool], error) {
	if cl == nil {
		return nil, fmt.Errorf("cannot create the MemMachinePool reconciler: %w", errNilCloud)
	}
	if c == nil {
		return nil, errors.New("cannot create the MemMachinePool reconciler: client is nil")
	}
	cfg := newConfig(opts)
	steps, err := MachinePoolSteps(cl, services.MemClusterLookup(c), services.WithPollInterval(cfg.poll))
	if err != nil {
		return nil, err
	}
	recOpts, err := cfg.allReconcileOptions(c)
	if err != nil {
		return nil, err
	}
	return reconcile.NewMachinePoolReconciler(c, func() *v1beta2.MemMachinePool { return &v1beta2.MemMachinePool{} }, steps,
		append(recOpts, reconcile.WithFinalizer(v1beta2.MemMachinePoolFinalizer))...)
}

// NewClusterReconciler returns the MemCluster reconciler on memcloud cl, reading and writing through c.
func NewClusterReconciler(c client.Client, cl *cloud.Cloud, opts ...Option) (*reconcile.ClusterReconciler[*v1beta2.MemCluster], error) {
	if cl == nil {
		return nil, fmt.Errorf("cannot create the MemCluster reconciler: %w", errNilCloud)
	}
	cfg := newConfig(opts)
	steps, err := ClusterSteps(cl, services.WithPollInterval(cfg.poll))
	if err != nil {
		return nil, err
	}
	recOpts, err := cfg.allReconcileOptions(c)
	if err != nil {
		return nil, err
	}
	return reconcile.NewClusterReconciler(c, func() *v1beta2.MemCluster { return &v1beta2.MemCluster{} }, steps,
		append(recOpts, reconcile.WithFinalizer(v1beta2.MemClusterFinalizer))...)
}

// NewMachineReconciler returns the MemMachine reconciler on memcloud cl, reading and writing through c.
func NewMachineReconciler(c client.Client, cl *cloud.Cloud, opts ...Option) (*reconcile.MachineReconciler[*v1beta2.MemMachine], error) {
	if cl == nil {
		return nil, fmt.Errorf("cannot create the MemMachine reconciler: %w", errNilCloud)
	}
	if c == nil {
		return nil, errors.New("cannot create the MemMachine reconciler: client is nil")
	}
	cfg := newConfig(opts)
	steps, err := MachineSteps(cl, services.MemClusterLookup(c), services.WithPollInterval(cfg.poll))
	if err != nil {
		return nil, err
	}
	recOpts, err := cfg.allReconcileOptions(c)
	if err != nil {
		return nil, err
	}
	return reconcile.NewMachineReconciler(c, func() *v1beta2.MemMachine { return &v1beta2.MemMachine{} }, steps,
		append(recOpts, reconcile.WithFinalizer(v1beta2.MemMachineFinalizer))...)
}

// SetupWithManager registers memcloud's MemCluster, MemMachine and MemMachinePool controllers, and the
// MemMachineTemplate controller that reports each template's capacity, with mgr, on memcloud cl.
// The manager's scheme must hold the v1beta2 types. Events go to the manager's recorder unless options say
// otherwise; bootstrap Secrets are read through the manager's API reader (capkit's machine reconciler wires
// it), never from a cache.
func SetupWithManager(mgr ctrl.Manager, cl *cloud.Cloud, opts ...Option) error {
	if mgr == nil {
		return errors.New("cannot set up memcloud's controllers: manager is nil")
	}
	all := append([]Option{WithClient(mgr.GetClient()), WithEventRecorder(mgr.GetEventRecorder("memcloud")), withSecretReader(mgr.GetAPIReader())}, opts...)
	cfg := newConfig(all)
	cr, err := NewClusterReconciler(cfg.client, cl, all...)
	if err != nil {
		return err
	}
	if err := cr.SetupWithManager(mgr); err != nil {
		return fmt.Errorf("cannot set up the MemCluster controller: %w", err)
	}
	mr, err := NewMachineReconciler(cfg.client, cl, all...)
	if err != nil {
		return err
	}
	if err := mr.SetupWithManager(mgr); err != nil {
		return fmt.Errorf("cannot set up the MemMachine controller: %w", err)
	}
	tr, err := templates.NewCapacityReconciler(cfg.client, func() *v1beta2.MemMachineTemplate { return &v1beta2.MemMachineTemplate{} },
		services.TemplateCapacity)
	if err != nil {
		return err
	}
	if err := tr.SetupWithManager(mgr, "memmachinetemplate"); err != nil {
		return fmt.Errorf("cannot set up the MemMachineTemplate controller: %w", err)
	}
	pr, err := NewMachinePoolReconciler(cfg.client, cl, all...)
	if err != nil {
		return err
	}
	if err := pr.SetupWithManager(mgr); err != nil {
		return fmt.Errorf("cannot set up the MemMachinePool controller: %w", err)
	}
	return nil
}

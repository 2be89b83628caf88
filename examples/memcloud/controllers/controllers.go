package controllers

import (
	"context"
	"errors"
	"fmt"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/services"
	"github.com/capkit/capkit/identity"
	"github.com/capkit/capkit/ipam"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/reconcile/capacity"
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
	identityNamespace string
	secretReader      client.Reader
	client            client.Client
	reconcileOpts     []reconcile.Option
}

// WithClient makes SetupWithManager use c instead of the manager's client, for example a
// scopetest.CountingClient wrapping it.
func WithClient(c client.Client) Option { return func(o *config) { o.client = c } }

// WithReconcileOptions passes opts to every reconciler, after memcloud's own (a requeue of
// services.DefaultPollInterval, contract v1beta2, memcloud's finalizers), so that they win: e.g.
// reconcile.WithPollInterval, reconcile.WithWatchFilter, reconcile.WithRateLimiter (one bucket per memcloud
// account; pass the same Limiters to every reconciler), reconcile.WithMaxConcurrentReconciles.
func WithReconcileOptions(opts ...reconcile.Option) Option {
	return func(o *config) { o.reconcileOpts = append(o.reconcileOpts, opts...) }
}

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
	var cfg config
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	return cfg
}

// identities returns memcloud's identities: MemClusterIdentities whose credentials Secret, in
// cfg.identityNamespace, holds an access key; ok is false when identities are off.
func (cfg config) identities() (c identity.Config[cloud.Credentials], ok bool) {
	return identity.Config[cloud.Credentials]{
		Kind: v1beta2.MemClusterIdentityKind, Prototype: &v1beta2.MemClusterIdentity{}, Namespace: cfg.identityNamespace,
		RequiredKeys: []string{v1beta2.CredentialsAccessKeyID, v1beta2.CredentialsSecretAccessKey}, SecretReader: cfg.secretReader,
		Credentials: func(_ context.Context, c identity.Credentials) (cloud.Credentials, error) {
			return cloud.Credentials{AccessKeyID: string(c.Get(v1beta2.CredentialsAccessKeyID)),
				SecretAccessKey: string(c.Get(v1beta2.CredentialsSecretAccessKey))}, nil
		},
		Bind: cloud.WithCredentials,
	}, cfg.identityNamespace != ""
}

// allReconcileOptions returns the reconcile options of a reconciler with finalizer: memcloud's, the
// identity binding if configured, then the caller's.
func (cfg config) allReconcileOptions(finalizer string) []reconcile.Option {
	opts := []reconcile.Option{
		reconcile.WithPollInterval(services.DefaultPollInterval),
		reconcile.WithScopeOptions(scope.WithContractVersion(contract.V1Beta2)),
		reconcile.WithFinalizer(finalizer),
	}
	if ids, ok := cfg.identities(); ok {
		opts = append(opts, reconcile.WithIdentities(&v1beta2.MemCluster{}, ids))
	}
	return append(opts, cfg.reconcileOpts...)
}

var errNilCloud = errors.New("cloud must not be nil")

// ClusterSteps returns the steps of a MemCluster, in order: Network, Subnets, SecurityGroup, LoadBalancer.
func ClusterSteps(cl *cloud.Cloud) ([]reconcile.Step[scope.ClusterScoper[*v1beta2.MemCluster]], error) {
	network, err1 := services.NewNetwork(cl)
	subnets, err2 := services.NewSubnets(cl)
	sg, err3 := services.NewSecurityGroup(cl)
	lb, err4 := services.NewLoadBalancer(cl)
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
// (services.MemClusterLookup); opts configure the instance service, e.g. services.WithAddressClaimer for
// spec.addressesFromPools.
func MachineSteps(cl *cloud.Cloud, lookup services.NetworkLookup, opts ...services.InstanceOption) ([]reconcile.Step[scope.MachineScoper[*v1beta2.MemMachine]], error) {
	inst, err := services.NewInstance(cl, lookup, opts...)
	if err != nil {
		return nil, err
	}
	return []reconcile.Step[scope.MachineScoper[*v1beta2.MemMachine]]{{Name: StepInstance, Service: inst}}, nil
}

// MachinePoolSteps returns the steps of a MemMachinePool: InstanceGroup. lookup finds the cluster network.
func MachinePoolSteps(cl *cloud.Cloud, lookup services.NetworkLookup) ([]reconcile.Step[services.PoolScope], error) {
	g, err := services.NewInstanceGroup(cl, lookup)
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
	steps, err := MachinePoolSteps(cl, services.MemClusterLookup(c))
	if err != nil {
		return nil, err
	}
	return reconcile.NewMachinePoolReconcilerFor(c, &v1beta2.MemMachinePool{}, steps, cfg.allReconcileOptions(v1beta2.MemMachinePoolFinalizer)...)
}

// NewClusterReconciler returns the MemCluster reconciler on memcloud cl, reading and writing through c.
func NewClusterReconciler(c client.Client, cl *cloud.Cloud, opts ...Option) (*reconcile.ClusterReconciler[*v1beta2.MemCluster], error) {
	if cl == nil {
		return nil, fmt.Errorf("cannot create the MemCluster reconciler: %w", errNilCloud)
	}
	cfg := newConfig(opts)
	steps, err := ClusterSteps(cl)
	if err != nil {
		return nil, err
	}
	return reconcile.NewClusterReconcilerFor(c, &v1beta2.MemCluster{}, steps, cfg.allReconcileOptions(v1beta2.MemClusterFinalizer)...)
}

// NewMachineReconciler returns the MemMachine reconciler on memcloud cl, reading and writing through c. The
// machines' IPAddressClaims (spec.addressesFromPools) are written and read through c too, by an
// ipam.Claimer. The reconciler does not watch them: a machine waiting for its addresses looks at its claims
// again after the poll interval (services.DefaultPollInterval), and so does one waiting for its claims to be
// deleted.
func NewMachineReconciler(c client.Client, cl *cloud.Cloud, opts ...Option) (*reconcile.MachineReconciler[*v1beta2.MemMachine], error) {
	if cl == nil {
		return nil, fmt.Errorf("cannot create the MemMachine reconciler: %w", errNilCloud)
	}
	if c == nil {
		return nil, errors.New("cannot create the MemMachine reconciler: client is nil")
	}
	cfg := newConfig(opts)
	// snippet:start claimer
	claimer, err := ipam.NewClaimer(c)
	if err != nil {
		return nil, fmt.Errorf("cannot create the MemMachine reconciler: %w", err)
	}
	steps, err := MachineSteps(cl, services.MemClusterLookup(c), services.WithAddressClaimer(claimer))
	// snippet:end claimer
	if err != nil {
		return nil, err
	}
	return reconcile.NewMachineReconcilerFor(c, &v1beta2.MemMachine{}, steps, cfg.allReconcileOptions(v1beta2.MemMachineFinalizer)...)
}

// SetupWithManager registers memcloud's MemCluster, MemMachine and MemMachinePool controllers, and the
// MemMachineTemplate controller that reports each template's capacity, with mgr, on memcloud cl.
// The manager's scheme must hold the v1beta2 types. Events go to the manager's recorder unless options say
// otherwise (reconcile.WithEventRecorder); bootstrap Secrets are read through the manager's API reader (capkit's machine reconciler wires
// it), never from a cache.
func SetupWithManager(mgr ctrl.Manager, cl *cloud.Cloud, opts ...Option) error {
	if mgr == nil {
		return errors.New("cannot set up memcloud's controllers: manager is nil")
	}
	all := append([]Option{WithClient(mgr.GetClient()), withSecretReader(mgr.GetAPIReader())}, opts...)
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
	tr, err := capacity.NewReconcilerFor(cfg.client, &v1beta2.MemMachineTemplate{},
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

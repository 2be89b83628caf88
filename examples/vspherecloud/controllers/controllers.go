package controllers

import (
	"errors"
	"fmt"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/examples/vspherecloud/api/v1beta2"
	"github.com/capkit/capkit/examples/vspherecloud/services"
	"github.com/capkit/capkit/identity"
	"github.com/capkit/capkit/ipam"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/scope"
)

// Step names of the reconcilers; each step writes the condition <name>Ready.
const (
	StepVCenter = "VCenter"
	StepVM      = "VM"
)

// DefaultPollInterval is how long a step waits before looking again at a clone task, a VM without an address or a
// VM being powered off: the requeue of vspherecloud's reconcilers, which ensure uses as its poll interval.
const DefaultPollInterval = 10 * time.Second

// Option configures the reconcilers and SetupWithManager.
type Option func(*config)

type config struct {
	client            client.Client
	secrets           client.Reader
	identityNamespace string
	machineOpts       []services.MachineOption
	reconcileOpts     []reconcile.Option
}

// WithClient makes SetupWithManager use c instead of the manager's client.
func WithClient(c client.Client) Option { return func(o *config) { o.client = c } }

// WithSecretReader reads the credentials Secrets through r (SetupWithManager: the manager's API reader; else the
// client).
func WithSecretReader(r client.Reader) Option { return func(o *config) { o.secrets = r } }

// WithIdentities makes the reconcilers log in to the vCenter of a VSphereCluster whose spec.identityRef names a
// VSphereClusterIdentity with that identity's credentials, from its Secret in namespace (vspherecloud's own): before
// any vCenter call, they check that the identity allows the VSphereCluster's namespace and refuse otherwise with the
// IdentityReady condition (reconcile.WithIdentities), and they reconcile again the VSphereClusters and VSphereMachines
// of an identity whose allowed namespaces or Secret change. The Secrets are read through the Secret reader
// (WithSecretReader). A VSphereCluster with spec.credentialsSecretRef logs in with that Secret as before. An empty
// namespace leaves identities off: a VSphereCluster that names one is then refused.
func WithIdentities(namespace string) Option {
	return func(o *config) { o.identityNamespace = namespace }
}

// WithMachineOptions configures the machine service, e.g. services.WithVMOptions(services.WithMaxCloneTime(d)).
func WithMachineOptions(opts ...services.MachineOption) Option {
	return func(o *config) { o.machineOpts = append(o.machineOpts, opts...) }
}

// WithReconcileOptions passes opts to both reconcilers, after vspherecloud's own (a requeue of DefaultPollInterval,
// contract v1beta2, vspherecloud's finalizers), so that they win.
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
	return cfg
}

// reconcileOptions returns the options of a reconciler with finalizer: vspherecloud's, the identities if configured,
// then the caller's.
func (cfg config) reconcileOptions(finalizer string) []reconcile.Option {
	opts := []reconcile.Option{
		reconcile.WithPollInterval(DefaultPollInterval),
		reconcile.WithScopeOptions(scope.WithContractVersion(contract.V1Beta2)),
		reconcile.WithFinalizer(finalizer),
	}
	if cfg.identityNamespace != "" {
		opts = append(opts, reconcile.WithIdentities(&v1beta2.VSphereCluster{}, cfg.identities()))
	}
	return append(opts, cfg.reconcileOpts...)
}

// identities are vspherecloud's identities: VSphereClusterIdentities whose Secret, in cfg.identityNamespace, holds a
// username and a password. The reconcilers put the credentials themselves into the context of the steps, since a
// session depends on the VSphereCluster's server too: services.Sessions reads them there.
func (cfg config) identities() identity.Config[identity.Credentials] {
	return identity.Config[identity.Credentials]{
		Kind: v1beta2.VSphereClusterIdentityKind, Prototype: &v1beta2.VSphereClusterIdentity{}, Namespace: cfg.identityNamespace,
		RequiredKeys: []string{v1beta2.CredentialsUsername, v1beta2.CredentialsPassword}, SecretReader: cfg.secrets,
		Credentials: identity.PassCredentials, Bind: identity.ContextWithCredentials,
	}
}

// sessions returns given, or else new sessions over the configured Secret reader, or else c.
func (cfg config) sessions(given *services.Sessions, c client.Reader) *services.Sessions {
	switch {
	case given != nil:
		return given
	case cfg.secrets != nil:
		return services.NewSessions(c, cfg.secrets)
	}
	return services.NewSessions(c, c)
}

// ClusterSteps returns the steps of a VSphereCluster: VCenter, configured by opts (services.WithAddressClaimer).
func ClusterSteps(sessions *services.Sessions, opts ...services.VCenterOption) ([]reconcile.Step[scope.ClusterScoper[*v1beta2.VSphereCluster]], error) {
	vc, err := services.NewVCenter(sessions, opts...)
	if err != nil {
		return nil, err
	}
	return []reconcile.Step[scope.ClusterScoper[*v1beta2.VSphereCluster]]{{Name: StepVCenter, Service: vc}}, nil
}

// MachineSteps returns the steps of a VSphereMachine: VM. clusters reads the machines' VSphereClusters.
func MachineSteps(clusters client.Reader, sessions *services.Sessions, opts ...services.MachineOption) ([]reconcile.Step[scope.MachineScoper[*v1beta2.VSphereMachine]], error) {
	m, err := services.NewMachine(clusters, sessions, opts...)
	if err != nil {
		return nil, err
	}
	return []reconcile.Step[scope.MachineScoper[*v1beta2.VSphereMachine]]{{Name: StepVM, Service: m}}, nil
}

// NewClusterReconciler returns the VSphereCluster reconciler, reading and writing through c, logging in through
// sessions (nil: new ones over the configured Secret reader). Give the machine reconciler the same sessions: a
// VSphereCluster's delete logs out the sessions of its own Sessions only.
func NewClusterReconciler(c client.Client, sessions *services.Sessions, opts ...Option) (*reconcile.ClusterReconciler[*v1beta2.VSphereCluster], error) {
	if c == nil {
		return nil, errors.New("cannot create the VSphereCluster reconciler: client is nil")
	}
	cfg := newConfig(opts)
	// The virtual IP's IPAddressClaim is written and read through c. The reconciler does not watch claims: a cluster
	// waiting for its address looks at its claim again after the poll interval.
	claimer, err := ipam.NewClaimer(c)
	if err != nil {
		return nil, err
	}
	steps, err := ClusterSteps(cfg.sessions(sessions, c), services.WithAddressClaimer(claimer))
	if err != nil {
		return nil, err
	}
	return reconcile.NewClusterReconcilerFor(c, &v1beta2.VSphereCluster{}, steps, cfg.reconcileOptions(v1beta2.VSphereClusterFinalizer)...)
}

// NewMachineReconciler returns the VSphereMachine reconciler, reading and writing through c, logging in through
// sessions (nil: new ones over the configured Secret reader).
func NewMachineReconciler(c client.Client, sessions *services.Sessions, opts ...Option) (*reconcile.MachineReconciler[*v1beta2.VSphereMachine], error) {
	if c == nil {
		return nil, errors.New("cannot create the VSphereMachine reconciler: client is nil")
	}
	cfg := newConfig(opts)
	steps, err := MachineSteps(c, cfg.sessions(sessions, c), cfg.machineOpts...)
	if err != nil {
		return nil, err
	}
	return reconcile.NewMachineReconcilerFor(c, &v1beta2.VSphereMachine{}, steps, cfg.reconcileOptions(v1beta2.VSphereMachineFinalizer)...)
}

// SetupWithManager registers vspherecloud's VSphereCluster and VSphereMachine controllers with mgr, sharing one
// services.Sessions whose credentials Secrets are read through the manager's API reader. The manager's scheme must
// hold the v1beta2 types.
func SetupWithManager(mgr ctrl.Manager, opts ...Option) error {
	if mgr == nil {
		return errors.New("cannot set up vspherecloud's controllers: manager is nil")
	}
	all := append([]Option{WithClient(mgr.GetClient()), WithSecretReader(mgr.GetAPIReader())}, opts...)
	cfg := newConfig(all)
	sessions := cfg.sessions(nil, cfg.client)
	cr, err := NewClusterReconciler(cfg.client, sessions, all...)
	if err != nil {
		return err
	}
	if err := cr.SetupWithManager(mgr); err != nil {
		return fmt.Errorf("cannot set up the VSphereCluster controller: %w", err)
	}
	mr, err := NewMachineReconciler(cfg.client, sessions, all...)
	if err != nil {
		return err
	}
	if err := mr.SetupWithManager(mgr); err != nil {
		return fmt.Errorf("cannot set up the VSphereMachine controller: %w", err)
	}
	return nil
}

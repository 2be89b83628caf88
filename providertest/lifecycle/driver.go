package lifecycle

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/providertest"
	"github.com/capkit/capkit/providertest/testenv"
	"github.com/capkit/capkit/scope"
)

// Errors of the lifecycle driver.
var (
	// ErrInvalidSpec is wrapped by the error of New for a bad Spec.
	ErrInvalidSpec = errors.New("invalid lifecycle spec")
	// ErrTimeout is wrapped by the errors of the waits that did not finish in time.
	ErrTimeout = errors.New("timed out")
	// ErrLeaked is wrapped by the error of Run when the cloud still holds resources after the delete.
	ErrLeaked = errors.New("cloud resources leaked")
)

// LeakQuery names a deleted cluster for a LeakChecker.
type LeakQuery struct {
	// Namespace and ClusterName name the Cluster.
	Namespace, ClusterName string
	// OwnershipKeys are the ownership keys (label scope.OwnershipKeyLabel) of the InfraCluster and the
	// InfraMachines, read before the delete: the keys the provider tagged its resources with.
	OwnershipKeys []string
}

// LeakChecker asks the provider's cloud what is left of a cluster after its delete.
type LeakChecker interface {
	// Leaks returns one line per resource of the cluster that still exists (e.g. "Network net-1f2e3d4c");
	// none means nothing leaked.
	Leaks(ctx context.Context, q LeakQuery) ([]string, error)
}

// LeakCheckerFunc adapts a function to LeakChecker.
type LeakCheckerFunc func(ctx context.Context, q LeakQuery) ([]string, error)

// Leaks calls f.
func (f LeakCheckerFunc) Leaks(ctx context.Context, q LeakQuery) ([]string, error) { return f(ctx, q) }

// Spec describes the cluster a Driver creates and deletes.
type Spec struct {
	// Namespace and ClusterName name the Cluster and its InfraCluster. Required.
	Namespace, ClusterName string
	// CoreVersion is the API version of the core Cluster and Machines; default contract.V1Beta2.
	CoreVersion contract.Version
	// ContractVersion is the contract version of the provider's objects; default contract.V1Beta2.
	ContractVersion contract.Version
	// InfraClusterGVK and InfraMachineGVK are the provider's kinds. Required.
	InfraClusterGVK, InfraMachineGVK schema.GroupVersionKind
	// InfraCluster returns the provider's InfraCluster (typed or unstructured) with its spec; the driver sets
	// kind, namespace, name and labels. Default: an object with an empty spec ({}, so that the CRD's defaults
	// under spec apply; a template without a spec gets one too).
	InfraCluster func(namespace, name string) (client.Object, error)
	// InfraMachine returns the provider's InfraMachine for a Machine, like InfraCluster.
	InfraMachine func(namespace, name string, controlPlane bool) (client.Object, error)
	// ControlPlaneMachines and WorkerMachines are how many Machines to create; at least one in all.
	ControlPlaneMachines, WorkerMachines int
	// KubernetesVersion is the Machines' spec.version; default testenv.KubernetesVersion.
	KubernetesVersion string
	// BootstrapData returns the bootstrap data of a Machine; default a minimal cloud-config.
	BootstrapData func(machineName string, controlPlane bool) []byte
	// PlayCAPI makes the driver do Cluster API's minimal part: owner references, the Cluster's and
	// Machines' status, the Machine's providerID, and the deletion order. Set it when the Cluster API
	// controllers are not running (the usual envtest); leave it false when they are.
	PlayCAPI bool
	// Timeout bounds each wait; default 2 minutes. PollInterval is the time between reads; default 200ms.
	Timeout, PollInterval time.Duration
	// LeakChecker asks the cloud what is left after the delete. Required.
	LeakChecker LeakChecker
	// OnProvisioned is called once everything is provisioned, before the delete, for the provider's own
	// assertions (e.g. providertest.AssertObjectConformance on l.InfraCluster). Optional.
	OnProvisioned func(ctx context.Context, l *Driver) error
	// OnPoll is called after every check of every wait (WaitProvisioned, Delete), with the check's
	// outcome: done tells whether the wait ends, pending names what it still waits for. It lets a demo or a
	// test print progress between the steps; it must not block. Optional.
	OnPoll func(ctx context.Context, p Poll)
}

// Poll is one check of a wait of the Driver, as OnPoll gets it.
type Poll struct {
	// Phase is PhaseProvisioning for WaitProvisioned and PhaseDeletion for the waits of Delete.
	Phase string
	// Done tells whether the wait is over.
	Done bool
	// Pending names what is not provisioned or not deleted yet, one entry per object.
	Pending []string
}

// Driver drives a cluster through its life against a running provider: create the Cluster, the
// InfraCluster, Machines with their bootstrap Secrets and InfraMachines; wait until all are provisioned;
// delete; ask the cloud what leaked.
type Driver struct {
	c    client.Client
	spec Spec
}

// New checks spec, applies its defaults and returns a driver that uses c.
func New(c client.Client, spec Spec) (*Driver, error) {
	invalid := func(field string, value any, rule string) error {
		return fmt.Errorf("cannot create lifecycle: %s %q %s: %w", field, value, rule, ErrInvalidSpec)
	}
	switch {
	case c == nil:
		return nil, fmt.Errorf("cannot create lifecycle: client must not be nil: %w", ErrInvalidSpec)
	case len(validation.IsDNS1123Label(spec.Namespace)) > 0:
		return nil, invalid("namespace", spec.Namespace, "must be a DNS label")
	case len(validation.IsDNS1123Label(spec.ClusterName)) > 0:
		return nil, invalid("clusterName", spec.ClusterName, "must be a DNS label")
	case spec.InfraClusterGVK.Kind == "" || spec.InfraClusterGVK.Version == "":
		return nil, invalid("infraClusterGVK", spec.InfraClusterGVK.String(), "needs a version and a kind")
	case spec.InfraMachineGVK.Kind == "" || spec.InfraMachineGVK.Version == "":
		return nil, invalid("infraMachineGVK", spec.InfraMachineGVK.String(), "needs a version and a kind")
	case spec.ControlPlaneMachines < 0 || spec.WorkerMachines < 0 || spec.ControlPlaneMachines+spec.WorkerMachines == 0:
		return nil, invalid("machines", fmt.Sprintf("%d+%d", spec.ControlPlaneMachines, spec.WorkerMachines), "must not be negative and at least one in all")
	case spec.CoreVersion != "" && !spec.CoreVersion.Valid():
		return nil, invalid("coreVersion", spec.CoreVersion, "must be v1beta1 or v1beta2")
	case spec.ContractVersion != "" && !spec.ContractVersion.Valid():
		return nil, invalid("contractVersion", spec.ContractVersion, "must be v1beta1 or v1beta2")
	case spec.LeakChecker == nil:
		return nil, fmt.Errorf("cannot create lifecycle: leakChecker must not be nil: %w", ErrInvalidSpec)
	}
	spec.CoreVersion = cmp.Or(spec.CoreVersion, contract.V1Beta2)
	spec.ContractVersion = cmp.Or(spec.ContractVersion, contract.V1Beta2)
	if spec.KubernetesVersion == "" {
		spec.KubernetesVersion = testenv.KubernetesVersion
	}
	if spec.Timeout <= 0 {
		spec.Timeout = 2 * time.Minute
	}
	if spec.PollInterval <= 0 {
		spec.PollInterval = 200 * time.Millisecond
	}
	if spec.BootstrapData == nil {
		spec.BootstrapData = func(string, bool) []byte { return []byte("#cloud-config\nruncmd: []\n") }
	}
	return &Driver{c: c, spec: spec}, nil
}

// Spec returns the spec with its defaults applied.
func (l *Driver) Spec() Spec { return l.spec }

// machine is one Machine of the spec.
type machine struct {
	name         string
	controlPlane bool
}

// MachineNames returns the names of the Machines, control plane first: "<cluster>-cp-<i>" and
// "<cluster>-md-<i>". Each InfraMachine and bootstrap Secret has the name of its Machine.
func (l *Driver) MachineNames() []string {
	var out []string
	for _, m := range l.machines() {
		out = append(out, m.name)
	}
	return out
}

func (l *Driver) machines() []machine {
	var out []machine
	for i := range l.spec.ControlPlaneMachines {
		out = append(out, machine{name: fmt.Sprintf("%s-cp-%d", l.spec.ClusterName, i), controlPlane: true})
	}
	for i := range l.spec.WorkerMachines {
		out = append(out, machine{name: fmt.Sprintf("%s-md-%d", l.spec.ClusterName, i)})
	}
	return out
}

// Create creates the Cluster, the InfraCluster, and for each Machine its bootstrap Secret, the Machine and
// its InfraMachine. With PlayCAPI, the InfraCluster is controlled by the Cluster and each InfraMachine by
// its Machine, as Cluster API's controllers would set it.
func (l *Driver) Create(ctx context.Context) error {
	s := l.spec
	cluster := providertest.NewCluster(s.Namespace, s.ClusterName).WithAPIVersion(s.CoreVersion).
		WithInfraRef(s.InfraClusterGVK, s.ClusterName).Build()
	if err := l.c.Create(ctx, cluster); err != nil {
		return fmt.Errorf("cannot create Cluster %q: %w", s.ClusterName, err)
	}
	infraCluster, err := l.infraObject(s.InfraClusterGVK, s.ClusterName, func() (client.Object, error) {
		if s.InfraCluster == nil {
			return nil, nil
		}
		return s.InfraCluster(s.Namespace, s.ClusterName)
	})
	if err != nil {
		return err
	}
	if s.PlayCAPI {
		infraCluster.SetOwnerReferences([]metav1.OwnerReference{providertest.OwnerReference(cluster, true)})
	}
	if err := l.c.Create(ctx, infraCluster); err != nil {
		return fmt.Errorf("cannot create %s %q: %w", s.InfraClusterGVK.Kind, s.ClusterName, err)
	}
	for _, m := range l.machines() {
		if err := l.createMachine(ctx, cluster, m); err != nil {
			return err
		}
	}
	return nil
}

func (l *Driver) createMachine(ctx context.Context, cluster *unstructured.Unstructured, m machine) error {
	s := l.spec
	secret := providertest.NewBootstrapSecret(s.Namespace, m.name, s.ClusterName, s.BootstrapData(m.name, m.controlPlane))
	secret.OwnerReferences = []metav1.OwnerReference{providertest.OwnerReference(cluster, false)}
	if err := l.c.Create(ctx, secret); err != nil {
		return fmt.Errorf("cannot create bootstrap Secret %q: %w", m.name, err)
	}
	b := providertest.NewMachine(s.Namespace, m.name, s.ClusterName).WithAPIVersion(s.CoreVersion).
		WithBootstrapSecret(m.name).WithVersion(s.KubernetesVersion).WithInfraRef(s.InfraMachineGVK, m.name)
	if m.controlPlane {
		b.ControlPlane()
	}
	machine := b.Build()
	if s.PlayCAPI {
		machine.SetOwnerReferences([]metav1.OwnerReference{providertest.OwnerReference(cluster, false)})
	}
	if err := l.c.Create(ctx, machine); err != nil {
		return fmt.Errorf("cannot create Machine %q: %w", m.name, err)
	}
	infra, err := l.infraObject(s.InfraMachineGVK, m.name, func() (client.Object, error) {
		if s.InfraMachine == nil {
			return nil, nil
		}
		return s.InfraMachine(s.Namespace, m.name, m.controlPlane)
	})
	if err != nil {
		return err
	}
	if s.PlayCAPI {
		infra.SetOwnerReferences([]metav1.OwnerReference{providertest.OwnerReference(machine, true)})
	}
	if err := l.c.Create(ctx, infra); err != nil {
		return fmt.Errorf("cannot create %s %q: %w", s.InfraMachineGVK.Kind, m.name, err)
	}
	return nil
}

// infraObject builds an infra object from a template: kind, namespace, name and the cluster-name label
// are the driver's; resourceVersion and status are dropped.
func (l *Driver) infraObject(gvk schema.GroupVersionKind, name string, template func() (client.Object, error)) (*unstructured.Unstructured, error) {
	obj, err := template()
	if err != nil {
		return nil, fmt.Errorf("cannot build %s %q: %w", gvk.Kind, name, err)
	}
	u := &unstructured.Unstructured{Object: map[string]any{}}
	if obj != nil {
		c, err := providertest.ToUnstructured(obj)
		if err != nil {
			return nil, fmt.Errorf("cannot build %s %q: %w", gvk.Kind, name, err)
		}
		u = c.DeepCopy()
	}
	delete(u.Object, "status")
	if _, ok := u.Object["spec"]; !ok {
		// An empty spec, sent as {}: the API server applies the CRD's defaults under spec, which it does not
		// for an object without a spec.
		u.Object["spec"] = map[string]any{}
	}
	u.SetGroupVersionKind(gvk)
	u.SetNamespace(l.spec.Namespace)
	u.SetName(name)
	u.SetResourceVersion("")
	u.SetCreationTimestamp(metav1.Time{})
	labels := u.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels[contract.ClusterNameLabel] = l.spec.ClusterName
	u.SetLabels(labels)
	return u, nil
}

// InfraCluster reads the InfraCluster.
func (l *Driver) InfraCluster(ctx context.Context) (*unstructured.Unstructured, error) {
	return l.get(ctx, l.spec.InfraClusterGVK, l.spec.ClusterName)
}

// InfraMachines reads the InfraMachines, in the order of MachineNames.
func (l *Driver) InfraMachines(ctx context.Context) ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	for _, name := range l.MachineNames() {
		u, err := l.get(ctx, l.spec.InfraMachineGVK, name)
		if err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, nil
}

// infraObjects reads the InfraCluster and the InfraMachines, in this order.
func (l *Driver) infraObjects(ctx context.Context) ([]*unstructured.Unstructured, error) {
	ic, err := l.InfraCluster(ctx)
	if err != nil {
		return nil, err
	}
	ims, err := l.InfraMachines(ctx)
	if err != nil {
		return nil, err
	}
	return append([]*unstructured.Unstructured{ic}, ims...), nil
}

func (l *Driver) get(ctx context.Context, gvk schema.GroupVersionKind, name string) (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	if err := l.c.Get(ctx, client.ObjectKey{Namespace: l.spec.Namespace, Name: name}, u); err != nil {
		return nil, fmt.Errorf("cannot get %s %q: %w", gvk.Kind, name, err)
	}
	return u, nil
}

// OwnershipKeys reads the ownership keys (label scope.OwnershipKeyLabel) of the InfraCluster and the
// InfraMachines, sorted; objects the provider has not labelled yet are left out.
func (l *Driver) OwnershipKeys(ctx context.Context) ([]string, error) {
	objs, err := l.infraObjects(ctx)
	if err != nil {
		return nil, err
	}
	var keys []string
	for _, u := range objs {
		if k := u.GetLabels()[scope.OwnershipKeyLabel]; k != "" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys, nil
}

// Leaks asks the LeakChecker what is left of the cluster, given the ownership keys read before the delete.
func (l *Driver) Leaks(ctx context.Context, keys []string) ([]string, error) {
	leaks, err := l.spec.LeakChecker.Leaks(ctx, LeakQuery{Namespace: l.spec.Namespace, ClusterName: l.spec.ClusterName, OwnershipKeys: keys})
	if err != nil {
		return nil, fmt.Errorf("cannot check leaks of cluster %q: %w", l.spec.Namespace+"/"+l.spec.ClusterName, err)
	}
	return leaks, nil
}

// Run creates the cluster, waits until it is provisioned, calls OnProvisioned, deletes it and checks for
// leaks. The error says which step failed; leaks wrap ErrLeaked and are listed one a line.
func (l *Driver) Run(ctx context.Context) error {
	if err := l.Create(ctx); err != nil {
		return err
	}
	if err := l.WaitProvisioned(ctx); err != nil {
		return err
	}
	if l.spec.OnProvisioned != nil {
		if err := l.spec.OnProvisioned(ctx, l); err != nil {
			return fmt.Errorf("OnProvisioned: %w", err)
		}
	}
	keys, err := l.OwnershipKeys(ctx)
	if err != nil {
		return err
	}
	if err := l.Delete(ctx); err != nil {
		return err
	}
	leaks, err := l.Leaks(ctx, keys)
	if err != nil {
		return err
	}
	if len(leaks) > 0 {
		return fmt.Errorf("cluster %q deleted but %d cloud resource(s) remain: %w:\n  %s",
			l.spec.Namespace+"/"+l.spec.ClusterName, len(leaks), ErrLeaked, strings.Join(leaks, "\n  "))
	}
	return nil
}

// Run runs a Driver of spec on c and fails t when any step fails or anything leaked.
func Run(t *testing.T, c client.Client, spec Spec) {
	t.Helper()
	l, err := New(c, spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
}

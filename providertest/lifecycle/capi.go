package lifecycle

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/providertest"
)

// SimulateCAPI does, once, the part of Cluster API's controllers a provider depends on, for tests that do
// not run them: once the InfraCluster is provisioned, the Cluster gets its infrastructure provisioned
// status and, when it has none, the InfraCluster's control plane endpoint; each Machine gets its
// bootstrap data secret created status and, once its InfraMachine is provisioned, the InfraMachine's
// providerID and its infrastructure provisioned status. It writes only what changes. Objects not found
// are skipped (they may be deleted already).
func (l *Driver) SimulateCAPI(ctx context.Context) error {
	s := l.spec
	cf := contract.Cluster(s.CoreVersion)
	ic, err := l.InfraCluster(ctx)
	if err != nil {
		return client.IgnoreNotFound(err)
	}
	if ok, _ := contract.InfraCluster(s.ContractVersion).Provisioned().Get(ic); ok {
		err := l.updateCore(ctx, providertest.ClusterGVK(s.CoreVersion), s.ClusterName, func(u *unstructured.Unstructured) {
			if ep, err := contract.InfraCluster(s.ContractVersion).ControlPlaneEndpoint().Get(ic); err == nil && ep.IsValid() {
				if cur, err := cf.ControlPlaneEndpoint().Get(u); err != nil || cur.IsZero() {
					_ = cf.ControlPlaneEndpoint().Set(u, ep)
				}
			}
		}, func(u *unstructured.Unstructured) { _ = cf.InfrastructureProvisioned().Set(u, true) })
		if err != nil {
			return err
		}
	}
	mf := contract.Machine(s.CoreVersion)
	for _, name := range l.MachineNames() {
		im, err := l.get(ctx, s.InfraMachineGVK, name)
		if err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		provisioned := false
		providerID := ""
		if im != nil {
			provisioned, _ = contract.InfraMachine(s.ContractVersion).Provisioned().Get(im)
			providerID, _ = contract.InfraMachine(s.ContractVersion).ProviderID().Get(im)
		}
		err = l.updateCore(ctx, providertest.MachineGVK(s.CoreVersion), name, func(u *unstructured.Unstructured) {
			if provisioned && providerID != "" {
				_ = mf.ProviderID().Set(u, providerID)
			}
		}, func(u *unstructured.Unstructured) {
			_ = mf.BootstrapDataSecretCreated().Set(u, true)
			if provisioned {
				_ = mf.InfrastructureProvisioned().Set(u, true)
			}
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// updateCore reads a core object, applies spec and status changes and writes each part that changed.
func (l *Driver) updateCore(ctx context.Context, gvk schema.GroupVersionKind, name string, spec, status func(u *unstructured.Unstructured)) error {
	u, err := l.get(ctx, gvk, name)
	if err != nil {
		return client.IgnoreNotFound(err)
	}
	before := u.DeepCopy()
	spec(u)
	if !reflect.DeepEqual(before.Object["spec"], u.Object["spec"]) {
		if err := l.c.Update(ctx, u); err != nil {
			return fmt.Errorf("cannot update %s %q: %w", gvk.Kind, name, err)
		}
		before = u.DeepCopy()
	}
	status(u)
	if !reflect.DeepEqual(before.Object["status"], u.Object["status"]) {
		if err := l.c.Status().Update(ctx, u); err != nil {
			return fmt.Errorf("cannot update the status of %s %q: %w", gvk.Kind, name, err)
		}
	}
	return nil
}

func metaFor(namespace, name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: namespace, Name: name}
}

// WaitProvisioned waits until the InfraCluster and every InfraMachine report provisioned at the paths of
// the contract version; with PlayCAPI it runs SimulateCAPI before every check. On timeout the error
// (wrapping ErrTimeout) names what is not provisioned, with its conditions.
func (l *Driver) WaitProvisioned(ctx context.Context) error {
	var pending []string
	var last error
	err := l.poll(ctx, func(ctx context.Context) bool {
		if l.spec.PlayCAPI {
			if last = l.SimulateCAPI(ctx); last != nil {
				return false
			}
		}
		var now []string
		if now, last = l.notProvisioned(ctx); last != nil {
			l.onPoll(ctx, PhaseProvisioning, false, []string{last.Error()})
			return false
		}
		pending = now
		l.onPoll(ctx, PhaseProvisioning, len(pending) == 0, pending)
		return len(pending) == 0
	})
	if err == nil && l.spec.PlayCAPI {
		err = l.SimulateCAPI(ctx) // propagate the last InfraMachine's state to its Machine
	}
	if err != nil {
		return fmt.Errorf("cluster %q not provisioned after %s: %w: %s%v", l.key(), l.spec.Timeout, ErrTimeout, strings.Join(pending, "; "), suffix(last))
	}
	return nil
}

func suffix(err error) string {
	if err == nil {
		return ""
	}
	return "; last error: " + err.Error()
}

func (l *Driver) key() string { return l.spec.Namespace + "/" + l.spec.ClusterName }

func (l *Driver) notProvisioned(ctx context.Context) ([]string, error) {
	objs, err := l.infraObjects(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, u := range objs {
		if err := providertest.CheckProvisioned(u, l.spec.ContractVersion); err != nil {
			out = append(out, err.Error())
		}
	}
	return out, nil
}

// Phases of a Poll.
const (
	// PhaseProvisioning is the phase of WaitProvisioned.
	PhaseProvisioning = "provisioning"
	// PhaseDeletion is the phase of the waits of Delete.
	PhaseDeletion = "deletion"
)

func (l *Driver) onPoll(ctx context.Context, phase string, done bool, pending []string) {
	if l.spec.OnPoll != nil {
		l.spec.OnPoll(ctx, Poll{Phase: phase, Done: done, Pending: slices.Clone(pending)})
	}
}

func (l *Driver) poll(ctx context.Context, done func(context.Context) bool) error {
	// done gets ctx, not the poll's context: a read cut short by the deadline would hide why the last one failed.
	return wait.PollUntilContextTimeout(ctx, l.spec.PollInterval, l.spec.Timeout, true, func(context.Context) (bool, error) {
		return done(ctx), nil
	})
}

// Delete deletes the cluster and waits until every object is gone, the provider having removed its
// finalizers once its cloud resources were deleted. With PlayCAPI it deletes in Cluster API's order:
// InfraMachines (waiting for them), Machines and bootstrap Secrets, the InfraCluster (waiting), the
// Cluster. Without, it deletes the Cluster and waits for Cluster API to delete the rest; the bootstrap
// Secrets are deleted last. On timeout the error (wrapping ErrTimeout) names what is left and its finalizers.
func (l *Driver) Delete(ctx context.Context) error {
	s := l.spec
	var machines, infraMachines, secrets []client.Object
	for _, name := range l.MachineNames() {
		machines = append(machines, l.ref(providertest.MachineGVK(s.CoreVersion), name))
		infraMachines = append(infraMachines, l.ref(s.InfraMachineGVK, name))
		secrets = append(secrets, &corev1.Secret{ObjectMeta: metaFor(s.Namespace, name)})
	}
	infraCluster := l.ref(s.InfraClusterGVK, s.ClusterName)
	cluster := l.ref(providertest.ClusterGVK(s.CoreVersion), s.ClusterName)
	if s.PlayCAPI {
		for _, step := range [][]client.Object{infraMachines, append(machines, secrets...), {infraCluster}, {cluster}} {
			if err := l.deleteAndWait(ctx, step...); err != nil {
				return err
			}
		}
		return nil
	}
	if err := l.deleteAndWait(ctx, cluster); err != nil {
		return err
	}
	if err := l.waitGone(ctx, append(append(machines, infraMachines...), infraCluster)...); err != nil {
		return err
	}
	return l.deleteAndWait(ctx, secrets...)
}

func (l *Driver) ref(gvk schema.GroupVersionKind, name string) client.Object {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	u.SetNamespace(l.spec.Namespace)
	u.SetName(name)
	return u
}

func (l *Driver) deleteAndWait(ctx context.Context, objs ...client.Object) error {
	for _, o := range objs {
		if err := l.c.Delete(ctx, o); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("cannot delete %s %q: %w", kindOf(o), o.GetName(), err)
		}
	}
	return l.waitGone(ctx, objs...)
}

func (l *Driver) waitGone(ctx context.Context, objs ...client.Object) error {
	var left []string
	err := l.poll(ctx, func(ctx context.Context) bool {
		left = nil
		for _, o := range objs {
			cur := o.DeepCopyObject().(client.Object)
			err := l.c.Get(ctx, client.ObjectKeyFromObject(o), cur)
			switch {
			case apierrors.IsNotFound(err):
			case err != nil:
				left = append(left, fmt.Sprintf("%s %q: %v", kindOf(o), o.GetName(), err))
			default:
				left = append(left, fmt.Sprintf("%s %q (finalizers %q)", kindOf(o), o.GetName(), cur.GetFinalizers()))
			}
		}
		l.onPoll(ctx, PhaseDeletion, len(left) == 0, left)
		return len(left) == 0
	})
	if err != nil {
		return fmt.Errorf("cluster %q: objects not deleted after %s: %w: %s", l.key(), l.spec.Timeout, ErrTimeout, strings.Join(left, "; "))
	}
	return nil
}

func kindOf(o client.Object) string {
	if k := o.GetObjectKind().GroupVersionKind().Kind; k != "" {
		return k
	}
	if _, ok := o.(*corev1.Secret); ok {
		return "Secret"
	}
	return fmt.Sprintf("%T", o)
}

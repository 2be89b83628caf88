package services

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/cloudinit"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/reconcile/kubeobjects"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope"
)

// Bootstrap is the step that keeps a machine's bootstrap Secret in the target cluster: the Machine's
// cloud-config rendered to a bash script by package cloudinit (BootstrapFile) and the Pod's entrypoint
// (EntrypointFile). The Secret is immutable; the bootstrap data is read only when it must be created.
type Bootstrap struct {
	target client.Client
	lookup ClusterLookup
}

// NewBootstrap returns the Bootstrap step on the target cluster; lookup finds the machine's PodCluster.
func NewBootstrap(target client.Client, lookup ClusterLookup) (*Bootstrap, error) {
	if target == nil || lookup == nil {
		return nil, errors.New("cannot create the bootstrap step: the target client and the cluster lookup must not be nil")
	}
	return &Bootstrap{target: target, lookup: lookup}, nil
}

// SecretSpec is a bootstrap Secret to create. Script is secret: never logged, never in an error.
type SecretSpec struct {
	Namespace, Name string
	Script          []byte
}

// bootstrapSecrets are the bootstrap Secrets of namespace ns.
func bootstrapSecrets(c client.Client, ns string) (ensure.Resource[SecretSpec, *corev1.Secret], error) {
	return kubeobjects.New(c, kubeobjects.Kind[SecretSpec, *corev1.Secret]{
		Object:    &corev1.Secret{},
		List:      &corev1.SecretList{},
		Namespace: ns,
		Validate: func(s SecretSpec) error {
			if len(s.Script) == 0 {
				return errors.New("the bootstrap script must not be empty")
			}
			return nil
		},
		Build: func(s SecretSpec) (*corev1.Secret, error) {
			return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: s.Namespace, Name: s.Name},
				Type: corev1.SecretTypeOpaque, Immutable: ptr.To(true),
				Data: map[string][]byte{BootstrapFile: s.Script, EntrypointFile: []byte(Entrypoint)}}, nil
		},
	})
}

// Reconcile ensures the bootstrap Secret exists.
func (b *Bootstrap) Reconcile(ctx context.Context, s MachineScope) (step.Result, error) {
	t, ok, err := target(ctx, b.lookup, s)
	if err != nil || !ok {
		return waitingForPodCluster(err)
	}
	r, err := bootstrapSecrets(b.target, t.namespace)
	if err != nil {
		return step.Result{}, err
	}
	desired := ensure.Lazy(func(ctx context.Context) (SecretSpec, error) {
		data, format, err := s.BootstrapData(ctx)
		if err != nil {
			return SecretSpec{}, err
		}
		script, err := RenderScript(data, format, s.InfraMachine().Name)
		if err != nil {
			return SecretSpec{}, err
		}
		return SecretSpec{Namespace: t.namespace, Name: SecretName(s.InfraMachine().Name), Script: script}, nil
	})
	res, err := ensure.Exists(ctx, s, KeyBootstrap, r, desired, clusterTags(s.Cluster().Name))
	if err != nil {
		return step.Result{}, err
	}
	return res.Result, nil
}

// Delete deletes the bootstrap Secret (after the Pod: the steps are deleted in reverse order).
func (b *Bootstrap) Delete(ctx context.Context, s MachineScope) (step.Result, error) {
	r, err := bootstrapSecrets(b.target, deleteNamespace(ctx, b.lookup, s))
	if err != nil {
		return step.Result{}, err
	}
	return ensure.Deleted(ctx, s, KeyBootstrap, r)
}

// deleteNamespace is the namespace to search for a machine's objects when deleting: the PodCluster's, or
// every namespace when the PodCluster is gone (the recorded IDs name their namespace anyway).
func deleteNamespace(ctx context.Context, lookup ClusterLookup, s MachineScope) string {
	t, _, err := target(ctx, lookup, s)
	if err != nil {
		return ""
	}
	return t.namespace
}

// RenderScript turns bootstrap data into the bash script the Pod of machine hostname runs: cloud-config is
// parsed strictly and rendered by package cloudinit (every module rendered or refused by name, file contents
// never evaluated by the shell); the jinja variables of Cluster API's kubeadm bootstrap data
// ({{ ds.meta_data.local_hostname }}, hostname, instance_id) are the Pod's host name. Any other format is a
// terminal error with ReasonUnsupportedBootstrapFormat. Errors name the cloud-config field at fault, never
// its value: the data is secret.
func RenderScript(data []byte, format scope.BootstrapFormat, hostname string) ([]byte, error) {
	if format != scope.BootstrapFormatCloudConfig {
		return nil, step.Terminal(ReasonUnsupportedBootstrapFormat,
			fmt.Errorf("bootstrap data format %q is not supported: a Pod runs cloud-config only", format))
	}
	cfg, err := cloudinit.Parse(data, cloudinit.WithVariables(map[string]string{
		"local_hostname": hostname, "hostname": hostname, "instance_id": hostname,
	}))
	if err == nil {
		var script []byte
		if script, err = cloudinit.Render(cfg); err == nil {
			return script, nil
		}
	}
	var fe *cloudinit.FieldError
	if errors.As(err, &fe) {
		return nil, step.Terminal(ReasonInvalidBootstrapData,
			fmt.Errorf("cannot render the bootstrap cloud-config: field %q: %w", fe.Path, fe.Err))
	}
	return nil, step.Terminal(ReasonInvalidBootstrapData, errors.New("cannot render the bootstrap cloud-config: it is not valid cloud-config"))
}

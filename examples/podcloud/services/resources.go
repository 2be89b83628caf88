package services

import (
	"errors"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/reconcile/ensure"
)

// Resources are the kinds of objects podcloud keeps in one namespace of the target cluster, as the
// reconcile.Resources the steps give ensure.Exists; tests run capkit's standard scenarios on them.
type Resources struct {
	// ServiceAccounts are the clusters' ServiceAccounts; the spec is the name.
	ServiceAccounts ensure.Resource[string, *corev1.ServiceAccount]
	// Services are the control plane Services, a ensure.Updater (selector and ports).
	Services ensure.Resource[ServiceSpec, *corev1.Service]
	// Secrets are the machines' bootstrap Secrets.
	Secrets ensure.Resource[SecretSpec, *corev1.Secret]
	// Pods are the machines' Pods, pending until they run.
	Pods ensure.Resource[PodSpec, *corev1.Pod]
}

// NewResources returns the Resources of namespace ns of the target cluster; c must read from the API server,
// not from a cache.
func NewResources(c client.Client, ns string) (Resources, error) {
	var r Resources
	var errs [4]error
	r.ServiceAccounts, errs[0] = serviceAccounts(c, ns)
	r.Services, errs[1] = controlPlaneServices(c, ns)
	r.Secrets, errs[2] = bootstrapSecrets(c, ns)
	r.Pods, errs[3] = pods(c, ns)
	return r, errors.Join(errs[:]...)
}

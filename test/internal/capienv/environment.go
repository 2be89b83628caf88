package capienv

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"

	bootstrapv1 "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/capkit/capkit/providertest/testenv"
)

// EnvironmentOptions returns the testenv options of an API server for the real Cluster API managers, the
// ones Main uses: a scheme with Cluster API's core and kubeadm types plus addToScheme, Cluster API's own CRDs
// (AllComponents) labelled as clusterctl installs them instead of capkit's minimal ones, then opts (the
// provider's CRDs, webhooks).
func EnvironmentOptions(addToScheme []func(*runtime.Scheme) error, opts ...testenv.Option) ([]testenv.Option, error) {
	crds, err := CRDs("", AllComponents...)
	if err != nil {
		return nil, err
	}
	scheme := runtime.NewScheme()
	errs := []error{clusterv1.AddToScheme(scheme), bootstrapv1.AddToScheme(scheme)}
	for _, add := range addToScheme {
		errs = append(errs, add(scheme))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("cannot build the scheme: %w", err)
	}
	return append([]testenv.Option{testenv.WithScheme(scheme), testenv.WithoutCAPICRDs(), testenv.WithCRDs(crds...)}, opts...), nil
}

// NewEnvironment starts another API server like the one of Main (EnvironmentOptions), for a test that needs a
// second management cluster, e.g. the target of `clusterctl move`. Stop it with Stop.
func NewEnvironment(addToScheme []func(*runtime.Scheme) error, opts ...testenv.Option) (*testenv.Environment, error) {
	all, err := EnvironmentOptions(addToScheme, opts...)
	if err != nil {
		return nil, err
	}
	return testenv.NewEnvironment(all...)
}

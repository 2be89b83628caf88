package testenv

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// ProviderOptions returns the options of an Environment for a provider whose controller-gen output is in
// configDir (crd/bases and, when present, webhook): a scheme with client-go's types and addToScheme, the
// provider's CRDs and admission webhooks, and capkit's minimal Cluster and Machine CRDs (both core API versions
// served). Options given to NewEnvironment after these override them.
func ProviderOptions(configDir string, addToScheme ...func(*runtime.Scheme) error) ([]Option, error) {
	crds := filepath.Join(configDir, "crd", "bases")
	if _, err := os.Stat(crds); err != nil {
		return nil, fmt.Errorf("cannot find the provider's CRDs: %w", err)
	}
	s := runtime.NewScheme()
	errs := []error{clientgoscheme.AddToScheme(s)}
	for _, add := range addToScheme {
		errs = append(errs, add(s))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("cannot build the scheme: %w", err)
	}
	capi, err := MinimalCAPICRDs()
	if err != nil {
		return nil, err
	}
	opts := []Option{WithScheme(s), WithCRDPaths(crds), WithoutCAPICRDs(), WithCRDs(capi...)}
	if hooks := filepath.Join(configDir, "webhook"); fileExists(filepath.Join(hooks, "manifests.yaml")) {
		opts = append(opts, WithWebhooks(envtest.WebhookInstallOptions{Paths: []string{hooks}}))
	}
	return opts, nil
}

package testenv

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/capkit/capkit/internal/reaper"
)

// Versions of the envtest control plane that hack/envtest-binaries.sh builds.
const (
	KubernetesVersion = "v1.36.3"
	etcdVersion       = "v3.6.8"
)

// ErrNoAssets is returned when the kube-apiserver and etcd binaries cannot be found.
var ErrNoAssets = errors.New("envtest binaries not found: run 'make envtest' (hack/envtest-binaries.sh builds kube-apiserver and etcd) or set KUBEBUILDER_ASSETS")

// Environment is a running kube-apiserver and etcd with the provider's CRDs and the Cluster API core CRDs
// installed.
type Environment struct {
	// Config connects to the API server as an administrator.
	Config *rest.Config
	// Client is a client for Config with Scheme; it reads straight from the API server (no cache).
	Client client.Client
	// Scheme holds client-go's types, apiextensions and whatever WithScheme added.
	Scheme *runtime.Scheme
	// CAPICRDSource says where the Cluster API CRDs came from: a folder, or "capkit minimal CRDs".
	CAPICRDSource string

	env   *envtest.Environment
	nodes []*FakeNodes // stopped by Stop
	dir   string       // etcd's data and the API server's certificates
}

// Option configures NewEnvironment.
type Option func(*options)

type options struct {
	crdPaths   []string
	crds       []*apiextensionsv1.CustomResourceDefinition
	scheme     *runtime.Scheme
	capiCRDDir string
	skipCAPI   bool
	webhooks   *envtest.WebhookInstallOptions
	assets     string
}

// WithCRDPaths installs the CRDs in these files or folders (a provider's config/crd/bases).
func WithCRDPaths(paths ...string) Option {
	return func(o *options) { o.crdPaths = append(o.crdPaths, paths...) }
}

// WithCRDs installs these CRD objects.
func WithCRDs(crds ...*apiextensionsv1.CustomResourceDefinition) Option {
	return func(o *options) { o.crds = append(o.crds, crds...) }
}

// WithScheme uses s for the environment's client; add the provider's API types to it.
func WithScheme(s *runtime.Scheme) Option { return func(o *options) { o.scheme = s } }

// WithCAPICRDs installs the Cluster API CRDs from dir instead of looking for them in the build list of the
// module of the current directory (for another module's, pass a folder under CAPIModuleDir(moduleDir)).
func WithCAPICRDs(dir string) Option { return func(o *options) { o.capiCRDDir = dir } }

// WithoutCAPICRDs installs no Cluster API CRDs.
func WithoutCAPICRDs() Option { return func(o *options) { o.skipCAPI = true } }

// WithWebhooks installs the provider's admission webhooks; see envtest.WebhookInstallOptions. The webhook
// server of a manager started in the test must use Environment.WebhookInstallOptions' host, port and certs.
func WithWebhooks(w envtest.WebhookInstallOptions) Option {
	return func(o *options) { o.webhooks = &w }
}

// WithAssets uses the kube-apiserver and etcd binaries in dir.
func WithAssets(dir string) Option { return func(o *options) { o.assets = dir } }

// AssetsDir returns the folder holding kube-apiserver and etcd: $KUBEBUILDER_ASSETS, else the cache folder
// that hack/envtest-binaries.sh fills. It returns ErrNoAssets when neither holds both binaries.
func AssetsDir() (string, error) {
	dirs := []string{os.Getenv("KUBEBUILDER_ASSETS")}
	if d, err := defaultCacheDir(); err == nil {
		dirs = append(dirs, filepath.Join(d, "envtest", "k8s-"+KubernetesVersion+"-etcd-"+etcdVersion))
	}
	for _, d := range dirs {
		if d != "" && executable(filepath.Join(d, "kube-apiserver")) && executable(filepath.Join(d, "etcd")) {
			return d, nil
		}
	}
	return "", fmt.Errorf("cannot start envtest (looked in %q): %w", dirs, ErrNoAssets)
}

func defaultCacheDir() (string, error) {
	if d := os.Getenv("CAPKIT_CACHE"); d != "" {
		return d, nil
	}
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "capkit"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".cache", "capkit"), nil
}

func executable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

// NewEnvironment starts kube-apiserver and etcd, installs the CRDs and returns a connected Environment.
// Call Stop when done (Main does it for you).
func NewEnvironment(opts ...Option) (*Environment, error) {
	o := options{}
	for _, opt := range opts {
		opt(&o)
	}
	assets := o.assets
	if assets == "" {
		var err error
		if assets, err = AssetsDir(); err != nil {
			return nil, err
		}
	}
	scheme := o.scheme
	if scheme == nil {
		scheme = runtime.NewScheme()
	}
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, apiextensionsv1.AddToScheme} {
		if err := add(scheme); err != nil {
			return nil, fmt.Errorf("cannot build scheme: %w", err)
		}
	}
	e := &Environment{Scheme: scheme}
	crds := append([]*apiextensionsv1.CustomResourceDefinition(nil), o.crds...)
	paths := append([]string(nil), o.crdPaths...)
	if !o.skipCAPI {
		src, err := resolveCAPICRDs(o.capiCRDDir)
		if err != nil {
			return nil, err
		}
		e.CAPICRDSource = src.describe()
		paths = append(paths, src.dirs...)
		crds = append(crds, src.crds...)
	}
	e.env = &envtest.Environment{
		BinaryAssetsDirectory: assets,
		CRDDirectoryPaths:     paths,
		CRDs:                  crds,
		ErrorIfCRDPathMissing: true,
		Scheme:                scheme,
	}
	if o.webhooks != nil {
		e.env.WebhookInstallOptions = *o.webhooks
	}
	// envtest puts kube-apiserver and etcd in process groups of their own: when this process ends without Stop (go
	// test's -timeout, a signal, a killed go test), the reaper kills them and whatever else it started from now on,
	// and removes their folder.
	if err := reaper.Start(testing.Testing()); err != nil {
		return nil, fmt.Errorf("cannot start envtest: %w", err)
	}
	if err := e.makeDir(); err != nil {
		return nil, err
	}
	cfg, err := e.env.Start()
	if err != nil {
		_ = e.env.Stop()
		_ = os.RemoveAll(e.dir)
		return nil, fmt.Errorf("cannot start envtest with binaries in %q: %w", assets, err)
	}
	if d := e.env.WebhookInstallOptions.LocalServingCertDir; d != "" { // always made, in a folder of its own
		if err := reaper.RemoveOnExit(d); err != nil {
			_ = e.Stop()
			return nil, fmt.Errorf("cannot start envtest: %w", err)
		}
	}
	e.Config = cfg
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		_ = e.Stop()
		return nil, fmt.Errorf("cannot create client: %w", err)
	}
	e.Client = c
	return e, nil
}

// makeDir makes the folder of etcd's data and the API server's certificates, and has the reaper remove it if this
// process ends without Stop. envtest would make two folders of its own, removed only by its Stop.
func (e *Environment) makeDir() error {
	dir, err := os.MkdirTemp("", "capkit-envtest-")
	if err != nil {
		return fmt.Errorf("cannot make envtest's folder: %w", err)
	}
	if err := reaper.RemoveOnExit(dir); err != nil {
		_ = os.RemoveAll(dir)
		return fmt.Errorf("cannot start envtest: %w", err)
	}
	e.dir = dir
	cp := &e.env.ControlPlane
	cp.Etcd = &envtest.Etcd{DataDir: filepath.Join(dir, "etcd")}
	cp.APIServer = &envtest.APIServer{CertDir: filepath.Join(dir, "apiserver")}
	for _, d := range []string{cp.Etcd.DataDir, cp.APIServer.CertDir} {
		if err := os.Mkdir(d, 0o700); err != nil {
			_ = os.RemoveAll(dir)
			return fmt.Errorf("cannot make envtest's folder: %w", err)
		}
	}
	return nil
}

// WebhookInstallOptions returns the webhook options in use (host, port and certificate folder for the
// manager's webhook server).
func (e *Environment) WebhookInstallOptions() *envtest.WebhookInstallOptions {
	return &e.env.WebhookInstallOptions
}

// Stop stops the fake nodes started on the Environment, the API server and etcd. It is safe to call more
// than once.
func (e *Environment) Stop() error {
	if e == nil || e.env == nil {
		return nil
	}
	for _, n := range e.nodes {
		_ = n.Stop()
	}
	e.nodes = nil
	env, dir := e.env, e.dir
	e.env, e.dir = nil, ""
	err := env.Stop()
	if dir != "" {
		err = errors.Join(err, os.RemoveAll(dir)) // after the processes that write in it ended
	}
	if err != nil {
		return fmt.Errorf("cannot stop envtest: %w", err)
	}
	return nil
}

// CreateNamespace creates a namespace with a generated name starting with prefix and returns its name.
func (e *Environment) CreateNamespace(ctx context.Context, prefix string) (string, error) {
	ns := &corev1.Namespace{}
	ns.GenerateName = prefix + "-"
	if err := e.Client.Create(ctx, ns); err != nil {
		return "", fmt.Errorf("cannot create namespace %q: %w", prefix, err)
	}
	return ns.Name, nil
}

// Namespace creates a namespace for one test, with a generated name starting with prefix, and returns its
// name; it fails the test when the namespace cannot be created. The namespace is not deleted after the test:
// envtest runs no namespace controller, so a deleted namespace would stay Terminating with its objects, and
// each test gets a fresh one anyway.
func (e *Environment) Namespace(t testing.TB, prefix string) string {
	t.Helper()
	ns, err := e.CreateNamespace(t.Context(), prefix)
	if err != nil {
		t.Fatal(err)
	}
	return ns
}

package capienv

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Manager is one running Cluster API manager.
type Manager struct {
	*Process
	// Component says which manager this is.
	Component Component
	// HealthAddr serves /healthz and /readyz.
	HealthAddr string
	// MetricsAddr serves /metrics over plain HTTP.
	MetricsAddr string
	// WebhookPort is the port of the admission and conversion webhook server (on every interface).
	WebhookPort int
}

// Args returns the command-line flags a manager needs beside an envtest API server: its kubeconfig, no
// leader election, local health and metrics endpoints, and a webhook server with the given certificates.
func Args(kubeconfig, healthAddr, metricsAddr string, webhookPort int, certDir string) []string {
	return []string{
		"--kubeconfig=" + kubeconfig,
		"--leader-elect=false",
		"--health-addr=" + healthAddr,
		"--diagnostics-address=" + metricsAddr,
		"--insecure-diagnostics",
		"--webhook-port=" + strconv.Itoa(webhookPort),
		"--webhook-cert-dir=" + certDir,
	}
}

// Managers is a set of running Cluster API managers sharing one API server.
type Managers struct {
	managers  []*Manager
	client    client.Client
	dir       string
	webhooks  []client.Object
	converted []string
	grace     time.Duration
}

// Option configures Start.
type Option func(*options)

type options struct {
	dir          string
	moduleDir    string
	args         map[string][]string
	noWebhooks   bool
	readyTimeout time.Duration
	stopGrace    time.Duration
}

// WithDir keeps the kubeconfig, certificates and logs in dir (default: a new temporary folder).
func WithDir(dir string) Option { return func(o *options) { o.dir = dir } }

// WithModuleDir reads webhook manifests and CRDs from the Cluster API module in dir (default: the module in
// the build list of the current directory's Go module).
func WithModuleDir(dir string) Option { return func(o *options) { o.moduleDir = dir } }

// WithArgs adds command-line flags for one component, e.g. WithArgs(Core, "--feature-gates=MachinePool=false").
func WithArgs(c Component, args ...string) Option {
	return func(o *options) { o.args[c.Name] = append(o.args[c.Name], args...) }
}

// WithoutWebhooks leaves the API server without the managers' admission and conversion webhooks: objects
// are neither defaulted nor validated, and only the storage version of each Cluster API type can be read.
func WithoutWebhooks() Option { return func(o *options) { o.noWebhooks = true } }

// WithReadyTimeout waits up to d for every manager to report ready (default one minute).
func WithReadyTimeout(d time.Duration) Option { return func(o *options) { o.readyTimeout = d } }

// WithStopGrace waits up to d after SIGTERM before killing a manager (default ten seconds).
func WithStopGrace(d time.Duration) Option { return func(o *options) { o.stopGrace = d } }

// Start starts the managers of components against the API server of cfg, with binaries from BinDir, waits
// until each reports ready, then registers their webhooks through c. On error it stops what it started.
func Start(ctx context.Context, cfg *rest.Config, c client.Client, components []Component, opts ...Option) (_ *Managers, err error) {
	o := options{args: map[string][]string{}, readyTimeout: time.Minute, stopGrace: 10 * time.Second}
	for _, opt := range opts {
		opt(&o)
	}
	if len(components) == 0 {
		return nil, errors.New("cannot start Cluster API managers: no component given")
	}
	binDir, err := BinDir(components...)
	if err != nil {
		return nil, err
	}
	if !o.noWebhooks && o.moduleDir == "" {
		if o.moduleDir, err = ModuleDir(""); err != nil {
			return nil, err
		}
	}
	if o.dir == "" {
		if o.dir, err = os.MkdirTemp("", "capienv-"); err != nil {
			return nil, fmt.Errorf("cannot create folder for Cluster API managers: %w", err)
		}
	}
	kubeconfig := filepath.Join(o.dir, "kubeconfig")
	kc, err := Kubeconfig(cfg, "envtest")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(kubeconfig, kc, 0o600); err != nil {
		return nil, fmt.Errorf("cannot write kubeconfig %q: %w", kubeconfig, err)
	}
	certDir := filepath.Join(o.dir, "certs")
	caPEM, err := WriteServingCertificate(certDir)
	if err != nil {
		return nil, err
	}
	ports, err := FreePorts(3 * len(components))
	if err != nil {
		return nil, err
	}

	ms := &Managers{client: c, dir: o.dir, grace: o.stopGrace}
	defer func() {
		if err != nil {
			stopCtx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			_ = ms.Stop(stopCtx)
		}
	}()
	for i, comp := range components {
		m := &Manager{
			Component:   comp,
			HealthAddr:  "127.0.0.1:" + strconv.Itoa(ports[3*i]),
			MetricsAddr: "127.0.0.1:" + strconv.Itoa(ports[3*i+1]),
			WebhookPort: ports[3*i+2],
		}
		args := append(Args(kubeconfig, m.HealthAddr, m.MetricsAddr, m.WebhookPort, certDir), o.args[comp.Name]...)
		m.Process, err = StartProcess(comp.Name, filepath.Join(binDir, comp.Binary), args, filepath.Join(o.dir, comp.Name+".log"))
		if err != nil {
			return nil, err
		}
		ms.managers = append(ms.managers, m)
	}
	readyCtx, cancel := context.WithTimeout(ctx, o.readyTimeout)
	defer cancel()
	for _, m := range ms.managers {
		if err := m.WaitReady(readyCtx); err != nil {
			return nil, err
		}
	}
	if o.noWebhooks {
		return ms, nil
	}
	for _, m := range ms.managers {
		objs, crds, err := registerWebhooks(ctx, c, o.moduleDir, m.Component, m.WebhookPort, caPEM)
		ms.webhooks = append(ms.webhooks, objs...)
		ms.converted = append(ms.converted, crds...)
		if err != nil {
			return nil, err
		}
	}
	return ms, nil
}

// WaitReady polls the manager's /readyz endpoint until it answers 200 OK. It fails at once when the
// manager exits, and when ctx ends.
func (m *Manager) WaitReady(ctx context.Context) error {
	if err := WaitReady(ctx, m.Process, m.HealthAddr); err != nil {
		return fmt.Errorf("cannot start Cluster API manager: %w", err)
	}
	return nil
}

// WaitReady polls the /readyz endpoint at healthAddr of process p until it answers 200 OK. It fails at once when
// p exits, and when ctx ends, naming p's log.
func WaitReady(ctx context.Context, p *Process, healthAddr string) error {
	url := "http://" + healthAddr + "/readyz"
	hc := &http.Client{Timeout: 2 * time.Second}
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		if err := p.CheckRunning(); err != nil {
			return fmt.Errorf("%q (log %q): %w", p.Name(), p.LogPath(), err)
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return fmt.Errorf("cannot probe %q: %w", url, err)
		}
		if resp, err := hc.Do(req); err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%q not ready at %q (log %q): %w", p.Name(), url, p.LogPath(), ctx.Err())
		case <-p.Done():
		case <-tick.C:
		}
	}
}

// Managers returns the running managers, in the order they were started.
func (ms *Managers) Managers() []*Manager { return ms.managers }

// Get returns the manager of component c, or nil.
func (ms *Managers) Get(c Component) *Manager {
	for _, m := range ms.managers {
		if m.Component.Name == c.Name {
			return m
		}
	}
	return nil
}

// Dir returns the folder holding the kubeconfig, certificates and logs.
func (ms *Managers) Dir() string { return ms.dir }

// CheckRunning returns an error naming every manager that has exited.
func (ms *Managers) CheckRunning() error {
	var errs []error
	for _, m := range ms.managers {
		errs = append(errs, m.CheckRunning())
	}
	return errors.Join(errs...)
}

// Logs returns the last n lines of each manager's log, each under a header naming the manager.
func (ms *Managers) Logs(n int) string {
	var b strings.Builder
	for _, m := range ms.managers {
		fmt.Fprintf(&b, "----- %s (%s), last %d lines -----\n%s\n", m.Name(), m.LogPath(), n, m.Tail(n))
	}
	return b.String()
}

// Stop removes the webhooks it registered, then stops every manager (SIGTERM, then SIGKILL after the
// grace period). It returns an error naming each manager that had exited on its own or had to be killed.
// Stop is safe to call more than once.
func (ms *Managers) Stop(ctx context.Context) error {
	errs := []error{unregisterWebhooks(ctx, ms.client, ms.webhooks, ms.converted)}
	ms.webhooks, ms.converted = nil, nil
	for _, m := range ms.managers {
		errs = append(errs, m.Stop(ms.grace))
	}
	return errors.Join(errs...)
}

// FreePorts returns n distinct TCP ports that were free on 127.0.0.1 a moment ago.
func FreePorts(n int) ([]int, error) {
	ports := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("cannot find a free port: %w", err)
		}
		defer func() { _ = l.Close() }()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

package e2e_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlconfig "sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/controllers"
	"github.com/capkit/capkit/examples/memcloud/webhooks"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/test/internal/capienv"
)

// provider is memcloud's controller manager running in-process on env, on a cloud that outlives it: Restart
// stops the manager (its context is cancelled mid-reconcile, its caches and in-memory state are lost) and
// starts a fresh one on the same cloud, as a real provider pod is killed while the real cloud stays.
type provider struct {
	cloud   *cloud.Cloud // nil: webhooks only, no controllers
	poll    time.Duration
	opts    []reconcile.Option // after WithDefaultRequeue(poll)
	logPath string
	log     *os.File

	mu           sync.Mutex
	cancel       context.CancelFunc
	done         chan error
	restarts     int
	crashes      int           // managers that stopped by themselves (cacheSyncTimeout), started again
	slowestStart time.Duration // the longest a restarted manager took to be ready

	// writes counts the API writes of every incarnation; conflicts the writes rejected with 409 Conflict.
	writes, conflicts atomic.Int64
}

// startProvider starts memcloud's manager on cl (nil: only its webhooks) for the test, its reconcilers requeueing
// after poll and configured by opts, logging to a file in t.TempDir(). At cleanup it stops the manager and, if
// the test failed, prints the tail of its log.
func startProvider(t *testing.T, cl *cloud.Cloud, poll time.Duration, opts ...reconcile.Option) *provider {
	t.Helper()
	p := &provider{cloud: cl, poll: poll, opts: opts, logPath: filepath.Join(t.TempDir(), "memcloud.log")}
	f, err := os.Create(p.logPath)
	if err != nil {
		t.Fatalf("cannot create the provider log: %v", err)
	}
	p.log = f
	t.Cleanup(func() {
		if err := p.Stop(); err != nil {
			t.Errorf("memcloud's manager: %v", err)
		}
		if t.Failed() {
			t.Logf("memcloud manager log, last %d lines (%s):\n%s", logLines, p.logPath, capienv.TailFile(p.logPath, logLines))
		}
		_ = f.Close()
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := p.start(ctx); err != nil {
		t.Fatalf("%v\n%s", err, capienv.TailFile(p.logPath, logLines))
	}
	return p
}

// logLines is how many lines of each log a failed test prints.
const logLines = 80

// start starts a manager configured as production's (reconcile/manager.Flags.Options): the core Cluster and
// Machine, which capkit reads as unstructured objects, come from its cache, not from the API server.
func (p *provider) start(ctx context.Context) error {
	wo := env.WebhookInstallOptions()
	logger := zap.New(zap.WriteTo(p.log), zap.UseDevMode(false))
	mgr, err := ctrl.NewManager(env.Config, ctrl.Options{
		Scheme:                  env.Scheme,
		Logger:                  logger,
		Metrics:                 metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress:  "0",
		GracefulShutdownTimeout: ptr.To(15 * time.Second),
		Controller:              ctrlconfig.Controller{SkipNameValidation: ptr.To(true)},
		Client:                  client.Options{Cache: &client.CacheOptions{Unstructured: true}},
		WebhookServer: webhook.NewServer(webhook.Options{
			Host: wo.LocalServingHost, Port: wo.LocalServingPort, CertDir: wo.LocalServingCertDir,
		}),
	})
	if err != nil {
		return fmt.Errorf("cannot create memcloud's manager: %w", err)
	}
	c := &recordingClient{Client: mgr.GetClient(), writes: &p.writes, conflicts: &p.conflicts}
	if p.cloud != nil {
		if err := controllers.SetupWithManager(mgr, p.cloud, controllers.WithClient(c), controllers.WithReconcileOptions(append([]reconcile.Option{reconcile.WithPollInterval(p.poll)}, p.opts...)...)); err != nil {
			return err
		}
		// The in-place update extension, which Cluster API calls only when an ExtensionConfig points at it.
		if err := controllers.SetupInPlaceExtension(mgr, p.cloud); err != nil {
			return err
		}
	}
	if err := webhooks.SetupWithManager(mgr); err != nil {
		return err
	}
	runCtx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(runCtx) }()
	p.mu.Lock()
	p.cancel, p.done = cancel, done
	p.mu.Unlock()
	// The waits end when the manager stops by itself: its controllers give up when their informers have not
	// synced within controller-runtime's CacheSyncTimeout (2 minutes).
	waitCtx, stopWaiting := context.WithCancelCause(ctx)
	defer stopWaiting(nil)
	go func() {
		select {
		case err := <-done:
			done <- err
			stopWaiting(fmt.Errorf("%w: %w", errExited, err))
		case <-waitCtx.Done():
		}
	}()
	err = waitManagerReady(waitCtx, mgr, done)
	if err == nil && p.cloud != nil {
		err = waitInformers(waitCtx, mgr, watched()...)
	}
	if err != nil {
		if cause := context.Cause(waitCtx); errors.Is(cause, errExited) {
			err = fmt.Errorf("cannot start memcloud's manager: %w", cause)
		}
		_ = p.Stop()
		return err
	}
	return nil
}

// errExited marks the error of a manager that stopped by itself.
var errExited = errors.New("the manager stopped by itself")

// cacheSyncTimeout reports whether err is a manager's stop because its controllers' informers did not sync
// within controller-runtime's CacheSyncTimeout. It is what a provider's pod does on an API server too busy to
// answer its lists in time, and its Deployment starts it again: the chaos run's delete phase, 1,000 Machines
// deleted at once on 2 cores, can keep the API server's watch cache behind for minutes.
func cacheSyncTimeout(err error) bool {
	return err != nil && strings.Contains(err.Error(), "timed out waiting for cache to be synced")
}

// exited reports whether the running manager has stopped by itself.
func (p *provider) exited() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done == nil {
		return false
	}
	select {
	case err := <-p.done:
		p.done <- err
		return true
	default:
		return false
	}
}

// watched returns the kinds memcloud's controllers watch (controllers.SetupWithManager).
func watched() []client.Object {
	objs := []client.Object{&v1beta2.MemCluster{}, &v1beta2.MemMachine{}, &v1beta2.MemMachinePool{}, &v1beta2.MemMachineTemplate{}}
	for _, kind := range []string{"Cluster", "Machine", "MachinePool"} {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(schema.GroupVersionKind{Group: "cluster.x-k8s.io", Version: "v1beta2", Kind: kind})
		objs = append(objs, u)
	}
	return objs
}

// waitInformers waits until mgr's informers of objs have synced, starting those its controllers have not
// started yet; they then share them. The manager's cache reports synced before its controllers start their
// informers, and on a loaded API server those take seconds to list a large fleet: a manager stopped within
// that time (the chaos monkey stops it 5 to 15 s after this returns) would never have reconciled anything.
func waitInformers(ctx context.Context, mgr ctrl.Manager, objs ...client.Object) error {
	for _, o := range objs {
		if _, err := mgr.GetCache().GetInformer(ctx, o); err != nil {
			return fmt.Errorf("cannot start memcloud's manager: informer of %s not synced: %w", o.GetObjectKind().GroupVersionKind().Kind, err)
		}
	}
	return nil
}

// waitManagerReady waits until mgr's caches are synced and its webhook server answers.
func waitManagerReady(ctx context.Context, mgr ctrl.Manager, done chan error) error {
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		return errors.New("cannot start memcloud's manager: caches not synced")
	}
	check := mgr.GetWebhookServer().StartedChecker()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if err := check(&http.Request{}); err == nil {
			return nil
		}
		select {
		case err := <-done:
			done <- err
			return fmt.Errorf("cannot start memcloud's manager: %w: %w", errExited, err)
		case <-ctx.Done():
			return fmt.Errorf("cannot start memcloud's manager: webhook server not serving: %w", ctx.Err())
		case <-tick.C:
		}
	}
}

// Stop stops the running manager, if any, and returns its error. A stop that outlasts the grace period is an
// error: a controller that does not stop keeps a rolling update of the provider waiting for the kubelet to kill
// it. The stacks of every goroutine then go to a file beside the log, which the error names.
func (p *provider) Stop() error {
	p.mu.Lock()
	cancel, done := p.cancel, p.done
	p.cancel, p.done = nil, nil
	p.mu.Unlock()
	if cancel == nil {
		return nil
	}
	cancel()
	start := time.Now()
	err := <-done
	if !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var stacks bytes.Buffer
	_ = pprof.Lookup("goroutine").WriteTo(&stacks, 2)
	return fmt.Errorf("%w (after %s; goroutines in %s)", err, time.Since(start).Round(time.Millisecond), p.writeStacks(stacks.Bytes()))
}

// writeStacks writes stacks to a new file beside the log and returns its path, or why it could not.
func (p *provider) writeStacks(stacks []byte) string {
	f, err := os.CreateTemp(filepath.Dir(p.logPath), "goroutines-*.txt")
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	if _, err := f.Write(stacks); err != nil {
		return err.Error()
	}
	return f.Name()
}

// Restart stops the manager and starts a new one on the same cloud.
func (p *provider) Restart(ctx context.Context) error {
	start := time.Now()
	crashed := p.exited()
	if err := p.Stop(); err != nil && (!crashed || !cacheSyncTimeout(err)) {
		return fmt.Errorf("cannot stop memcloud's manager: %w", err)
	}
	p.mu.Lock()
	p.restarts++
	if crashed {
		p.crashes++
	}
	fmt.Fprintf(p.log, "----- restart %d (stopped in %s; it had stopped by itself: %t) -----\n", p.restarts, time.Since(start).Round(time.Millisecond), crashed)
	p.mu.Unlock()
	start = time.Now()
	for {
		err := p.start(ctx)
		if err == nil {
			break
		}
		if !errors.Is(err, errExited) || !cacheSyncTimeout(err) || ctx.Err() != nil {
			return err
		}
		p.mu.Lock()
		p.crashes++
		fmt.Fprintf(p.log, "----- the new manager stopped by itself, started again: %v -----\n", err)
		p.mu.Unlock()
	}
	took := time.Since(start)
	p.mu.Lock()
	p.slowestStart = max(p.slowestStart, took)
	fmt.Fprintf(p.log, "----- restarted: ready in %s -----\n", took.Round(time.Millisecond))
	p.mu.Unlock()
	return nil
}

// SlowestStart returns the longest a restarted manager took to be ready.
func (p *provider) SlowestStart() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.slowestStart
}

// Crashes returns how many managers stopped by themselves because their informers did not sync in time
// (cacheSyncTimeout), each started again.
func (p *provider) Crashes() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.crashes
}

// Restarts returns how many times Restart stopped and started the manager.
func (p *provider) Restarts() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.restarts
}

// recordingClient counts the writes made through it and those rejected with a conflict.
type recordingClient struct {
	client.Client
	writes, conflicts *atomic.Int64
}

func (c *recordingClient) record(err error) error {
	c.writes.Add(1)
	if apierrors.IsConflict(err) {
		c.conflicts.Add(1)
	}
	return err
}

func (c *recordingClient) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	return c.record(c.Client.Create(ctx, obj, opts...))
}

func (c *recordingClient) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	return c.record(c.Client.Update(ctx, obj, opts...))
}

func (c *recordingClient) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	return c.record(c.Client.Patch(ctx, obj, patch, opts...))
}

func (c *recordingClient) Apply(ctx context.Context, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
	return c.record(c.Client.Apply(ctx, obj, opts...))
}

func (c *recordingClient) Delete(ctx context.Context, obj client.Object, opts ...client.DeleteOption) error {
	return c.record(c.Client.Delete(ctx, obj, opts...))
}

func (c *recordingClient) DeleteAllOf(ctx context.Context, obj client.Object, opts ...client.DeleteAllOfOption) error {
	return c.record(c.Client.DeleteAllOf(ctx, obj, opts...))
}

func (c *recordingClient) Status() client.SubResourceWriter { return c.SubResource("status") }

func (c *recordingClient) SubResource(sub string) client.SubResourceClient {
	return &recordingSub{SubResourceClient: c.Client.SubResource(sub), c: c}
}

type recordingSub struct {
	client.SubResourceClient
	c *recordingClient
}

func (s *recordingSub) Create(ctx context.Context, obj, sub client.Object, opts ...client.SubResourceCreateOption) error {
	return s.c.record(s.SubResourceClient.Create(ctx, obj, sub, opts...))
}

func (s *recordingSub) Update(ctx context.Context, obj client.Object, opts ...client.SubResourceUpdateOption) error {
	return s.c.record(s.SubResourceClient.Update(ctx, obj, opts...))
}

func (s *recordingSub) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
	return s.c.record(s.SubResourceClient.Patch(ctx, obj, patch, opts...))
}

func (s *recordingSub) Apply(ctx context.Context, obj runtime.ApplyConfiguration, opts ...client.SubResourceApplyOption) error {
	return s.c.record(s.SubResourceClient.Apply(ctx, obj, opts...))
}

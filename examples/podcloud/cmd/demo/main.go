package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/examples/podcloud/podcloudtest"
	"github.com/capkit/capkit/providertest/lifecycle"
	"github.com/capkit/capkit/providertest/testenv"
	"github.com/capkit/capkit/reconcile"
)

// options are the demo's flags.
type options struct {
	controlPlane, workers int
	deletePod             bool
	timeout               time.Duration
}

func parseFlags(args []string) (options, error) {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	machines := fs.String("machines", "1+3", "machines as CONTROL-PLANE+WORKERS")
	o := options{}
	fs.BoolVar(&o.deletePod, "delete-pod", true, "delete a worker's Pod behind podcloud's back once provisioned")
	fs.DurationVar(&o.timeout, "timeout", time.Minute, "how long provisioning, then deletion, may take")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	cp, w, ok := strings.Cut(*machines, "+")
	var err1, err2 error
	o.controlPlane, err1 = strconv.Atoi(cp)
	o.workers, err2 = strconv.Atoi(w)
	switch {
	case !ok || err1 != nil || err2 != nil || o.controlPlane < 1 || o.workers < 0:
		return o, fmt.Errorf("invalid --machines %q: want CONTROL-PLANE+WORKERS with at least 1 control plane machine, e.g. 1+3", *machines)
	case o.deletePod && o.workers == 0:
		return o, errors.New("invalid --delete-pod with no workers: want at least 1 worker")
	case o.timeout <= 0:
		return o, fmt.Errorf("invalid --timeout %s: must be positive", o.timeout)
	}
	return o, nil
}

func main() {
	o, err := parseFlags(os.Args[1:])
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(2)
	}
	if err := run(context.Background(), os.Stdout, o); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out io.Writer, o options) error {
	start := time.Now()
	fmt.Fprintf(out, "podcloud demo: %d control plane + %d worker Pods on 3 fake nodes (kube-scheduler + KWOK)\n", o.controlPlane, o.workers)
	env, err := podcloudtest.TestEnv().NewEnvironment()
	if err != nil {
		return err
	}
	defer func() { _ = env.Stop() }()
	if _, err := podcloudtest.StartNodes(ctx, env); err != nil {
		return err
	}
	p, err := podcloudtest.StartProvider(ctx, env, podcloudtest.Options{PollInterval: 200 * time.Millisecond})
	if err != nil {
		return err
	}
	defer func() { _ = p.Stop() }()
	ns, err := env.CreateNamespace(ctx, "demo")
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "API server, nodes and provider ready in %s; namespace %s\n", time.Since(start).Round(time.Millisecond), ns)

	spec := podcloudtest.LifecycleSpec(podcloudtest.Cluster{Namespace: ns, Name: "demo", ControlPlane: o.controlPlane, Workers: o.workers},
		podcloudtest.LeakChecker(env.Client))
	spec.Timeout = o.timeout
	w := &lifecycle.Watcher{Out: out, Start: time.Now(), DetailHeader: "TARGET CLUSTER", Detail: podDetail,
		Status: func() string { return targetStatus(ctx, env, ns) }}
	spec.OnPoll = func(ctx context.Context, _ lifecycle.Poll) { w.Print(ctx) }
	l, err := lifecycle.New(env.Client, spec)
	if err != nil {
		return err
	}
	w.Driver = l
	if err := l.Create(ctx); err != nil {
		return err
	}
	provisioned := w.Phase("provisioning", l.WaitProvisioned)
	if provisioned && o.deletePod {
		provisioned = w.Phase("a worker's Pod deleted behind podcloud's back", func(ctx context.Context) error {
			return deletePod(ctx, env, l, ns, "demo-md-0")
		})
	}
	objs, err := podcloudtest.Objects(ctx, env.Client, ns)
	if err != nil {
		return err
	}
	dups := duplicates(objs)
	keys, err := l.OwnershipKeys(ctx)
	if err != nil {
		return err
	}
	deleted := w.Phase("deletion", l.Delete)
	leaks, err := l.Leaks(ctx, keys)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "\nmachines: %d, objects in the target cluster before the delete: %d, leaked: %d, duplicates: %d, API writes to the management cluster: %d\n",
		o.controlPlane+o.workers, len(objs), len(leaks), len(dups), p.Writes.Writes())
	var errs []error
	if !provisioned {
		errs = append(errs, fmt.Errorf("the cluster was not provisioned within %s", o.timeout))
	}
	if !deleted {
		errs = append(errs, fmt.Errorf("the cluster was not deleted within %s", o.timeout))
	}
	for _, r := range leaks {
		errs = append(errs, fmt.Errorf("leaked %s", r))
	}
	for _, d := range dups {
		errs = append(errs, fmt.Errorf("duplicate: %s", d))
	}
	return errors.Join(errs...)
}

// deletePod deletes the Pod of machine name and waits until its PodMachine reports it, and that no Pod of
// that name came back.
func deletePod(ctx context.Context, env *testenv.Environment, l *lifecycle.Driver, ns, name string) error {
	pod := &corev1.Pod{}
	if err := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, pod); err != nil {
		return fmt.Errorf("cannot get the Pod of %s: %w", name, err)
	}
	if err := env.Client.Delete(ctx, pod); err != nil {
		return fmt.Errorf("cannot delete the Pod of %s: %w", name, err)
	}
	deadline := time.Now().Add(l.Spec().Timeout)
	for time.Now().Before(deadline) {
		rows, err := l.Rows(ctx, nil)
		if err != nil {
			return err
		}
		for _, r := range rows {
			if r.Name == name && strings.HasSuffix(r.Ready, "/"+reconcile.ReasonResourceDeleted) {
				return nil
			}
		}
		l.Spec().OnPoll(ctx, lifecycle.Poll{})
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("PodMachine %s did not report its Pod deleted within %s", name, l.Spec().Timeout)
}

// podDetail is the table's last column: a PodMachine's Pod phase and node, a PodCluster's recorded objects.
func podDetail(u *unstructured.Unstructured) string {
	if phase, _, _ := unstructured.NestedString(u.Object, "status", "podPhase"); phase != "" {
		node, _, _ := unstructured.NestedString(u.Object, "status", "nodeName")
		fd, _, _ := unstructured.NestedString(u.Object, "status", "failureDomain")
		return strings.TrimSpace(fmt.Sprintf("pod %s on %s %s", phase, node, fd))
	}
	if u.GetKind() == "PodMachine" {
		return "-"
	}
	ids, _, _ := unstructured.NestedStringMap(u.Object, "status", "resources")
	fds, _, _ := unstructured.NestedSlice(u.Object, "status", "failureDomains")
	return fmt.Sprintf("%d objects, %d zones", len(ids), len(fds))
}

// targetStatus counts podcloud's objects in the target cluster.
func targetStatus(ctx context.Context, env *testenv.Environment, ns string) string {
	objs, err := podcloudtest.Objects(ctx, env.Client, ns)
	if err != nil {
		return err.Error()
	}
	count := map[string]int{}
	for _, o := range objs {
		count[o.Kind]++
	}
	return fmt.Sprintf("target cluster: %d Pods, %d Secrets, %d Services, %d ServiceAccounts", count["Pod"], count["Secret"], count["Service"], count["ServiceAccount"])
}

// duplicates lists the objects that share an owner and resource key with an earlier one.
func duplicates(objs []podcloudtest.Object) []string {
	seen := map[string]string{}
	var out []string
	for _, o := range objs {
		k := o.Kind + " " + o.Labels[reconcile.TagOwnershipKey] + "/" + o.Labels[reconcile.TagResourceKey]
		if prev, ok := seen[k]; ok {
			out = append(out, prev+" and "+o.String())
		}
		seen[k] = o.String()
	}
	return out
}

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/examples/podcloud/podcloudtest"
	"github.com/capkit/capkit/providertest/lifecycle"
	"github.com/capkit/capkit/providertest/testenv"
	"github.com/capkit/capkit/reconcile/ensure"
)

// options are the demo's flags.
type options struct {
	lifecycle.DemoFlags
	deletePod bool
}

// parse reads the flags into o.
func (o *options) parse(args []string) error {
	err := o.Parse(args, lifecycle.DemoFlags{Machines: lifecycle.Machines{ControlPlane: 1, Workers: 3}, Timeout: time.Minute},
		func(fs *flag.FlagSet) {
			fs.BoolVar(&o.deletePod, "delete-pod", true, "delete a worker's Pod behind podcloud's back once provisioned")
		})
	switch {
	case err != nil:
		return err
	case o.deletePod && o.Machines.Workers == 0:
		return errors.New("invalid --delete-pod with no workers: want at least 1 worker")
	}
	return nil
}

func main() {
	var o options
	os.Exit(lifecycle.Main("demo", os.Args[1:], o.parse, o.run))
}

// run runs the demo, printing to out; the error says what went wrong.
func (o *options) run(ctx context.Context, out io.Writer) error {
	start := time.Now()
	fmt.Fprintf(out, "podcloud demo: %d control plane + %d worker Pods on 3 fake nodes (kube-scheduler + KWOK)\n", o.Machines.ControlPlane, o.Machines.Workers)
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

	spec := podcloudtest.LifecycleSpec(podcloudtest.Cluster{Namespace: ns, Name: "demo", ControlPlane: o.Machines.ControlPlane,
		Workers: o.Machines.Workers}, podcloudtest.LeakChecker(env.Client))
	spec.Timeout = o.Timeout
	w := &lifecycle.Watcher{Out: out, DetailHeader: "TARGET CLUSTER", Detail: podDetail,
		Status: func() string { return targetStatus(ctx, env, ns) }}
	if err := w.Watch(env.Client, spec); err != nil {
		return err
	}
	provisioned, err := w.Provision(ctx)
	if err != nil {
		return err
	}
	if provisioned && o.deletePod {
		provisioned = w.Phase("a worker's Pod deleted behind podcloud's back", func(ctx context.Context) error {
			return deletePod(ctx, env, w.Driver, ns, "demo-md-0")
		})
	}
	objs, err := podcloudtest.Objects(ctx, env.Client, ns)
	if err != nil {
		return err
	}
	dups := duplicates(objs)
	deleted, leaks, err := w.Teardown(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "\nmachines: %d, objects in the target cluster before the delete: %d, leaked: %d, duplicates: %d, API writes to the management cluster: %d\n",
		o.Machines.Total(), len(objs), len(leaks), len(dups), p.Writes.Writes())
	return lifecycle.Outcome{Provisioned: provisioned, Deleted: deleted, Timeout: o.Timeout, Leaks: leaks, Duplicates: dups}.Err()
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
			if r.Name == name && strings.HasSuffix(r.Ready, "/"+conditions.ReasonResourceDeleted) {
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
		k := o.Kind + " " + o.Labels[ensure.TagOwnershipKey] + "/" + o.Labels[ensure.TagResourceKey]
		if prev, ok := seen[k]; ok {
			out = append(out, prev+" and "+o.String())
		}
		seen[k] = o.String()
	}
	return out
}

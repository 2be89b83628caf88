package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/memcloudtest"
	"github.com/capkit/capkit/providertest/lifecycle"
	"github.com/capkit/capkit/reconcile/ensure"
)

// options are the demo's flags.
type options struct {
	lifecycle.DemoFlags
	faults    float64
	searchLag int
	seed      uint64
	cloudRate float64
}

// parse reads the flags into o.
func (o *options) parse(args []string) error {
	err := o.Parse(args, lifecycle.DemoFlags{Machines: lifecycle.Machines{ControlPlane: 1, Workers: 3}, Timeout: 45 * time.Second},
		func(fs *flag.FlagSet) {
			fs.Float64Var(&o.faults, "faults", 0.1, "probability that a mutating cloud call fails, half of them after the change (0 to 1)")
			fs.IntVar(&o.searchLag, "search-lag", 2, "tag search misses a new resource for this many calls")
			fs.Uint64Var(&o.seed, "seed", 1, "seed of the cloud's IDs and faults")
			fs.Float64Var(&o.cloudRate, "cloud-rate", 40, "the cloud's rate limit per account, in calls per second (burst 10); 0 for none")
		})
	switch {
	case err != nil:
		return err
	case o.faults < 0 || o.faults > 1:
		return fmt.Errorf("invalid --faults %v: want a probability from 0 to 1", o.faults)
	case o.searchLag < 0:
		return fmt.Errorf("invalid --search-lag %d: must not be negative", o.searchLag)
	case o.cloudRate < 0:
		return fmt.Errorf("invalid --cloud-rate %v: must not be negative", o.cloudRate)
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
	fmt.Fprintf(out, "memcloud demo: %d control plane + %d worker machines, faults %.0f%% of mutating cloud calls (half after the change), search lag %d, rate limit %g calls/s, seed %d\n",
		o.Machines.ControlPlane, o.Machines.Workers, o.faults*100, o.searchLag, o.cloudRate, o.seed)
	env, err := memcloudtest.TestEnv().NewEnvironment()
	if err != nil {
		return err
	}
	defer func() { _ = env.Stop() }()
	cl, err := cloud.New(cloud.WithSeed(o.seed), cloud.WithPendingGets(2),
		cloud.WithFaults(cloud.FaultConfig{BeforeChange: o.faults / 2, AfterChange: o.faults / 2, SearchLag: o.searchLag}))
	if err != nil {
		return err
	}
	if o.cloudRate > 0 {
		if err := cl.SetRateLimit(o.cloudRate, 10); err != nil {
			return err
		}
	}
	// memcloud's own namespace holds the tenants' credentials Secrets.
	system, err := env.CreateNamespace(ctx, "memcloud-system")
	if err != nil {
		return err
	}
	p, err := memcloudtest.StartProvider(ctx, env, memcloudtest.Options{Shared: cl, IdentityNamespace: system})
	if err != nil {
		return err
	}
	defer func() { _ = p.Stop() }()
	ns, err := env.CreateNamespace(ctx, "demo")
	if err != nil {
		return err
	}
	// The tenant's memcloud account, its credentials Secret and the identity that lets namespace ns use it.
	// With an account in the cloud, every cloud call must carry credentials: the whole run goes through it.
	const tenant = "demo-tenant"
	if err := memcloudtest.CreateIdentity(ctx, env.Client, cl, system, tenant, ns); err != nil {
		return err
	}
	fmt.Fprintf(out, "API server and provider ready in %s; namespace %s, MemClusterIdentity %s (memcloud account %s, credentials in Secret %s/%s)\n",
		time.Since(start).Round(time.Millisecond), ns, tenant, tenant, system, tenant)

	// providertest's lifecycle driver plays Cluster API's part; the watcher prints the table on its polls.
	spec := memcloudtest.LifecycleSpec(memcloudtest.Cluster{Namespace: ns, Name: "demo", ControlPlane: o.Machines.ControlPlane,
		Workers: o.Machines.Workers, FailureDomains: []string{"fd-a", "fd-b"}, Identity: tenant}, p.LeakChecker())
	spec.Timeout = o.Timeout
	w := &lifecycle.Watcher{Out: out, DetailHeader: "CLOUD", Detail: cloudDetail, Status: func() string {
		c := p.Cloud
		return fmt.Sprintf("cloud: %d live resources, %d calls, %d faults", len(c.All()), c.Calls().Total(), c.Calls().Faults)
	}}
	if err := w.Watch(env.Client, spec); err != nil {
		return err
	}
	provisioned, err := w.Provision(ctx)
	if err != nil {
		return err
	}
	owner := cloud.OwnerTagValue(ensure.TagOwnershipKey)
	dups := p.Cloud.Duplicates(owner, ensure.TagResourceKey)
	machineWrites := 0
	for _, wr := range p.Writes.Log() {
		if strings.HasSuffix(wr.Kind, "MemMachine") { // "MemMachine", or the Go type when the GVK is not set
			machineWrites++
		}
	}
	deleted, leaks, err := w.Teardown(ctx)
	if err != nil {
		return err
	}
	n := 0
	if provisioned {
		n = o.Machines.Total()
	}
	fmt.Fprintf(out, "\nAPI writes per MemMachine here include the status written while it waits for the cluster and while its instance\n"+
		"boots; provisioning a machine whose cluster is ready and whose instance runs at once costs 3 (controllers tests).\n")
	fmt.Fprintf(out, "machines provisioned: %d, cloud resources created: %d, leaked: %d, duplicates: %d, API writes: %d (per machine %.1f), cloud faults injected: %d\n",
		n, p.Cloud.TotalCreated(), len(leaks), len(dups), p.Writes.Writes(), float64(machineWrites)/float64(o.Machines.Total()), p.Cloud.Calls().Faults)
	st := p.Cloud.Calls()
	fmt.Fprintf(out, "cloud calls with the credentials of MemClusterIdentity %s: %d of %d; refused as unauthorized: %d; throttled by the rate limit: %d\n",
		tenant, st.ByAccount[tenant], st.Total(), st.Unauthorized, st.Throttled)
	if err := printMetrics(out); err != nil {
		return err
	}
	var dupLines []string
	for _, d := range dups {
		dupLines = append(dupLines, d.String())
	}
	err = lifecycle.Outcome{Provisioned: provisioned, Deleted: deleted, Timeout: o.Timeout, Leaks: leaks, Duplicates: dupLines}.Err()
	if st.Unauthorized > 0 || st.ByAccount[tenant] != st.Total() {
		err = errors.Join(fmt.Errorf("%d cloud calls were not made with the identity's credentials", st.Total()-st.ByAccount[tenant]), err)
	}
	return err
}

// cloudDetail is the table's CLOUD column: how many resources a MemCluster records, a MemMachine's instance
// state.
func cloudDetail(u *unstructured.Unstructured) string {
	if state, _, _ := unstructured.NestedString(u.Object, "status", "instanceState"); state != "" {
		return "instance " + state
	}
	if u.GetKind() == "MemMachine" {
		return "-"
	}
	ids, _, _ := unstructured.NestedStringMap(u.Object, "status", "resources")
	return fmt.Sprintf("%d resources", len(ids))
}

// printMetrics prints capkit's metrics of the run, as the manager's metrics endpoint serves them, summed
// over resource kinds.
func printMetrics(out io.Writer) error {
	families, err := crmetrics.Registry.Gather()
	if err != nil {
		return fmt.Errorf("cannot gather metrics: %w", err)
	}
	fmt.Fprintln(out, "capkit metrics (from the manager's registry):")
	for _, fam := range families {
		name := fam.GetName()
		by := map[string]string{"capkit_cloud_calls_total": "outcome", "capkit_ensure_actions_total": "action", "capkit_reconcile_throttled_total": "kind"}[name]
		if by == "" {
			continue
		}
		sums := map[string]float64{}
		for _, m := range fam.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == by {
					sums[l.GetValue()] += m.GetCounter().GetValue()
				}
			}
		}
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(sums)) {
			parts = append(parts, fmt.Sprintf("%s=%.0f", k, sums[k]))
		}
		fmt.Fprintf(out, "  %s by %s: %s\n", name, by, strings.Join(parts, " "))
	}
	return nil
}

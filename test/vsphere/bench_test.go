package vsphere_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// sideBySide configures BenchmarkVSphereSideBySide from the environment: CAPKIT_VSPHERE_FLEETS (fleet sizes,
// default "10,100"), CAPKIT_VSPHERE_IDLE (how long a provisioned fleet is watched doing nothing, default 30s),
// CAPKIT_VSPHERE_REPORT (a file to write the tables to, besides the log).
type sideBySide struct {
	sizes  []int
	idle   time.Duration
	report string
}

func sideBySideConfig(b *testing.B) sideBySide {
	c := sideBySide{sizes: []int{10, 100}, idle: 30 * time.Second, report: os.Getenv("CAPKIT_VSPHERE_REPORT")}
	if v := os.Getenv("CAPKIT_VSPHERE_FLEETS"); v != "" {
		c.sizes = nil
		for f := range strings.SplitSeq(v, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n <= 0 || n > 500 {
				b.Fatalf("CAPKIT_VSPHERE_FLEETS=%q: %q is not a fleet size from 1 to 500", v, f)
			}
			c.sizes = append(c.sizes, n)
		}
	}
	if v := os.Getenv("CAPKIT_VSPHERE_IDLE"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 || d > time.Hour {
			b.Fatalf("CAPKIT_VSPHERE_IDLE=%q is not a duration from 0 to 1h", v)
		}
		c.idle = d
	}
	return c
}

// crashMachines is how many single-machine clusters each crash test makes; crashSettle how long the provider meets
// the clones in flight: more than two of either provider's 10 s polls.
const (
	crashMachines = 3
	crashSettle   = 25 * time.Second
)

// BenchmarkVSphereSideBySide runs capkit's vSphere example and CAPV v1.14.0 one after the other on one world (API
// server, Cluster API v1.14.2 managers, simulator), each with its defaults: for each fleet size it provisions the
// fleet, watches it idle, deletes it; then it runs the two crash tests. make bench-vsphere runs it once.
func BenchmarkVSphereSideBySide(b *testing.B) {
	cfg := sideBySideConfig(b)
	ctx := context.Background()
	w := newWorld(b)
	var fleets []fleet
	var crashes, early []crash
	for range b.N {
		for _, p := range []provider{capkitProvider(), capvProvider()} {
			r := w.start(b, p)
			for _, n := range cfg.sizes {
				f, err := runFleet(ctx, r, n, cfg.idle, nil)
				if err != nil {
					b.Fatalf("%s, fleet of %d: %v", p.name, n, err)
				}
				progress("%s, fleet of %d: provisioned in %s, deleted in %s; vCenter requests while provisioning by kind: %v",
					p.name, n, f.provision.Round(time.Millisecond), f.delete.Round(time.Millisecond), f.vcKinds)
				fleets = append(fleets, f)
			}
			c, err := crashDuringClone(ctx, r, crashMachines, crashSettle)
			if err != nil {
				b.Fatalf("%s, crash during clone: %v", p.name, err)
			}
			progress("%s, crash during clone: %+v", p.name, c)
			crashes = append(crashes, c)
			e, err := deleteDuringClone(ctx, r, crashMachines, crashSettle)
			if err != nil {
				b.Fatalf("%s, delete during clone: %v", p.name, err)
			}
			progress("%s, delete during clone: %+v", p.name, e)
			early = append(early, e)
			r.stop()
		}
	}
	report := fleetTable(fleets, cfg.idle) + "\n" + crashTable(crashes, early)
	fmt.Print("\n" + report) // b.Log truncates a benchmark's long output
	if cfg.report != "" {
		if err := os.WriteFile(cfg.report, []byte(report), 0o644); err != nil {
			b.Fatal(err)
		}
	}
}

// fleetTable writes the fleets as a Markdown table, a column per provider and size.
func fleetTable(fleets []fleet, idle time.Duration) string {
	slices.SortStableFunc(fleets, func(a, b fleet) int { return a.n - b.n })
	var sb strings.Builder
	sb.WriteString("| per fleet |")
	for _, f := range fleets {
		fmt.Fprintf(&sb, " %s, N = %d |", f.provider, f.n)
	}
	sb.WriteString("\n|---|" + strings.Repeat("---:|", len(fleets)) + "\n")
	row := func(name string, cell func(f fleet) string) {
		sb.WriteString("| " + name + " |")
		for _, f := range fleets {
			sb.WriteString(" " + cell(f) + " |")
		}
		sb.WriteString("\n")
	}
	perMachine := func(v int, n int) string { return strconv.FormatFloat(float64(v)/float64(n), 'f', 1, 64) }
	row("time to provision the fleet", func(f fleet) string { return f.provision.Round(100 * time.Millisecond).String() })
	medMax := func(d []time.Duration) string {
		if len(d) == 0 {
			return "-"
		}
		return fmt.Sprintf("%s / %s", d[len(d)/2], d[len(d)-1])
	}
	row("per machine, bootstrap data ready to infrastructure ready: median / max", func(f fleet) string { return medMax(f.latency.total) })
	row("… of which the bootstrap data on the Machine (Cluster API)", func(f fleet) string { return medMax(f.latency.toData) })
	row("… then the clone call (the provider)", func(f fleet) string { return medMax(f.latency.toCall) })
	row("… then the VM created and powered on (the simulator)", func(f fleet) string { return medMax(f.latency.toVM) })
	row("… then infrastructure ready (the provider)", func(f fleet) string { return medMax(f.latency.afterVM) })
	row("time to delete the fleet", func(f fleet) string { return f.delete.Round(100 * time.Millisecond).String() })
	row("vCenter requests per machine, provision", func(f fleet) string { return perMachine(f.vcProvision, f.n) })
	row(fmt.Sprintf("vCenter requests per machine, %s idle", idle), func(f fleet) string { return perMachine(f.vcIdle, f.n) })
	row("vCenter requests per machine, delete", func(f fleet) string { return perMachine(f.vcDelete, f.n) })
	row("API requests per machine, provision (no watches)", func(f fleet) string { return perMachine(f.k8sProvision, f.n) })
	row(fmt.Sprintf("API requests per machine, %s idle", idle), func(f fleet) string { return perMachine(f.k8sIdle, f.n) })
	row("API requests per machine, delete", func(f fleet) string { return perMachine(f.k8sDelete, f.n) })
	row("API writes per machine, provision and delete", func(f fleet) string { return perMachine(f.writes, f.n) })
	row("manager CPU time, whole fleet", func(f fleet) string { return f.usage.CPU.Round(10 * time.Millisecond).String() })
	row("manager peak memory (RSS, so far)", func(f fleet) string { return fmt.Sprintf("%.0f MiB", float64(f.usage.PeakRSS)/(1<<20)) })
	row("VMs / clones after provision", func(f fleet) string { return fmt.Sprintf("%d / %d", f.vms, f.clones) })
	row("VMs left after delete", func(f fleet) string { return strconv.Itoa(f.left) })
	return sb.String()
}

// crashTable writes the crash tests as a Markdown table.
func crashTable(crashes, early []crash) string {
	var sb strings.Builder
	sb.WriteString("| crash test |")
	for _, c := range crashes {
		fmt.Fprintf(&sb, " %s |", c.provider)
	}
	sb.WriteString("\n|---|" + strings.Repeat("---:|", len(crashes)) + "\n")
	row := func(name string, from []crash, cell func(c crash) string) {
		sb.WriteString("| " + name + " |")
		for _, c := range from {
			sb.WriteString(" " + cell(c) + " |")
		}
		sb.WriteString("\n")
	}
	row(fmt.Sprintf("killed at its first clone call: machines provisioned within %s of the clones' end", crashProvisionWait), crashes,
		func(c crash) string { return fmt.Sprintf("%d of %d", c.provisioned, c.machines) })
	row("killed at its first clone call: duplicate VMs", crashes, func(c crash) string { return strconv.Itoa(c.vms - c.machines) })
	row("killed at its first clone call: clones started", crashes, func(c crash) string { return strconv.Itoa(c.clones) })
	row("killed at its first clone call: VMs left after delete", crashes, func(c crash) string { return strconv.Itoa(c.left) })
	row("deleted while the clones run: VMs leaked", early, func(c crash) string { return strconv.Itoa(c.left) })
	row("deleted while the clones run: clones started", early, func(c crash) string { return strconv.Itoa(c.clones) })
	return sb.String()
}

// progress prints a step of the benchmark with the time, as it happens.
func progress(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
}

package lifecycle

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/contract"
)

// Row is one line of a Watcher's table: the InfraCluster or an InfraMachine, as Cluster API reads it.
type Row struct {
	// Name and Kind name the object.
	Name, Kind string
	// Provisioned is the contract's provisioned flag, "true" or "false".
	Provisioned string
	// Endpoint is the InfraCluster's control plane endpoint or the InfraMachine's provider ID, "-" when unset.
	Endpoint string
	// Ready is "True", "Deleting", or the Ready condition's status and the reason of the first step
	// condition (type ending in "Ready") that is not True, e.g. "False/PodPending".
	Ready string
	// Detail is what the Watcher's Detail function says of the object.
	Detail string
}

// Rows reads the InfraCluster and the InfraMachines of the Driver's cluster; an object that is gone has no
// row. detail, when set, fills Row.Detail.
func (l *Driver) Rows(ctx context.Context, detail func(*unstructured.Unstructured) string) ([]Row, error) {
	var out []Row
	for i, name := range append([]string{l.spec.ClusterName}, l.MachineNames()...) {
		gvk, machine := l.spec.InfraClusterGVK, i > 0
		if machine {
			gvk = l.spec.InfraMachineGVK
		}
		u, ok, err := l.lookup(ctx, gvk, name)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		r := Row{Name: name, Kind: gvk.Kind, Provisioned: "false", Endpoint: "-", Ready: readyOf(u)}
		if machine {
			f := contract.InfraMachine(l.spec.ContractVersion)
			if p, _ := f.Provisioned().Get(u); p {
				r.Provisioned = "true"
			}
			if id, _ := f.ProviderID().Get(u); id != "" {
				r.Endpoint = id
			}
		} else {
			f := contract.InfraCluster(l.spec.ContractVersion)
			if p, _ := f.Provisioned().Get(u); p {
				r.Provisioned = "true"
			}
			if ep, _ := f.ControlPlaneEndpoint().Get(u); ep.IsValid() {
				r.Endpoint = fmt.Sprintf("%s:%d", ep.Host, ep.Port)
			}
		}
		if detail != nil {
			r.Detail = detail(u)
		}
		out = append(out, r)
	}
	return out, nil
}

// lookup reads an object; ok is false when it is gone.
func (l *Driver) lookup(ctx context.Context, gvk schema.GroupVersionKind, name string) (*unstructured.Unstructured, bool, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	err := l.c.Get(ctx, client.ObjectKey{Namespace: l.spec.Namespace, Name: name}, u)
	if err != nil {
		if client.IgnoreNotFound(err) == nil {
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("cannot get %s %q: %w", gvk.Kind, name, err)
	}
	return u, true, nil
}

// readyOf renders the Ready condition of u for a Row.
func readyOf(u *unstructured.Unstructured) string {
	if u.GetDeletionTimestamp() != nil {
		return "Deleting"
	}
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	var ready map[string]any
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok && m["type"] == "Ready" {
			ready = m
		}
	}
	if ready == nil {
		return "-"
	}
	if ready["status"] == "True" {
		return "True"
	}
	for _, c := range conds { // the summary names the first step that is not good: show its reason
		m, ok := c.(map[string]any)
		if t, _ := m["type"].(string); ok && t != "Ready" && strings.HasSuffix(t, "Ready") && m["status"] != "True" {
			return fmt.Sprintf("%v/%v", ready["status"], m["reason"])
		}
	}
	return fmt.Sprintf("%v/%v", ready["status"], ready["reason"])
}

// renderTable writes rows like kubectl get; detailHeader is the heading of the Detail column.
func renderTable(w io.Writer, rows []Row, detailHeader string) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "NAME\tKIND\tPROVISIONED\tENDPOINT/PROVIDER-ID\tREADY\t%s\n", detailHeader)
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.Name, r.Kind, r.Provisioned, r.Endpoint, r.Ready, r.Detail)
	}
	_ = tw.Flush()
}

// Watcher prints the table of a Driver's objects whenever it changes, for a demo: set Spec.OnPoll to call
// Print, and run the Driver's steps through Phase.
type Watcher struct {
	// Out receives the tables. Required.
	Out io.Writer
	// Driver is the lifecycle whose objects are shown. Required.
	Driver *Driver
	// DetailHeader and Detail make the last column (e.g. "CLOUD" and an instance's state).
	DetailHeader string
	Detail       func(*unstructured.Unstructured) string
	// Status, when set, is printed above each table, e.g. the cloud's call counts.
	Status func() string
	// Start is when the demo began; times are printed relative to it.
	Start time.Time

	last string
}

// Phase runs a step of the lifecycle (whose polls print the table) and reports whether it finished.
func (w *Watcher) Phase(name string, step func(context.Context) error) bool {
	begin := time.Now()
	ctx := context.Background()
	if err := step(ctx); err != nil {
		w.Print(ctx)
		fmt.Fprintf(w.Out, "--- %s did not finish: %v\n", name, err)
		return false
	}
	w.Print(ctx)
	fmt.Fprintf(w.Out, "--- %s done in %s\n", name, time.Since(begin).Round(time.Millisecond))
	return true
}

// Print prints the table when it differs from the last one printed.
func (w *Watcher) Print(ctx context.Context) {
	rs, err := w.Driver.Rows(ctx, w.Detail)
	if err != nil {
		return
	}
	var b strings.Builder
	renderTable(&b, rs, w.DetailHeader)
	t := b.String()
	if len(rs) == 0 {
		t = fmt.Sprintf("(no %s or %s left)\n", w.Driver.spec.InfraClusterGVK.Kind, w.Driver.spec.InfraMachineGVK.Kind)
	}
	if t == w.last {
		return
	}
	w.last = t
	status := ""
	if w.Status != nil {
		status = " " + w.Status()
	}
	fmt.Fprintf(w.Out, "\n[%5.2fs]%s\n", time.Since(w.Start).Seconds(), status)
	fmt.Fprint(w.Out, t)
}

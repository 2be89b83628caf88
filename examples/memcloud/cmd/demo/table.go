package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/controllers"
	"github.com/capkit/capkit/providertest/lifecycle"
)

// row is one line of the table: an object and its phase.
type row struct {
	name, kind, provisioned, endpoint, ready, cloud string
}

// rows reads the MemCluster and MemMachines of the lifecycle's cluster; a deleted object has no row.
func rows(ctx context.Context, c client.Client, l *lifecycle.Driver) ([]row, error) {
	spec := l.Spec()
	var out []row
	mc := &v1beta2.MemCluster{}
	err := c.Get(ctx, client.ObjectKey{Namespace: spec.Namespace, Name: spec.ClusterName}, mc)
	switch {
	case err == nil:
		ep := "-"
		if mc.Spec.ControlPlaneEndpoint.Host != "" {
			ep = fmt.Sprintf("%s:%d", mc.Spec.ControlPlaneEndpoint.Host, mc.Spec.ControlPlaneEndpoint.Port)
		}
		out = append(out, row{name: mc.Name, kind: "MemCluster", provisioned: yesNo(mc.Status.Initialization.Provisioned),
			endpoint: ep, ready: ready(mc, deleting(mc.DeletionTimestamp != nil)), cloud: fmt.Sprintf("%d resources", len(mc.Status.Resources))})
	case client.IgnoreNotFound(err) != nil:
		return nil, err
	}
	for _, name := range l.MachineNames() {
		mm := &v1beta2.MemMachine{}
		err := c.Get(ctx, client.ObjectKey{Namespace: spec.Namespace, Name: name}, mm)
		if client.IgnoreNotFound(err) != nil {
			return nil, err
		}
		if err != nil {
			continue
		}
		pid, state := "-", "-"
		if mm.Spec.ProviderID != "" {
			pid = mm.Spec.ProviderID
		}
		if mm.Status.InstanceState != "" {
			state = "instance " + mm.Status.InstanceState
		}
		out = append(out, row{name: mm.Name, kind: "MemMachine", provisioned: yesNo(mm.Status.Initialization.Provisioned),
			endpoint: pid, ready: ready(mm, deleting(mm.DeletionTimestamp != nil)), cloud: state})
	}
	return out, nil
}

type deleting bool

func yesNo(b *bool) string {
	if ptr.Deref(b, false) {
		return "true"
	}
	return "false"
}

// ready renders the Ready condition as "Status/Reason", or "Deleting" for an object being deleted.
func ready(g conditions.Getter, del deleting) string {
	if del {
		return "Deleting"
	}
	c := conditions.Get(g, v1beta2.ReadyCondition)
	if c == nil {
		return "-"
	}
	if c.Status == "True" {
		return "True"
	}
	// The summary names the first step that is not good: show that step's reason.
	for _, t := range []string{v1beta2.NetworkReadyCondition, controllers.StepSubnets + "Ready", v1beta2.SecurityGroupReadyCondition,
		v1beta2.LoadBalancerReadyCondition, v1beta2.InstanceReadyCondition} {
		if sc := conditions.Get(g, t); sc != nil && sc.Status != "True" {
			return string(c.Status) + "/" + sc.Reason
		}
	}
	return string(c.Status) + "/" + c.Reason
}

// render writes the table like kubectl get.
func render(w io.Writer, rs []row) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tKIND\tPROVISIONED\tENDPOINT/PROVIDER-ID\tREADY\tCLOUD")
	for _, r := range rs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.name, r.kind, r.provisioned, r.endpoint, r.ready, r.cloud)
	}
	_ = tw.Flush()
}

func table(rs []row) string {
	var b strings.Builder
	render(&b, rs)
	return b.String()
}

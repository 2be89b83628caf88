package capienv

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// DumpKinds are the kinds Dump lists by default: the Cluster API core objects and kubeadm configs.
var DumpKinds = []schema.GroupVersionKind{
	{Group: "cluster.x-k8s.io", Version: "v1beta2", Kind: "Cluster"},
	{Group: "cluster.x-k8s.io", Version: "v1beta2", Kind: "MachineDeployment"},
	{Group: "cluster.x-k8s.io", Version: "v1beta2", Kind: "MachineSet"},
	{Group: "cluster.x-k8s.io", Version: "v1beta2", Kind: "Machine"},
	{Group: "bootstrap.cluster.x-k8s.io", Version: "v1beta2", Kind: "KubeadmConfig"},
}

// Dump describes every object of kinds (DumpKinds when none) in namespace: phase, finalizers, deletion and
// each status condition, one line per condition. Tests print it when they fail.
func Dump(ctx context.Context, c client.Client, namespace string, kinds ...schema.GroupVersionKind) string {
	if len(kinds) == 0 {
		kinds = DumpKinds
	}
	var b strings.Builder
	for _, gvk := range kinds {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		if err := c.List(ctx, list, client.InNamespace(namespace)); err != nil {
			fmt.Fprintf(&b, "%s: cannot list: %v\n", gvk.Kind, err)
			continue
		}
		for _, o := range list.Items {
			phase, _, _ := unstructured.NestedString(o.Object, "status", "phase")
			fmt.Fprintf(&b, "%s %s/%s phase=%q finalizers=%v deleting=%t\n", gvk.Kind, namespace, o.GetName(), phase,
				o.GetFinalizers(), o.GetDeletionTimestamp() != nil)
			conds, _, _ := unstructured.NestedSlice(o.Object, "status", "conditions")
			lines := make([]string, 0, len(conds))
			for _, raw := range conds {
				cond, ok := raw.(map[string]any)
				if !ok {
					continue
				}
				lines = append(lines, fmt.Sprintf("  %v=%v %v: %v", cond["type"], cond["status"], cond["reason"], cond["message"]))
			}
			sort.Strings(lines)
			for _, l := range lines {
				b.WriteString(strings.ReplaceAll(l, "\n", " ") + "\n")
			}
		}
	}
	return b.String()
}

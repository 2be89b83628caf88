package providertest

import (
	"context"
	"errors"
	"fmt"
	"maps"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/capkit/capkit/contract/admission"
)

// TopologyFieldManager is the field manager of the server-side applies of Cluster API's topology controller
// (structuredmerge.TopologyManagerName in Cluster API v1.14).
const TopologyFieldManager = "capi-topology"

// TopologyDryRunContract is the rule of Cluster API's provider contract (v1.14, "InfraMachineTemplate: support
// for SSA dry run"; the same words for InfraMachinePoolTemplate and BootstrapConfigTemplate) that
// AssertTemplateAcceptsTopologyDryRun checks, quoted in its failures.
const TopologyDryRunContract = `Cluster API's provider contract, "InfraMachineTemplate: support for SSA dry run" ` +
	`(mandatory for ClusterClass support): "InfraMachineTemplate MUST specifically implement support for SSA dry ` +
	`run calls from the topology controller." … "This will allow to skip the immutability check only when the ` +
	`topology controller is dry running while preserving the validation behavior for all other cases."`

// AssertTemplateAcceptsTopologyDryRun checks that the admission webhooks of a template kind let through the
// requests Cluster API's topology controller sends when it compares a template in use with the one its
// ClusterClass now computes, as Cluster API v1.14 sends them (dryRunSSAPatch): c must reach an API server that
// calls the provider's webhooks, such as a testenv.Environment with the provider's webhooks and a manager
// serving them.
//
// It creates tmpl (a valid template, not yet created; it is deleted at the end), then sends, as field manager
// TopologyFieldManager forcing ownership, two server-side-apply dry-runs of objects carrying
// admission.TopologyDryRunAnnotation: the template with change applied to a copy (change must alter a field
// of the spec, e.g. spec.template.spec's image, to another valid value), then the template as stored. It
// fails, quoting TopologyDryRunContract, when the webhooks refuse either. When a plain dry-run update with the
// change is refused (the webhook keeps the spec immutable), it also applies the annotated change without
// dry-run and fails when that passes: the immutability check must be skipped only in dry-runs. Failures go
// to t.Errorf; it returns whether every check passed.
func AssertTemplateAcceptsTopologyDryRun[T client.Object](ctx context.Context, t TestingT, c client.Client, tmpl T, change func(T)) bool {
	t.Helper()
	gvk, err := apiutil.GVKForObject(tmpl, c.Scheme())
	if err != nil {
		t.Errorf("cannot check the topology dry-run of %T: %v", tmpl, err)
		return false
	}
	what := fmt.Sprintf("%s %q", gvk.Kind, tmpl.GetNamespace()+"/"+tmpl.GetName())
	if err := c.Create(ctx, tmpl); err != nil {
		t.Errorf("cannot check the topology dry-run of %s: cannot create it: %v", what, err)
		return false
	}
	defer func() {
		if err := c.Delete(ctx, tmpl); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("cannot delete %s after checking its topology dry-run: %v", what, err)
		}
	}()
	changed := tmpl.DeepCopyObject().(T) //nolint:forcetypeassert // DeepCopyObject returns the same type
	change(changed)
	original, err1 := ToUnstructured(tmpl.DeepCopyObject())
	desired, err2 := ToUnstructured(changed)
	if err := errors.Join(err1, err2); err != nil {
		t.Errorf("cannot check the topology dry-run of %s: %v", what, err)
		return false
	}
	original.SetGroupVersionKind(gvk) // typed objects read back from the API server have no TypeMeta
	desired.SetGroupVersionKind(gvk)

	modified := topologyIntent(original, desired)
	if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(modified), client.DryRunAll,
		client.FieldOwner(TopologyFieldManager), client.ForceOwnership); err != nil {
		t.Errorf("%s refuses Cluster API's topology dry-run (a server-side-apply dry-run of the changed template, "+
			"annotated %s, by field manager %s): %v\n%s", what, admission.TopologyDryRunAnnotation, TopologyFieldManager, err, TopologyDryRunContract)
		return false
	}
	if equality.Semantic.DeepEqual(modified.Object["spec"], original.Object["spec"]) {
		t.Errorf("cannot check the topology dry-run of %s: change leaves its spec as stored; change a field of the spec to another valid value", what)
		return false
	}
	if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(topologyIntent(original, original)), client.DryRunAll,
		client.FieldOwner(TopologyFieldManager), client.ForceOwnership); err != nil {
		t.Errorf("%s refuses Cluster API's topology dry-run (a server-side-apply dry-run of the template as stored, "+
			"annotated %s, by field manager %s): %v\n%s", what, admission.TopologyDryRunAnnotation, TopologyFieldManager, err, TopologyDryRunContract)
		return false
	}
	return assertImmutableOutsideDryRun(ctx, t, c, what, desired, topologyIntent(original, desired))
}

// assertImmutableOutsideDryRun fails when the webhook refuses desired in a plain dry-run update (its spec is
// immutable) but lets the annotated intent through outside a dry-run.
func assertImmutableOutsideDryRun(ctx context.Context, t TestingT, c client.Client, what string, desired, intent *unstructured.Unstructured) bool {
	t.Helper()
	if err := c.Update(ctx, desired.DeepCopy(), client.DryRunAll); err == nil {
		return true // no immutability check to keep
	}
	if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(intent), client.FieldOwner(TopologyFieldManager), client.ForceOwnership); err != nil {
		return true
	}
	t.Errorf("%s keeps its spec immutable but lets a change annotated %s through outside a dry-run: the webhook must also "+
		"check that the admission request is a dry-run\n%s", what, admission.TopologyDryRunAnnotation, TopologyDryRunContract)
	return false
}

// topologyIntent returns what the topology controller applies for a template stored as original whose desired
// state is desired: apiVersion, kind, name, namespace, labels and annotations with TopologyDryRunAnnotation
// added, and spec.
func topologyIntent(original, desired *unstructured.Unstructured) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetAPIVersion(original.GetAPIVersion())
	u.SetKind(original.GetKind())
	u.SetNamespace(original.GetNamespace())
	u.SetName(original.GetName())
	u.SetLabels(desired.GetLabels())
	annotations := map[string]string{admission.TopologyDryRunAnnotation: ""}
	maps.Copy(annotations, desired.GetAnnotations())
	u.SetAnnotations(annotations)
	if spec, ok := desired.Object["spec"]; ok {
		u.Object["spec"] = runtime.DeepCopyJSONValue(spec)
	}
	return u
}

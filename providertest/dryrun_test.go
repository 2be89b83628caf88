package providertest_test

import (
	"context"
	"testing"

	"github.com/go-logr/logr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	cradmission "sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/capkit/capkit/contract/admission"
	"github.com/capkit/capkit/providertest"
)

// templateSpec is the part of an ExampleMachineTemplate (testdata/dryrun/crd.yaml) its webhooks check.
func templateSpec(u *unstructured.Unstructured) *map[string]any {
	m, _, _ := unstructured.NestedMap(u.Object, "spec", "template", "spec")
	return &m
}

// contractWebhook keeps the template's spec immutable except in the topology controller's dry-runs, as the
// contract asks.
var contractWebhook = admission.Webhook[*unstructured.Unstructured, map[string]any]{Template: true, Spec: templateSpec}

// immutableWebhook refuses every change of the templated spec, the topology controller's dry-runs included
// (Proxmox #735, Outscale #864).
var immutableWebhook = admission.Webhook[*unstructured.Unstructured, map[string]any]{
	Spec: templateSpec, Path: field.NewPath("spec", "template", "spec"),
	ValidateSpecUpdate: func(oldSpec, newSpec *map[string]any, path *field.Path) field.ErrorList {
		return admission.ValidateImmutableExcept(path, *oldSpec, *newSpec, nil)
	},
}

// annotationWebhook skips its immutability check for every object carrying the topology dry-run annotation,
// dry-run or not.
type annotationWebhook struct {
	admission.Webhook[*unstructured.Unstructured, map[string]any]
}

func (w annotationWebhook) ValidateUpdate(ctx context.Context, oldObj, newObj *unstructured.Unstructured) (cradmission.Warnings, error) {
	if _, ok := newObj.GetAnnotations()[admission.TopologyDryRunAnnotation]; ok {
		return nil, nil
	}
	return w.Webhook.ValidateUpdate(ctx, oldObj, newObj)
}

// startTemplateWebhooks serves the three webhooks of testdata/dryrun/webhook.yaml until the test ends.
func startTemplateWebhooks(t *testing.T) {
	t.Helper()
	mgr, err := env.StartManager(t.Context(), logr.Discard(), func(mgr ctrl.Manager) error {
		s := mgr.GetWebhookServer()
		s.Register("/validate-contract", cradmission.WithValidator(mgr.GetScheme(), contractWebhook))
		s.Register("/validate-immutable", cradmission.WithValidator(mgr.GetScheme(), immutableWebhook))
		s.Register("/validate-annotation", cradmission.WithValidator[*unstructured.Unstructured](mgr.GetScheme(), annotationWebhook{immutableWebhook}))
		return nil
	})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, mgr.Stop()) })
}

func exampleTemplate(ns, name, webhook string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("infrastructure.example.io/v1beta2")
	u.SetKind("ExampleMachineTemplate")
	u.SetNamespace(ns)
	u.SetName(name)
	u.SetLabels(map[string]string{"webhook": webhook})
	_ = unstructured.SetNestedField(u.Object, "ubuntu-24.04", "spec", "template", "spec", "image")
	return u
}

func TestAssertTemplateAcceptsTopologyDryRun(t *testing.T) {
	startTemplateWebhooks(t)
	ns := env.Namespace(t, "dryrun")
	newImage := func(u *unstructured.Unstructured) {
		_ = unstructured.SetNestedField(u.Object, "ubuntu-26.04", "spec", "template", "spec", "image")
	}
	tests := []struct {
		name    string
		tmpl    *unstructured.Unstructured
		change  func(*unstructured.Unstructured)
		wantErr []string // parts of the failure; none: it passes
	}{
		{name: "a webhook that follows the contract passes", tmpl: exampleTemplate(ns, "contract", "contract"), change: newImage},
		{name: "a webhook without immutability passes", tmpl: exampleTemplate(ns, "none", "none"), change: newImage},
		{name: "a webhook that refuses every change of spec fails with the contract's words",
			tmpl: exampleTemplate(ns, "immutable", "immutable"), change: newImage, wantErr: []string{
				`ExampleMachineTemplate "` + ns + `/immutable" refuses Cluster API's topology dry-run (a server-side-apply dry-run of the changed template, annotated topology.cluster.x-k8s.io/dry-run, by field manager capi-topology)`,
				`spec.template.spec.image: Forbidden: field is immutable`,
				`"InfraMachineTemplate MUST specifically implement support for SSA dry run calls from the topology controller."`,
			}},
		{name: "a webhook that trusts the annotation outside dry-runs fails",
			tmpl: exampleTemplate(ns, "annotation", "annotation"), change: newImage, wantErr: []string{
				`ExampleMachineTemplate "` + ns + `/annotation" keeps its spec immutable but lets a change annotated topology.cluster.x-k8s.io/dry-run through outside a dry-run`,
				`skip the immutability check only when the topology controller is dry running`,
			}},
		{name: "a change that changes nothing proves nothing", tmpl: exampleTemplate(ns, "no-change", "contract"),
			change: func(*unstructured.Unstructured) {}, wantErr: []string{
				`cannot check the topology dry-run of ExampleMachineTemplate "` + ns + `/no-change": change leaves its spec as stored`,
			}},
		{name: "a template that cannot be created", tmpl: exampleTemplate(ns, "Not_A_Name", "contract"), change: newImage,
			wantErr: []string{`cannot check the topology dry-run of ExampleMachineTemplate "` + ns + `/Not_A_Name": cannot create it`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &recorder{}
			ok := providertest.AssertTemplateAcceptsTopologyDryRun(t.Context(), r, env.Client, tt.tmpl, tt.change)
			if len(tt.wantErr) == 0 {
				assert.True(t, ok, r.String())
				assert.Empty(t, r.errs)
			} else {
				assert.False(t, ok)
				require.Len(t, r.errs, 1, r.String())
				for _, want := range tt.wantErr {
					assert.Contains(t, r.errs[0], want)
				}
			}
			got := tt.tmpl.DeepCopy()
			assert.Error(t, env.Client.Get(t.Context(), client.ObjectKeyFromObject(tt.tmpl), got), "the template is deleted at the end")
		})
	}
}

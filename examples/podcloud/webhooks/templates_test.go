package webhooks_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	cradmission "sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/capkit/capkit/contract/admission"
	"github.com/capkit/capkit/examples/podcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/podcloud/webhooks"
)

func TestValidatePodMachineTemplateSpec(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec v1beta2.PodMachineSpec
		want []string
	}{
		{"empty", v1beta2.PodMachineSpec{}, nil},
		{"image and failure domain", v1beta2.PodMachineSpec{Image: "kindest/node:v1.36.3", FailureDomain: "zone-a"}, nil},
		{"provider ID", v1beta2.PodMachineSpec{ProviderID: "podcloud://ns/m-0/uid"},
			[]string{`spec.template.spec.providerID: Invalid value: "podcloud://ns/m-0/uid": must be empty in a template: every PodMachine made from it gets its own Pod`}},
		{"unparsable provider ID is reported once", v1beta2.PodMachineSpec{ProviderID: "x"},
			[]string{`spec.template.spec.providerID: Invalid value: "x": must be empty in a template: every PodMachine made from it gets its own Pod`}},
		{"resources", v1beta2.PodMachineSpec{Resources: resources("cpu", "2", "memory", "4Gi")}, nil},
		{"a GPU", v1beta2.PodMachineSpec{Resources: resources("nvidia.com/gpu", "1")},
			[]string{`spec.template.spec.resources: Unsupported value: "nvidia.com/gpu": supported values: "cpu", "memory"`}},
		{"bad image", v1beta2.PodMachineSpec{Image: "kindest/node:"},
			[]string{`spec.template.spec.image: Invalid value: "kindest/node:": must be a container image reference such as "kindest/node:v1.36.3" or "registry.example.com:5000/node@sha256:<64 hex digits>"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := webhooks.ValidatePodMachineTemplateSpec(&tc.spec, field.NewPath("spec", "template", "spec"))
			assert.Equal(t, tc.want, errorStrings(got))
		})
	}
}

// requestContext returns a context holding an update admission request, a dry-run or not.
func requestContext(dryRun bool) context.Context {
	return cradmission.NewContextWithRequest(context.Background(), cradmission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		Operation: admissionv1.Update, DryRun: ptr.To(dryRun),
	}})
}

// updateCase is an update of a template to newT under ctx (a dry-run or not) and the error it must give: ""
// for none, or what an Invalid error must contain.
type updateCase[T client.Object] struct {
	name    string
	ctx     context.Context
	newT    T
	wantErr string
}

// assertUpdates runs wh.ValidateUpdate from old to each case's newT.
func assertUpdates[T client.Object, S any](t *testing.T, wh admission.Webhook[T, S], old T, cases []updateCase[T]) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := wh.ValidateUpdate(tc.ctx, old, tc.newT)
			if tc.wantErr == "" {
				require.NoError(t, err)
				return
			}
			requireInvalid(t, err, tc.wantErr)
		})
	}
}

func TestPodMachineTemplateWebhook(t *testing.T) {
	wh := webhooks.PodMachineTemplate
	tmpl := &v1beta2.PodMachineTemplate{ObjectMeta: metav1.ObjectMeta{Name: "workers"}}
	tmpl.Spec.Template.Spec.Image = "kindest/node:v1.36.3"
	_, err := wh.ValidateCreate(t.Context(), tmpl)
	require.NoError(t, err)

	withID := tmpl.DeepCopy()
	withID.Spec.Template.Spec.ProviderID = "podcloud://ns/m-0/uid"
	_, err = wh.ValidateCreate(t.Context(), withID)
	require.True(t, apierrors.IsInvalid(err), "want Invalid, got %v", err)
	assert.Contains(t, err.Error(), `spec.template.spec.providerID: Invalid value: "podcloud://ns/m-0/uid": must be empty in a template`)

	newer := tmpl.DeepCopy()
	newer.Spec.Template.Spec.Image = "kindest/node:v1.37.0"
	resized := tmpl.DeepCopy()
	resized.Spec.Template.Spec.Resources = resources("cpu", "2")
	annotated := newer.DeepCopy()
	annotated.Annotations = map[string]string{admission.TopologyDryRunAnnotation: ""}
	relabelled := tmpl.DeepCopy()
	relabelled.Spec.Template.ObjectMeta.Labels = map[string]string{"team": "a"}
	annotatedRelabelled := relabelled.DeepCopy()
	annotatedRelabelled.Annotations = annotated.Annotations
	badAnnotated := annotated.DeepCopy()
	badAnnotated.Spec.Template.Spec.Image = "kindest/Node"
	onlyObjectMeta := tmpl.DeepCopy()
	onlyObjectMeta.Labels = map[string]string{"team": "a"}

	const specImmutable = `PodMachineTemplate.infrastructure.podcloud.capkit.io "workers" is invalid: ` +
		`spec.template.spec.image: Forbidden: field is immutable: create a new template and point its users at it`
	assertUpdates(t, wh, tmpl, []updateCase[*v1beta2.PodMachineTemplate]{
		{"no change", t.Context(), tmpl, ""},
		{"object metadata may change", t.Context(), onlyObjectMeta, ""},
		{"spec change", t.Context(), newer, specImmutable},
		{"template metadata change", t.Context(), relabelled, "spec.template.metadata: Forbidden: field is immutable"},
		{"resources change", t.Context(), resized, "spec.template.spec.resources: Forbidden: field is immutable"},
		{"dry-run without the annotation", requestContext(true), newer, specImmutable},
		{"annotated, not a dry-run", requestContext(false), annotated, specImmutable},
		{"annotated, no request", t.Context(), annotated, specImmutable},
		{"topology dry-run", requestContext(true), annotated, ""},
		{"topology dry-run of template metadata", requestContext(true), annotatedRelabelled, ""},
		{"topology dry-run still validates", requestContext(true), badAnnotated, `spec.template.spec.image: Invalid value: "kindest/Node"`},
	})

	_, err = wh.ValidateDelete(t.Context(), tmpl)
	require.NoError(t, err)
}

func TestPodClusterTemplateWebhook(t *testing.T) {
	wh := webhooks.PodClusterTemplate
	tmpl := &v1beta2.PodClusterTemplate{ObjectMeta: metav1.ObjectMeta{Name: "pods"}}
	require.NoError(t, wh.Default(t.Context(), tmpl))
	assert.Equal(t, v1beta2.ControlPlaneServiceSpec{Type: v1beta2.ServiceClusterIP, Port: webhooks.DefaultControlPlanePort},
		tmpl.Spec.Template.Spec.ControlPlaneService, "defaulted as a PodCluster's spec")
	_, err := wh.ValidateCreate(t.Context(), tmpl)
	require.NoError(t, err)

	hostOnly := tmpl.DeepCopy()
	hostOnly.Spec.Template.Spec.ControlPlaneEndpoint.Host = "10.0.0.1"
	_, err = wh.ValidateCreate(t.Context(), hostOnly)
	require.True(t, apierrors.IsInvalid(err), "want Invalid, got %v", err)
	assert.Contains(t, err.Error(), `PodClusterTemplate.infrastructure.podcloud.capkit.io "pods" is invalid: `+
		`spec.template.spec.controlPlaneEndpoint.port: Required value: must be set when host is set (host "10.0.0.1")`)

	nodePort := tmpl.DeepCopy()
	nodePort.Spec.Template.Spec.ControlPlaneService.Type = v1beta2.ServiceNodePort
	annotated := nodePort.DeepCopy()
	annotated.Annotations = map[string]string{admission.TopologyDryRunAnnotation: ""}
	relabelled := tmpl.DeepCopy()
	relabelled.Spec.Template.ObjectMeta.Annotations = map[string]string{"team": "a"}
	otherNamespace := tmpl.DeepCopy()
	otherNamespace.Spec.Template.Spec.Namespace = "workloads"
	badAnnotated := annotated.DeepCopy()
	badAnnotated.Spec.Template.Spec.ControlPlaneEndpoint.Port = 6443
	onlyObjectMeta := tmpl.DeepCopy()
	onlyObjectMeta.Labels = map[string]string{"team": "a"}
	const typeImmutable = `PodClusterTemplate.infrastructure.podcloud.capkit.io "pods" is invalid: ` +
		`spec.template.spec.controlPlaneService.type: Forbidden: field is immutable: create a new template and point its users at it`
	assertUpdates(t, wh, tmpl, []updateCase[*v1beta2.PodClusterTemplate]{
		{"no change", t.Context(), tmpl, ""},
		{"object metadata may change", t.Context(), onlyObjectMeta, ""},
		{"spec change names the field", t.Context(), nodePort, typeImmutable},
		{"namespace change", t.Context(), otherNamespace, "spec.template.spec.namespace: Forbidden: field is immutable"},
		{"template metadata change", t.Context(), relabelled, "spec.template.metadata: Forbidden: field is immutable"},
		{"dry-run without the annotation", requestContext(true), nodePort, typeImmutable},
		{"annotated, not a dry-run", requestContext(false), annotated, typeImmutable},
		{"annotated, no request", t.Context(), annotated, typeImmutable},
		{"topology dry-run", requestContext(true), annotated, ""},
		{"topology dry-run still validates", requestContext(true), badAnnotated,
			`spec.template.spec.controlPlaneEndpoint.host: Required value: must be set when port is set (port 6443)`},
	})

	deleting := hostOnly.DeepCopy()
	deleting.DeletionTimestamp = ptr.To(metav1.Now())
	_, err = wh.ValidateUpdate(t.Context(), hostOnly, deleting)
	require.NoError(t, err, "an invalid template being deleted can lose its finalizers")
	_, err = wh.ValidateDelete(t.Context(), tmpl)
	require.NoError(t, err)
}

package webhook_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/contract/webhook"
)

type spec struct {
	Template struct {
		ObjectMeta contract.TemplateObjectMeta `json:"metadata,omitempty,omitzero"`
		Spec       struct {
			Flavor  string `json:"flavor,omitempty"`
			Network struct {
				CIDR string `json:"cidr,omitempty"`
			} `json:"network,omitzero"`
		} `json:"spec"`
	} `json:"template"`
}

func dryRun(ctx context.Context, dry bool) context.Context {
	return admission.NewContextWithRequest(ctx, admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{DryRun: ptr.To(dry)}})
}

func TestValidateImmutable(t *testing.T) {
	var base spec
	base.Template.Spec.Flavor = "small"
	base.Template.Spec.Network.CIDR = "10.0.0.0/16"
	flavor, cidr, labels := base, base, base
	flavor.Template.Spec.Flavor = "large"
	cidr.Template.Spec.Network.CIDR = "10.1.0.0/16"
	labels.Template.ObjectMeta.Labels = map[string]string{"a": "b"}
	annotated := &metav1.ObjectMeta{Annotations: map[string]string{webhook.TopologyDryRunAnnotation: ""}}
	plain := &metav1.ObjectMeta{}
	tests := []struct {
		name string
		ctx  context.Context
		obj  metav1.Object
		new  spec
		want []string
	}{
		{"unchanged", context.Background(), plain, base, nil},
		{"flavor changed", context.Background(), plain, flavor, []string{"spec.template.spec.flavor: Forbidden: " + webhook.Immutable}},
		{"nested field changed", context.Background(), plain, cidr, []string{"spec.template.spec.network.cidr: Forbidden: " + webhook.Immutable}},
		{"metadata changed", context.Background(), plain, labels, []string{"spec.template.metadata: Forbidden: " + webhook.Immutable}},
		{"topology dry-run passes", dryRun(context.Background(), true), annotated, flavor, nil},
		{"dry-run without the annotation", dryRun(context.Background(), true), plain, flavor, []string{"spec.template.spec.flavor: Forbidden: " + webhook.Immutable}},
		{"annotation without dry-run", dryRun(context.Background(), false), annotated, flavor, []string{"spec.template.spec.flavor: Forbidden: " + webhook.Immutable}},
		{"annotation outside an admission request", context.Background(), annotated, flavor, []string{"spec.template.spec.flavor: Forbidden: " + webhook.Immutable}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs := webhook.ValidateImmutable(tt.ctx, tt.obj, field.NewPath("spec"), base, tt.new)
			var got []string
			for _, e := range errs {
				got = append(got, e.Error())
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

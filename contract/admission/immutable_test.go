package admission_test

import (
	"context"
	"maps"
	"testing"

	"github.com/stretchr/testify/assert"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
	cradmission "sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/contract/admission"
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
	return cradmission.NewContextWithRequest(ctx, cradmission.Request{AdmissionRequest: admissionv1.AdmissionRequest{DryRun: ptr.To(dry)}})
}

func TestValidateImmutable(t *testing.T) {
	var base spec
	base.Template.Spec.Flavor = "small"
	base.Template.Spec.Network.CIDR = "10.0.0.0/16"
	flavor, cidr, labels := base, base, base
	flavor.Template.Spec.Flavor = "large"
	cidr.Template.Spec.Network.CIDR = "10.1.0.0/16"
	labels.Template.ObjectMeta.Labels = map[string]string{"a": "b"}
	annotated := &metav1.ObjectMeta{Annotations: map[string]string{admission.TopologyDryRunAnnotation: ""}}
	plain := &metav1.ObjectMeta{}
	tests := []struct {
		name string
		ctx  context.Context
		obj  metav1.Object
		new  spec
		want []string
	}{
		{"unchanged", t.Context(), plain, base, nil},
		{"flavor changed", t.Context(), plain, flavor, []string{"spec.template.spec.flavor: Forbidden: " + admission.Immutable}},
		{"nested field changed", t.Context(), plain, cidr, []string{"spec.template.spec.network.cidr: Forbidden: " + admission.Immutable}},
		{"metadata changed", t.Context(), plain, labels, []string{"spec.template.metadata: Forbidden: " + admission.Immutable}},
		{"topology dry-run passes", dryRun(t.Context(), true), annotated, flavor, nil},
		{"dry-run without the annotation", dryRun(t.Context(), true), plain, flavor, []string{"spec.template.spec.flavor: Forbidden: " + admission.Immutable}},
		{"annotation without dry-run", dryRun(t.Context(), false), annotated, flavor, []string{"spec.template.spec.flavor: Forbidden: " + admission.Immutable}},
		{"annotation outside an admission request", t.Context(), annotated, flavor, []string{"spec.template.spec.flavor: Forbidden: " + admission.Immutable}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs := admission.ValidateImmutable(tt.ctx, tt.obj, field.NewPath("spec"), base, tt.new)
			var got []string
			for _, e := range errs {
				got = append(got, e.Error())
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestValidateImmutableExcept(t *testing.T) {
	type network struct {
		CIDR    string   `json:"cidr,omitempty"`
		Subnets []string `json:"subnets,omitempty"`
	}
	type machineSpec struct {
		Image   string            `json:"image,omitempty"`
		Flavor  string            `json:"flavor,omitempty"`
		Tags    map[string]string `json:"tags,omitempty"`
		Network *network          `json:"network,omitempty"`
	}
	base := machineSpec{Image: "i1", Flavor: "small", Tags: map[string]string{"a": "1"}, Network: &network{CIDR: "10.0.0.0/16", Subnets: []string{"s1"}}}
	with := func(f func(s *machineSpec)) machineSpec {
		s := base
		s.Tags = maps.Clone(base.Tags)
		n := *base.Network
		s.Network = &n
		f(&s)
		return s
	}
	mutable := [][]string{{"flavor"}, {"tags"}, {"network", "cidr"}}
	tests := []struct {
		name    string
		new     machineSpec
		mutable [][]string
		want    []string
	}{
		{"unchanged", base, mutable, nil},
		{"mutable fields changed", with(func(s *machineSpec) {
			s.Flavor, s.Tags["a"], s.Tags["b"], s.Network.CIDR = "large", "2", "3", "10.1.0.0/16"
		}), mutable, nil},
		{"tags removed whole", with(func(s *machineSpec) { s.Tags = nil }), mutable, nil},
		{"an immutable field", with(func(s *machineSpec) { s.Image = "i2" }), mutable, []string{"spec.image: Forbidden: field is immutable"}},
		{"beside a mutable field", with(func(s *machineSpec) { s.Network.Subnets = []string{"s2"} }), mutable,
			[]string{"spec.network.subnets: Forbidden: field is immutable"}},
		{"the parent of a mutable field removed", with(func(s *machineSpec) { s.Network = nil }), mutable,
			[]string{"spec.network: Forbidden: field is immutable"}},
		{"each field named, sorted", with(func(s *machineSpec) { s.Image, s.Flavor = "i2", "large" }), nil, []string{
			"spec.flavor: Forbidden: field is immutable", "spec.image: Forbidden: field is immutable",
		}},
		{"an empty path covers nothing", with(func(s *machineSpec) { s.Flavor = "large" }), [][]string{{}},
			[]string{"spec.flavor: Forbidden: field is immutable"}},
		{"a path below a field does not cover it", with(func(s *machineSpec) { s.Flavor = "large" }), [][]string{{"flavor", "name"}},
			[]string{"spec.flavor: Forbidden: field is immutable"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, e := range admission.ValidateImmutableExcept(field.NewPath("spec"), &base, &tt.new, tt.mutable) {
				got = append(got, e.Error())
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

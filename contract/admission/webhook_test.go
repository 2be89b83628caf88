package admission_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	cradmission "sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/capkit/capkit/contract/admission"
)

var machineWebhook = admission.Webhook[*Machine, MachineSpec]{
	GroupKind:          schema.GroupKind{Group: "infrastructure.example.com", Kind: "MyMachine"},
	Spec:               func(m *Machine) *MachineSpec { return &m.Spec },
	DefaultSpec:        defaultMachineSpec,
	ValidateSpec:       validateMachineSpec,
	ValidateSpecUpdate: validateMachineSpecUpdate,
}

var templateWebhook = admission.Webhook[*MachineTemplate, MachineSpec]{
	Template:     true,
	Spec:         func(t *MachineTemplate) *MachineSpec { return &t.Spec.Template.Spec },
	ValidateSpec: validateMachineSpec,
}

func machine(flavor, providerID string, deleting bool) *Machine {
	m := &Machine{Spec: MachineSpec{Flavor: flavor, ProviderID: providerID}}
	m.Name = "m-0"
	if deleting {
		m.DeletionTimestamp = &metav1.Time{Time: time.Unix(1, 0)}
	}
	return m
}

func template(flavor string, annotations map[string]string) *MachineTemplate {
	t := &MachineTemplate{}
	t.Name, t.Annotations = "workers", annotations
	t.Spec.Template.Spec.Flavor = flavor
	return t
}

func TestWebhookMachine(t *testing.T) {
	ctx := t.Context()
	tests := []struct {
		name     string
		old, new *Machine
		wantErr  []string
	}{
		{name: "create valid", new: machine("small", "", false)},
		{name: "create invalid", new: machine("huge", "", false),
			wantErr: []string{`MyMachine.infrastructure.example.com "m-0" is invalid`, `spec.flavor: Unsupported value: "huge"`}},
		{name: "update keeps the provider ID", old: machine("small", "id-1", false), new: machine("large", "id-1", false)},
		{name: "update changes the provider ID", old: machine("small", "id-1", false), new: machine("small", "id-2", false),
			wantErr: []string{"spec.providerID: Forbidden: field is immutable once set"}},
		{name: "an invalid spec being deleted passes", old: machine("huge", "", true), new: machine("huge", "", true)},
		{name: "an immutable field is checked even when deleting", old: machine("huge", "id-1", true), new: machine("huge", "id-2", true),
			wantErr: []string{"spec.providerID: Forbidden"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			if tt.old == nil {
				_, err = machineWebhook.ValidateCreate(ctx, tt.new)
			} else {
				_, err = machineWebhook.ValidateUpdate(ctx, tt.old, tt.new)
			}
			if len(tt.wantErr) == 0 {
				require.NoError(t, err)
				return
			}
			require.True(t, apierrors.IsInvalid(err), "a 422 Invalid: %v", err)
			for _, want := range tt.wantErr {
				assert.Contains(t, err.Error(), want)
			}
		})
	}
	m := machine("", "", false)
	require.NoError(t, machineWebhook.Default(ctx, m))
	assert.Equal(t, "small", m.Spec.Flavor)
	require.NoError(t, templateWebhook.Default(ctx, template("", nil)), "no DefaultSpec: nothing to do")
	_, err := machineWebhook.ValidateDelete(ctx, m)
	assert.NoError(t, err)
}

func TestWebhookTemplate(t *testing.T) {
	dryRun := cradmission.NewContextWithRequest(context.Background(), cradmission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		DryRun: ptr.To(true), Kind: metav1.GroupVersionKind{Group: "infrastructure.example.com", Version: "v1", Kind: "MyMachineTemplate"}}})
	topology := map[string]string{admission.TopologyDryRunAnnotation: ""}
	tests := []struct {
		name     string
		ctx      context.Context
		old, new *MachineTemplate
		wantErr  []string
	}{
		{name: "unchanged", ctx: t.Context(), old: template("small", nil), new: template("small", map[string]string{"a": "b"})},
		{name: "changed", ctx: dryRun, old: template("small", nil), new: template("large", nil),
			wantErr: []string{`MyMachineTemplate.infrastructure.example.com "workers" is invalid`, "spec.template.spec.flavor: Forbidden: field is immutable"}},
		{name: "the topology controller's dry-run", ctx: dryRun, old: template("small", nil), new: template("large", topology)},
		{name: "the new spec is checked in a dry-run too", ctx: dryRun, old: template("small", nil), new: template("huge", topology),
			wantErr: []string{`spec.template.spec.flavor: Unsupported value: "huge"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := templateWebhook.ValidateUpdate(tt.ctx, tt.old, tt.new)
			if len(tt.wantErr) == 0 {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			for _, want := range tt.wantErr {
				assert.Contains(t, err.Error(), want)
			}
		})
	}
}

func TestWebhookTemplateMetadataMutable(t *testing.T) {
	wh := templateWebhook
	wh.TemplateMetadataMutable = true
	relabelled := template("small", nil)
	relabelled.Spec.Template.Spec.ProviderID = ""
	_, err := wh.ValidateUpdate(t.Context(), template("small", nil), relabelled)
	require.NoError(t, err)
	_, err = wh.ValidateUpdate(t.Context(), template("small", nil), template("large", nil))
	assert.ErrorContains(t, err, "spec.template.spec.flavor: Forbidden: field is immutable")
}

func TestSetupWithManagerNeedsSpec(t *testing.T) {
	err := admission.SetupWithManager(nil, admission.Webhook[*Machine, MachineSpec]{})
	assert.ErrorContains(t, err, "Spec must not be nil")
}

package admission_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	cradmission "sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/capkit/capkit/contract/admission"
)

// statusMachine is a hub InfraMachine with a status subresource.
type statusMachine struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              MachineSpec `json:"spec,omitempty"`
	Status            struct {
		FailureDomain string `json:"failureDomain,omitempty"`
	} `json:"status,omitempty"`
}

func (m *statusMachine) DeepCopyObject() runtime.Object {
	out := *m
	m.DeepCopyInto(&out.ObjectMeta)
	return &out
}

// TestWebhookKeepStatus: with KeepStatus, the defaulting webhook puts back the stored status on an update of the
// main resource and drops it on a create, so a stash cannot set it; a status write is left alone.
func TestWebhookKeepStatus(t *testing.T) {
	request := func(op admissionv1.Operation, sub string) context.Context {
		return cradmission.NewContextWithRequest(context.Background(), cradmission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
			Operation: op, SubResource: sub, OldObject: runtime.RawExtension{Raw: []byte(`{"status":{"failureDomain":"zone-a"}}`)},
		}})
	}
	tests := []struct {
		name string
		keep bool
		ctx  context.Context
		want string
	}{
		{"update of the main resource", true, request(admissionv1.Update, ""), "zone-a"},
		{"create", true, request(admissionv1.Create, ""), ""},
		{"status write", true, request(admissionv1.Update, "status"), "zone-forged"},
		{"without KeepStatus", false, request(admissionv1.Update, ""), "zone-forged"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wh := admission.Webhook[*statusMachine, MachineSpec]{
				Spec: func(m *statusMachine) *MachineSpec { return &m.Spec }, DefaultSpec: defaultMachineSpec, KeepStatus: tt.keep,
			}
			m := &statusMachine{}
			m.Status.FailureDomain = "zone-forged"
			require.NoError(t, wh.Default(tt.ctx, m))
			assert.Equal(t, tt.want, m.Status.FailureDomain)
			assert.Equal(t, "small", m.Spec.Flavor, "and the spec is defaulted")
		})
	}
}

package conversion_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/capkit/capkit/contract/conversion"
	"github.com/capkit/capkit/contract/conversion/internal/testapi/v1beta2"
)

// TestRestoreReportsBadStash: a stash that cannot be read is no error, which would fail every object of the
// LIST it is converted in; it is removed and reported on its own object, and a good one clears an old report.
func TestRestoreReportsBadStash(t *testing.T) {
	tests := []struct {
		name       string
		annots     map[string]string
		wantReport string // "" for no BadStashAnnotation
	}{
		{name: "garbage", annots: map[string]string{conversion.StashAnnotation: `{"x":`},
			wantReport: `cannot restore annotation "conversion.capkit.io/stash" of "ns/m": unexpected end of JSON input`},
		{name: "wrong type", annots: map[string]string{conversion.StashAnnotation: `[1]`},
			wantReport: `cannot restore annotation "conversion.capkit.io/stash" of "ns/m": json: cannot unmarshal array`},
		{name: "too big", annots: map[string]string{conversion.StashAnnotation: strings.Repeat(" ", conversion.MaxStashSize+1)},
			wantReport: `cannot restore annotation "conversion.capkit.io/stash" of "ns/m": 131073 bytes, more than 131072`},
		{name: "an old report is removed", annots: map[string]string{conversion.StashAnnotation: `{"x":1}`, conversion.BadStashAnnotation: "old"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := &metav1.ObjectMeta{Name: "m", Namespace: "ns", Annotations: tt.annots}
			got := map[string]int{"kept": 1}
			found, err := conversion.Restore(obj, &got)
			require.NoError(t, err)
			assert.NotContains(t, obj.Annotations, conversion.StashAnnotation)
			if tt.wantReport == "" {
				assert.True(t, found)
				assert.NotContains(t, obj.Annotations, conversion.BadStashAnnotation)
				return
			}
			assert.False(t, found)
			assert.Equal(t, map[string]int{"kept": 1}, got, "v is left as it is")
			assert.True(t, strings.HasPrefix(obj.Annotations[conversion.BadStashAnnotation], tt.wantReport),
				"report %q", obj.Annotations[conversion.BadStashAnnotation])
			assert.LessOrEqual(t, len(obj.Annotations[conversion.BadStashAnnotation]), 256)
		})
	}
	_, err := conversion.Restore(&metav1.ObjectMeta{}, map[string]int{})
	require.ErrorContains(t, err, "is not a non-nil pointer")
}

// TestStatusStash: the status stash has its own annotation and its own report, and Restore leaves it alone.
func TestStatusStash(t *testing.T) {
	obj := &metav1.ObjectMeta{Name: "m", Namespace: "ns"}
	require.NoError(t, conversion.Stash(obj, map[string]string{"tags": "a"}))
	require.NoError(t, conversion.StashStatus(obj, map[string]string{"failureDomain": "zone-a"}))
	assert.Equal(t, map[string]string{conversion.StashAnnotation: `{"tags":"a"}`,
		conversion.StatusStashAnnotation: `{"failureDomain":"zone-a"}`}, obj.Annotations)

	var spec, status map[string]string
	_, err := conversion.Restore(obj, &spec)
	require.NoError(t, err)
	assert.Contains(t, obj.Annotations, conversion.StatusStashAnnotation)
	found, err := conversion.RestoreStatus(obj, &status)
	require.NoError(t, err)
	assert.True(t, found)
	assert.Equal(t, map[string]string{"failureDomain": "zone-a"}, status)
	assert.Nil(t, obj.Annotations)

	obj.Annotations = map[string]string{conversion.StatusStashAnnotation: "nope"}
	found, err = conversion.RestoreStatus(obj, &status)
	require.NoError(t, err)
	assert.False(t, found)
	assert.Contains(t, obj.Annotations[conversion.BadStatusStashAnnotation], `"conversion.capkit.io/status-stash" of "ns/m"`)
	assert.NotContains(t, obj.Annotations, conversion.BadStashAnnotation)
}

// TestKeepStatus: on a write to the main resource the hub's defaulting webhook puts back the stored status and
// status stash (update) or drops them (create), whatever a stash converted into the request; a write to the
// status subresource is left alone.
func TestKeepStatus(t *testing.T) {
	stored := &v1beta2.FooMachine{ObjectMeta: metav1.ObjectMeta{Name: "m", Namespace: "ns",
		Annotations: map[string]string{conversion.StatusStashAnnotation: `{"failureReason":"Stored"}`}}}
	stored.Status.FailureDomain = "zone-a"
	raw, err := json.Marshal(stored)
	require.NoError(t, err)
	forged := func() *v1beta2.FooMachine {
		m := &v1beta2.FooMachine{ObjectMeta: metav1.ObjectMeta{Name: "m", Namespace: "ns", Labels: map[string]string{"new": "label"},
			Annotations: map[string]string{conversion.StatusStashAnnotation: `{"failureReason":"Forged"}`, "other": "kept"}}}
		m.Spec.Size = "large"
		m.Status.FailureDomain = "zone-forged"
		m.Status.Initialization.Provisioned = new(true)
		return m
	}
	tests := []struct {
		name       string
		op         admissionv1.Operation
		sub        string
		wantDomain string
		wantStash  string // "" for none
	}{
		{name: "update keeps the stored status", op: admissionv1.Update, wantDomain: "zone-a", wantStash: `{"failureReason":"Stored"}`},
		{name: "create has no status", op: admissionv1.Create},
		{name: "a status write is left alone", op: admissionv1.Update, sub: "status", wantDomain: "zone-forged", wantStash: `{"failureReason":"Forged"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{Operation: tt.op, SubResource: tt.sub}}
			if tt.op == admissionv1.Update {
				req.OldObject = runtime.RawExtension{Raw: raw}
			}
			m := forged()
			require.NoError(t, conversion.KeepStatus(admission.NewContextWithRequest(t.Context(), req), m))
			assert.Equal(t, tt.wantDomain, m.Status.FailureDomain)
			assert.Equal(t, tt.wantStash, m.Annotations[conversion.StatusStashAnnotation])
			assert.Equal(t, "large", m.Spec.Size, "the spec is the request's")
			assert.Equal(t, "kept", m.Annotations["other"])
			assert.Equal(t, "label", m.Labels["new"])
			if tt.sub == "" {
				assert.Nil(t, m.Status.Initialization.Provisioned)
			}
		})
	}

	err = conversion.KeepStatus(t.Context(), forged())
	require.ErrorContains(t, err, `cannot keep the status of "ns/m"`)
	big := admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{Operation: admissionv1.Update,
		OldObject: runtime.RawExtension{Raw: make([]byte, 3<<20+1)}}}
	err = conversion.KeepStatus(admission.NewContextWithRequest(t.Context(), big), forged())
	require.ErrorContains(t, err, "old object of 3145729 bytes, more than 3145728")
}

package lint_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/contract/lint"
)

type provSpec struct {
	ProviderID string `json:"providerID,omitempty"`
}

// provGood writes the v1beta2 flag through the embedded contract type.
type provGood struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              provSpec `json:"spec"`
	Status            struct {
		Initialization contract.InfraMachineInitialization `json:"initialization,omitempty,omitzero"`
	} `json:"status"`
}

func (m *provGood) IsProvisioned() bool      { return m.Status.Initialization.Provisioned != nil }
func (m *provGood) SetProvisioned(v bool)    { m.Status.Initialization.Provisioned = &v }
func (m *provStale) IsProvisioned() bool     { return m.Status.Ready }
func (m *provStale) SetProvisioned(v bool)   { m.Status.Ready = v }
func (m *provNilInit) IsProvisioned() bool   { return false }
func (m *provNilInit) SetProvisioned(v bool) { m.Status.Initialization.Provisioned = &v }
func (m *provV1) IsProvisioned() bool        { return m.Status.Ready }
func (m *provV1) SetProvisioned(v bool)      { m.Status.Ready = v }

// provStale has the v1beta2 field, but its setter, left from v1beta1, writes status.ready.
type provStale struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              provSpec `json:"spec"`
	Status            struct {
		Ready          bool                                `json:"ready,omitempty"`
		Initialization contract.InfraMachineInitialization `json:"initialization,omitempty,omitzero"`
	} `json:"status"`
}

// provNilInit keeps status.initialization behind a pointer that its setter never allocates.
type provNilInit struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              provSpec `json:"spec"`
	Status            struct {
		Initialization *contract.InfraMachineInitialization `json:"initialization,omitempty"`
	} `json:"status"`
}

// provV1 is still in the v1beta1 shape: no status.initialization at all.
type provV1 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              provSpec `json:"spec"`
	Status            struct {
		Ready bool `json:"ready,omitempty"`
	} `json:"status"`
}

// provNoSetter has the field and no accessor: nothing to call (scopes require the method at compile time).
type provNoSetter provGood

// TestCheckTypeSetProvisioned covers gotype.set-provisioned: a v1beta2 type must have a way to write
// status.initialization.provisioned, and its SetProvisioned must use it.
func TestCheckTypeSetProvisioned(t *testing.T) {
	tests := []struct {
		name    string
		obj     any
		v       contract.Version
		rule    string
		message string
	}{
		{name: "setter writes the v1beta2 flag", obj: &provGood{}, v: contract.V1Beta2},
		{name: "no setter", obj: &provNoSetter{}, v: contract.V1Beta2},
		{name: "v1beta1 setter writes status.ready", obj: &provStale{}, v: contract.V1Beta1},
		{name: "v1beta1 setter under v1beta2", obj: &provStale{}, v: contract.V1Beta2, rule: lint.RuleGoTypeSetProvisioned,
			message: "SetProvisioned(true) on a new lint_test.provStale leaves status.initialization.provisioned unset, so Cluster API never sees the infrastructure provisioned: make SetProvisioned write status.initialization.provisioned (embed contract.InfraMachineInitialization as status.initialization"},
		{name: "setter panics on a nil pointer", obj: &provNilInit{}, v: contract.V1Beta2, rule: lint.RuleGoTypeSetProvisioned,
			message: "SetProvisioned(true) on a new lint_test.provNilInit fails: panic: runtime error: invalid memory address or nil pointer dereference"},
		{name: "no field: the field rule alone", obj: &provV1{}, v: contract.V1Beta2, rule: "inframachine.provisioned",
			message: "missing required field status.initialization.provisioned but status.ready exists"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vs := lint.CheckType(tt.obj, lint.KindInfraMachine, tt.v)
			if tt.rule == "" {
				assert.Empty(t, vs.Strings())
				return
			}
			require.Len(t, vs, 1, vs.String())
			assert.Equal(t, tt.rule, vs[0].Rule)
			assert.Equal(t, "status.initialization.provisioned", vs[0].Path)
			assert.Contains(t, vs[0].Message, tt.message)
		})
	}
}
